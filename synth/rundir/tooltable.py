"""Each tool and each tool list of a run stored once (``tools.jsonl.gz``), and put back into the rows.

A chat line, an eval item and a scored row each carry the scenario's tool list, which is most of their
bytes; in a compact run folder the row holds ``"tools:<id>"`` instead, and reading puts the list back
byte for byte as it was made.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from array import array
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.rundir.names import REF, TOOL_FIELDS, TOOLS
from synth.rundir.storage import lines, parse_line, stored


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
        self._last: tuple[list[Any], str] | None = None  # the last list referenced, and its reference

    @staticmethod
    def _id(kind: str, text: str) -> str:
        return kind + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @staticmethod
    def _key(list_id: str) -> int | str:
        return (
            int(list_id[1:], 16) if len(list_id) == 17 and list_id[0] == "s" and _HEX.fullmatch(list_id, 1) else list_id
        )

    def _add_tool(self, tid: str, text: str) -> None:
        self.texts[tid] = text
        self.place[tid] = len(self.order)
        self.order.append(tid)

    def _add_set(self, list_id: str, ids: list[str]) -> None:
        places = array("I", [self.place[t] for t in ids]).tobytes() if self.readable else None
        self.sets[self._key(list_id)] = places

    def ref(self, tools: list[Any]) -> str:
        """``tools:<id>`` for a list; the same list object given again (a conversation's rows share
        one) is looked up, not spelled again."""
        last = self._last
        if last is not None and last[0] is tools:
            return last[1]
        ref = self._ref(tools)
        self._last = (tools, ref)  # the list is held, so no other list can have its identity meanwhile
        return ref

    def _ref(self, tools: list[Any]) -> str:
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
        key = ref[len(REF) :]
        text = self.joined.pop(key, None)
        if text is None:
            try:
                places = self.sets[self._key(key)]
                if places is None:
                    raise KeyError(key)  # a table only written keeps no lists
                text = "[" + ", ".join(self.texts[self.order[i]] for i in array("I", places)) + "]"
            except KeyError:
                raise ConfigError(
                    f"a row refers to the tool list {ref!r}, which is not in {TOOLS}; the run folder is "
                    "incomplete: make the run again"
                ) from None
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
        for number, text in lines(folder / TOOLS):
            entry = parse_line(folder / TOOLS, number, text, "tool table")
            if "tool" in entry:
                table._add_tool(entry["id"], json.dumps(entry["tool"], ensure_ascii=False))
            else:
                try:
                    table._add_set(entry["id"], entry["set"])
                except KeyError as missing:
                    raise ConfigError(
                        f"{stored(folder / TOOLS)}: the tool list {entry['id']} names the tool {missing}, which "
                        "is not before it in the table; the run folder is damaged: make the run again"
                    ) from None
        return table


_HEX = re.compile(r"[0-9a-f]{16}")


def _shape(tool: Any) -> Any:
    """A key for a tool dict that is equal for two dicts of the same strings and the same inner objects:
    its strings, and those of a dict inside it, by value; anything else (a schema) by identity. Only
    for dicts made from objects that are not changed while a run is written (the registry's schemas)."""
    if not isinstance(tool, dict):
        return ("#", id(tool))
    return tuple(
        (
            k,
            v
            if type(v) is str
            else tuple((k2, v2 if type(v2) is str else id(v2)) for k2, v2 in v.items())
            if type(v) is dict
            else id(v),
        )
        for k, v in tool.items()
    )


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
