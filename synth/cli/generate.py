"""``synth generate``: its flags -> Settings -> the run (one process, one shard, or shards on Ray) -> the summary."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from synth.cli import shards as cli_shards
from synth.cli.common import (
    attempts_option,
    config_option,
    exits_on_error,
    fail,
    model_fields,
    rate_options,
    timeout_option,
)
from synth.export import outputs as outputs_registry  # --outputs' choices and help are the registry's

if TYPE_CHECKING:
    from synth.config import Settings

# Flags that become Settings fields of the same name as they are given.
_AS_GIVEN = (
    "n seed max_tools decisions audit review_below execute allow_exec connect_timeout call_timeout max_result_chars"
    " result_overflow storage allow_fallback"
).split()
_AS_TUPLES = ("allow_env",)  # repeatable flags


def register(app: typer.Typer) -> None:
    app.command()(generate)


# generate --help groups its options in these panels, in this order
REGISTRY, OUTPUT, MODEL, LIVE, SCALE = "Registry and size", "Output", "Model", "Live servers", "Scale"


def _flag(name: str, help: str, panel: str) -> Any:
    """An off-by-default switch."""
    return typer.Option(False, name, help=help, rich_help_panel=panel)


def _in(panel: str, option: Any) -> Any:
    """A shared option (synth.cli.common) shown in one of generate's panels."""
    option.rich_help_panel = panel
    return option


