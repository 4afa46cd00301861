"""How a run file is spelled on disk (plain, or gzip with a fixed header) and read back as lines.

A reader asks for the public name (``scored.jsonl``) and gets whichever spelling is there, so runs
made before the compact storage (issue 18) read as they always did.
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from synth.errors import ConfigError
from synth.rundir.names import CONVERSATIONS, GZ, TOOLS


def stored(path: Path) -> Path:
    """Where ``path`` is on disk: itself, or its gzip spelling (``<name>.gz``) when only that exists."""
    if path.exists() or path.suffix == GZ:
        return path
    gz = path.with_name(path.name + GZ)
    return gz if gz.exists() else path


def open_text(path: Path) -> TextIO:
    """A file for reading as text, whichever its storage (``path`` as found by ``stored``)."""
    path = stored(path)
    if path.suffix == GZ:
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def open_write(path: Path) -> TextIO:
    """A text file for writing; gzip when ``path`` ends in .gz, with a fixed header (no name, no time)
    so the same content gives the same bytes."""
    return _GzipText(path) if path.suffix == GZ else open(path, "w", encoding="utf-8")


class _GzipText(io.TextIOWrapper):
    """Text into a gzip file; closing it writes the gzip trailer, then closes the file (GzipFile
    leaves a file it was given open)."""

    def __init__(self, path: Path):
        self._file = open(path, "wb")
        super().__init__(
            gzip.GzipFile(filename="", mode="wb", fileobj=self._file, mtime=0, compresslevel=6), encoding="utf-8"
        )

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._file.close()


def is_compact(folder: Path) -> bool:
    """Whether the run in ``folder`` is stored compactly (gzip, tool lists referenced): runs made
    before issue 18 are plain JSONL, and a rewrite keeps each run's storage."""
    return (folder / (TOOLS + GZ)).exists() or (folder / (CONVERSATIONS + GZ)).exists()


def other_spelling(folder: Path, stored_name: str) -> Path:
    """The same file under its other storage (``x.jsonl`` <-> ``x.jsonl.gz``), which a rewrite removes."""
    return folder / (stored_name[: -len(GZ)] if stored_name.endswith(GZ) else stored_name + GZ)


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line as stored, streamed, whichever the storage (plain
    or gzip); nothing when the file is absent."""
    if not stored(path).exists():
        return
    with open_text(path) as f:
        for number, text in enumerate(f, 1):
            if text.strip():
                yield number, text


def parse_line(path: Path, number: int, text: str, what: str) -> Any:
    """One JSONL line as a value; not JSON is a ConfigError naming the file and the line."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(
            f"{path}:{number}: not JSON ({getattr(exc, 'msg', exc)}); each line of a {what} must be one JSON object"
        ) from None
