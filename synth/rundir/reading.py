"""The one reader of run files: JSONL rows (streamed, tool lists put back), whole JSON files, T-Eval subsets.

A bad line is a ConfigError naming the file and the line; rows come out as published, whatever the storage.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from synth.errors import ConfigError, SynthError
from synth.rundir.names import TOOL_FIELDS, public_name
from synth.rundir.storage import lines, open_text, parse_line, stored
from synth.rundir.tooltable import tool_table


def dump_line(record: Any) -> str:
    """The spelling every run file uses: one JSON object per line, UTF-8 kept."""
    return json.dumps(record, ensure_ascii=False) + "\n"


def inflater(path: Path) -> Callable[[Any], Any] | None:
    """What puts referenced tool lists back into the rows of ``path`` (None for files without any).
    A reference with no tool table beside the file (a file copied out of its run) is a ConfigError."""
    name = public_name(path)
    if name not in TOOL_FIELDS:
        return None
    table = tool_table(path.parent)
    return lambda record: table.inflate(name, record)


def read_jsonl(path: Path, what: str = "run file", required: bool = False) -> Iterator[dict[str, Any]]:
    """The records of a JSONL file, one at a time. A bad line is a ConfigError naming the file and
    line; an absent file gives nothing, or with ``required`` a ConfigError."""
    if required and not stored(path).is_file():
        raise ConfigError(f"{what} {path} does not exist")
    inflate = inflater(path)
    for number, text in lines(path):
        record = parse_line(path, number, text, what)
        yield inflate(record) if inflate is not None else record


def read_jsonl_text(path: Path, what: str = "run file") -> Iterator[tuple[str, dict[str, Any]]]:
    """Each record (the public row) with the text it is stored as, so an untouched line can be copied
    unchanged into a file of the same run (``Replacing``)."""
    inflate = inflater(path)
    for number, text in lines(path):
        record = parse_line(path, number, text, what)
        yield text, inflate(record) if inflate is not None else record


def read_json(path: Path, what: str = "JSON file", error: type[SynthError] = ConfigError) -> Any:
    """A whole JSON file (the manifest, a report, a T-Eval subset, plain or gzip); unreadable is
    ``error`` saying which."""
    try:
        with open_text(path) as f:
            return json.loads(f.read())
    except (OSError, ValueError, EOFError) as exc:
        raise error(f"{path}: not a readable {what} ({exc})") from None


def teval_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A T-Eval subset's records, streamed: a subset can be hundreds of megabytes."""
    if path.suffix == ".jsonl":
        yield from read_jsonl(path, "T-Eval subset")
        return
    with open_text(path) as f:  # synth's own layout: "{", then one '"id": {...}' a line, then "}"
        first, second = f.readline(), f.readline()
        try:
            streamed = first.strip() == "{" and (
                second.strip() == "}" or bool(json.loads("{" + second.strip().rstrip(",") + "}"))
            )
        except ValueError:
            streamed = False
        if streamed:
            for line in itertools.chain([second], f):
                line = line.strip().rstrip(",")
                if line and line != "}":
                    ((key, value),) = json.loads("{" + line + "}").items()
                    yield {"id": key, **value}
            return
    data = read_json(path, "T-Eval subset")
    if isinstance(data, dict):  # T-Eval's own layout: an object keyed by sample id
        yield from ({"id": key, **value} for key, value in data.items())
    else:
        yield from data
