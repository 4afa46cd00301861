"""The command line: flags -> Settings -> one call. No logic here; imports are lazy so --help is fast."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(
    help="Turn MCP server definitions into tool-use datasets: training conversations, "
    "per-call eval sets and scored calls for tool-call judges.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _no_flag_metavar() -> None:
    """typer 0.29 with click 8.5 prints ``<bool>`` beside every flag, as if it took a value; flags show none."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_synth", False):
        return

    def display_type_rich(self: TyperOption, ctx):
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._synth = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_no_flag_metavar()
registry_app = typer.Typer(
    help="Check registry folders of MCP server definitions, import one from a live MCP "
    "server, or pull them from a registry API.",
    no_args_is_help=True,
)
app.add_typer(registry_app, name="registry")
cache_app = typer.Typer(
    help="The SQLite cache of model calls that makes reruns and --resume free.", no_args_is_help=True
)
app.add_typer(cache_app, name="cache")
from synth import cli_publish  # noqa: E402  (export, card, push, review)

cli_publish.register(app)
from synth import cli_pack  # noqa: E402  (pack check, schema, build)

cli_pack.register(app)
from synth import cli_serve  # noqa: E402  (serve store)

cli_serve.register(app)
from synth import cli_tasks  # noqa: E402  (tasks check)

cli_tasks.register(app)
from synth import cli_shards  # noqa: E402  (merge; generate --shards/--ray)

cli_shards.register(app)


def _fail(message: str, code: int = 2) -> None:
    """Print one error line and exit with ``code`` (see the exit codes in synth.errors and the README)."""
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True).print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def _default_servers() -> Path:
    from synth.templates import shipped

    return shipped("default_registry", "registry")


