"""Writing a run's files: replaced atomically (``Replacing``, ``write_atomic``) or streamed as made (``RunWriter``).

Names are the public ones (``scored.jsonl``); in a compact run folder the files are written in its
storage (gzip, tool lists referenced from the folder's tool table), except the files users upload
(``train.jsonl``, ``valid.jsonl``, ``eval.jsonl``: plain public rows unless the run was made with
``--storage compact``). Re-exported by synth.rundir.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import hashlib
import json
import os
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

    def __init__(
        self,
        folder: Path,
        names: Iterable[str],
        compact: bool | None = None,
        skip: Iterable[str] = (),
        sync: bool = True,
    ):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.sync = folder, sync
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
            if self.sync:
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


def write_atomic(path: Path, chunks: Iterable[str], sync: bool = True) -> None:
    """Write a file so that a crash leaves the old or the new one, never half of each. ``sync=False`` leaves the
    flush to disk to one ``sync_tree`` over the folder when many small files are written (a run's tasks)."""
    with Replacing(path.parent, (path.name,), sync=sync) as files:
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


def write_json(path: Path, data: Any, indent: int | None = 2, sync: bool = True) -> None:
    write_atomic(path, [json.dumps(data, indent=indent, ensure_ascii=False) + "\n"], sync)


def sync_tree(root: Path) -> None:
    """Flush the files of ``root``'s filesystem to disk in one call (Linux ``syncfs``; ``sync`` elsewhere): what a
    fsync per file did for hundreds of task files (issue 43: 655 fsyncs were 6.2 s of a 1,000-conversation run)."""
    if not root.is_dir():
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fd = os.open(root, os.O_RDONLY)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


class Stream:
    """One run file written as its lines are made, in its storage (gzip, tool lists referenced from the run's
    tool table, when ``table`` is given), its lines counted and hashed as they go: ``close`` gives the
    manifest's facts of the file (synth.rundir.digest.file_facts reads the same back), without reading it again.
    Lines given to ``defer`` go after every line ``write`` gives (kept in a temporary file until ``close``)."""

    def __init__(
        self, out: Path, name: str, compact: bool, table: ToolTable | None = None, tools: Stream | None = None
    ):
        target = out / storage_name(name, compact)
        other_spelling(out, target.name).unlink(missing_ok=True)  # a file of an older storage would shadow it
        self.name, self.table, self.tools = name, table, tools
        self.file: TextIO = open_write(target)
        self.later: TextIO | None = None
        self.sha, self.lines = hashlib.sha256(), 0
        self.facts: dict[str, Any] | None = None  # set once closed

    def _text(self, record: Any) -> str:
        if isinstance(record, str):  # a line copied unchanged
            return record
        if self.table is not None:
            record = self.table.compact(self.name, record)
            for entry in self.table.take_new():
                self.tools.write(entry)  # type: ignore[union-attr]
        return dump_line(record)

    def _put(self, text: str) -> None:
        self.file.write(text)
        self.sha.update(text.encode("utf-8"))
        self.lines += text.count("\n")

    def write(self, record: Any) -> None:
        """A record as one line, or text as it is."""
        self._put(self._text(record))

    def defer(self, record: Any) -> None:
        """A record that goes after every line ``write`` gives this file: memory does not grow with the run."""
        if self.later is None:
            self.later = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed in close)
        self.later.write(self._text(record))

    def close(self) -> dict[str, Any]:
        """Close the file (once); its line count and the sha256 of its content."""
        if self.facts is None:
            if self.later is not None:
                self.later.seek(0)
                while chunk := self.later.read(1 << 20):
                    self._put(chunk)
                self.later.close()
            self.file.close()
            self.facts = {"lines": self.lines, "sha256": self.sha.hexdigest()}
        return self.facts


class RunWriter:
    """Opens the run's JSONL files (a ``Stream`` each) and writes each record to where it belongs, as made.

    ``storage`` (synth.rundir.names.STORAGES): ``ready``, a run folder's default, writes the READY
    files as plain public rows and the rest compactly (gzip, tool lists in the tool table);
    ``compact`` writes every file compactly; ``plain`` (``synth derive``'s folder) none."""

    def __init__(self, out: Path, names: Iterable[str] = FILES, storage: str = "ready"):
        out.mkdir(parents=True, exist_ok=True)
        self.out = out
        names = tuple(names)
        compact = {n: not kept_plain(n, storage) for n in (*names, TOOLS)}
        referenced = any(n in TOOL_FIELDS and compact[n] for n in names)
        table = ToolTable(readable=False) if referenced else None
        tools = Stream(out, TOOLS, compact[TOOLS]) if referenced else None
        self.streams = {n: Stream(out, n, compact[n], table if compact[n] else None, tools) for n in names}
        self.tools = tools

    def stream(self, name: str) -> Stream:
        return self.streams[name]

    def write(self, name: str, record: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
        self.streams[name].write(record)

    def defer(self, name: str, record: Any) -> None:
        """A record that goes after every line ``write`` gives ``name`` (audited items after flagged ones)."""
        self.streams[name].defer(record)

    def close(self) -> dict[str, dict[str, Any]]:
        """Close every file not closed yet; each file's facts (lines, sha256), in the order they were named."""
        facts = {name: stream.close() for name, stream in self.streams.items()}
        if self.tools is not None:
            self.tools.close()
        return facts

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
