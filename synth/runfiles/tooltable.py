"""Each tool and each tool list of a run stored once (``tools.jsonl.gz``), and put back into the rows.

A chat line, an eval item and a scored row each carry the scenario's tool list, which is most of their
bytes; in a compact run folder the row holds ``"tools:<id>"`` instead, and reading puts the list back
byte for byte as it was made.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.runfiles.names import REF, TOOL_FIELDS, TOOLS
from synth.runfiles.storage import lines, parse_line, stored


class ToolTable:
    """The run's tool lists, each tool and each list stored once (``tools.jsonl.gz``), keyed by a hash
    of its exact JSON spelling, so a list put back in a row is the same bytes it was."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}  # tool id -> the tool's JSON text
        self.sets: dict[str, list[str]] = {}  # list id -> its tool ids
        self.joined: dict[str, str] = {}  # list id -> the list's JSON text, made when first read
        self.new: list[dict[str, Any]] = []  # entries added since the last ``take_new``

    @staticmethod
    def _id(kind: str, text: str) -> str:
        return kind + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def ref(self, tools: list[Any]) -> str:
        ids = []
        for tool in tools:
            text = json.dumps(tool, ensure_ascii=False)
            ids.append(self._id("t", text))
            if ids[-1] not in self.texts:
                self.texts[ids[-1]] = text
                self.new.append({"id": ids[-1], "tool": tool})
        key = self._id("s", json.dumps(ids))
        if key not in self.sets:
            self.sets[key] = ids
            self.new.append({"id": key, "set": ids})
        return REF + key

    def tools(self, ref: str) -> list[Any]:
        """A fresh copy of the list each time (a reader may change the row it gets)."""
        key = ref[len(REF):]
        text = self.joined.get(key)
        if text is None:
            try:
                text = self.joined[key] = "[" + ", ".join(self.texts[t] for t in self.sets[key]) + "]"
            except KeyError:
                raise ConfigError(f"a row refers to the tool list {ref!r}, which is not in {TOOLS}; the run folder is "
                                  "incomplete: make the run again") from None
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
        for number, text in lines(folder / TOOLS):
            entry = parse_line(folder / TOOLS, number, text, "tool table")
            if "tool" in entry:
                table.texts[entry["id"]] = json.dumps(entry["tool"], ensure_ascii=False)
            else:
                table.sets[entry["id"]] = entry["set"]
        return table


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