@app.command()
def generate(
    servers: Path | None = typer.Option(
        None,
        "--servers",
        "-s",
        help="Folder of server definitions (Smithery JSON/YAML, MCP tools/list, "
        "OpenAI tools arrays), read recursively. Default: the registry shipped with synth.",
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Run folder. Default: outputs/<servers>-seed<S>-n<N>."),
    n: int = typer.Option(
        500, "--n", "-n", min=1, help="Conversations to aim for in total, spread over servers and tools."
    ),
    seed: int = typer.Option(0, "--seed", help="Same registry + seed = byte-identical output."),
    split: str = typer.Option(
        "0.8,0.1,0.1", "--split", help="train,valid,test shares, by hash of the conversation id."
    ),
    max_tools: int = typer.Option(24, "--max-tools", min=1, help="Tools offered per conversation (used ones always)."),
    backend: str | None = typer.Option(
        None,
        "--backend",
        help="offline (no key, the default) or openai (any OpenAI-compatible endpoint; chosen "
        "automatically when --base-url, OPENAI_BASE_URL or OPENAI_API_KEY is set).",
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model for every agent (per-role models: synth.toml)."
    ),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."
    ),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="Name of the environment variable holding the API key."
    ),
    concurrency: int | None = typer.Option(
        None, "--concurrency", "-c", min=1, help="Requests in flight (cut on 429s)."
    ),
    rpm: int | None = typer.Option(None, "--rpm", min=1, help="Requests per minute at most."),
    tpm: int | None = typer.Option(None, "--tpm", min=1, help="Tokens per minute at most."),
    budget_usd: float | None = typer.Option(
        None, "--budget-usd", min=0, help="Start no new work once this much is spent."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls, tokens and cost; call nothing."),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Finish the interrupted run in --out (same flags): the "
        "LLM path answers what was already asked from its cache; offline runs are made again.",
    ),
    overwrite: bool = typer.Option(
        False,
        "--overwrite",
        help="Replace a different run already in --out "
        "(other seed, registry or flags); without it such a folder is refused.",
    ),
    max_reject: float | None = typer.Option(
        None,
        "--max-reject",
        min=0.0,
        max=1.0,
        help="Exit 1 when more than this share of scenarios is rejected (a run with none accepted always exits 1).",
    ),
    config: Path | None = typer.Option(
        None,
        "--config",
        help="synth.toml with \\[llm], \\[roles.<role>] and \\[prices]. Default: ./synth.toml when it exists.",
    ),
    audit: float = typer.Option(
        0.02,
        "--audit",
        min=0.0,
        max=1.0,
        help="Share of accepted items sent to "
        "review_queue.jsonl at random for a person to check (besides the reviewer's doubts).",
    ),
    review_below: float = typer.Option(
        0.7,
        "--review-below",
        min=0.0,
        max=1.0,
        help="Queue items the reviewer model accepted with less confidence than this.",
    ),
    execute: str = typer.Option(
        "simulated",
        "--execute",
        help="Where tool results come from: simulated (server "
        "packs, schema simulator) or live (the real server of every entry with a connection).",
    ),
    allow_exec: bool = typer.Option(
        False,
        "--allow-exec",
        help="With --execute live: allow starting the commands and "
        "contacting the URLs that registry entries name. Never implied.",
    ),
    connect_timeout: float = typer.Option(
        20.0, "--connect-timeout", min=0.1, help="Seconds to connect to a live server."
    ),
    call_timeout: float = typer.Option(30.0, "--call-timeout", min=0.1, help="Seconds to wait for one live tool call."),
    outputs: str = typer.Option(
        ",".join(("train", "valid", "eval", "scored", "teval", "tasks")),
        "--outputs",
        help="Which outputs to write, comma-separated (conversations.jsonl always is): train, "
        "valid (chat fine-tuning), eval (eval items), scored (labelled calls), teval (T-Eval "
        "subsets), tasks. Default: all; each is stored compactly (gzip, tool lists once).",
    ),
    shards: int | None = typer.Option(
        None,
        "--shards",
        min=1,
        help="Make the run in N slices by scenario index "
        "(with --shard I, or --ray); synth merge makes them the single run, byte for byte.",
    ),
    shard: int | None = typer.Option(None, "--shard", min=0, help="Which slice this process makes (0 to N-1)."),
    shard_quota: int | None = typer.Option(
        None,
        "--shard-quota",
        min=1,
        help="Conversations a shard makes before it "
        "stops (default: n/N plus a small margin); synth merge says when one needs more.",
    ),
    ray: bool = typer.Option(
        False,
        "--ray",
        help="Run the --shards N (default 2) as Ray tasks and merge them into --out "
        "(pip install 'synth[ray]'; a local Ray unless --ray-address).",
    ),
    ray_address: str | None = typer.Option(None, "--ray-address", help="An existing Ray cluster (implies --ray)."),
) -> None:
    """Generate conversations, an eval set and scored calls from a registry."""
    import os

    from synth.config import Settings, parse_outputs, parse_split, read_toml
    from synth.errors import ConfigError, SynthError

    started = False
    try:
        servers = servers or _default_servers()
        name = servers.resolve().name or "registry"
        if name == "default_registry":
            name = "registry"
        config = config or (Path("synth.toml") if Path("synth.toml").is_file() else None)
        fields = read_toml(config) if config else {}
        flags = {
            "model": model,
            "base_url": base_url or os.environ.get("OPENAI_BASE_URL"),
            "api_key_env": api_key_env,
            "concurrency": concurrency,
            "rpm": rpm,
            "tpm": tpm,
            "budget_usd": budget_usd,
        }
        fields.update({k: v for k, v in flags.items() if v is not None})
        if backend is None:
            wants_llm = fields.get("base_url") or os.environ.get(fields.get("api_key_env", "OPENAI_API_KEY"))
            backend = "openai" if wants_llm or "model" in fields else "offline"
        run_out = (
            out or Path("outputs") / f"{name}-seed{seed}-n{n}{'' if shard is None else f'-shard{shard}of{shards}'}"
        )
        if execute not in ("simulated", "live"):
            raise ConfigError(f"--execute {execute!r}: use simulated (the default) or live")
        settings = Settings(
            servers=servers,
            out=run_out,
            n=n,
            seed=seed,
            split=parse_split(split),
            max_tools=max_tools,
            backend=backend,
            audit=audit,
            review_below=review_below,
            execute=execute,
            allow_exec=allow_exec,
            connect_timeout=connect_timeout,
            call_timeout=call_timeout,
            outputs=parse_outputs(outputs),
            **fields,
        )
        unpriced = settings.unpriced()
        if unpriced and settings.budget_usd is not None:
            raise ConfigError(
                f"--budget-usd needs a price for {', '.join(unpriced)}: without one its cost reads as $0 and "
                "the budget never stops the run; add it to synth.toml as [prices] "
                f'"{unpriced[0]}" = [input, output] (USD per million tokens)'
            )
        if unpriced:
            typer.echo(
                f"warning: no price known for {', '.join(unpriced)}; its cost is counted as $0 (add [prices] to "
                "synth.toml to count it)",
                err=True,
            )
        if dry_run:
            from synth.agents.estimate import estimate

            _print_estimate(estimate(settings))
            return
        from synth.export.card import write_card
        from synth.rundir import RunLock, claim

        if shards is not None or shard is not None or ray or ray_address:
            manifest = cli_shards.sharded(
                settings, shards, shard, ray, ray_address, shard_quota, overwrite, _run_with_progress
            )
            if manifest is None:  # one shard: nothing to summarise until the merge
                return
        else:
            with RunLock(settings.out):  # one writer per run folder, from the check below to the card
                claim(settings.out, settings.identity(), resume=resume, overwrite=overwrite)
                started = True
                manifest = _run_with_progress(settings)
                write_card(settings.out)  # the dataset card (README.md) and its plots
    except SynthError as exc:
        _fail(str(exc) + (_unfinished(settings.out) if started else ""), exc.exit_code)
        return
    from synth.summary import print_summary, verdict

    print_summary(manifest, settings.out)
    problem = verdict(manifest, max_reject)
    if problem:
        _fail(problem, 1)


