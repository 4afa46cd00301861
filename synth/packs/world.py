"""A server's world: the entities behind its results, one fresh copy per conversation.

A pack's ``world`` declares kinds of entities (papers, docs, events) with an id field and the entities
every conversation starts with; a tool's ``world`` entry (a ``Touch``) says what the tool does to them.
``WorldState`` is one conversation's copy: made from (seed, scenario id) alone, so the same scenario
always starts from the same world, whoever asks (the offline author, a task's replay, an agent under
``synth eval --tasks``). ``serve`` answers one call from it: a read is the entity with that id, a search
returns the entities that match the words of the request (most of them, for a longer one), best first,
up to ``limit`` (a ``fuzzy`` search ranks every entity), a filter keeps only entities whose field equals
the value, a list's ``total`` says how many match, and create/update/delete change the state that later
calls read.

An ``open`` kind stands for a holding with no end (PubMed's papers): an id or a search beyond the
seeded entities gets an entity made from the tool's result template, drawn from (world, id) or
(world, request, item) so that asking again gives the same entity; such entities are remembered, not
state: only writes change what ``snapshot`` (and a task's verify.py) sees.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from synth.packs.model import Entity, Touch, World
from synth.packs.template import Expander, Missing, get_path
from synth.records import content_hash
from synth.stages.consistency import COUNT_KEY, TOTAL_KEY

WORD = re.compile(r"[^\W_]+", re.UNICODE)
STAMP = re.compile(r"(?i)updated|modified|edited")  # fields a write sets to its own time
STOP = {"the", "and", "for", "with", "from", "about", "into", "any", "all", "our", "some"}


def _words(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_words(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_words(v) for v in value)) if value else set()
    if isinstance(value, str):
        return {w for w in WORD.findall(value.lower()) if len(w) > 2 or (len(w) == 2 and not w.isascii())}
    return set()


def search_words(value: Any) -> set[str]:
    """The words a search looks for: the request's, without the ones every text has ("the", "about")."""
    return _words(value) - STOP


def key_of(value: Any) -> str:
    """An id as the world keys it: ``40512873`` and ``"40512873"`` are one entity."""
    return str(value).strip()


class WorldState:
    """One conversation's world: kind -> id -> entity (a JSON record), in seed order, plus what was deleted."""

    def __init__(self, spec: World, key: str):
        self.spec, self.key = spec, key
        self.state: dict[str, dict[str, dict[str, Any]]] = {}
        self.virtual: dict[str, dict[str, dict[str, Any]]] = {k: {} for k in spec.entities}
        self.deleted: dict[str, set[str]] = {k: set() for k in spec.entities}
        for kind, entity in spec.entities.items():
            self.state[kind] = {}
            for record in _seeded(entity, self.rng("seed", kind)):
                ident = key_of(record.get(entity.id, ""))
                if ident and ident not in self.state[kind]:
                    self.state[kind][ident] = record

    @classmethod
    def fresh(cls, spec: World, seed: int, scenario_id: str) -> WorldState:
        """The world a conversation starts from: a function of the seed and the scenario alone."""
        return cls(spec, content_hash(["world", seed, scenario_id], 16))

    def rng(self, *key: Any) -> random.Random:
        """A random stream of its own for each purpose, so one draw never shifts another."""
        return random.Random(int(content_hash([self.key, *key], 16), 16))

    def ids(self, kind: str) -> list[str]:
        return list(self.state.get(kind, {}))

    def get(self, kind: str, ident: Any) -> dict[str, Any] | None:
        ident = key_of(ident)
        if ident in self.deleted.get(kind, ()):
            return None
        return self.state.get(kind, {}).get(ident) or self.virtual.get(kind, {}).get(ident)

    def entities(self, kind: str) -> list[dict[str, Any]]:
        """What a list or search can return: the state, then the remembered entities of an open kind."""
        gone = self.deleted.get(kind, set())
        seen = {**self.state.get(kind, {}), **{k: v for k, v in self.virtual.get(kind, {}).items()}}
        return [v for k, v in seen.items() if k not in gone]

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """The state as JSON (kind -> entities in order): what a write task's verify.py checks."""
        return {kind: [copy.deepcopy(v) for v in records.values()] for kind, records in self.state.items()}


