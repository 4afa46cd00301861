"""``synth generate --shards N --shard I`` / ``--ray``, and ``synth merge``: a run in slices (synth.shards)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer


def register(app: typer.Typer) -> None:
    app.command("merge")(merge_command)


def sharded(
    settings: Any,
    shards: int | None,
    shard: int | None,
    ray: bool,
    ray_address: str | None,
    quota: int | None,
    overwrite: bool,
    run: Callable[..., Any],
) -> dict | None:
    """One shard (returns None: there is nothing to summarise yet) or, with --ray, all of them merged
    into ``settings.out`` (returns the run's manifest, card written). ``run``: the CLI's generate with
    its progress bar, which opens the backends."""
    from synth.errors import ConfigError
    from synth.rundir import RunLock, claim

    if ray or ray_address:
        if shard is not None:
            raise ConfigError("--ray runs every shard: drop --shard (or drop --ray to make shard I here)")
        from synth.export.card.build import write_card
        from synth.ray_shards import run_on_ray
        from synth.shards import Shard

        Shard(settings, shards or 2, 0)  # the checks a shard makes (budget, live), before Ray starts
        with RunLock(settings.out):
            claim(settings.out, settings.identity(), overwrite=overwrite)
            manifest = run_on_ray(settings, shards or 2, ray_address, quota=quota)
            write_card(settings.out)
        return manifest
    if shards is None or shard is None:
        raise ConfigError("a shard needs both --shards N and --shard I (0 to N-1); or give --ray to run all N")
    from synth.shards import Shard

    Shard(settings, shards, shard, quota)  # checked before anything is opened
    manifest = run(settings, shard=(shards, shard, quota))
    scenarios = manifest["scenarios"]
    typer.echo(
        f"shard {shard} of {shards}: {scenarios['written']} of its {scenarios['slice']} scenarios written, "
        f"{manifest['candidates']} conversations passed the gates ({'all made' if scenarios['exhausted'] else 'quota ' + str(manifest['quota'])}) "  # noqa: E501
        f"-> {settings.out}\nmerge every shard with: synth merge SHARD_FOLDERS... --out DIR"
    )
    return None


def merge_command(
    folders: list[Path] = typer.Argument(
        ...,
        help="The folders of every shard of the run (synth generate --shards N --shard I --out FOLDER), in any order.",
    ),
    out: Path = typer.Option(
        ..., "--out", "-o", help="The run folder to write: byte-identical to the run made as one process."
    ),
    servers: Path | None = typer.Option(
        None,
        "--servers",
        "-s",
        help="The registry the shards were made from, when it is not at the path they recorded.",
    ),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace a different run already in --out."),
) -> None:
    """Merge shard folders into one run, exactly as the single run makes it.

    Dedup across shards, the n cap, splits, exports, manifest and card, byte for byte."""
    from synth.cli.common import exits_on_error
    from synth.export.card.build import write_card
    from synth.rundir import RunLock, claim
    from synth.shards import identity_of, merge
    from synth.summary import print_summary

    with exits_on_error(), RunLock(out):
        claim(out, identity_of(folders), overwrite=overwrite)
        manifest = merge(folders, out, servers=servers)
        write_card(out)
    print_summary(manifest, out)
