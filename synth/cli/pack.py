"""``synth pack``: check server packs against their servers, print the pack JSON Schema, build packs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from synth.cli.common import attempts_option, config_option, group, rate_options, timeout_option

if TYPE_CHECKING:
    from synth.config import Settings
    from synth.records import ServerSpec

PACK_TIMEOUT = 300.0  # seconds: one answer is a whole pack (or a group of tools), often 8-10 kB

pack_app = group("pack", "Server packs: the reviewed data files that make offline conversations real.")


@pack_app.command("check")
def pack_check(
    servers: Path = typer.Argument(..., help="Registry folder; its packs (*.pack.yaml) are found under it."),
    packs: Path | None = typer.Option(None, "--packs", help="Another folder of packs (default: inside SERVERS)."),
    warnings: bool = typer.Option(True, "--warnings/--errors-only", help="Also list warnings."),
) -> None:
    """Check every pack: tools and parameters exist, every slot is fillable, every value is valid for its schema.

    Exits 1 when any pack has errors.
    """
    from synth.errors import SynthError
    from synth.packs.load import usable_packs
    from synth.registry import load_registry

    try:
        registry = load_registry(servers)
    except SynthError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    found = usable_packs(registry, servers, *([packs] if packs else []))  # loaded and checked, as generate does
    problems = found.problems
    known = {s.id for s in registry.servers}
    errors = sum(p.severity == "error" for p in problems)
    for p in problems:
        if warnings or p.severity == "error":
            typer.echo(p.line())
    without = sorted(set(known) - set(found.by_server))
    typer.echo(
        f"{len(found.by_server)} packs, {len(without)} servers without a pack; "
        f"{errors} error{'s' * (errors != 1)}, {len(problems) - errors} warning{'s' * (len(problems) - errors != 1)}",
        err=True,
    )
    raise typer.Exit(1 if errors else 0)


@pack_app.command("schema")
def pack_schema() -> None:
    """Print the JSON Schema of the pack format."""
    from synth.packs.model import pack_json_schema

    typer.echo(json.dumps(pack_json_schema(), indent=2))


@pack_app.command("build")
def pack_build(
    servers: Path = typer.Option(..., "--servers", "-s", help="Registry folder of the servers to write packs for."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Where the packs go. Default: SERVERS/packs."),
    model: str | None = typer.Option(
        None, "--model", "-m", help="The model that writes the packs (default: \\[llm] model, else gpt-4.1-mini)."
    ),
    base_url: str | None = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint."),
    api_key_env: str | None = typer.Option(None, "--api-key-env", help="Variable holding the API key."),
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1, help="Requests in flight (default 8)."),
    rpm: int | None = rate_options()[0],
    tpm: int | None = rate_options()[1],
    timeout: float | None = timeout_option(PACK_TIMEOUT),
    max_attempts: int | None = attempts_option(),
    config: Path | None = config_option(),
    seed: int = typer.Option(0, "--seed", help="Sent to the model, and part of the cache key."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate requests, tokens and cost; send nothing."),
) -> None:
    """Write a pack for every server that has none yet: one request per group of up to 8 tools, each answer
    checked and the tools at fault asked again with the checker's messages (at most 3 answers; cached,
    resumable). Tools that never pass are left to the fallback and named in the pack's header.

    Read and edit what it writes: packs are data a person reviews. Exits 1 when a server got no pack.
    """
    from synth.errors import SynthError
    from synth.packs.build import pack_path
    from synth.registry import load_registry

    try:
        registry = load_registry(servers)
        folder = out or servers / "packs"
        settings = build_settings(servers, folder, dict(locals()), config, seed)
        if dry_run:
            print_build_estimate([s for s in registry.servers if not pack_path(folder, s).exists()], settings)
            return
        report = write_packs(list(registry.servers), folder, settings)
    except SynthError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    print_build(report, registry, folder)
    raise typer.Exit(1 if report.failed else 0)


def print_build(report, registry, folder: Path) -> None:
    """Every tool left to the fallback with its last messages, servers with no pack, and the counts."""
    for server_id, tools in sorted(report.left_out.items()):
        typer.echo(f"{server_id}: {len(tools)} tools left to the fallback: {', '.join(tools)}")
        for lines in tools.values():
            for line in lines[:4]:
                typer.echo(f"  {line}")
    for server_id, why in sorted(report.failed.items()):
        typer.echo(f"{server_id}: no pack: {why}", err=True)
    left = sum(len(t) for t in report.left_out.values())
    asked = sum(len(s.tools) for s in registry.servers if s.id in report.written or s.id in report.failed)
    typer.echo(
        f"{len(report.written)} packs written, {len(report.skipped)} kept as they were, {len(report.failed)} failed, "
        f"in {folder}; {asked - left} of {asked} tools packed, {left} left to the fallback; {report.requests} "
        f"requests ({report.reasks} asked again with the checker's messages)",
        err=True,
    )


def build_settings(servers: Path, folder: Path, flags: dict, config: Path | None, seed: int) -> Settings:
    """The pack author's endpoint (flags over synth.toml over the pack defaults: a long timeout, since one
    answer is a whole pack); its cache sits beside the packs, so a rerun asks only what failed."""
    from synth.cli.common import model_fields
    from synth.config import Settings

    fields = {"model": "gpt-4.1-mini", "concurrency": 8, "timeout": PACK_TIMEOUT, **model_fields(config, flags)}
    fields.pop("roles", None)  # one author, the run's endpoint
    return Settings(
        servers=servers, out=folder, backend="openai", seed=seed, cache=folder / ".pack-cache.sqlite", **fields
    )


def print_build_estimate(todo: list[ServerSpec], settings: Settings) -> None:
    """--dry-run: the requests, tokens and cost of writing the missing packs."""
    from synth.packs.build import estimate

    model = settings.model
    e = estimate(todo, model, settings.prices.get(model))
    usd = (
        "unknown (no price for this model: add it under [prices] in synth.toml)"
        if e["usd"] is None
        else f"${e['usd']:.2f}"
    )
    typer.echo(
        f"dry run: about {e['requests']} requests for {e['servers']} servers without a pack (one per group of up "
        "to 8 tools, and re-asks with the checker's messages for about half the tools), about "
        f"{e['prompt_tokens']:,} prompt and {e['completion_tokens']:,} completion tokens, about {usd}"
    )


def write_packs(servers: list[ServerSpec], folder: Path, settings: Settings):
    """The requests for every server without a pack, with a progress bar; the endpoint closed at the end."""
    import asyncio

    from rich.progress import Progress

    from synth.llm.factory import open_one
    from synth.packs.build import build

    backend = open_one(settings)

    async def run():
        try:
            with Progress(transient=True) as bar:
                task = bar.add_task("writing packs", total=len(servers))
                return await build(servers, folder, backend, settings.model, settings.seed, lambda _: bar.advance(task))
        finally:
            await backend.aclose()

    return asyncio.run(run())