def generate(
    servers: Path | None = typer.Option(
        None,
        "--servers",
        "-s",
        help="Folder of server definitions (Smithery JSON/YAML, MCP tools/list, "
        "OpenAI tools arrays), read recursively. Default: the registry shipped with synth.",
        rich_help_panel=REGISTRY,
    ),
    n: int = typer.Option(
        500,
        "--n",
        "-n",
        min=1,
        help="Conversations to aim for in total, spread over servers and tools.",
        rich_help_panel=REGISTRY,
    ),
    seed: int = typer.Option(
        0, "--seed", help="Same registry + seed = byte-identical output.", rich_help_panel=REGISTRY
    ),
    split: str = typer.Option(
        "0.8,0.1,0.1",
        "--split",
        help="train,valid,test shares; each conversation's place in the run decides its split, so even a "
        "small run fills each split near its share.",
        rich_help_panel=REGISTRY,
    ),
    max_tools: int = typer.Option(
        24, "--max-tools", min=1, help="Tools offered per conversation (used ones always).", rich_help_panel=REGISTRY
    ),
    decisions: float = typer.Option(
        0.2,
        "--decisions",
        min=0.0,
        max=1.0,
        help="Share of conversations with a turn whose right move is no call: decline a request no tool serves, "
        "or answer a follow-up from an earlier result (half each). Asking for a missing value comes on top.",
        rich_help_panel=REGISTRY,
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Run folder. Default: outputs/<servers>-seed<S>-n<N>.", rich_help_panel=OUTPUT
    ),
    outputs: str | None = typer.Option(
        None,
        "--outputs",
        help=outputs_registry.describe(),
        show_default="the ones not marked off",
        rich_help_panel=OUTPUT,
    ),
    storage: str = typer.Option(
        "ready",
        "--storage",
        help="ready: train, valid and eval plain JSONL, to upload as they are; the bulky rest gzip with "
        "tool lists once. compact: every file that way (large runs; synth export writes the plain files). "
        "plain: every file plain JSONL.",
        rich_help_panel=OUTPUT,
    ),
    allow_fallback: bool = _flag(
        "--allow-fallback",
        "Also write servers that have no server pack, from the schema-driven fallback (for pipeline tests: its "
        'requests read like forms), marked "author": "fallback" in every file with room for it. Without it an '
        "offline run leaves them out of the data and says how to build their packs.",
        REGISTRY,
    ),
    resume: bool = _flag(
        "--resume",
        "Finish the interrupted run in --out (same flags): the "
        "LLM path answers what was already asked from its cache; offline runs are made again.",
        OUTPUT,
    ),
    overwrite: bool = _flag(
        "--overwrite",
        "Replace a different run already in --out "
        "(other seed, registry or flags); without it such a folder is refused.",
        OUTPUT,
    ),
    max_reject: float | None = typer.Option(
        None,
        "--max-reject",
        min=0.0,
        max=1.0,
        help="Exit 1 when more than this share of scenarios is rejected. Without it a run exits 1 when none "
        "was accepted, or when most of the registry's servers could not be reached.",
        rich_help_panel=OUTPUT,
    ),
    audit: float = typer.Option(
        0.02,
        "--audit",
        min=0.0,
        max=1.0,
        help="Share of accepted items sent to "
        "review_queue.jsonl at random for a person to check (besides the reviewer's doubts).",
        rich_help_panel=OUTPUT,
    ),
    review_below: float = typer.Option(
        0.7,
        "--review-below",
        min=0.0,
        max=1.0,
        help="Queue items the reviewer model accepted with less confidence than this.",
        rich_help_panel=OUTPUT,
    ),
    backend: str | None = typer.Option(
        None,
        "--backend",
        help="offline (no key, the default) or openai (any OpenAI-compatible endpoint; chosen "
        "automatically when --base-url, OPENAI_BASE_URL or OPENAI_API_KEY is set).",
        rich_help_panel=MODEL,
    ),
    model: str | None = typer.Option(
        None, "--model", "-m", help="Model for every agent (per-role models: synth.toml).", rich_help_panel=MODEL
    ),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.", rich_help_panel=MODEL
    ),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="Name of the environment variable holding the API key.", rich_help_panel=MODEL
    ),
    config: Path | None = _in(MODEL, config_option()),
    concurrency: int | None = typer.Option(
        None, "--concurrency", "-c", min=1, help="Requests in flight (cut on 429s).", rich_help_panel=MODEL
    ),
    rpm: int | None = _in(MODEL, rate_options()[0]),
    tpm: int | None = _in(MODEL, rate_options()[1]),
    timeout: float | None = _in(MODEL, timeout_option(60)),
    max_attempts: int | None = _in(MODEL, attempts_option()),
    budget_usd: float | None = typer.Option(
        None, "--budget-usd", min=0, help="Start no new work once this much is spent.", rich_help_panel=MODEL
    ),
    dry_run: bool = _flag("--dry-run", "Estimate calls, tokens and cost; call nothing.", MODEL),
    execute: str = typer.Option(
        "simulated",
        "--execute",
        help="Where tool results come from: simulated (server "
        "packs, schema simulator) or live (the real server of every entry with a connection).",
        rich_help_panel=LIVE,
    ),
    allow_exec: bool = _flag(
        "--allow-exec",
        "With --execute live: allow starting the commands and "
        "contacting the URLs that registry entries name. Never implied.",
        LIVE,
    ),
    allow_env: list[str] = typer.Option(
        [],
        "--allow-env",
        help="With --allow-exec: let registry entries read this key variable (OPENAI_API_KEY, HF_TOKEN, "
        "the --api-key-env one), which is refused otherwise. Repeat for each; never implied.",
        rich_help_panel=LIVE,
    ),
    connect_timeout: float = typer.Option(
        20.0, "--connect-timeout", min=0.1, help="Seconds to connect to a live server.", rich_help_panel=LIVE
    ),
    call_timeout: float = typer.Option(
        30.0, "--call-timeout", min=0.1, help="Seconds to wait for one live tool call.", rich_help_panel=LIVE
    ),
    allow_writes: bool = _flag(
        "--allow-writes",
        "With --execute live: also run tools whose annotations say destructive, and writes outside a scenario's "
        "sandbox (by default they are refused and the scenario is rejected with its reason).",
        LIVE,
    ),
    read_only: bool = _flag("--read-only", "With --execute live: run only tools annotated readOnlyHint.", LIVE),
    max_result_chars: int = typer.Option(
        20_000,
        "--max-result-chars",
        min=100,
        help="A live tool result longer than this is cut (or an error).",
        rich_help_panel=LIVE,
    ),
    result_overflow: str = typer.Option(
        "cut",
        "--result-overflow",
        help="What a live result over --max-result-chars becomes: cut (with a marker) or error.",
        rich_help_panel=LIVE,
    ),
    shards: int | None = typer.Option(
        None,
        "--shards",
        min=1,
        help="Make the run in N slices by scenario index "
        "(with --shard I, or --ray); synth merge makes them the single run, byte for byte.",
        rich_help_panel=SCALE,
    ),
    shard: int | None = typer.Option(
        None, "--shard", min=0, help="Which slice this process makes (0 to N-1).", rich_help_panel=SCALE
    ),
    shard_quota: int | None = typer.Option(
        None,
        "--shard-quota",
        min=1,
        help="Conversations a shard makes before it "
        "stops (default: n/N plus a small margin); synth merge says when one needs more.",
        rich_help_panel=SCALE,
    ),
    ray: bool = _flag(
        "--ray",
        "Run the --shards N (default 2) as Ray tasks and merge them into --out "
        "(pip install 'synth\\[ray]'; a local Ray unless --ray-address).",
        SCALE,
    ),
    ray_address: str | None = typer.Option(
        None, "--ray-address", help="An existing Ray cluster (implies --ray).", rich_help_panel=SCALE
    ),
    build_packs: bool = _flag(
        "--build-packs",
        "With --model: write a server pack for every server that has none (a few requests per server, cached, "
        "into SERVERS/packs), then write every conversation offline from the packs (pay per server, not per "
        "conversation).",
        MODEL,
    ),
) -> None:
    """Generate conversations, an eval set and scored calls from a registry."""
    flags = dict(locals())
    with exits_on_error():
        settings = _settings(flags)
        _check_prices(settings)
        if dry_run:
            _print_estimate(settings)
            _print_pack_road(settings)
            return
        if build_packs:
            settings = _build_missing_packs(settings)
        if settings.backend == "offline":
            _announce_packs(settings)
        manifest: dict | None
        with _no_litter(settings.out):
            if shards is None and shard is None and not (ray or ray_address):
                manifest = _run_here(settings, resume, overwrite)
            else:
                manifest = cli_shards.sharded(
                    settings, shards, shard, ray, ray_address, shard_quota, overwrite, _run_with_progress
                )
    if manifest is not None:  # None: one shard, nothing to summarise until the merge
        _summarise(manifest, settings.out, max_reject)


