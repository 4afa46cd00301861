"""The run as a Hugging Face dataset repo: parquet per config (``hf``), the card with its plots
(``card``), manifest.json and the store tasks (``tasks/``), laid out so ``load_dataset(folder, config)`` and the Hub
read it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from synth.export.card.build import write_card
from synth.export.hf import write_parquet
from synth.rundir import CARD, MANIFEST, PLOTS, TASKS


def export(run: Path, out: Path | None = None, **card_options: Any) -> dict[str, dict[str, list[Path]]]:
    """The run as a Hub dataset repo in ``out`` (default: the run folder itself): parquet, README.md card
    with plots, and manifest.json. ``load_dataset(str(out), config)`` reads it back."""
    out = out or run
    out.mkdir(parents=True, exist_ok=True)
    written = write_parquet(run, out)
    write_card(run, out, **card_options)
    if out.resolve() != run.resolve():
        shutil.copyfile(run / MANIFEST, out / MANIFEST)
        copy_tasks(run, out)
    return written


def copy_tasks(run: Path, out: Path) -> None:
    """The run's MCPMark-style tasks go with the data (replaced whole, so no task of an older export lingers)."""
    shutil.rmtree(out / TASKS, ignore_errors=True)
    if (run / TASKS).is_dir():
        shutil.copytree(run / TASKS, out / TASKS)


def hub_files(folder: Path) -> list[str]:
    """The files of a Hub layout in ``folder``, as paths in the repo, sorted: the card, its plots,
    manifest.json, the parquet files of every config and the store tasks."""
    names = [CARD, MANIFEST]
    names += [p.relative_to(folder).as_posix() for p in sorted((folder / PLOTS).glob("*.png"))]
    names += [p.relative_to(folder).as_posix() for p in sorted((folder / TASKS).rglob("*")) if p.is_file()]
    for config in sorted(p for p in folder.iterdir() if p.is_dir() and any(p.glob("*.parquet"))):
        names += [p.relative_to(folder).as_posix() for p in sorted(config.glob("*.parquet"))]
    return sorted(n for n in names if (folder / n).is_file())
