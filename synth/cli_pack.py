"""``synth pack``: check server packs against their servers, print the pack JSON Schema, build packs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

pack_app = typer.Typer(help="Server packs: the reviewed data files that make offline conversations real.",
                       no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(pack_app, name="pack")


@pack_app.command("check")
def pack_check(
    servers: Path = typer.Argument(..., help="Registry folder; its packs (*.pack.yaml) are found under it."),
    packs: Optional[Path] = typer.Option(None, "--packs", help="Another folder of packs (default: inside SERVERS)."),
    warnings: bool = typer.Option(True, "--warnings/--errors-only", help="Also list warnings."),
) -> None:
    """Check every pack: tools and parameters exist, every slot is fillable, every value is valid for its schema.

    Exits 1 when any pack has errors.
    """
    from synth.errors import SynthError
    from synth.packs.check import check_pack
    from synth.packs.load import load_packs
    from synth.registry import load_registry

    try:
        registry = load_registry(servers)
    except SynthError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2)
    found = load_packs(servers, *([packs] if packs else []))
    problems = list(found.problems)
    known = {s.id: s for s in registry.servers}
    for server_id, pack in sorted(found.by_server.items()):
        server = known.get(server_id)
        if server is None:
            problems.append(_orphan(found.files[server_id], server_id))
            continue
        problems.extend(check_pack(pack, server, found.files[server_id]))
    errors = sum(p.severity == "error" for p in problems)
    for p in problems:
        if warnings or p.severity == "error":
            typer.echo(p.line())
    without = sorted(set(known) - set(found.by_server))
    typer.echo(f"{len(found.by_server)} packs, {len(without)} servers without a pack; "
               f"{errors} error{'s' * (errors != 1)}, {len(problems) - errors} warning{'s' * (len(problems) - errors != 1)}",
               err=True)
    raise typer.Exit(1 if errors else 0)


def _orphan(file: str, server_id: str):
    from synth.records import Problem

    return Problem(severity="error", file=file, server=server_id, what=f"no server {server_id!r} in the registry",
                   fix="set 'server' to the qualifiedName of a server in the folder")


@pack_app.command("schema")
def pack_schema() -> None:
    """Print the JSON Schema of the pack format."""
    from synth.packs.model import pack_json_schema

    typer.echo(json.dumps(pack_json_schema(), indent=2))
