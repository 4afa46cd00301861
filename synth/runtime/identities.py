"""What keeps template results of one conversation consistent: one description per id, ``limit`` items.

``Identities`` remembers how each record (an id, in the scope its call named) was first described, in
the fields ``synth.stages.consistency.conflicting_ids`` compares, and gives a later record with that id
the same description, so a search and a detail call agree even when both come from templates; an id
the conversation's world holds is described as the world describes it. ``fit_limit`` makes the one
list of a result as long as the call's ``limit`` (``page_size``, ``max_results``...): cut when longer,
more items from the template when shorter (never a repeated id).
"""

from __future__ import annotations

from typing import Any

from synth.packs.template import Expander
from synth.packs.world import WorldState
from synth.stages.consistency import call_scope, keyed_lists, limit_of, record_identity, record_words


def _records(data: Any, depth: int = 0) -> list[dict[str, Any]]:
    if depth > 8:
        return []
    if isinstance(data, dict):
        return [data, *(r for v in data.values() for r in _records(v, depth + 1))]
    if isinstance(data, list):
        return [r for v in data for r in _records(v, depth + 1)]
    return []


class Identities:
    """Each record's first description in a conversation: id -> (scope, field -> value)."""

    def __init__(self, world: WorldState | None = None) -> None:
        self.known: dict[str, tuple[dict[str, str], dict[str, Any]]] = {}
        self.world = world

    def _truth(self, key: str, value: str) -> dict[str, Any]:
        """The words of the world's entity with this id, when one of its kinds is keyed by ``key``."""
        if self.world is None:
            return {}
        for kind, entity in self.world.spec.entities.items():
            if entity.id.lower() == key.lower() and (found := self.world.get(kind, value)) is not None:
                return record_words(found)
        return {}

    def _entry(self, key: str, value: str, scope: dict[str, str]) -> dict[str, Any] | None:
        had = self.known.get(value)
        if had is None:
            self.known[value] = (scope, self._truth(key, value))
            return self.known[value][1]
        if any(had[0].get(k, v) != v for k, v in scope.items()):
            return None  # the same id in another repository or database: another record
        return had[1]

    def settle(self, data: Any, arguments: dict[str, Any]) -> Any:
        """``data`` with every record whose id was described before described the same way (changed in place)."""
        scope = call_scope(arguments)
        for record in _records(data):
            ident = record_identity(record)
            known = self._entry(*ident, scope) if ident else None
            if known is None:
                continue
            for field, value in record_words(record).items():
                if field in known:
                    record[field] = known[field]
                else:
                    known[field] = value
        return data

    def learn(self, data: Any, arguments: dict[str, Any]) -> Any:
        """Take ``data``'s descriptions as the truth (a world's result: after a rename, the new name holds)."""
        scope = call_scope(arguments)
        for record in _records(data):
            ident = record_identity(record)
            known = self._entry(*ident, scope) if ident else None
            if known is not None:
                known.update(record_words(record))
        return data


def fit_limit(data: Any, arguments: dict[str, Any], template: Any, expander: Expander) -> Any:
    """The result's one list of records cut or grown to the call's limit; other results as they are."""
    limit = limit_of(arguments)
    lists = keyed_lists(data)
    if limit is None or len(lists) != 1:
        return data
    where, items = lists[0]
    n = limit[1]
    if len(items) > n:
        del items[n:]
        return data
    raw = template if where == "" else template.get(where) if isinstance(template, dict) else None
    if not isinstance(raw, list) or not raw:
        return data
    kinds = [r.get("$item") if isinstance(r, dict) and "$repeat" in r else r for r in raw]
    if not any(_generated(k) for k in kinds):
        return data  # literal items: more would be copies of them
    taken = {ident[1] for item in items if isinstance(item, dict) and (ident := record_identity(item))}
    while len(items) < min(n, 50):
        item = expander.value(kinds[len(items) % len(kinds)], len(items) + 1)
        ident = record_identity(item) if isinstance(item, dict) else None
        if ident is not None and ident[1] in taken:
            break  # the template names fixed items: more would repeat an id
        if ident is not None:
            taken.add(ident[1])
        items.append(item)
    return data


def _generated(template: Any) -> bool:
    """Whether expanding ``template`` again can give another item (it has a generator slot)."""
    if isinstance(template, dict):
        return any(_generated(v) for v in template.values())
    if isinstance(template, list):
        return any(_generated(v) for v in template)
    return isinstance(template, str) and "{" in template and ":" in template