def _unfinished(out: Path) -> str:
    """What to do about a run that stopped part way, for the error line (empty when it finished)."""
    from synth.errors import SynthError
    from synth.rundir import COMPLETE, RunDir, resume_command

    try:
        manifest = RunDir(out).manifest()
    except SynthError:  # no manifest, or an unreadable one: nothing to add
        return ""
    if manifest.get("status", COMPLETE) == COMPLETE:
        return ""
    return f". The run in {out} stopped part way; once that is fixed, finish it with: {resume_command(manifest)}"


def _print_estimate(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"dry run: {report['scenarios']} scenarios (no request sent)", header_style="bold")
    for column in ("role", "model", "calls", "prompt tokens", "completion tokens", "usd"):
        table.add_column(column, justify="left" if column in ("role", "model") else "right")
    for row in report["roles"]:
        table.add_row(
            row["role"],
            row["model"],
            str(row["calls"]),
            str(row["prompt_tokens"]),
            str(row["completion_tokens"]),
            f"{row['usd']:.4f}",
        )
    Console().print(table)
    Console().print(
        f"total: {report['calls']} calls, about {report['prompt_tokens'] + report['completion_tokens']:,} tokens, "
        f"about ${report['usd']:.2f} (prices per million tokens: synth.config.PRICES, extend with \\[prices] in synth.toml)"  # noqa: E501
    )
    if report.get("max_scenarios", 0) > report["scenarios"]:
        Console().print(
            f"estimated for {report['scenarios']} scenarios (n plus 10% for the ones the gates, reviewer and dedup "
            f"turn away); a run that turns away many starts up to {report['max_scenarios']} (at most 2n + 20, "
            f"and up to {report['max_scenarios'] - report['scenarios']} more in flight when it stops), "
            f"which would cost about ${report['usd_max']:.2f}",
            highlight=False,
        )