def _seeded(entity: Entity, rng: random.Random) -> list[dict[str, Any]]:
    records = Expander(rng).value(entity.seed)
    return [r for r in records if isinstance(r, dict)]


@dataclass
class Served:
    """A call's result from the world, or ``missing``: the id it names is not in the world."""

    data: Any
    missing: str | None = None


def _at(data: Any, path: str) -> Any:
    try:
        return get_path(data, path)
    except Missing:
        return None


def _put(data: Any, path: str, value: Any) -> Any:
    if not path:
        return value
    *head, last = path.split(".")
    node = get_path(data, ".".join(head)) if head else data
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return data


def overlay(shape: Any, entity: dict[str, Any], id_field: str, fields: dict[str, str] | None = None) -> Any:
    """The result record in the template's shape, every field the entity has set to the entity's value
    (``fields`` maps a result key to the entity field it shows: ``document_id`` -> ``id``)."""
    if not isinstance(shape, dict):
        return copy.deepcopy(entity)
    out = dict(shape)
    for key in out:
        name = (fields or {}).get(key, key)
        if name in entity:
            out[key] = copy.deepcopy(entity[name])
    if id_field in out or not fields or id_field not in fields.values():
        out[id_field] = entity.get(id_field, out.get(id_field))
    return out


def item_templates(template: Any, path: str) -> list[Any]:
    """The raw templates of the list items at ``path`` (a ``$repeat``'s ``$item``, or each fixed item)."""
    node = template
    for part in path.split(".") if path else []:
        node = node[int(part)] if isinstance(node, list) else node.get(part) if isinstance(node, dict) else None
        if node is None:
            return []
    if not isinstance(node, list):
        return []
    return [x.get("$item") if isinstance(x, dict) and "$repeat" in x else x for x in node]