def _settings(flags: dict[str, Any]) -> Settings:
    """The run's settings: the flags over synth.toml over the defaults."""
    from synth.config import Settings, parse_split
    from synth.errors import ConfigError
    from synth.rundir import STORAGES

    servers = flags["servers"] or _default_servers()
    fields = _fields(flags)
    backend = flags["backend"] or _backend(fields)
    out = flags["out"] or Path("outputs") / _default_name(servers, flags)
    if flags["execute"] not in ("simulated", "live"):
        raise ConfigError(f"--execute {flags['execute']!r}: use simulated (the default) or live")
    if flags["allow_writes"] and flags["read_only"]:
        raise ConfigError("--allow-writes and --read-only contradict each other: give one")
    if flags["result_overflow"] not in ("cut", "error"):
        raise ConfigError(f"--result-overflow {flags['result_overflow']!r}: use cut (the default) or error")
    if flags["storage"] not in STORAGES:
        raise ConfigError(f"--storage {flags['storage']!r}: use {', '.join(STORAGES)} (ready is the default)")
    return Settings(
        servers=servers,
        out=out,
        split=parse_split(flags["split"]),
        backend=backend,
        outputs=outputs_registry.parse(flags["outputs"]),
        live_writes="allow" if flags["allow_writes"] else "read-only" if flags["read_only"] else "guarded",
        **{key: flags[key] for key in _AS_GIVEN},
        **{key: tuple(flags[key] or ()) for key in _AS_TUPLES},
        **fields,
    )


