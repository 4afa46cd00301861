"""The command line: flags -> Settings -> one call. No logic here; imports are lazy so --help is fast."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(
    help="Turn MCP server definitions into tool-use datasets: training conversations, "
    "per-call eval sets and scored calls for tool-call judges.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
registry_app = typer.Typer(help="Check registry folders of MCP server definitions.", no_args_is_help=True)
app.add_typer(registry_app, name="registry")
cache_app = typer.Typer(help="The SQLite cache of model calls that makes reruns and --resume free.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")
from synth import cli_publish  # noqa: E402  (export, card, push, review)
cli_publish.register(app)
from synth import cli_pack  # noqa: E402  (pack check, schema, build)
cli_pack.register(app)
from synth import cli_serve  # noqa: E402  (serve store)
cli_serve.register(app)
from synth import cli_tasks  # noqa: E402  (tasks check)
cli_tasks.register(app)


def _fail(message: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _default_servers() -> Path:
    from synth.templates import shipped

    return shipped("default_registry", "registry")


@app.command()
def generate(
    servers: Optional[Path] = typer.Option(
        None, "--servers", "-s", help="Folder of server definitions (Smithery JSON/YAML, MCP tools/list, "
        "OpenAI tools arrays), read recursively. Default: the registry shipped with synth."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Run folder. Default: outputs/<servers>-seed<S>-n<N>."),
    n: int = typer.Option(500, "--n", "-n", min=1, help="Conversations to aim for in total, spread over servers and tools."),
    seed: int = typer.Option(0, "--seed", help="Same registry + seed = byte-identical output."),
    split: str = typer.Option("0.8,0.1,0.1", "--split", help="train,valid,test shares, by hash of the conversation id."),
    max_tools: int = typer.Option(24, "--max-tools", min=1, help="Tools offered per conversation (used ones always)."),
    backend: Optional[str] = typer.Option(
        None, "--backend", help="offline (no key, the default) or openai (any OpenAI-compatible endpoint; chosen "
        "automatically when --base-url, OPENAI_BASE_URL or OPENAI_API_KEY is set)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model for every agent (per-role models: synth.toml)."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="Name of the environment variable holding the API key."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-c", min=1, help="Requests in flight (cut on 429s)."),
    rpm: Optional[int] = typer.Option(None, "--rpm", min=1, help="Requests per minute at most."),
    tpm: Optional[int] = typer.Option(None, "--tpm", min=1, help="Tokens per minute at most."),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd", min=0, help="Start no new work once this much is spent."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls, tokens and cost; call nothing."),
    resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run in --out from its cache."),
    config: Optional[Path] = typer.Option(None, "--config", help="synth.toml with [llm], [roles.<role>] and [prices]. "
                                          "Default: ./synth.toml when it exists."),
    audit: float = typer.Option(0.02, "--audit", min=0.0, max=1.0, help="Share of accepted items sent to "
                                "review_queue.jsonl at random for a person to check (besides the reviewer's doubts)."),
    review_below: float = typer.Option(0.7, "--review-below", min=0.0, max=1.0,
                                       help="Queue items the reviewer model accepted with less confidence than this."),
    execute: str = typer.Option("simulated", "--execute", help="Where tool results come from: simulated (server "
                                "packs, schema simulator) or live (the real server of every entry with a connection)."),
    allow_exec: bool = typer.Option(False, "--allow-exec", help="With --execute live: allow starting the commands and "
                                    "contacting the URLs that registry entries name. Never implied."),
    connect_timeout: float = typer.Option(20.0, "--connect-timeout", min=0.1, help="Seconds to connect to a live server."),
    call_timeout: float = typer.Option(30.0, "--call-timeout", min=0.1, help="Seconds to wait for one live tool call."),
) -> None:
    """Generate conversations, an eval set and scored calls from a registry."""
    import os

    from synth.config import Settings, parse_split, read_toml
    from synth.errors import ConfigError, SynthError

    try:
        servers = servers or _default_servers()
        name = servers.resolve().name or "registry"
        if name == "default_registry":
            name = "registry"
        config = config or (Path("synth.toml") if Path("synth.toml").is_file() else None)
        fields = read_toml(config) if config else {}
        flags = {"model": model, "base_url": base_url or os.environ.get("OPENAI_BASE_URL"), "api_key_env": api_key_env,
                 "concurrency": concurrency, "rpm": rpm, "tpm": tpm, "budget_usd": budget_usd}
        fields.update({k: v for k, v in flags.items() if v is not None})
        if backend is None:
            wants_llm = fields.get("base_url") or os.environ.get(fields.get("api_key_env", "OPENAI_API_KEY"))
            backend = "openai" if wants_llm or "model" in fields else "offline"
        run_out = out or Path("outputs") / f"{name}-seed{seed}-n{n}"
        if execute not in ("simulated", "live"):
            raise ConfigError(f"--execute {execute!r}: use simulated (the default) or live")
        settings = Settings(servers=servers, out=run_out, n=n, seed=seed, split=parse_split(split),
                            max_tools=max_tools, backend=backend, audit=audit, review_below=review_below,
                            execute=execute, allow_exec=allow_exec, connect_timeout=connect_timeout,
                            call_timeout=call_timeout, **fields)
        if resume and not settings.cache_path.exists():
            raise ConfigError(f"--resume: {settings.cache_path} does not exist; resume a run by giving the same --out "
                              "(and the same flags) as the run that was interrupted")
        if dry_run:
            from synth.agents.estimate import estimate

            _print_estimate(estimate(settings))
            return
        manifest = _run_with_progress(settings)
        from synth.export.card import write_card

        write_card(settings.out)  # the dataset card (README.md) and its plots
    except SynthError as exc:
        _fail(str(exc))
        return
    from synth.summary import print_summary

    print_summary(manifest, settings.out)


def _print_estimate(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"dry run: {report['scenarios']} scenarios (no request sent)", header_style="bold")
    for column in ("role", "model", "calls", "prompt tokens", "completion tokens", "usd"):
        table.add_column(column, justify="left" if column in ("role", "model") else "right")
    for row in report["roles"]:
        table.add_row(row["role"], row["model"], str(row["calls"]), str(row["prompt_tokens"]),
                      str(row["completion_tokens"]), f"{row['usd']:.4f}")
    Console().print(table)
    Console().print(f"total: {report['calls']} calls, about {report['prompt_tokens'] + report['completion_tokens']:,} tokens, "
                    f"about ${report['usd']:.2f} (prices per million tokens: synth.config.PRICES, extend with \\[prices] in synth.toml)")


def _run_with_progress(settings):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from synth.pipeline import generate as run

    backends = None
    if settings.backend != "offline":
        from synth.llm.factory import open_backends

        backends = open_backends(settings)

    columns = (TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(), TextColumn("accepted,"),
               TextColumn("{task.fields[tried]} tried"), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("generate", total=settings.n, tried=0)
        return run(settings, lambda accepted, tried: bar.update(task, completed=accepted, tried=tried), backends)


@registry_app.command("lint")
def registry_lint(
    folder: Path = typer.Argument(..., help="Registry folder to check, read recursively."),
    warnings: bool = typer.Option(True, "--warnings/--errors-only", help="Also list warnings (fixed automatically)."),
) -> None:
    """One line per problem: file, server, tool, JSON pointer, what is wrong, how to fix it.

    Exits 1 when there are errors (unusable files or tools), 0 when there are only warnings.
    """
    from synth.errors import SynthError
    from synth.registry import lint

    try:
        problems = lint(folder)
    except SynthError as exc:
        _fail(str(exc))
        return
    errors = sum(p.severity == "error" for p in problems)
    for p in problems:
        if warnings or p.severity == "error":
            typer.echo(p.line())
    typer.echo(f"{errors} errors, {len(problems) - errors} warnings in {folder}", err=True)
    raise typer.Exit(1 if errors else 0)


@registry_app.command("import")
def registry_import(
    stdio: Optional[str] = typer.Option(None, "--stdio", help="The server's command line, e.g. \"python server.py\"."),
    url: Optional[str] = typer.Option(None, "--url", help="A Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp."),
    header: list[str] = typer.Option([], "--header", help="NAME:VALUE for --url; write secrets as '${ENV_VAR}' "
                                     "(single quotes), read when connecting."),
    env: list[str] = typer.Option([], "--env", help="NAME=VALUE for --stdio (the child sees only these plus HOME, "
                                  "PATH, ...); secrets as '${ENV_VAR}'."),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Working folder for --stdio."),
    stateful: bool = typer.Option(False, "--stateful", help="The server keeps state: give each scenario a fresh one."),
    name: Optional[str] = typer.Option(None, "--name", help="qualifiedName. Default: the server's own name."),
    out: Path = typer.Option(..., "--out", "-o", help="Registry folder to write the entry into."),
    timeout: float = typer.Option(20.0, "--timeout", min=0.1, help="Seconds to wait for the server."),
) -> None:
    """Connect to an MCP server, read initialize and tools/list, write its registry entry."""
    import shlex

    from synth.errors import SynthError
    from synth.live.client import Limits, LiveError
    from synth.live.importer import describe, write_entry
    from synth.records import Connection

    try:
        if bool(stdio) == bool(url):
            _fail("give exactly one of --stdio \"CMD ARGS...\" or --url URL")
        pairs = [(h, ":") for h in header] + [(e, "=") for e in env]
        bad = [text for text, sep in pairs if sep not in text]
        if bad:
            _fail(f"{bad[0]!r}: write --header as NAME:VALUE and --env as NAME=VALUE")
        headers = dict(h.split(":", 1) for h in header)
        connection = Connection(
            type="stdio" if stdio else "http", command=shlex.split(stdio)[0] if stdio else None,
            args=tuple(shlex.split(stdio)[1:]) if stdio else (), env=dict(e.split("=", 1) for e in env), cwd=cwd,
            url=url, headers={k.strip(): v.strip() for k, v in headers.items()}, stateful=stateful)
        entry = describe(connection, Limits(connect=timeout, call=timeout), name)
        path = write_entry(entry, out)
    except LiveError as exc:
        _fail(str(exc))
        return
    except (SynthError, ValueError) as exc:
        _fail(str(exc))
        return
    typer.echo(f"{path}: {entry['qualifiedName']} with {len(entry['tools'])} tools")


@app.command()
def grade(
    eval_file: Optional[Path] = typer.Option(None, "--eval", help="eval.jsonl (or a run folder)."),
    teval: Optional[Path] = typer.Option(None, "--teval", help="A T-Eval subset file (teval/<subset>_<json|str>.json); "
                                         "predictions are then {\"id\", \"prediction\"} lines."),
    predictions: Path = typer.Option(..., "--predictions", help="One line per item: {\"id\", \"tool_calls\", \"content\"}."),
    out: Optional[Path] = typer.Option(None, "--out", help="Report JSON. Default: report.json beside the predictions."),
    lenient: str = typer.Option("", "--lenient", help="Opt-in leniency: defaults, int_float, strings (comma-separated) or all."),
    compare: Optional[Path] = typer.Option(None, "--compare", help="Another report.json to show side by side."),
) -> None:
    """Grade predictions against an eval file: overall, per server, per tool, per diagnosis."""
    from synth.errors import SynthError
    from synth.evaluate.report import eval_items, grade as run_grade, print_report
    from synth.rundir import read_jsonl, write_json, write_jsonl

    if teval is not None:
        _grade_teval(teval, predictions, out)
        return
    if eval_file is None:
        _fail("give --eval eval.jsonl (tool calls) or --teval teval/<subset>.json (T-Eval answers)")
        return
    try:
        report, rows = run_grade(eval_items(eval_file), read_jsonl(predictions, "predictions file", required=True),
                                 _leniency(lenient))
        other = _read_report(compare) if compare else None
    except SynthError as exc:
        _fail(str(exc))
        return
    target = out or predictions.parent / "report.json"
    write_json(target, report)
    write_jsonl(target.parent / "graded.jsonl", rows)
    print_report(report, other)
    typer.echo(f"report: {target}")


def _grade_teval(subset: Path, predictions: Path, out: Optional[Path]) -> None:
    import json

    from synth.errors import SynthError
    from synth.evaluate.teval import score_subset
    from synth.rundir import read_json, read_jsonl, write_json

    try:
        records = read_json(subset, "T-Eval subset")
        answers = {str(p.get("id")): str(p.get("prediction", "")) for p in read_jsonl(predictions, "predictions file",
                                                                                           required=True)}
        report = score_subset(subset.stem, records, answers)
    except (OSError, ValueError) as exc:
        _fail(f"{subset}: not a T-Eval subset synth wrote ({exc})")
        return
    except SynthError as exc:
        _fail(str(exc))
        return
    target = out or predictions.parent / f"teval_{subset.stem}_report.json"
    write_json(target, report)
    typer.echo(json.dumps(report))


def _leniency(text: str):
    from synth.errors import ConfigError
    from synth.grade import Leniency

    try:
        return Leniency.parse(text)
    except ValueError as exc:
        raise ConfigError(f"--lenient: {exc}") from None


def _read_report(path: Path) -> dict:
    from synth.rundir import read_json

    return read_json(path, "--compare report (a report.json written by synth eval or synth grade)")


@app.command("eval")
def eval_command(
    source: Path = typer.Argument(..., help="A run folder (its eval.jsonl; scored.jsonl with --judge) or an eval file."),
    model: str = typer.Option(..., "--model", "-m", help="The model to evaluate."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL or OpenAI)."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the API key."),
    concurrency: int = typer.Option(16, "--concurrency", "-c", min=1, help="Requests in flight."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where predictions and the report go. Default: <run>/eval-<model>."),
    lenient: str = typer.Option("", "--lenient", help="Opt-in leniency: defaults, int_float, strings or all."),
    compare: Optional[Path] = typer.Option(None, "--compare", help="A report.json to compare with (base vs fine-tuned)."),
    judge: bool = typer.Option(False, "--judge", help="Evaluate the model as a tool-call judge on scored.jsonl."),
) -> None:
    """Ask a model for each eval item's next tool call and grade it (or, with --judge, judge scored calls)."""
    import os
    import re

    from synth.config import Settings
    from synth.errors import SynthError
    from synth.evaluate.report import print_report
    from synth.llm.factory import open_one

    try:
        folder = source if source.is_dir() else source.parent
        target = out or folder / f"{'judge' if judge else 'eval'}-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}"
        settings = Settings(servers=folder, out=target, backend="openai", model=model, concurrency=concurrency,
                            base_url=base_url or os.environ.get("OPENAI_BASE_URL"), api_key_env=api_key_env)
        backend = open_one(settings)
        if judge:
            from synth.evaluate.run import judge as run_judge

            report = run_judge(source, backend, model, target, concurrency * 2)
            _print_judge(report)
            typer.echo(f"report: {target / 'judge_report.json'}")
            return
        from synth.evaluate.run import evaluate

        other = _read_report(compare) if compare else None
        report = evaluate(source, backend, model, target, concurrency * 2, _leniency(lenient))
    except SynthError as exc:
        _fail(str(exc))
        return
    print_report(report, other)
    typer.echo(f"predictions and report: {target}")


