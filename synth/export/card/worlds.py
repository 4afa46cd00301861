"""Does a run's data read as one state behind every tool? Three figures, read off conversations.jsonl.

- search_filler: share of the items search results list that hold none of the query's words (a data-portal
  search padded with "Profound transitional policy" for "earthquake") [<= 2%; servers a model packed <= 5%];
- invented_echoes: share of creates whose result reports, under a parameter's name, a value the call did not
  send (a container "landing-page" created without a name; ids and times a service assigns are not
  parameters) [<= 1%];
- created_missing: share of create-then-list pairs (a later list or search of the same kind, no filter
  sent) whose list leaves the created entity out [0].

A tool's op is its pack's ``world`` entry where it has one, else its name (``search_*``, ``create_*``,
``list_*``); a search's words are its ``match`` parameters' values (else a query-like argument's).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from synth.packs.load import load_packs
from synth.packs.template import Missing, get_path
from synth.packs.world import matched_words, search_words
from synth.rundir import CONVERSATIONS, read_jsonl
from synth.stages.consistency import keyed_lists, record_identity

_SEARCH = re.compile(r"(?i)(?:^|[_\-.])(?:search|find|lookup)")
_CREATE = re.compile(r"(?i)^(?:create|add|new|spawn|insert|make|post)(?:[_\-]|[A-Z]|$)")
_LIST = re.compile(r"(?i)^(?:list|get_all|all)(?:[_\-]|[A-Z]|$)")
_UNSET = object()  # a parameter without a schema default
_QUERY = re.compile(r"(?i)^(?:q|query|keywords?|term|terms|search|search_?term|search_?query|text)$")


@dataclass(frozen=True)
class Op:
    """What a call does, as the figures need it: the op, the entity kind, the search's words, the record's path."""

    op: str
    kind: str = ""
    match: tuple[str, ...] = ()
    path: str | None = None
    params: frozenset[str] = frozenset()
    filters: tuple[str, ...] = ()
    assigned: frozenset[str] = frozenset()  # fields the service fills in: the entity's id, ``assign``
    within: tuple[str, ...] = ()  # the fields a search reads (a route's stops), when not all of them


@lru_cache(maxsize=4)
def _touches(registry: str) -> dict[tuple[str, str], Op]:
    """(server, tool) -> its op for every tool a pack under ``registry`` gives a world entry."""
    out: dict[tuple[str, str], Op] = {}
    for server, pack in load_packs(Path(registry)).by_server.items():
        ids = {kind: e.id for kind, e in pack.world.entities.items()} if pack.world else {}
        for name, tp in pack.tools.items():
            if tp.world is not None:
                t = tp.world
                assigned = frozenset(
                    {*t.assign, ids.get(t.entity, "")} | {p for p, f in t.set.items() if f == ids.get(t.entity)}
                )
                out[(server, name)] = Op(
                    t.op,
                    t.entity,
                    tuple(t.match),
                    t.path,
                    frozenset(t.set),
                    (*t.filter, *t.since, *t.until),
                    assigned,
                    tuple(t.within),
                )
    return out


def op_of(server: str, tool: str, args: dict[str, Any], touches: dict[tuple[str, str], Op]) -> Op | None:
    """The call's op: from the pack's world entry, else from the tool's name."""
    if (server, tool) in touches:
        return touches[(server, tool)]
    if _SEARCH.search(tool):
        return Op("search", match=tuple(k for k in args if _QUERY.match(k)))
    if _CREATE.search(tool):
        return Op("create", params=frozenset(args))
    if _LIST.search(tool):
        return Op("list")
    return None


@dataclass
class Tally:
    search_items: int = 0
    filler: int = 0
    creates: int = 0
    invented: int = 0
    pairs: int = 0
    missing: int = 0

    def shares(self) -> dict[str, Any]:
        return {
            "search_filler": _share(self.filler, self.search_items),
            "invented_echoes": _share(self.invented, self.creates),
            "created_missing": _share(self.missing, self.pairs),
        }