class Server:
    """Answers the calls of one tool from a world: ``make(key)`` expands the tool's result template for a key."""

    def __init__(self, world: WorldState, touch: Touch, template: Any, args: dict[str, Any], given: dict[str, Any]):
        self.world, self.touch, self.template, self.args = world, touch, template, args
        self.given = given  # what the call said; ``args`` adds what the tool assumed for the rest (templates only)
        self.entity = world.spec.entities[touch.entity]

    def _as_entity(self, record: Any) -> dict[str, Any]:
        """A result record with the entity's field names (``story_id`` -> ``id`` where ``fields`` says so)."""
        if not isinstance(record, dict):
            return {}
        fields = self.touch.fields
        return {str(fields.get(k, k)): v for k, v in record.items()}

    def make(self, *key: Any, template: Any = None, n: int | None = None) -> Any:
        expander = Expander(self.world.rng(self.touch.entity, *key), self.args)
        return expander.value(self.template if template is None else template, n)

    def serve(self) -> Served:
        op = self.touch.op
        handler: dict[str, Callable[[], Served]] = {
            "read": self._read,
            "update": self._update,
            "delete": self._delete,
            "create": self._create,
            "search": self._list,
            "list": self._list,
        }
        return handler[op]()

    # --- one entity --------------------------------------------------------------------------

    def _named(self) -> tuple[str, dict[str, Any] | None]:
        ident = key_of(self.given.get(self.touch.by or self.entity.id, ""))
        if self.touch.key and self.touch.key != self.entity.id:  # named by another field (a slug, an email)
            kind = self.touch.entity
            found = next((e for e in self.world.entities(kind) if key_of(e.get(self.touch.key, "")) == ident), None)
            return (key_of(found[self.entity.id]) if found else ident), found
        found = self.world.get(self.touch.entity, ident)
        if found is None and self.entity.open and ident and ident not in self.world.deleted[self.touch.entity]:
            made = _at(self.make("id", ident), self.touch.path)
            if isinstance(made, dict):
                made = self._as_entity(made)
                found = {**made, self.entity.id: _typed(ident, made.get(self.entity.id))}
                self.world.virtual[self.touch.entity][ident] = found
        return ident, found

    def _shaped(self, entity: dict[str, Any], *key: Any) -> Any:
        data = self.make(*key)
        shape = _at(data, self.touch.path)
        if not isinstance(shape, dict):  # a sentence ("Document 1 has been deleted"): nothing to fill in
            return data
        return _put(data, self.touch.path, overlay(shape, entity, self.entity.id, self.touch.fields))

    def _read(self) -> Served:
        ident, found = self._named()
        if found is None:
            return Served(None, ident)
        return Served(self._shaped(found, "read", ident))

    def _update(self) -> Served:
        ident, found = self._named()
        if found is None:
            return Served(None, ident)
        stamps = _at(self.make("update", ident), self.touch.path)  # when the server says the change was made
        stamps = {k: v for k, v in stamps.items() if STAMP.search(k) and k in found} if isinstance(stamps, dict) else {}
        written = self._written()
        changed = {**found, **stamps, **written}
        self.world.state[self.touch.entity][ident] = changed
        self.world.virtual[self.touch.entity].pop(ident, None)
        return Served(self._shaped(changed, "update", ident))

    def _delete(self) -> Served:
        ident, found = self._named()
        if found is None:
            return Served(None, ident)
        self.world.state[self.touch.entity].pop(ident, None)
        self.world.virtual[self.touch.entity].pop(ident, None)
        self.world.deleted[self.touch.entity].add(ident)
        return Served(self._shaped(found, "delete", ident))

    def _create(self) -> Served:
        data = self.make("create", json.dumps(self.given, sort_keys=True, default=str))
        made = _at(data, self.touch.path)
        record = dict(made) if isinstance(made, dict) else {}
        record.update(self._written())
        if self.touch.by and self.touch.by in self.given:
            record[self.entity.id] = self.given[self.touch.by]
        ident = key_of(record.get(self.entity.id, ""))
        kind = self.touch.entity
        if not ident or ident in self.world.state[kind]:  # an id the world holds already: a fresh one
            base, number = ident or kind, 2
            while f"{base} ({number})" in self.world.state[kind]:
                number += 1
            ident = f"{base} ({number})"
            record[self.entity.id] = _typed(ident, record.get(self.entity.id))
        self.world.state[kind][ident] = record
        self.world.deleted[kind].discard(ident)
        return Served(_put(data, self.touch.path, overlay(made, record, self.entity.id, self.touch.fields)))

    def _written(self) -> dict[str, Any]:
        """The fields a write sets: ``param: field``, or ``param: "*"`` for an object whose keys are fields."""
        out: dict[str, Any] = {}
        for param, field in self.touch.set.items():
            if param not in self.given:
                continue
            value = self.given[param]
            if field == "*" and isinstance(value, dict):
                out.update(value)
            elif field != "*":
                out[field] = value
        return out

    # --- lists -------------------------------------------------------------------------------

    def _count(self, shown: int) -> int:
        value = self.given.get(self.touch.limit) if self.touch.limit else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return min(value, 50)
        return shown

    def _ranked(self) -> tuple[list[dict[str, Any]], bool]:
        """The entities the call can list, best match first, and whether they are all that match."""
        kind = self.touch.entity
        kept = [
            e
            for e in self.world.entities(kind)
            if all(
                str(e.get(field, "")).lower() == str(self.given[param]).lower()
                for param, field in self.touch.filter.items()
                if param in self.given
            )
        ]
        asked = [str(self.given[p]).strip().lower() for p in self.touch.match if p in self.given]
        wanted = search_words(asked)
        if self.touch.op != "search" or not any(asked):
            return kept, True
        if not wanted:  # no word to look for ("1:1"): the text as it was typed
            return [e for e in kept if all(a in json.dumps(e, ensure_ascii=False).lower() for a in asked)], True
        need = 1 if self.touch.fuzzy else len(wanted)  # every word of the request, as a search engine ANDs them
        scored = [(matched_words(wanted, _words(e)), i, e) for i, e in enumerate(kept)]
        ranked = sorted(scored, key=lambda x: (-x[0], x[1]))
        if self.touch.fuzzy and not self.entity.open:  # a relevance search: the best matches, then the nearest
            return [e for _, _, e in ranked], False
        return [e for score, _, e in ranked if score >= need], True

    def _list(self) -> Served:
        data = self.make("list", json.dumps(self.given, sort_keys=True, default=str))
        shown = _at(data, self.touch.path)
        if not isinstance(shown, list):
            return Served(data)
        n = self._count(len(shown))
        ranked, complete = self._ranked()
        chosen = ranked[:n]
        raws = item_templates(self.template, self.touch.path)
        query = json.dumps(self.given, sort_keys=True, default=str)
        kind = self.touch.entity
        taken = {key_of(e.get(self.entity.id, "")) for e in chosen}
        named = {_label(e) for e in chosen} - {None}  # two papers of one list never share a title
        tries = 0
        while self.entity.open and raws and len(chosen) < n and tries < 3 * n:  # more of an endless holding
            made = self._as_entity(self.make("item", query, tries, template=raws[tries % len(raws)], n=len(chosen) + 1))
            tries += 1
            ident = key_of(made.get(self.entity.id, ""))
            if not ident or ident in taken or ident in self.world.deleted[kind] or _label(made) in named:
                continue
            if self.world.get(kind, ident) is None:
                self.world.virtual[kind][ident] = made
            taken.add(ident)
            named |= {_label(self.world.get(kind, ident) or made)} - {None}
            chosen.append(self.world.get(kind, ident) or made)
        items = []
        by_id = {key_of(self._as_entity(x).get(self.entity.id, "")): x for x in shown if isinstance(x, dict)}
        for i, entity in enumerate(chosen):
            raw = raws[i % len(raws)] if raws else None
            shape = by_id.get(key_of(entity.get(self.entity.id, "")))  # a template item about this very entity
            if shape is None:
                shape = shown[i] if i < len(shown) else (self.make("shape", i, template=raw, n=i + 1) if raw else {})
            items.append(overlay(shape, entity, self.entity.id, self.touch.fields))
        data = _put(data, self.touch.path, items)
        found = len(ranked) if complete and not self.entity.open else None  # an endless holding: its own count
        return Served(_counted(data, self.touch.path, len(items), found))