def _print_judge(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"judge {report['model']}: accuracy {report['accuracy']:.3f} on {report['items']} calls",
                  header_style="bold")
    labels = list(report["per_label"])
    table.add_column("expected \\ predicted")
    for label in [*labels, "unparsed"]:
        table.add_column(label.replace("incorrect_", "inc. "), justify="right")
    table.add_column("precision", justify="right")
    table.add_column("recall", justify="right")
    for label in labels:
        row = report["confusion"][label]
        table.add_row(label, *(str(row[p]) for p in [*labels, "unparsed"]),
                      f"{report['per_label'][label]['precision']:.3f}", f"{report['per_label'][label]['recall']:.3f}")
    Console().print(table)


@app.command()
def derive(
    source: Path = typer.Argument(..., help="OpenAI chat JSONL with tools: {\"messages\", \"tools\"} per line."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder for eval.jsonl, scored.jsonl, teval/, rejected.jsonl."),
    seed: int = typer.Option(0, "--seed", help="Seed of the injected negatives."),
    server: Optional[str] = typer.Option(None, "--server", help="Server name for the records. Default: the file's name."),
) -> None:
    """Eval items, scored calls and T-Eval subsets from any chat file, through the same gates and injection."""
    import json

    from synth.derive import derive as run_derive
    from synth.errors import SynthError

    try:
        report = run_derive(source, out, seed, server)
    except SynthError as exc:
        _fail(str(exc))
        return
    typer.echo(json.dumps({k: report[k] for k in ("conversations", "accepted", "tool_calls", "eval_items",
                                                     "rejected", "conversations_with_ungrounded_values", "scored")}, indent=2))
    typer.echo(f"files in {out}: eval.jsonl, scored.jsonl, teval/, rejected.jsonl, derive_report.json")


@cache_app.command("stats")
def cache_stats(path: Path = typer.Argument(..., help="A run folder (its cache.sqlite) or a cache file.")) -> None:
    """Entries, hits, calls and tokens of a cache, overall and by agent role."""
    import json

    from synth.llm.cache import stats

    file = path / "cache.sqlite" if path.is_dir() else path
    if not file.exists():
        _fail(f"{file} does not exist; pass a run folder made with an LLM backend or its cache.sqlite")
    typer.echo(json.dumps(stats(file), indent=2))


if __name__ == "__main__":  # pragma: no cover
    app()
