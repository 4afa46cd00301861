"""``synth derive`` and ``synth audit``: eval items from any tool-use file, and what is wrong with one."""

from __future__ import annotations

from pathlib import Path

import typer

from synth.cli.common import exits_on_error, fail


def register(app: typer.Typer) -> None:
    app.command()(derive)
    app.command()(audit)


def derive(
    source: Path = typer.Argument(
        ..., help="Tool-use JSONL: OpenAI chat (tools or functions), ShareGPT/Hermes or APIGen rows."
    ),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for eval.jsonl, scored.jsonl, teval/, rejected.jsonl."),
    seed: int = typer.Option(0, "--seed", help="Seed of the injected negatives."),
    server: str | None = typer.Option(None, "--server", help="Server name for the records. Default: the file's name."),
    strict: bool = typer.Option(False, "--strict", help="Drop items whose call the gates flag (and say how many)."),
) -> None:
    """Eval items for every tool call of any chat file, as written; gate problems become flags on the items."""
    import json

    from synth.derive import derive as run_derive
    from synth.rundir import RunLock

    with exits_on_error(), RunLock(out):  # one writer per folder
        report = run_derive(source, out, seed, server, strict)
    typer.echo(
        json.dumps({k: v for k, v in report.items() if k not in ("source", "teval")}, indent=2, ensure_ascii=False)
    )
    if strict:
        typer.echo(f"--strict: dropped {report['dropped_flagged']} flagged items of {report['tool_calls']} calls")
    typer.echo(f"files in {out}: eval.jsonl, scored.jsonl, teval/, rejected.jsonl, derive_report.json")


def audit(
    source: Path = typer.Argument(
        ..., help="Tool-use JSONL: OpenAI chat (tools or functions), ShareGPT/Hermes or APIGen rows."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    fail_on: list[str] = typer.Option(
        [],
        "--fail-on",
        help="Exit 1 when a rate passes a threshold, e.g. grounding>0.1 "
        "(rates: unreadable, unknown_tool, schema, grounding, duplicates, "
        "near_duplicates, answer_after_error).",
    ),
) -> None:
    """What is wrong with a tool-use file: unknown tools, schema failures, ungrounded values, duplicates."""
    import json

    from synth.ingest.audit import audit as run_audit
    from synth.ingest.audit import failures, parse_fail_on

    with exits_on_error():
        thresholds = parse_fail_on(fail_on)
        report = run_audit(source)
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_audit(report)
    broken = failures(report, thresholds)
    if broken:
        fail("audit thresholds passed: " + "; ".join(broken), 1)


def _print_audit(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    formats = ", ".join(f"{k} ({v})" for k, v in report["formats"].items()) or "none"
    m, c = report["messages_per_conversation"], report["tool_calls_per_conversation"]
    console.print(
        f"[bold]{report['source']}[/]: {report['lines']} lines, {report['conversations']} conversations "
        f"({formats}); messages per conversation {m['mean']} ({m['min']}-{m['max']}), tool calls "
        f"{report['tool_calls']} ({c['mean']} a conversation, {c['min']}-{c['max']}); tools used "
        f"{report['tools']['used']} of {report['tools']['offered']} offered",
        highlight=False,
    )
    table = Table(header_style="bold")
    for name in ("check", "count", "rate", "first lines"):
        table.add_column(name, justify="right" if name in ("count", "rate") else "left")
    ex, counts, rates = report["examples"], report["counts"], report["rates"]
    rows = [
        ("unreadable lines", sum(report["unreadable"].values()), "unreadable"),
        ("calls naming a tool not offered", counts["unknown_tool"], "unknown_tool"),
        ("calls whose arguments fail the schema", counts["schema"], "schema"),
        (f"calls with ungrounded values ({counts['ungrounded_values']} values)", counts["grounding"], "grounding"),
        ("duplicate first requests", counts["duplicates"], "duplicates"),
        ("near-duplicate first requests", counts["near_duplicates"], "near_duplicates"),
        ("answers right after a tool error", counts["answer_after_error"], "answer_after_error"),
    ]
    for label, n, key in rows:
        first = ", ".join(list(dict.fromkeys(str(e["line"]) for e in ex[key]))[:6])
        table.add_row(label, str(n), f"{rates[key]:.1%}", first)
    console.print(table)
    for e in ex["schema"][:3]:
        console.print(f"  schema: line {e['line']} {e['tool']} {e['pointer'] or '/'}: {e['why']}", highlight=False)
    for e in ex["unusable_tool_definitions"][:3]:
        console.print(f"  tools: line {e['line']}: {e['why']}", highlight=False)
    if report["tools"]["unused"]:
        console.print(f"unused tools: {', '.join(report['tools']['unused'][:15])}", highlight=False)
    if report["worst"]:
        worst = Table(title="worst lines", header_style="bold")
        worst.add_column("line", justify="right")
        worst.add_column("score", justify="right")
        worst.add_column("problems")
        for w in report["worst"]:
            worst.add_row(
                str(w["line"]),
                str(w["score"]),
                "; ".join(w["problems"][:3]) + (f" (+{len(w['problems']) - 3})" if len(w["problems"]) > 3 else ""),
            )
        console.print(worst)
    console.print("[green]clean[/]" if report["clean"] else "[yellow]not clean[/]: see the counts above")
