"""The run folder (``outputs/<run>/``): its file names, the JSONL reader, the atomic writer, the manifest.

Everything that reads or writes a run's files goes through here, so a file's name, its spelling
(one JSON object per line, UTF-8 kept), its storage and how it is replaced (written beside under a
temporary name, then renamed over the old one, so a crash leaves the old file or the new one, never
half of each) are decided once.

Storage (issue 18): the big files are gzip-compressed (``train.jsonl.gz``; fixed header, so the same
run gives the same bytes), and the tool list of a chat line, an eval item or a scored row is stored
once in ``tools.jsonl.gz`` (each tool once, each list once as tool ids) and referenced from the row
as ``"tools:<id>"``. The readers here (``read_jsonl``, ``lines``, ``read_json``) find the file under
either spelling, undo both and give the public row, byte for byte as it was made; ``synth export``
writes those rows out (``--format jsonl``: the plain files; ``hf``: parquet).
"""

from __future__ import annotations

import fcntl
import functools
import gzip
import hashlib
import io
import itertools
import json
import os
import re
import shlex
import sys
import tempfile
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO, TypeVar

from synth.errors import ConfigError, RunFolderError, SynthError

MANIFEST = "manifest.json"
CONVERSATIONS = "conversations.jsonl"
TRAIN = "train.jsonl"
VALID = "valid.jsonl"
EVAL = "eval.jsonl"
SCORED = "scored.jsonl"
REJECTED = "rejected.jsonl"
QUEUE = "review_queue.jsonl"
LOG = "review_log.jsonl"
CARD = "README.md"
REQUESTS = "requests.json"  # what getting the answers took, per process (retries, 429s, waits): timing, so not in the manifest
LOCK = ".synth.lock"  # held (flock) by the one process writing the run; holds its pid and command
RUNNING, COMPLETE = "running", "complete"  # the manifest's status: written "running" first, "complete" last
TOOLS = "tools.jsonl"  # each tool and each tool list once; rows refer to a list as "tools:<id>"
TEVAL = "teval"  # the T-Eval subsets' folder
EXPORTS = (CONVERSATIONS, TRAIN, VALID, EVAL, SCORED, REJECTED)
FILES = (*EXPORTS, QUEUE)  # what generate writes, and what the manifest lists with line counts and hashes
CHAT = {"train": TRAIN, "valid": VALID}  # split -> its chat file
GZ = ".gz"
COMPRESSED = frozenset((CONVERSATIONS, TRAIN, VALID, EVAL, SCORED, TOOLS))  # stored as <name>.gz in a run folder
# (rejected, the review queue and log stay plain: small, and read or edited by people)
TOOL_FIELDS: dict[str, tuple[str, ...]] = {TRAIN: ("tools",), VALID: ("tools",), EVAL: ("item", "tools"),
                                           SCORED: ("available_tools",),  # where each file's rows keep a tool list
                                           QUEUE: ("record", "available_tools")}  # a queued scored row
REF = "tools:"
# --outputs: what generate may leave out (conversations.jsonl, the source of everything else, is always written)
OUTPUTS = ("train", "valid", "eval", "scored", "teval", "tasks")
DEFAULT_OUTPUTS = OUTPUTS  # all: a first run shows every format, and stored compactly all of them take about 6 kB a conversation
OUTPUT_FILES = {"train": TRAIN, "valid": VALID, "eval": EVAL, "scored": SCORED}


# --- storage -----------------------------------------------------------------------------------

def stored(path: Path) -> Path:
    """Where ``path`` is on disk: itself, or its gzip spelling (``<name>.gz``) when only that exists."""
    if path.exists() or path.suffix == GZ:
        return path
    gz = path.with_name(path.name + GZ)
    return gz if gz.exists() else path


def public_name(path: Path) -> str:
    """A file's name without the storage suffix (``scored.jsonl.gz`` -> ``scored.jsonl``)."""
    return path.name[: -len(GZ)] if path.name.endswith(GZ) else path.name


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
        super().__init__(gzip.GzipFile(filename="", mode="wb", fileobj=self._file, mtime=0, compresslevel=6),
                         encoding="utf-8")

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._file.close()