_LABEL = re.compile(r"(?:\w+_)?title|name|headline")


def _label(entity: dict[str, Any]) -> str | None:
    """What a reader tells an entity by (its title or name), lower-cased; None when it has neither."""
    value = next((v for k, v in entity.items() if _LABEL.fullmatch(k.lower()) and isinstance(v, str)), None)
    return value.strip().lower() if value else None


def matched_words(wanted: set[str], words: set[str]) -> int:
    """How many of the request's words the entity has: a word, or the start of one ("onboard" in "onboarding",
    "checklists" for "checklist"); a word in a script without spaces anywhere in one (灰度发布 in 灰度发布手册)."""
    score = 0
    for w in wanted:
        stem = w[:-1] if w.isascii() and len(w) > 4 and w.endswith("s") else w
        score += any(x.startswith(stem) if w.isascii() else w in x for x in words)
    return score


def _counted(data: Any, path: str, shown: int, found: int | None) -> Any:
    """The list's count fields beside it made true: ``total``-like ones say how many match (``found``; at least
    the items shown when the holding has no end), ``count``-like ones how many the list holds."""
    head, _, key = path.rpartition(".") if path else ("", "", "")
    parent = _at(data, head) if head else data
    if not isinstance(parent, dict):
        return data
    for name, value in parent.items():
        if name == key or not isinstance(value, int) or isinstance(value, bool):
            continue
        if TOTAL_KEY.match(name):
            parent[name] = found if found is not None else max(value, shown)
        elif COUNT_KEY.match(name):
            parent[name] = shown
    return data


def _typed(ident: str, like: Any) -> Any:
    """The id as the template types it (an int id stays an int)."""
    if isinstance(like, int) and not isinstance(like, bool) and ident.lstrip("-").isdigit():
        return int(ident)
    return ident


def serve(world: WorldState, touch: Touch, template: Any, args: dict[str, Any], given: dict[str, Any]) -> Served:
    """One call's result from ``world`` (changing it for writes); ``missing`` names an id the world lacks.
    ``given`` is what the call said; ``args`` adds the values the tool assumed (for the template's slots)."""
    return Server(world, touch, template, args, given).serve()


def drawn(world: WorldState, kind: str, field: str | None, rng: random.Random, picked: dict[str, Any]) -> Any:
    """A value from the world for a parameter: an entity's id (or ``field``); parameters drawn together for
    one call come from one entity (``picked`` holds it), so a namespace and a slug name the same doc."""
    if kind not in picked:
        ids = world.ids(kind)
        if not ids:
            raise Missing(f"world:{kind}")
        picked[kind] = world.state[kind][rng.choice(ids)]
    entity = picked[kind]
    name = field or world.spec.entities[kind].id
    if name not in entity:
        raise Missing(f"world:{kind}.{name}")
    return entity[name]
