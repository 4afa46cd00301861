"""The closing summary of a run, printed from its manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from synth.packs.load import fix_line
from synth.rundir import READY, TOOLS, is_compact, read_requests, requests_line, spend_line, stored
from synth.wording import plural

MIN_TRAIN = 10  # the fewest training examples OpenAI's fine-tuning takes


def print_summary(manifest: dict[str, Any], out: Path, console: Console | None = None) -> None:
    """What the run made, what it rejected and why, what it cost, and where its files are."""
    console = console or Console()
    _made(console, manifest)
    _tables(console, manifest)
    _registry_and_cost(console, manifest, out)
    offline = manifest.get("backend") == "offline"  # an LLM run's model writes servers without a pack
    for line in pack_lines(manifest.get("packs") or {}, Path(manifest["config"]["servers"])) if offline else []:
        console.print(f"[yellow]{line}[/]", highlight=False, soft_wrap=True)
    _files(console, manifest, out)


def pack_lines(packs: dict[str, Any], servers: Path) -> list[str]:
    """What a run on servers without packs (or with tools no pack entry serves) must say at its start and in
    its closing summary: how many, what it means for the data, the command that fixes it and its cost."""
    without = packs.get("servers_without_pack") or []
    left = packs.get("servers_left_out") or []
    unpacked = packs.get("tools_served_by_fallback") or {}
    out = []
    if without:
        total = len(without) + len(packs.get("servers_with_pack") or [])
        named = ", ".join(without[:8]) + (f" and {len(without) - 8} more" if len(without) > 8 else "")
        said = (
            "synth cannot write training data for a server without a pack or a model, so this run leaves them out "
            "of every data file (train, valid, eval, scored, T-Eval, preference pairs). "
            + fix_line(servers, without)
            + ' Or add --allow-fallback to put in the schema-driven fallback\'s conversations, marked "author": '
            '"fallback" (for pipeline tests: requests that read like forms).'
            if left
            else "their conversations come from the plain fallback (--allow-fallback): schema-valid calls, but "
            'requests that read like forms, one or two calls, plain answers; they are marked "author": "fallback" '
            "in conversations, eval, scored, T-Eval and preference rows and apart in the card. "
            + fix_line(servers, without)
        )
        out.append(f"{len(without)} of {total} servers have no server pack ({named}): {said}")
    if unpacked:
        tools = sum(len(t) for t in unpacked.values())
        named = "; ".join(f"{s}: {', '.join(t[:6])}{' ...' if len(t) > 6 else ''}" for s, t in sorted(unpacked.items()))
        out.append(
            f"{plural(tools, 'tool')} of servers with a pack {'has' if tools == 1 else 'have'} no usable entry and "
            f"{'is' if tools == 1 else 'are'} served by the fallback ({named[:600]}); why: synth pack check {servers}"
        )
    return out


def _made(console: Console, manifest: dict[str, Any]) -> None:
    funnel = manifest["funnel"]
    counts = manifest["counts"]
    reg = manifest["registry"]
    console.print(
        f"[bold green]{funnel['accepted']}[/] conversations accepted of {funnel['scenarios']} scenarios "
        f"({counts['multi_turn']} multi-turn, {counts['tool_calls']} gold calls) on "
        f"{reg['servers']} servers; backend [bold]{manifest['backend']}[/]"
    )
    execute = manifest.get("execute") or {}
    if execute.get("mode") == "live":
        live = sum(by.get("live", 0) for by in execute.get("results", {}).values())
        other = sum(n for by in execute.get("results", {}).values() for k, n in by.items() if k != "live")
        console.print(f"tool results: {live} live, {other} simulated (entries without a connection)")
        if (errors := live_errors(manifest)) is not None:
            console.print(f"  live results that are errors: {errors[0]} of {errors[1]}", highlight=False)
        for line in execute.get("unreachable", {}).values():
            console.print(f"  [yellow]unreachable: {escape(line)}[/]", highlight=False, soft_wrap=True)
    splits = counts["splits"]
    console.print(
        f"splits: train {splits['train']}, valid {splits['valid']}, test {splits['test']} "
        f"-> {counts['eval_items']} eval items"
    )
    note = small_splits(splits)
    if note:
        console.print(f"[yellow]{note}[/]", highlight=False)


def small_splits(splits: dict[str, int]) -> str | None:
    """What a trainer should know when the splits are too small to use (OpenAI's fine-tuning wants 10
    training examples; a validation file with none measures nothing), or None."""
    problems = []
    if 0 < splits["train"] < MIN_TRAIN:
        problems.append(f"train.jsonl has {splits['train']} rows (OpenAI's fine-tuning needs at least {MIN_TRAIN})")
    if splits["train"] and not splits["valid"]:
        problems.append("valid.jsonl is empty")
    if not problems:
        return None
    return "; ".join(problems) + ": raise --n, or give valid a larger share (e.g. --split 0.7,0.2,0.1)"


def _tables(console: Console, manifest: dict[str, Any]) -> None:
    funnel, counts = manifest["funnel"], manifest["counts"]
    dropped = Table(title="rejected, by stage and reason", show_header=True, header_style="bold")
    dropped.add_column("stage")
    dropped.add_column("reason")
    dropped.add_column("count", justify="right")
    for stage, reasons in sorted(funnel["dropped"].items()):
        for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
            dropped.add_row(stage, reason, str(count))
    if dropped.row_count:
        console.print(dropped)
    else:
        console.print("rejected: none")

    labels = Table(title="scored calls, by label", show_header=True, header_style="bold")
    labels.add_column("label")
    labels.add_column("count", justify="right")
    for label, count in counts["scored"].items():
        labels.add_row(label, str(count))
    console.print(labels)


def _registry_and_cost(console: Console, manifest: dict[str, Any], out: Path) -> None:
    cov, reg = manifest["coverage"], manifest["registry"]
    console.print(
        f"tool coverage: {cov['used_tools']}/{cov['usable_tools']} usable tools ({cov['share']:.0%}); "
        f"registry: {reg['skipped_servers']} servers and {reg['skipped_tools']} tools skipped, "
        f"{plural(len(reg['errors']), 'error')}, reasons in manifest.json"
    )
    for line in reg["errors"][:5]:
        console.print(f"  [yellow]{line}[/]", highlight=False)
    if len(reg["errors"]) > 5:
        console.print(f"  ... and {len(reg['errors']) - 5} more: synth registry lint {manifest['config']['servers']}")
    if manifest.get("tokens"):
        used = manifest["tokens"].values()
        console.print(
            f"model calls that made the data: {sum(r['calls'] for r in used)}, tokens "
            f"{sum(r['prompt_tokens'] for r in used):,} in / {sum(r['completion_tokens'] for r in used):,} out, "
            f"about ${manifest['cost_usd']:.4f}"
            + (
                " (stopped: budget reached; --resume with a larger --budget-usd to go on)"
                if manifest.get("stopped_by_budget")
                else ""
            )
        )
    entries = read_requests(out)
    if entries:
        line = requests_line(entries[-1:])
        retried = entries[-1].get("retries", 0) or entries[-1].get("reasks", 0)
        console.print(
            f"requests (this process): {'[yellow]' if retried else ''}{line}{'[/]' if retried else ''}; "
            "every process's counts are in requests.json",
            highlight=False,
        )
        spend = spend_line(entries[-1:])
        if spend:
            console.print(f"spend (this process): {spend}", highlight=False)


def _files(console: Console, manifest: dict[str, Any], out: Path) -> None:
    extra = ", teval/" if manifest.get("teval") else ""
    tasks = (manifest.get("tasks") or {}).get("written")
    if tasks:
        extra += f", tasks/ ({tasks} MCPMark-style tasks with verify.py; check them: synth tasks check {out})"
    names = sorted(stored(out / name).name for name in [*manifest["files"], TOOLS] if stored(out / name).exists())
    console.print(
        f"files in [bold]{out}[/]: "
        + ", ".join(names)
        + f", manifest.json{extra}"
        + (", README.md (dataset card), plots/" if (out / "README.md").exists() else "")
    )
    if is_compact(out):
        ready = [name for name in sorted(READY) if (out / name).is_file()]
        console.print(
            (f"ready to upload or load as they are: {', '.join(ready)}; " if ready else "")
            + "the .gz files are stored compactly (tool lists once, in tools.jsonl.gz), and every synth command "
            f"reads them; all files plain: synth export {out} --format jsonl --out DIR",
            highlight=False,
        )


def verdict(manifest: dict[str, Any], max_reject: float | None = None) -> str | None:
    """Why a finished run is not usable (the CLI then exits 1), or None: nothing accepted, more of the
    scenarios rejected than ``max_reject`` allows, or (without ``max_reject``) most of the registry's
    servers unreachable, which leaves a dataset of the few that answered."""
    funnel = manifest["funnel"]
    scenarios, accepted = funnel["scenarios"], funnel["accepted"]
    if accepted == 0:
        return (
            f"no conversation was accepted of {scenarios} scenarios; the reasons are in the table above and in "
            "rejected.jsonl"
        )
    errors = live_errors(manifest)
    if errors is not None and errors[0] * 2 > errors[1]:
        return (
            f"{errors[0]} of {errors[1]} live tool results are errors: the run made little that is worth training on; "
            "seed the servers' sandboxes (docs/live.md) or check their entries"
        )
    share = (scenarios - accepted) / scenarios if scenarios else 0.0
    dead = (manifest.get("execute") or {}).get("unreachable") or {}
    servers = manifest["registry"]["servers"]
    if max_reject is None and 2 * len(dead) > servers:
        reasons = "; ".join(dead.values())
        return (
            f"{len(dead)} of {servers} servers could not be reached, so {scenarios - accepted} of {scenarios} "
            f"scenarios were rejected and the data comes from the rest: {reasons}. Start those servers or take "
            "them out of the registry; --max-reject 1 keeps a run like this"
        )
    if max_reject is not None and share > max_reject:
        return (
            f"{share:.1%} of {scenarios} scenarios were rejected, above --max-reject {max_reject:g}; the reasons "
            "are in the table above and in rejected.jsonl"
        )
    return None


def live_errors(manifest: dict[str, Any]) -> tuple[int, int] | None:
    """(live tool results that were errors, live tool results) of a live run that had any, else None."""
    execute = manifest.get("execute") or {}
    live = sum(by.get("live", 0) for by in (execute.get("results") or {}).values())
    if execute.get("mode") != "live" or not live:
        return None
    return sum(by.get("live", 0) for by in (execute.get("errors") or {}).values()), live