def _announce_packs(settings: Settings) -> None:
    """Before an offline run: how many servers have no pack, what that means for the data, and the fix (the
    closing summary says it again, with the tools whose entries did not pass the checker); a run whose every
    server lacks a pack stops here with the fix (synth.scenarios.runplan)."""
    from synth.scenarios.runplan import open_run
    from synth.summary import pack_lines

    run = open_run(settings)
    for line in pack_lines(run.packs.summary(run.registry), settings.servers):
        typer.echo(f"note: {line}", err=True)


def _pack_settings(settings: Settings) -> Settings:
    """The pack author's settings within a generate run: its endpoint, a cache beside the packs, and the pack
    timeout unless one was set (one answer is a whole group of entries)."""
    from synth.cli.pack import PACK_TIMEOUT

    folder = settings.servers / "packs"
    timeout = settings.timeout if "timeout" in settings.model_fields_set else PACK_TIMEOUT
    return settings.model_copy(update={"out": folder, "cache": folder / ".pack-cache.sqlite", "timeout": timeout})


def _build_missing_packs(settings: Settings) -> Settings:
    """--build-packs: write the packs the registry lacks with the run's model, then run offline from them."""
    from synth.cli.pack import print_build, write_packs
    from synth.errors import ConfigError
    from synth.packs.build import pack_path
    from synth.registry import load_registry

    if settings.backend == "offline":
        raise ConfigError("--build-packs needs a model to write the packs: add --model M (and --base-url for your own)")
    registry = load_registry(settings.servers)
    pack_settings = _pack_settings(settings)
    folder = pack_settings.out
    todo = [s for s in registry.servers if not pack_path(folder, s).exists()]
    typer.echo(f"building packs for {len(todo)} of {len(registry.servers)} servers with {settings.model}", err=True)
    print_build(write_packs(list(registry.servers), folder, pack_settings), registry, folder)
    return settings.model_copy(update={"backend": "offline", "roles": {}})


def _print_pack_road(settings: Settings) -> None:
    """--dry-run with a model: the other road, packs for the servers without one and then offline."""
    from synth.cli.pack import print_build_estimate
    from synth.packs.load import load_packs
    from synth.registry import load_registry

    if settings.backend == "offline":
        return
    registry = load_registry(settings.servers)
    found = load_packs(settings.servers)
    todo = [s for s in registry.servers if s.id not in found.by_server]
    typer.echo(
        "the other road (--build-packs): packs for the servers without one, then every conversation offline at $0:"
    )
    print_build_estimate(todo, _pack_settings(settings))


def _default_servers() -> Path:
    from synth.templates import shipped

    return shipped("default_registry", "registry")


def _fields(flags: dict[str, Any]) -> dict[str, Any]:
    """synth.toml's fields (--config, else ./synth.toml when it exists), with the model flags given over them."""
    fields = model_fields(flags["config"], flags)
    if flags["budget_usd"] is not None:
        fields["budget_usd"] = flags["budget_usd"]
    return fields


def _backend(fields: dict[str, Any]) -> str:
    """openai when an endpoint, a key or a model is named anywhere; offline otherwise."""
    import os

    wants_llm = fields.get("base_url") or os.environ.get(fields.get("api_key_env", "OPENAI_API_KEY"))
    return "openai" if wants_llm or "model" in fields else "offline"


def _default_name(servers: Path, flags: dict[str, Any]) -> str:
    """outputs/<servers>-seed<S>-n<N>[-shard<I>of<N>]: the registry folder's name, 'registry' for the shipped one."""
    name = servers.resolve().name or "registry"
    if name == "default_registry":
        name = "registry"
    shard, shards = flags["shard"], flags["shards"]
    return f"{name}-seed{flags['seed']}-n{flags['n']}{'' if shard is None else f'-shard{shard}of{shards}'}"