def _share(part: int, whole: int) -> dict[str, Any]:
    return {"share": round(part / whole, 4) if whole else 0.0, "of": whole, "count": part}


def _items(data: Any, path: str | None) -> list[dict[str, Any]]:
    if path is not None:
        try:
            node = get_path(data, path)
        except Missing:
            return []
        return [x for x in node if isinstance(x, dict)] if isinstance(node, list) else []
    lists = keyed_lists(data)
    return max((items for _, items in lists), key=len, default=[])


def _record(data: Any, path: str | None) -> dict[str, Any]:
    try:
        node = get_path(data, path or "")
    except Missing:
        return {}
    return node if isinstance(node, dict) else {}


def add(conv: dict[str, Any], touches: dict[tuple[str, str], Op], schemas: dict[str, dict[str, Any]], t: Tally) -> None:
    """Count one conversation's searches, creates and create-then-list pairs into ``t``."""
    server = conv["scenario"]["server"]
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    created: list[tuple[str, str]] = []  # (kind, id) of each create so far
    for m in conv["messages"]:
        for c in m.get("tool_calls") or ():
            args = c.get("arguments")
            calls[c.get("id") or ""] = (c.get("name") or "", args if isinstance(args, dict) else {})
        if m.get("role") != "tool" or m.get("is_error"):
            continue
        tool, args = calls.get(m.get("tool_call_id") or "", ("", {}))
        op = op_of(server, tool, args, touches)
        try:
            data = json.loads(m.get("content") or "")
        except ValueError:
            continue
        if op is None or (isinstance(data, dict) and "error" in data):
            continue
        if op.op == "search":
            wanted = search_words([args[p] for p in op.match if isinstance(args.get(p), str)])
            items = _items(data, op.path) if wanted else []
            if op.within:  # an item that does not show what the search read (the routes at a stop) is not judged
                items = [x for x in items if isinstance(x, dict) and any(f in x for f in op.within)]
            t.search_items += len(items)
            t.filler += sum(not matched_words(wanted, search_words(x)) for x in items)
        if op.op == "create":
            record = _record(data, op.path)
            defaults = {**dict.fromkeys(op.params, _UNSET), **schemas.get(tool, {})}
            t.creates += 1
            t.invented += any(
                k in defaults and k not in args and k not in op.assigned and v not in (None, "", [], {}, defaults[k])
                for k, v in record.items()
            )
            ident = record_identity(record)
            if ident:
                created.append((op.kind, ident[1]))
        if op.op in ("list", "search") and not any(f in args for f in op.filters) and op.kind:
            shown = {found[1] for x in _items(data, op.path) if (found := record_identity(x))}
            for kind, made in created:
                if kind == op.kind and not op.match:
                    t.pairs += 1
                    t.missing += made not in shown


def figures(run: Path, registry: Path | None) -> dict[str, Any]:
    """The three figures of ``run`` (the registry's packs tell what each tool does to the world)."""
    touches = _touches(str(registry.resolve())) if registry is not None and registry.exists() else {}
    schemas = _schemas(str(registry.resolve())) if registry is not None and registry.exists() else {}
    t = Tally()
    for conv in read_jsonl(run / CONVERSATIONS):
        add(conv, touches, schemas.get(conv["scenario"]["server"], {}), t)
    return t.shares()


@lru_cache(maxsize=4)
def _schemas(registry: str) -> dict[str, dict[str, dict[str, Any]]]:
    """server -> tool -> parameter -> its schema default (``_UNSET`` when it has none)."""
    from synth.registry import load_registry

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for tool in load_registry(Path(registry)).tools:
        out.setdefault(tool.server, {})[tool.name] = {
            p: s.get("default", _UNSET) if isinstance(s, dict) else _UNSET for p, s in tool.properties.items()
        }
    return out
