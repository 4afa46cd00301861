"""The run folder (``outputs/<run>/``): its file names, the JSONL reader, the atomic writer, the manifest.

Everything that reads or writes a run's files goes through here, so a file's name, its spelling
(one JSON object per line, UTF-8 kept) and how it is replaced (written beside under a temporary
name, then renamed over the old one, so a crash leaves the old file or the new one, never half
of each) are decided once.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import itertools
import json
import os
import shlex
import sys
import tempfile
import threading
import time
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
EXPORTS = (CONVERSATIONS, TRAIN, VALID, EVAL, SCORED, REJECTED)
FILES = (*EXPORTS, QUEUE)  # what generate writes, and what the manifest lists with line counts and hashes
CHAT = {"train": TRAIN, "valid": VALID}  # split -> its chat file


# --- reading -----------------------------------------------------------------------------------

def dump_line(record: Any) -> str:
    """The spelling every run file uses: one JSON object per line, UTF-8 kept."""
    return json.dumps(record, ensure_ascii=False) + "\n"


def lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line, streamed; nothing when the file is absent."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if text.strip():
                yield number, text


def _parse(path: Path, number: int, text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path}:{number}: not JSON ({getattr(exc, 'msg', exc)}); each line of a {what} must be one JSON object") from None


def read_jsonl(path: Path, what: str = "run file", required: bool = False) -> Iterator[dict[str, Any]]:
    """The records of a JSONL file, one at a time. A bad line is a ConfigError naming the file and
    line; an absent file gives nothing, or with ``required`` a ConfigError."""
    if required and not path.is_file():
        raise ConfigError(f"{what} {path} does not exist")
    for number, text in lines(path):
        yield _parse(path, number, text, what)


def read_jsonl_text(path: Path, what: str = "run file") -> Iterator[tuple[str, dict[str, Any]]]:
    """Each record with the text it was written as, so an untouched line can be copied unchanged."""
    for number, text in lines(path):
        yield text, _parse(path, number, text, what)


def read_json(path: Path, what: str = "JSON file", error: type[SynthError] = ConfigError) -> Any:
    """A whole JSON file (the manifest, a report, a T-Eval subset); unreadable is ``error`` saying which."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise error(f"{path}: not a readable {what} ({exc})") from None


def count_lines(path: Path) -> int:
    """Lines of a file, counted in chunks (0 when it is absent)."""
    return file_facts(path, digest=False)["lines"] if path.exists() else 0


def file_facts(path: Path, digest: bool = True) -> dict[str, Any]:
    """Line count and sha256 of a file, read in chunks so memory stays flat however big it is."""
    sha, count = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            if digest:
                sha.update(chunk)
            count += chunk.count(b"\n")
    return {"lines": count, "sha256": sha.hexdigest()} if digest else {"lines": count}


# --- writing -----------------------------------------------------------------------------------

class Replacing:
    """New versions of files in ``folder``, written beside the old ones under temporary names and
    renamed over them together by ``commit``; ``abort`` (or an exception in a ``with``) leaves the old."""

    def __init__(self, folder: Path, names: Iterable[str]):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.temp: dict[str, Path] = {}
        self.out: dict[str, TextIO] = {}
        for name in names:
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=folder)
            self.temp[name], self.out[name] = Path(tmp), os.fdopen(fd, "w", encoding="utf-8")

    def write(self, name: str, line: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
        self.out[name].write(line if isinstance(line, str) else dump_line(line))

    def commit(self) -> None:
        for f in self.out.values():
            f.flush()
            os.fsync(f.fileno())
            f.close()
        for name, tmp in self.temp.items():
            os.replace(tmp, self.folder / name)

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
    write_atomic(path, (dump_line(r) for r in records))


def write_json(path: Path, data: Any, indent: int | None = 2) -> None:
    write_atomic(path, [json.dumps(data, indent=indent, ensure_ascii=False) + "\n"])


class RunWriter:
    """Opens the run's JSONL files and writes each record to where it belongs (streamed, as made)."""

    def __init__(self, out: Path, names: Iterable[str] = FILES):
        out.mkdir(parents=True, exist_ok=True)
        self.out = out
        self.files: dict[str, TextIO] = {name: open(out / name, "w", encoding="utf-8") for name in names}

    def write(self, name: str, record: Any) -> None:
        """A record as one line, or text as it is (a line copied unchanged)."""
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
        left = [name for name in FILES if (folder / name).exists()]
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

    for name in LEFT_BY_RUN:
        (folder / name).unlink(missing_ok=True)
    for sub in ("plots", "teval"):
        if (folder / sub).is_dir():
            shutil.rmtree(folder / sub)


# --- T-Eval subsets --------------------------------------------------------------------------

def teval_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A T-Eval subset's records, streamed: a subset can be hundreds of megabytes."""
    if path.suffix == ".jsonl":
        yield from read_jsonl(path, "T-Eval subset")
        return
    with path.open(encoding="utf-8") as f:  # synth's own layout: "{", then one '"id": {...}' a line, then "}"
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