def _run_with_progress(settings, shard=None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from synth.pipeline import generate as run

    if shard is not None:  # (N, I, quota): one shard of the run (synth.shards)
        from synth.shards import run_shard as run_one

        run = lambda settings, progress, backends: run_one(settings, *shard, backends)  # type: ignore[misc] # noqa: E731

    backends = None
    if settings.backend != "offline":
        from synth.llm.factory import open_backends

        backends = open_backends(settings)

    columns = (
        TextColumn("[bold]generating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("accepted,"),
        TextColumn("{task.fields[tried]} tried"),
        TimeElapsedColumn(),
    )
    try:
        with Progress(*columns, transient=True) as bar:
            task = bar.add_task("generate", total=settings.n, tried=0)
            return run(settings, lambda accepted, tried: bar.update(task, completed=accepted, tried=tried), backends)
    finally:
        if backends is not None:
            _record_requests(settings.out, backends)


def _record_requests(out: Path, backends: dict) -> None:
    """Append this process's request counters to requests.json (a resumed run adds one entry per process)."""
    from synth.errors import SynthError
    from synth.llm.base import request_report
    from synth.rundir import REQUESTS, RunDir, command_line, read_json, write_json

    report = request_report(backends)
    if report is None or not RunDir(out).path.is_dir():
        return
    path = out / REQUESTS
    try:
        earlier = read_json(path, "requests file") if path.exists() else []
    except SynthError:
        earlier = []
    write_json(path, [*(earlier if isinstance(earlier, list) else []), {"command": command_line(), **report}])


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
    from synth.wording import plural

    try:
        problems = lint(folder)
    except SynthError as exc:
        _fail(str(exc), exc.exit_code)
        return
    errors = sum(p.severity == "error" for p in problems)
    for p in problems:
        if warnings or p.severity == "error":
            typer.echo(p.line())
    typer.echo(f"{plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')} in {folder}", err=True)
    raise typer.Exit(1 if errors else 0)


@registry_app.command("pull")
def registry_pull(
    out: Path = typer.Option(..., "--out", "-o", help="Folder for the server files (one <owner>__<repo>.json each)."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="A Smithery-compatible registry API. Default: https://api.smithery.ai"
    ),
    query: str | None = typer.Option(
        None,
        "--query",
        "-q",
        help="Search text and filters, e.g. 'is:deployed weather' or 'owner:mem0ai'. Default: every server.",
    ),
    limit: int | None = typer.Option(
        None,
        "--limit",
        min=1,
        help="Pull at most this many servers (in the registry's order; skipped and failed ones count).",
    ),
    concurrency: int = typer.Option(8, "--concurrency", "-c", min=1, max=64, help="Detail requests in flight."),
) -> None:
    """Download server definitions from a registry API into a folder `synth generate --servers` reads.

    The API key is read from SMITHERY_API_KEY (sent as a Bearer header, never written anywhere).
    Exits 1 when no server was pulled, 2 when the key is refused or the registry cannot be listed.
    """
    import asyncio
    import os

    from synth.errors import SynthError
    from synth.registry.pull import pull
    from synth.registry.smithery import DEFAULT_BASE_URL, KEY_ENV

    key = os.environ.get(KEY_ENV, "").strip()
    try:
        with _pull_progress() as tell:
            report = asyncio.run(
                pull(
                    out,
                    base_url=base_url or DEFAULT_BASE_URL,
                    key=key,
                    query=query,
                    limit=limit,
                    concurrency=concurrency,
                    progress=tell,
                )
            )
    except SynthError as exc:
        _fail(str(exc))
        return
    for line in [*(o.line() for o in report.outcomes if o.status != "pulled"), *report.notes]:
        typer.echo(line, err=True)
    typer.echo(report.closing_line())
    if not report.count("pulled"):
        typer.echo(
            "nothing was pulled: "
            + ("the registry listed no servers (check --query)" if not report.outcomes else "see the lines above"),
            err=True,
        )
        raise typer.Exit(1)


def _pull_progress():
    """A rich progress bar for ``pull``'s (phase, done, total) callback; closed even on errors."""
    from contextlib import contextmanager

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    @contextmanager
    def bar():
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, transient=True) as progress:
            task = progress.add_task("listing", total=None)

            def tell(phase: str, done: int, total: int | None) -> None:
                progress.update(
                    task,
                    description=f"{phase} servers" if phase == "pulling" else "listing pages",
                    completed=done,
                    total=total,
                )

            yield tell

    return bar()


@registry_app.command("import")
def registry_import(
    stdio: str | None = typer.Option(None, "--stdio", help='The server\'s command line, e.g. "python server.py".'),
    url: str | None = typer.Option(None, "--url", help="A Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp."),
    header: list[str] = typer.Option(
        [],
        "--header",
        help="NAME:VALUE for --url; write secrets as '${ENV_VAR}' (single quotes), read when connecting.",
    ),
    env: list[str] = typer.Option(
        [],
        "--env",
        help="NAME=VALUE for --stdio (the child sees only these plus HOME, PATH, ...); secrets as '${ENV_VAR}'.",
    ),
    cwd: str | None = typer.Option(None, "--cwd", help="Working folder for --stdio."),
    stateful: bool = typer.Option(False, "--stateful", help="The server keeps state: give each scenario a fresh one."),
    name: str | None = typer.Option(None, "--name", help="qualifiedName. Default: the server's own name."),
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
            _fail('give exactly one of --stdio "CMD ARGS..." or --url URL')
        pairs = [(h, ":") for h in header] + [(e, "=") for e in env]
        bad = [text for text, sep in pairs if sep not in text]
        if bad:
            _fail(f"{bad[0]!r}: write --header as NAME:VALUE and --env as NAME=VALUE")
        headers = dict(h.split(":", 1) for h in header)
        connection = Connection(
            type="stdio" if stdio else "http",
            command=shlex.split(stdio)[0] if stdio else None,
            args=tuple(shlex.split(stdio)[1:]) if stdio else (),
            env=dict(e.split("=", 1) for e in env),
            cwd=cwd,
            url=url,
            headers={k.strip(): v.strip() for k, v in headers.items()},
            stateful=stateful,
        )
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
    eval_file: Path | None = typer.Option(None, "--eval", help="eval.jsonl (or a run folder)."),
    teval: Path | None = typer.Option(
        None,
        "--teval",
        help='A T-Eval subset file (teval/<subset>_<json|str>.json); predictions are then {"id", "prediction"} lines.',
    ),
    predictions: Path = typer.Option(..., "--predictions", help='One line per item: {"id", "tool_calls", "content"}.'),
    out: Path | None = typer.Option(None, "--out", help="Report JSON. Default: report.json beside the predictions."),
    lenient: str = typer.Option(
        "", "--lenient", help="Opt-in leniency: defaults, int_float, strings (comma-separated) or all."
    ),
    compare: Path | None = typer.Option(None, "--compare", help="Another report.json to show side by side."),
) -> None:
    """Grade predictions against an eval file: overall, per server, per tool, per diagnosis."""
    from synth.errors import SynthError
    from synth.evaluate.report import eval_items, print_report
    from synth.evaluate.report import grade as run_grade
    from synth.rundir import read_jsonl, write_json, write_jsonl

    if teval is not None:
        _grade_teval(teval, predictions, out)
        return
    if eval_file is None:
        _fail("give --eval eval.jsonl (tool calls) or --teval teval/<subset>.json (T-Eval answers)")
        return
    try:
        from synth.rundir import RunDir

        if eval_file.is_dir() and RunDir(eval_file).is_run():
            RunDir(eval_file).finished()  # not while it is being written, nor when it stopped part way
        report, rows = run_grade(
            eval_items(eval_file), read_jsonl(predictions, "predictions file", required=True), _leniency(lenient)
        )
        other = _read_report(compare) if compare else None
    except SynthError as exc:
        _fail(str(exc), exc.exit_code)
        return
    target = out or predictions.parent / "report.json"
    write_json(target, report)
    write_jsonl(target.parent / "graded.jsonl", rows)
    print_report(report, other)
    typer.echo(f"report: {target}")
    if report.get("errors"):
        _fail(f"{report['errors']} predictions are errors (their requests failed); they are left out of the scores", 1)


def _grade_teval(subset: Path, predictions: Path, out: Path | None) -> None:
    import json

    from synth.errors import SynthError
    from synth.evaluate.teval import score_subset
    from synth.rundir import public_name, read_json, read_jsonl, write_json

    name = Path(public_name(subset)).stem  # plan_json, from teval/plan_json.json or its stored .json.gz
    try:
        records = read_json(subset, "T-Eval subset")
        answers = {
            str(p.get("id")): str(p.get("prediction", ""))
            for p in read_jsonl(predictions, "predictions file", required=True)
        }
        report = score_subset(name, records, answers)
    except (OSError, ValueError) as exc:
        _fail(f"{subset}: not a T-Eval subset synth wrote ({exc})")
        return
    except SynthError as exc:
        _fail(str(exc), exc.exit_code)
        return
    target = out or predictions.parent / f"teval_{name}_report.json"
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
    source: Path = typer.Argument(
        ..., help="A run folder (its eval.jsonl; scored.jsonl with --judge) or an eval file."
    ),
    model: str = typer.Option(..., "--model", "-m", help="The model to evaluate."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL or OpenAI)."
    ),
    api_key_env: str = typer.Option(
        "OPENAI_API_KEY", "--api-key-env", help="Environment variable holding the API key."
    ),
    concurrency: int = typer.Option(16, "--concurrency", "-c", min=1, help="Requests in flight."),
    out: Path | None = typer.Option(
        None, "--out", help="Where predictions and the report go. Default: <run>/eval-<model>."
    ),
    lenient: str = typer.Option("", "--lenient", help="Opt-in leniency: defaults, int_float, strings or all."),
    compare: Path | None = typer.Option(None, "--compare", help="A report.json to compare with (base vs fine-tuned)."),
    judge: bool = typer.Option(False, "--judge", help="Evaluate the model as a tool-call judge on scored.jsonl."),
    tasks: bool = typer.Option(
        False,
        "--tasks",
        help="Run the model as the agent on the run's store tasks (a fresh "
        "store each, the customer simulated from the task) and score each by its verify.py.",
    ),
) -> None:
    """Ask a model for each eval item's next tool call and grade it (or, with --judge, judge scored calls;
    with --tasks, solve the store tasks and be scored by the final state)."""
    import os
    import re

    from synth.config import Settings
    from synth.errors import SynthError
    from synth.evaluate.report import print_report
    from synth.llm.factory import open_one
    from synth.rundir import RunDir, read_jsonl

    try:
        folder = source if source.is_dir() else source.parent
        if source.is_dir() and RunDir(source).is_run():
            RunDir(source).finished()  # not while it is being written, nor when it stopped part way
        kind = "judge" if judge else "tasks" if tasks else "eval"
        target = out or folder / f"{kind}-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}"
        settings = Settings(
            servers=folder,
            out=target,
            backend="openai",
            model=model,
            concurrency=concurrency,
            base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
            api_key_env=api_key_env,
        )
        backend = open_one(settings)
        if tasks:
            from synth.evaluate.agent import evaluate_tasks

            report = evaluate_tasks(folder, backend, model, target, concurrency)
            typer.echo(
                f"{model}: {report['passed']} of {report['tasks'] - report['errors']} store tasks pass their "
                f"verify.py ({report['pass_rate']:.1%}); {report['errors']} could not be run"
            )
            for category, row in report["by_category"].items():
                typer.echo(f"  {category}: {row['pass_rate']:.1%} of {row['tasks']}")
            typer.echo(f"episodes and report: {target}")
            if report["errors"]:
                raise typer.Exit(1)
            return
        if judge:
            from synth.evaluate.run import judge as run_judge

            report = run_judge(source, backend, model, target, concurrency * 2)
            _print_judge(report)
            typer.echo(f"report: {target / 'judge_report.json'}")
            if report.get("errors"):
                _fail(
                    f"{report['errors']} of {report['items'] + report['errors']} judge requests failed; they are left "
                    "out of the accuracy; run again when the endpoint works (answers already received are cached)",
                    4,
                )
            return
        from synth.evaluate.run import evaluate

        other = _read_report(compare) if compare else None
        report = evaluate(source, backend, model, target, concurrency * 2, _leniency(lenient))
    except SynthError as exc:
        _fail(str(exc), exc.exit_code)
        return
    print_report(report, other)
    typer.echo(f"predictions and report: {target}")
    if report.get("errors"):
        first = next((r for r in read_jsonl(target / "graded.jsonl") if r.get("error")), {})
        _fail(
            f"{report['errors']} of {report['items'] + report['errors']} requests failed ({(first.get('details') or ['?'])[0]}); "  # noqa: E501
            "they are left out of the scores; run again when the endpoint works (answers already received are cached)",
            4,
        )