def _check_prices(settings: Settings) -> None:
    """A model without a price counts as $0: refused with a budget (it could never stop the run), warned of
    otherwise."""
    from synth.errors import ConfigError

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


@contextlib.contextmanager
def _no_litter(out: Path) -> Iterator[None]:
    """A run refused before it wrote anything (bad flags, --execute live without --allow-exec, a budget
    without prices...) leaves no folder behind: the folders this command made and left empty go."""
    made = [folder for folder in (out, *out.parents) if not folder.exists()]
    try:
        yield
    except BaseException:
        for folder in made:  # deepest first
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        raise


def _run_here(settings: Settings, resume: bool, overwrite: bool) -> dict:
    """The whole run in this process, holding the run folder; an error, Ctrl-C, SIGTERM or SIGHUP once it
    started marks the run stopped (manifest status "stopped", and why) and says how to finish it."""
    from synth.cli.common import stops_on_signals
    from synth.errors import Stopped, SynthError
    from synth.export.card.build import write_card
    from synth.rundir import RunDir, RunLock, claim

    started = False
    try:
        with stops_on_signals(), RunLock(settings.out):  # one writer per run folder, from the check to the card
            claim(settings.out, settings.identity(), resume=resume, overwrite=overwrite)
            started = True
            try:
                manifest = _run_with_progress(settings)
            except SynthError as exc:
                RunDir(settings.out).stop(str(exc))
                raise
            except KeyboardInterrupt as exc:
                why, code = (exc.why, exc.exit_code) if isinstance(exc, Stopped) else ("interrupted (Ctrl-C)", 130)
                RunDir(settings.out).stop(why)
                fail(f"{why}{_unfinished(settings.out, '')}", code)
            write_card(settings.out)  # the dataset card (README.md) and its plots
    except SynthError as exc:
        fail(str(exc) + (_unfinished(settings.out) if started else ""), exc.exit_code)
    return manifest


def _summarise(manifest: dict, out: Path, max_reject: float | None) -> None:
    """The run's summary table; exit 1 when too much was rejected (or nothing accepted)."""
    from synth.summary import print_summary, verdict

    print_summary(manifest, out)
    problem = verdict(manifest, max_reject)
    if problem:
        fail(problem, 1)


def _unfinished(out: Path, after: str = "once that is fixed, ") -> str:
    """What to do about a run that stopped part way, for the error line (empty when it finished)."""
    from synth.errors import SynthError
    from synth.rundir import COMPLETE, RunDir, resume_command

    try:
        manifest = RunDir(out).manifest()
    except SynthError:  # no manifest, or an unreadable one: nothing to add
        return ""
    if manifest.get("status", COMPLETE) == COMPLETE:
        return ""
    return f". The run in {out} stopped part way; {after}finish it with: {resume_command(manifest)}"


def _print_estimate(settings: Settings) -> None:
    """--dry-run: the calls, tokens and cost the run would take, by role; nothing is sent."""
    from rich.console import Console
    from rich.table import Table

    from synth.agents.estimate import estimate

    report = estimate(settings)

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
            f"estimated for {report['scenarios']} scenarios ({report['spare_said']}); a run that turns away many "
            f"starts up to {report['max_scenarios']} (2n + 20), "
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
    with _requests_entry(settings.out, backends), Progress(*columns, transient=True) as bar:
        task = bar.add_task("generate", total=settings.n, tried=0)
        return run(settings, lambda accepted, tried: bar.update(task, completed=accepted, tried=tried), backends)


def _requests_entry(out: Path, backends: dict | None) -> Any:
    """This process's request counters in requests.json, kept current every second while the run goes on (a
    killed process leaves its entry) and written once more at the end; nothing for an offline run."""
    from contextlib import nullcontext

    from synth.llm.base import request_report
    from synth.rundir import command_line
    from synth.rundir.requests import ProcessEntry

    if backends is None:
        return nullcontext()
    return ProcessEntry(out, command_line(), lambda: request_report(backends))
