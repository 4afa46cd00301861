"""Writing a run's files: replaced atomically (``Replacing``, ``write_atomic``) or streamed as made (``RunWriter``).

Names are the public ones (``scored.jsonl``); in a compact run folder the files are written in its
storage (gzip, tool lists referenced from the folder's tool table), except the files users upload
(``train.jsonl``, ``valid.jsonl``, ``eval.jsonl``: plain public rows unless the run was made with
``--storage compact``). Re-exported by synth.rundir.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from synth.rundir.names import FILES, GZ, READY, TOOL_FIELDS, TOOLS, kept_plain, storage_name
from synth.rundir.reading import dump_line
from synth.rundir.storage import is_compact, lines, open_write, other_spelling
from synth.rundir.tooltable import ToolTable


def file_mode() -> int:
    """The mode ``open`` gives a new file under this process's umask (0644 under 022). Linux shows the
    umask in /proc; elsewhere it can only be read by setting it (to 077 for that instant, so a file
    another thread makes meanwhile is never more open than the user asked)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            mask = next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o077)
        os.umask(mask)
    return 0o666 & ~mask


class Replacing:
    """New versions of files in ``folder``, written beside the old ones under temporary names and
    renamed over them together by ``commit``; ``abort`` (or an exception in a ``with``) leaves the old.

    Names are the public ones (``scored.jsonl``); in a compact run folder the files are written in
    its storage (gzip, tool lists referenced, new lists added to the folder's tool table), and each
    READY file keeps the spelling it has (plain unless the run stored it compactly). Lines for a name
    in ``skip`` (an output the run does not write) are dropped."""

    def __init__(self, folder: Path, names: Iterable[str], compact: bool | None = None, skip: Iterable[str] = ()):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.skip = frozenset(skip)
        compact = is_compact(folder) if compact is None else compact
        names = tuple(names)
        self.plain = {n: not compact or (n in READY and not (folder / (n + GZ)).exists()) for n in (*names, TOOLS)}
        self.temp: dict[str, Path] = {}
        self.out: dict[str, TextIO] = {}
        referenced = any(n in TOOL_FIELDS and not self.plain[n] for n in names)
        self.table = ToolTable.load(folder) if referenced else None
        for name in names:
            self._open(name)

    def _open(self, name: str) -> None:
        target = self.folder / storage_name(name, not self.plain[name])
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
        os.fchmod(fd, file_mode())  # mkstemp makes 0600; a run's files are the user's to share, as open() makes them
        os.close(fd)
        self.temp[name], self.out[name] = Path(tmp), open_write(Path(tmp))

    def write(self, name: str, line: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
        if name in self.skip:
            return
        if not isinstance(line, str) and self.table is not None and not self.plain[name]:
            line = self.table.compact(name, line)
        self.out[name].write(line if isinstance(line, str) else dump_line(line))

    def commit(self) -> None:
        new = self.table.take_new() if self.table is not None else []
        if new:  # the tool table grows: its old lines, then the new entries
            self._open(TOOLS)
            for _, text in lines(self.folder / TOOLS):
                self.out[TOOLS].write(text)
            for entry in new:
                self.out[TOOLS].write(dump_line(entry))
        for f in self.out.values():
            f.flush()
            f.close()
        for name, tmp in self.temp.items():
            with open(tmp, "rb") as f:  # type: ignore[assignment]
                os.fsync(f.fileno())
            target = self.folder / storage_name(name, not self.plain[name])
            os.replace(tmp, target)
            other_spelling(target.parent, target.name).unlink(missing_ok=True)

    def abort(self) -> None:
        for name, f in self.out.items():
            f.close()
            self.temp[name].unlink(missing_ok=True)

    def __enter__(self) -> Replacing:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        self.abort() if kind is not None else self.commit()


def write_atomic(path: Path, chunks: Iterable[str]) -> None:
    """Write a file so that a crash leaves the old or the new one, never half of each."""
    with Replacing(path.parent, (path.name,)) as files:
        for chunk in chunks:
            files.write(path.name, chunk)


def write_jsonl(path: Path, records: Iterable[Any]) -> None:
    """Records as one file, atomically (in a compact run folder, in its storage: tool lists referenced)."""
    with Replacing(path.parent, (path.name,)) as files:
        for record in records:
            files.write(path.name, record)


def append_jsonl(path: Path, records: Iterable[Any]) -> None:
    """Records added at the end of a plain JSONL file (``review_log.jsonl``: decisions are only ever added)."""
    with open(path, "a", encoding="utf-8") as f:
        for record in records:
            f.write(dump_line(record))


def write_json(path: Path, data: Any, indent: int | None = 2) -> None:
    write_atomic(path, [json.dumps(data, indent=indent, ensure_ascii=False) + "\n"])


class RunWriter:
    """Opens the run's JSONL files and writes each record to where it belongs (streamed, as made).

    ``storage`` (synth.rundir.names.STORAGES): ``ready``, a run folder's default, writes the READY
    files as plain public rows and the rest compactly (gzip, tool lists in the tool table);
    ``compact`` writes every file compactly; ``plain`` (``synth derive``'s folder) none."""

    def __init__(self, out: Path, names: Iterable[str] = FILES, storage: str = "ready"):
        out.mkdir(parents=True, exist_ok=True)
        self.out = out
        names = tuple(names)
        self.plain = {n: kept_plain(n, storage) for n in (*names, TOOLS)}
        referenced = any(n in TOOL_FIELDS and not self.plain[n] for n in names)
        self.table = ToolTable(readable=False) if referenced else None
        if self.table is not None:
            names = (*names, TOOLS)
        self.files: dict[str, TextIO] = {}
        self.later: dict[str, TextIO] = {}  # lines written after the rest of their file (``defer``)
        for name in names:
            target = out / storage_name(name, not self.plain[name])
            other_spelling(out, target.name).unlink(missing_ok=True)  # a file of an older storage would shadow it
            self.files[name] = open_write(target)

    def write(self, name: str, record: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
        if self.table is not None and not isinstance(record, str) and not self.plain[name]:
            record = self.table.compact(name, record)
            for entry in self.table.take_new():
                self.files[TOOLS].write(dump_line(entry))
        self.files[name].write(record if isinstance(record, str) else dump_line(record))

    def defer(self, name: str, record: Any) -> None:
        """A record that goes after every line ``write`` gives ``name`` (audited items after flagged ones),
        kept in a temporary file until ``close``: memory does not grow with the run."""
        if name not in self.later:
            self.later[name] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed in close)
        if self.table is not None:
            record = self.table.compact(name, record)
            for entry in self.table.take_new():
                self.files[TOOLS].write(dump_line(entry))
        self.later[name].write(dump_line(record))

    def close(self) -> None:
        for name, held in self.later.items():
            held.seek(0)
            shutil.copyfileobj(held, self.files[name])
            held.close()
        self.later.clear()
        for f in self.files.values():
            f.close()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