def _print_judge(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"judge {report['model']}: accuracy {report['accuracy']:.3f} on {report['items']} calls",
        header_style="bold",
    )
    labels = list(report["per_label"])
    table.add_column("expected \\ predicted")
    for label in [*labels, "unparsed"]:
        table.add_column(label.replace("incorrect_", "inc. "), justify="right")
    table.add_column("precision", justify="right")
    table.add_column("recall", justify="right")
    for label in labels:
        row = report["confusion"][label]
        table.add_row(
            label,
            *(str(row[p]) for p in [*labels, "unparsed"]),
            f"{report['per_label'][label]['precision']:.3f}",
            f"{report['per_label'][label]['recall']:.3f}",
        )
    Console().print(table)


@app.command()
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
    from synth.errors import SynthError
    from synth.rundir import RunLock

    try:
        with RunLock(out):  # one writer per folder
            report = run_derive(source, out, seed, server, strict)
    except SynthError as exc:
        _fail(str(exc), exc.exit_code)
        return
    typer.echo(
        json.dumps({k: v for k, v in report.items() if k not in ("source", "teval")}, indent=2, ensure_ascii=False)
    )
    if strict:
        typer.echo(f"--strict: dropped {report['dropped_flagged']} flagged items of {report['tool_calls']} calls")
    typer.echo(f"files in {out}: eval.jsonl, scored.jsonl, teval/, rejected.jsonl, derive_report.json")


@app.command()
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

    from synth.errors import SynthError
    from synth.export.audit import audit as run_audit
    from synth.export.audit import failures, parse_fail_on

    try:
        thresholds = parse_fail_on(fail_on)
        report = run_audit(source)
    except SynthError as exc:
        _fail(str(exc), exc.exit_code)
        return
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        _print_audit(report)
    broken = failures(report, thresholds)
    if broken:
        _fail("audit thresholds passed: " + "; ".join(broken), 1)


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