def storage_name(name: str, compact: bool = True) -> str:
    """The name ``name`` is written under in a run folder (``scored.jsonl`` -> ``scored.jsonl.gz``)."""
    return name + GZ if compact and (name in COMPRESSED or name.startswith(TEVAL + "/")) else name


class ToolTable:
    """The run's tool lists, each tool and each list stored once (``tools.jsonl.gz``), keyed by a hash
    of its exact JSON spelling, so a list put back in a row is the same bytes it was."""

    MEMO = 4096  # tool shapes remembered (a registry has a few hundred tools)
    JOINED = 256  # lists kept joined for reading: a list's text can be 100 kB, and a run has one per row or so

    def __init__(self, readable: bool = True) -> None:
        self.texts: dict[str, str] = {}  # tool id -> the tool's JSON text
        self.order: list[str] = []  # tool ids in the order they came, and each one's place
        self.place: dict[str, int] = {}
        # list id (as an int when it is synth's own spelling) -> its tools' places as uint32s. A run makes
        # about two lists a conversation, so a list is a few bytes per tool and no object per tool; a
        # table only written (``readable=False``: a run's writer) keeps the ids alone
        self.sets: dict[int | str, bytes | None] = {}
        self.readable = readable
        self.joined: dict[str, str] = {}  # list id -> the list's JSON text: the JOINED last read (memory stays flat)
        self.new: list[dict[str, Any]] = []  # entries added since the last ``take_new``
        self._memo: dict[Any, tuple[str, Any]] = {}  # a tool's shape (see _shape) -> (its id, the tool)

    @staticmethod
    def _id(kind: str, text: str) -> str:
        return kind + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @staticmethod
    def _key(list_id: str) -> int | str:
        return int(list_id[1:], 16) if len(list_id) == 17 and list_id[0] == "s" and _HEX.fullmatch(list_id, 1) else list_id

    def _add_tool(self, tid: str, text: str) -> None:
        self.texts[tid] = text
        self.place[tid] = len(self.order)
        self.order.append(tid)

    def _add_set(self, list_id: str, ids: list[str]) -> None:
        places = array("I", [self.place[t] for t in ids]).tobytes() if self.readable else None
        self.sets[self._key(list_id)] = places

    def ref(self, tools: list[Any]) -> str:
        ids = [self._tool_id(tool) for tool in tools]
        key = self._id("s", json.dumps(ids))
        if self._key(key) not in self.sets:
            self._add_set(key, ids)
            self.new.append({"id": key, "set": ids})
        return REF + key

    def _tool_id(self, tool: Any) -> str:
        """The id of one tool, spelled (``json.dumps``) only the first time its parts are seen: rows
        are made from the registry's tools, so each row's tool dicts are new but hold the same schema
        objects (a row's tools took most of the time of writing it)."""
        key = _shape(tool)
        known = self._memo.get(key)
        if known is not None:
            return known[0]
        text = json.dumps(tool, ensure_ascii=False)
        tid = sys.intern(self._id("t", text))
        if tid not in self.texts:
            self._add_tool(tid, text)
            self.new.append({"id": tid, "tool": tool})
        if len(self._memo) >= self.MEMO:
            self._memo.clear()  # schemas made anew for each row would never be seen again: memory stays bounded
        self._memo[key] = (tid, tool)  # ``tool`` is held, so the ids in ``key`` stay its objects' ids
        return tid

    def tools(self, ref: str) -> list[Any]:
        """A fresh copy of the list each time (a reader may change the row it gets)."""
        key = ref[len(REF):]
        text = self.joined.pop(key, None)
        if text is None:
            try:
                places = self.sets[self._key(key)]
                if places is None:
                    raise KeyError(key)  # a table only written keeps no lists
                text = "[" + ", ".join(self.texts[self.order[i]] for i in array("I", places)) + "]"
            except KeyError:
                raise ConfigError(f"a row refers to the tool list {ref!r}, which is not in {TOOLS}; the run folder is "
                                  "incomplete: make the run again") from None
            if len(self.joined) >= self.JOINED:
                del self.joined[next(iter(self.joined))]  # the least recently read
        self.joined[key] = text
        return json.loads(text)

    def compact(self, name: str, record: Any) -> Any:
        """The row with its tool list replaced by a reference (a copy; other rows as they are)."""
        path = TOOL_FIELDS.get(name)
        if path is None or not isinstance(record, dict):
            return record
        out = dict(record)
        holder = out
        for key in path[:-1]:
            if not isinstance(holder.get(key), dict):
                return record
            holder[key] = dict(holder[key])
            holder = holder[key]
        if isinstance(holder.get(path[-1]), list):
            holder[path[-1]] = self.ref(holder[path[-1]])
        return out

    def inflate(self, name: str, record: Any) -> Any:
        """The public row: a referenced tool list put back where it was (in place)."""
        holder = record
        path = TOOL_FIELDS[name]
        for key in path[:-1]:
            holder = holder.get(key) if isinstance(holder, dict) else None
        if isinstance(holder, dict) and isinstance(holder.get(path[-1]), str) and holder[path[-1]].startswith(REF):
            holder[path[-1]] = self.tools(holder[path[-1]])
        return record

    def take_new(self) -> list[dict[str, Any]]:
        new, self.new = self.new, []
        return new

    @classmethod
    def load(cls, folder: Path) -> ToolTable:
        table = cls()
        for entry in read_jsonl(folder / TOOLS, "tool table"):
            if "tool" in entry:
                table._add_tool(entry["id"], json.dumps(entry["tool"], ensure_ascii=False))
            else:
                try:
                    table._add_set(entry["id"], entry["set"])
                except KeyError as missing:
                    raise ConfigError(f"{stored(folder / TOOLS)}: the tool list {entry['id']} names the tool {missing}, which "
                                      "is not before it in the table; the run folder is damaged: make the run again") from None
        return table


