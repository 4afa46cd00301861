"""The run folder (``outputs/<run>/``): its file names, the JSONL reader, the atomic writer, the manifest.

Everything that reads or writes a run's files goes through here, so a file's name, its spelling
(one JSON object per line, UTF-8 kept) and how it is replaced (written beside under a temporary
name, then renamed over the old one, so a crash leaves the old file or the new one, never half
of each) are decided once.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from synth.errors import ConfigError, SynthError

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
        self.files[name].write(dump_line(record))

    def close(self) -> None:
        for f in self.files.values():
            f.close()

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()


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