_HEX = re.compile(r"[0-9a-f]{16}")


def _shape(tool: Any) -> Any:
    """A key for a tool dict that is equal for two dicts of the same strings and the same inner objects:
    its strings, and those of a dict inside it, by value; anything else (a schema) by identity. Only
    for dicts made from objects that are not changed while a run is written (the registry's schemas)."""
    if not isinstance(tool, dict):
        return ("#", id(tool))
    return tuple((k, v if type(v) is str else
                  tuple((k2, v2 if type(v2) is str else id(v2)) for k2, v2 in v.items()) if type(v) is dict else id(v))
                 for k, v in tool.items())


_tables: dict[str, tuple[tuple[int, int], ToolTable]] = {}  # folder -> (tools file mtime and size, table)


def tool_table(folder: Path) -> ToolTable:
    """The folder's tool table, read once while its file does not change."""
    path = stored(folder / TOOLS)
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        return ToolTable()
    key = os.path.realpath(folder)
    cached = _tables.get(key)
    if cached is None or cached[0] != stamp:
        cached = _tables[key] = (stamp, ToolTable.load(folder))
    return cached[1]


# --- reading -----------------------------------------------------------------------------------

def dump_line(record: Any) -> str:
    """The spelling every run file uses: one JSON object per line, UTF-8 kept."""
    return json.dumps(record, ensure_ascii=False) + "\n"


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line as stored, streamed, whichever the storage (plain
    or gzip); nothing when the file is absent."""
    if not stored(path).exists():
        return
    with open_text(path) as f:
        for number, text in enumerate(f, 1):
            if text.strip():
                yield number, text


def inflater(path: Path) -> Callable[[Any], Any] | None:
    """What puts referenced tool lists back into the rows of ``path`` (None for files without any).
    A reference with no tool table beside the file (a file copied out of its run) is a ConfigError."""
    name = public_name(path)
    if name not in TOOL_FIELDS:
        return None
    table = tool_table(path.parent)
    return lambda record: table.inflate(name, record)


def _parse(path: Path, number: int, text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path}:{number}: not JSON ({getattr(exc, 'msg', exc)}); each line of a {what} must be one JSON object") from None


def read_jsonl(path: Path, what: str = "run file", required: bool = False) -> Iterator[dict[str, Any]]:
    """The records of a JSONL file, one at a time. A bad line is a ConfigError naming the file and
    line; an absent file gives nothing, or with ``required`` a ConfigError."""
    if required and not stored(path).is_file():
        raise ConfigError(f"{what} {path} does not exist")
    inflate = inflater(path)
    for number, text in lines(path):
        record = _parse(path, number, text, what)
        yield inflate(record) if inflate is not None else record


def read_jsonl_text(path: Path, what: str = "run file") -> Iterator[tuple[str, dict[str, Any]]]:
    """Each record (the public row) with the text it is stored as, so an untouched line can be copied
    unchanged into a file of the same run (``Replacing``)."""
    inflate = inflater(path)
    for number, text in lines(path):
        record = _parse(path, number, text, what)
        yield text, inflate(record) if inflate is not None else record


def read_json(path: Path, what: str = "JSON file", error: type[SynthError] = ConfigError) -> Any:
    """A whole JSON file (the manifest, a report, a T-Eval subset, plain or gzip); unreadable is
    ``error`` saying which."""
    try:
        with open_text(path) as f:
            return json.loads(f.read())
    except (OSError, ValueError, EOFError) as exc:
        raise error(f"{path}: not a readable {what} ({exc})") from None


def count_lines(path: Path) -> int:
    """Lines of a file, counted in chunks (0 when it is absent)."""
    return file_facts(path, digest=False)["lines"] if stored(path).exists() else 0


def file_facts(path: Path, digest: bool = True) -> dict[str, Any]:
    """Line count and sha256 of a file's content (uncompressed, so the hash does not depend on the
    storage or the zlib version), read in chunks so memory stays flat however big it is."""
    sha, count = hashlib.sha256(), 0
    path = stored(path)
    with (gzip.open(path, "rb") if path.suffix == GZ else open(path, "rb")) as f:
        while chunk := f.read(1 << 20):
            if digest:
                sha.update(chunk)
            count += chunk.count(b"\n")
    return {"lines": count, "sha256": sha.hexdigest()} if digest else {"lines": count}


# --- writing -----------------------------------------------------------------------------------

def is_compact(folder: Path) -> bool:
    """Whether the run in ``folder`` is stored compactly (gzip, tool lists referenced): runs made
    before issue 18 are plain JSONL, and a rewrite keeps each run's storage."""
    return (folder / (TOOLS + GZ)).exists() or (folder / (CONVERSATIONS + GZ)).exists()


def _other_spelling(folder: Path, stored_name: str) -> Path:
    return folder / (stored_name[: -len(GZ)] if stored_name.endswith(GZ) else stored_name + GZ)


class Replacing:
    """New versions of files in ``folder``, written beside the old ones under temporary names and
    renamed over them together by ``commit``; ``abort`` (or an exception in a ``with``) leaves the old.

    Names are the public ones (``scored.jsonl``); in a compact run folder the files are written in
    its storage (gzip, tool lists referenced, new lists added to the folder's tool table). Lines for
    a name in ``skip`` (an output the run does not write) are dropped."""

    def __init__(self, folder: Path, names: Iterable[str], compact: bool | None = None, skip: Iterable[str] = ()):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.skip = frozenset(skip)
        self.compact = is_compact(folder) if compact is None else compact
        self.temp: dict[str, Path] = {}
        self.out: dict[str, TextIO] = {}
        self.table = ToolTable.load(folder) if self.compact and any(n in TOOL_FIELDS for n in names) else None
        for name in names:
            self._open(name)

    def _open(self, name: str) -> None:
        target = self.folder / storage_name(name, self.compact)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
        os.close(fd)
        self.temp[name], self.out[name] = Path(tmp), open_write(Path(tmp))

    def write(self, name: str, line: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
        if name in self.skip:
            return
        if not isinstance(line, str) and self.table is not None:
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
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            target = self.folder / storage_name(name, self.compact)
            os.replace(tmp, target)
            _other_spelling(target.parent, target.name).unlink(missing_ok=True)

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


def write_json(path: Path, data: Any, indent: int | None = 2) -> None:
    write_atomic(path, [json.dumps(data, indent=indent, ensure_ascii=False) + "\n"])


class RunWriter:
    """Opens the run's JSONL files and writes each record to where it belongs (streamed, as made).

    ``compact`` (a run folder): the storage this module describes, gzip with tool lists in the tool
    table; without it (``synth derive``'s folder) the public rows in plain JSONL."""

    def __init__(self, out: Path, names: Iterable[str] = FILES, compact: bool = True):
        out.mkdir(parents=True, exist_ok=True)
        self.out = out
        names = tuple(names)
        self.table = ToolTable(readable=False) if compact and any(n in TOOL_FIELDS for n in names) else None
        if self.table is not None:
            names = (*names, TOOLS)
        self.files: dict[str, TextIO] = {}
        for name in names:
            target = out / storage_name(name, compact)
            _other_spelling(out, target.name).unlink(missing_ok=True)  # a file of an older storage would shadow it
            self.files[name] = open_write(target)

    def write(self, name: str, record: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
        if self.table is not None and not isinstance(record, str):
            record = self.table.compact(name, record)
            for entry in self.table.take_new():
                self.files[TOOLS].write(dump_line(entry))
        self.files[name].write(record if isinstance(record, str) else dump_line(record))

    def close(self) -> None:
        for f in self.files.values():
            f.close()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


# --- requests.json ---------------------------------------------------------------------------

def requests_line(entries: list[dict[str, Any]]) -> str | None:
    """Requests, retries by cause, re-asks and time spent waiting, summed over ``entries`` (requests.json)."""
    if not entries:
        return None
    total: dict[str, Any] = {"errors": {}}
    for entry in entries:
        for key, value in entry.items():
            if isinstance(value, dict):
                for k, v in value.items():
                    total["errors"][k] = total["errors"].get(k, 0) + v
            elif isinstance(value, (int, float)):
                total[key] = total.get(key, 0) + value
    errors = total["errors"]
    causes = ", ".join(f"{label} {errors[kind]}" for kind, label in ERROR_LABELS if errors.get(kind))
    return (f"{total.get('requests', 0)} requests for {total.get('calls', 0)} model calls; {total.get('retries', 0)} retries"
            + (f" ({causes})" if causes else "") + f", {total.get('reasks', 0)} re-asks of answers that did not validate, "
            f"{total.get('failures', 0)} calls failed past their retries, {total.get('downgrades', 0)} output-format "
            f"downgrades; {total.get('waited_s', 0):.1f} s spent waiting before retries")


ERROR_LABELS = (("rate_limit", "429 rate limits"), ("server_error", "5xx"), ("timeout", "timeouts"),
                ("connection", "connection failures"), ("invalid_response", "unreadable bodies"),
                ("bad_request", "other 4xx"), ("auth", "auth errors"), ("not_found", "404s"))


def read_requests(out: Path) -> list[dict[str, Any]]:
    """The entries of ``requests.json`` (one per process that worked on the run), or []."""
    try:
        data = json.loads((out / REQUESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


# --- the folder --------------------------------------------------------------------------------

class RunDir:
    """A run folder: paths of its files, their records, and its manifest."""

    def __init__(self, path: Path):
        self.path = path

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def records(self, name: str) -> Iterator[dict[str, Any]]:
        return read_jsonl(self.path / name)

    def is_run(self) -> bool:
        return (self.path / MANIFEST).is_file()

    def require(self, error: type[SynthError] = ConfigError) -> None:
        """``error`` unless this is a run folder (it has a manifest)."""
        if not self.is_run():
            raise error(f"{self.path} is not a run folder (no {MANIFEST}); pass the --out folder of synth generate")

    def manifest(self, error: type[SynthError] = ConfigError) -> dict[str, Any]:
        self.require(error)
        data = read_json(self.path / MANIFEST, "manifest; make the run again", error)
        return data if isinstance(data, dict) else {}

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json(self.path / MANIFEST, manifest)

    def start(self, identity: dict[str, Any], command: str | None = None) -> None:
        """Mark the folder as a run being made (status "running", which run, how it was started)
        before any of its files is opened; the final manifest replaces this one."""
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_manifest({"status": RUNNING, "identity": identity, "command": command or command_line()})

    def finished(self, error: type[SynthError] = ConfigError) -> dict[str, Any]:
        """The manifest of a finished run. RunFolderError while another process writes the folder, or
        when the run in it stopped part way (saying how to finish it); ``error`` when it is no run."""
        holder = writer_of(self.path)
        if holder is not None:
            raise RunFolderError(f"{self.path} is being written by {holder}; wait for it to end, then run this again")
        manifest = self.manifest(error)
        if manifest.get("status", COMPLETE) != COMPLETE:
            raise RunFolderError(f"{self.path} holds an unfinished run (it stopped part way); finish it with: "
                                 f"{resume_command(manifest)}")
        return manifest


def resume_command(manifest: dict[str, Any]) -> str:
    """The command that finishes an unfinished run: the one that started it, with --resume."""
    command = str(manifest.get("command") or "synth generate ... (with the flags of the first run)")
    return command if " --resume" in command else command + " --resume"


# --- one writer per folder ---------------------------------------------------------------------

_held: dict[tuple[str, int], list[Any]] = {}  # (folder, thread) -> [lock fd, depth]: re-entrant per thread
_F = TypeVar("_F", bound=Callable[..., Any])


def command_line() -> str:
    """How this process was started, for lock files and messages (``synth generate -n 5 ...``)."""
    argv = list(sys.argv)
    if argv and (argv[0] == "-m" or argv[0].endswith(("synth", "cli.py", "__main__.py"))):
        argv[0] = "synth"
    return shlex.join(argv) if argv else "synth"


def _flock(fd: int, kind: int) -> bool:
    """Take the lock without blocking; a few short tries, so a reader's brief look does not refuse a writer."""
    for attempt in range(4):
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except OSError:
            if attempt < 3:
                time.sleep(0.03)
    return False


def _holder(fd: int) -> str:
    """The pid and command written in a lock file, as a phrase for messages."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 1 << 16).decode("utf-8") or "{}")
    except (OSError, ValueError):
        info = {}
    if not isinstance(info, dict) or "pid" not in info:
        return "another synth process"
    return f"pid {info['pid']} ({info.get('command') or 'synth'})"


class RunLock:
    """The exclusive right to write a run folder: ``flock`` on ``<folder>/.synth.lock``, which the OS
    drops when the holder exits or dies, so a lock left by a killed run is never in the way. The
    holder's pid and command are written inside for the message the next writer gets. Re-entrant
    in one thread (the CLI and the pipeline both take it); another thread or process is refused."""

    def __init__(self, folder: Path, command: str | None = None):
        self.folder = folder
        self.command = command

    def _key(self) -> tuple[str, int]:
        return os.path.realpath(self.folder), threading.get_ident()

    def acquire(self) -> None:
        key = self._key()
        if key in _held:
            _held[key][1] += 1
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / LOCK
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            if not _flock(fd, fcntl.LOCK_EX):
                holder = _holder(fd)
                os.close(fd)
                raise RunFolderError(f"{self.folder} is being written by {holder}; wait for it to end, or "
                                     "give another --out") from None
            try:  # a holder that just finished unlinks the file: make sure ours is the one on disk
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "command": self.command or command_line()}).encode("utf-8"))
        _held[key] = [fd, 1]

    def release(self) -> None:
        key = self._key()
        entry = _held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            del _held[key]
            (self.folder / LOCK).unlink(missing_ok=True)  # before the unlock, so no one locks a file about to go
            os.close(entry[0])

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *_: Any) -> None:
        self.release()


def writes_run(folder_of: Callable[..., Path]) -> Callable[[_F], _F]:
    """Decorate a function that writes a run folder: it runs holding that folder's RunLock."""

    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def locked(*args: Any, **kwargs: Any) -> Any:
            with RunLock(folder_of(*args, **kwargs)):
                return fn(*args, **kwargs)

        return locked  # type: ignore[return-value]

    return wrap


def writer_of(folder: Path) -> str | None:
    """Who holds the folder's lock right now (pid and command), or None (no one, or this thread)."""
    if (os.path.realpath(folder), threading.get_ident()) in _held:
        return None
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return _holder(fd)
    finally:
        os.close(fd)
    return None


def tree_digest(folder: Path, skip: Path | None = None) -> str:
    """sha256 over the relative names and bytes of every file under ``folder`` (a registry's identity),
    leaving out hidden files and anything under ``skip`` (a run folder kept inside the registry)."""
    sha = hashlib.sha256()
    root = folder if folder.is_dir() else folder.parent
    skipped = skip.resolve() if skip is not None else None

    def kept(p: Path) -> bool:
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(root).parts):
            return False
        return skipped is None or not p.resolve().is_relative_to(skipped)

    for p in sorted(p for p in root.rglob("*") if kept(p)) if folder.is_dir() else [folder]:
        sha.update(p.relative_to(root).as_posix().encode("utf-8") + b"\0")
        with open(p, "rb") as f:
            while chunk := f.read(1 << 20):
                sha.update(chunk)
        sha.update(b"\0")
    return sha.hexdigest()


# --- who may write a folder --------------------------------------------------------------------

LEFT_BY_RUN = (*FILES, MANIFEST, LOG, CARD, REQUESTS)  # what --overwrite clears (besides plots/ and teval/)


def claim(folder: Path, identity: dict[str, Any], *, resume: bool = False, overwrite: bool = False) -> None:
    """Check that a run with ``identity`` may be written into ``folder`` (the caller holds its lock):
    the same run may always be run again (that is how an unfinished one is finished); a different
    one only with ``overwrite``, which clears the old run's files first; ``resume`` needs the same run."""
    run = RunDir(folder)
    if resume and overwrite:
        raise ConfigError("--resume continues the run in --out and --overwrite replaces it: give one of them")
    manifest: dict[str, Any] | None = None
    if run.is_run():
        try:
            manifest = run.manifest()
        except ConfigError:
            manifest = {}
    if manifest is None:
        if resume:
            raise RunFolderError(f"--resume: {folder} holds no run to continue (no {MANIFEST}); start the run without "
                                 "--resume, or give the --out of the run that stopped")
        left = [name for name in FILES if stored(folder / name).exists()]
        if left and not overwrite:
            raise RunFolderError(f"{folder} holds run files ({', '.join(left)}) but no {MANIFEST}, so it is not known which "
                                 "run made them; give --overwrite to replace them, or another --out")
        return
    there = manifest.get("identity")
    if there == identity and not (folder / LOG).exists():
        return
    if overwrite:
        clear(folder)
        return
    if there == identity:  # the same run, but people's review decisions are folded into its files
        raise RunFolderError(f"{folder} holds this run with review decisions applied ({LOG}); making it again would "
                             "drop them. Give --overwrite to start over, or another --out")
    what = _difference(there, identity)
    if resume:
        raise RunFolderError(f"--resume only continues the same run, and {folder} holds another ({what}); give the "
                             "flags of that run, or --overwrite without --resume to replace it")
    raise RunFolderError(f"{folder} holds a different run ({what}); give --overwrite to replace it, or another --out")


def _difference(there: Any, asked: dict[str, Any]) -> str:
    if not isinstance(there, dict):
        return "made by an older synth or another tool, which did not record what run it is"
    parts = []
    for key, value in asked.items():
        old = there.get(key)
        if old != value:
            parts.append("other registry content" if key == "registry_sha256" else f"{key} {_short(old)} there, {_short(value)} asked")
    return "; ".join(parts) or "other settings"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, (int, float, str)) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def clear(folder: Path) -> None:
    """Remove what a run wrote into ``folder`` (its files, card, plots and T-Eval subsets); the
    model-call cache stays, since its entries are keyed by content and serve any run."""
    import shutil

    for name in (*LEFT_BY_RUN, TOOLS):
        (folder / name).unlink(missing_ok=True)
        (folder / (name + GZ)).unlink(missing_ok=True)
    for sub in ("plots", TEVAL):
        if (folder / sub).is_dir():
            shutil.rmtree(folder / sub)


# --- T-Eval subsets --------------------------------------------------------------------------

def teval_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A T-Eval subset's records, streamed: a subset can be hundreds of megabytes."""
    if path.suffix == ".jsonl":
        yield from read_jsonl(path, "T-Eval subset")
        return
    with open_text(path) as f:  # synth's own layout: "{", then one '"id": {...}' a line, then "}"
        first, second = f.readline(), f.readline()
        try:
            streamed = first.strip() == "{" and (second.strip() == "}" or bool(json.loads("{" + second.strip().rstrip(",") + "}")))
        except ValueError:
            streamed = False
        if streamed:
            for line in itertools.chain([second], f):
                line = line.strip().rstrip(",")
                if line and line != "}":
                    (key, value), = json.loads("{" + line + "}").items()
                    yield {"id": key, **value}
            return
    data = read_json(path, "T-Eval subset")
    if isinstance(data, dict):  # T-Eval's own layout: an object keyed by sample id
        yield from ({"id": key, **value} for key, value in data.items())
    else:
        yield from data
