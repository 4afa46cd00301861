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
from functools import partial
from typing import Any

from synth.packs.agree import agreed, fresh, not_before
from synth.packs.model import Draw, Ref, Touch, World
from synth.packs.seeding import plain_copy, seeded
from synth.packs.template import SLOT, Expander, Missing, get_path
from synth.records import content_hash
from synth.stages.consistency import COUNT_KEY, TOTAL_KEY

WORD = re.compile(r"[^\W_]+", re.UNICODE)
STAMP = re.compile(r"(?i)updated|modified|edited")  # fields a write sets to its own time
ONE = "1"  # the key a ``one`` kind's object is held under
STOP = {"the", "and", "for", "with", "from", "about", "into", "any", "all", "our", "some"}
# two-letter words every text has; others are words a search needs ("Tai Po", "Lok Fu", "AI")
STOP |= {"of", "to", "in", "on", "is", "it", "an", "at", "by", "my", "me", "we", "us", "or", "as", "be", "do", "if"}


def _words(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_words(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_words(v) for v in value)) if value else set()
    if isinstance(value, str):
        return {w for w in WORD.findall(value.lower()) if len(w) >= 2}
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
        self.made: dict[str, list[str]] = {k: [] for k in spec.entities}  # ids created in this conversation
        # kind -> id -> fields results showed that the entity does not hold (remembered, not state)
        self.said: dict[str, dict[str, dict[str, Any]]] = {k: {} for k in spec.entities}
        self.person: dict[str, Any] | None = None  # the one the conversation is with, once drawn
        for kind, entity in spec.entities.items():
            self.state[kind] = {}
            for record in seeded(entity, partial(self.rng, "seed", kind)):
                ident = ONE if entity.one else key_of(record.get(entity.id, ""))
                if ident and ident not in self.state[kind]:
                    self.state[kind][ident] = record
        for kind in spec.entities:
            for record in self.state[kind].values():
                self.relate(kind, record)

    def relate(self, kind: str, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with the fields its refs share with the entities they name made theirs (in place): a
        submission's title is its problem's title."""
        for field, ref in self.spec.entities[kind].refs.items():
            ref = ref if isinstance(ref, Ref) else Ref(entity=ref)
            other = self.spec.entities.get(ref.entity)
            if other is None or field not in record:
                continue
            key = ref.key or (field if field != other.id and _has(self.state.get(ref.entity, {}), field) else other.id)
            value = key_of(record[field])
            named = next((e for e in self.entities(ref.entity) if key_of(e.get(key, "")) == value), None)
            if named is None:
                continue
            pairs = ref.agree or {f: f for f in record if _LABEL.fullmatch(f.lower()) and f in named and f != field}
            for here, there in pairs.items():
                if there in named:
                    record[here] = copy.deepcopy(named[there])
        return record

    def one(self, kind: str) -> dict[str, Any] | None:
        """The object of a ``one`` kind (a board, a session)."""
        return self.state.get(kind, {}).get(ONE)

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

    def person_of(self, rng: random.Random) -> dict[str, Any]:
        """The one the conversation is with (the world's ``person`` kind): drawn once, the same after."""
        kind = self.spec.person
        if kind is None or not self.state.get(kind):
            raise Missing(f"world:{kind}")
        if self.person is None:
            self.person = self.state[kind][rng.choice(list(self.state[kind]))]
        return self.person

    def view(self, kind: str, record: dict[str, Any], depth: int = 3) -> dict[str, Any]:
        """The entity as the server shows it: its ``derived`` fields computed from the entities that name it now
        (a story's comments and theirs, to ``depth`` levels; a knowledge base's doc count after a create)."""
        spec = self.spec.entities[kind]
        if not spec.derived or depth <= 0:
            return record
        out = dict(record)
        ident = key_of(record.get(spec.id, ""))
        for name, rule in spec.derived.items():
            related = [e for e in self.entities(rule.entity) if key_of(e.get(rule.by, "")) == ident]
            if rule.order:  # the entities with the field in its order, then the rest
                field = rule.order.lstrip("-")
                rest = [e for e in related if _sortable(e.get(field)) is None]
                have = [e for e in related if _sortable(e.get(field)) is not None]
                have.sort(key=lambda e: _sortable(e.get(field)) or (0, 0), reverse=rule.order.startswith("-"))
                related = have + rest
            values = [e.get(rule.field) for e in related] if rule.field else None
            if rule.op == "count":
                out[name] = len(related)
            elif rule.op == "sum":
                out[name] = _total(values or [])
            elif rule.op == "first":
                out[name] = values[0] if values else out.get(name)
            else:
                out[name] = values if values is not None else [self.view(rule.entity, e, depth - 1) for e in related]
        return out

    def snapshot(self) -> dict[str, list[dict[str, Any]]]:
        """The state as JSON (kind -> entities in order): what a write task's verify.py checks."""
        return {kind: [plain_copy(v) for v in records.values()] for kind, records in self.state.items()}


def set_fields(mapping: dict[str, str], args: dict[str, Any]) -> dict[str, Any]:
    """The fields a write sets: ``param: field``, or ``param: "*"`` for an object whose keys are fields; a dotted
    param reads inside an argument (``vectorConfig.vector_name.vectorizer``: the vectorizer a config names)."""
    out: dict[str, Any] = {}
    for param, field in mapping.items():
        value = _at(args, param) if "." in param else args.get(param)
        if value is None and (param not in args or "." in param):
            continue
        if field == "*" and isinstance(value, dict):
            out.update(value)
        elif field != "*":
            out[field] = value
    return out


def _parsed(written: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """The written fields with JSON text parsed where the entity holds an object or a list (a storage value sent as
    '{"content": {...}}'), so a later read shows the record as it showed before, with the new content."""
    out = dict(written)
    for field, value in written.items():
        if isinstance(value, str) and isinstance(found.get(field), (dict, list)):
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, type(found[field])):
                out[field] = parsed
    return out


def _total(values: list[Any]) -> Any:
    numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    total = sum(numbers)
    return round(total, 2) if isinstance(total, float) else total


def _has(records: dict[str, dict[str, Any]], field: str) -> bool:
    return any(field in r for r in records.values())


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
            out[key] = _shown(out[key], entity[name])
    return out  # an id the template does not show stays the world's (a forecast day, a collection's key)


def _shown(shape: Any, value: Any) -> Any:
    """A field's value in the template's shape: a list of records (a story's comments) item by item in the
    shape of the template's items, so each tool shows related entities in its own field names."""
    items = [x for x in shape if isinstance(x, dict)] if isinstance(shape, list) else []
    if not items or not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        return copy.deepcopy(value)
    return [overlay(items[i % len(items)], v, "id") if "id" in v else copy.deepcopy(v) for i, v in enumerate(value)]


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

    def __init__(
        self,
        world: WorldState,
        touch: Touch,
        template: Any,
        args: dict[str, Any],
        given: dict[str, Any],
        unsent: dict[str, Any] | None = None,
    ):
        self.world, self.touch, self.args = world, touch, args
        self.given = given  # what the call said; ``args`` adds what the tool assumed for the rest (templates only)
        self.entity = world.spec.entities[touch.entity]
        if touch.op in WRITES and unsent is not None:  # a write echoes what was sent, never what a pool offers
            unsent = {**unsent, **touch.assign}
            self.args = {k: v for k, v in args.items() if k in given or k not in unsent}
            template = _unsent(template, {k: v for k, v in unsent.items() if k not in self.args})
        self.template = template

    def _as_entity(self, record: Any) -> dict[str, Any]:
        """A result record with the entity's field names (``story_id`` -> ``id`` where ``fields`` says so)."""
        if not isinstance(record, dict):
            return {}
        fields = self.touch.fields
        return {str(fields.get(k, k)): v for k, v in record.items()}

    def _overlay(self, shape: Any, entity: dict[str, Any]) -> Any:
        """``overlay``, with the fields a template adds to an entity that lacks them (a location, a link) said
        the same way by every later result about it: a list and a read never describe it two ways."""
        ident = key_of(entity.get(self.entity.id, "")) if self.entity.id else ONE
        said = self.world.said[self.touch.entity].setdefault(ident, {})
        entity = self.world.view(self.touch.entity, entity)  # its derived fields too: a story's comments
        out = overlay(shape, {**said, **entity}, self.entity.id, self.touch.fields)
        if isinstance(out, dict):
            made = {k for k in out if str(self.touch.fields.get(k, k)) not in entity and k not in said}
            agreed(out, made, entity.get(self.entity.id) if self.entity.id else None)
            for key, value in out.items():
                name = str(self.touch.fields.get(key, key))
                if name not in entity and name not in said:
                    said[name] = copy.deepcopy(value)
        return out

    def make(self, *key: Any, template: Any = None, n: int | None = None) -> Any:
        expander = Expander(self.world.rng(self.touch.entity, *key), self.args)
        return expander.value(self.template if template is None else template, n)

    def serve(self) -> Served:
        op = self.touch.op
        if self.touch.each and op in WRITES and isinstance(self.given.get(self.touch.each), list):
            return self._each()
        handler: dict[str, Callable[[], Served]] = {
            "read": self._read,
            "update": self._update,
            "delete": self._delete,
            "create": self._create,
            "search": self._list,
            "list": self._list,
        }
        return handler[op]()

    def _each(self) -> Served:
        """A write of several entities in one call (tenants: [...]): each item written as a call of its own would be,
        a value the item leaves out filled as ``assign`` says; the result is the template's (the service echoes the
        batch). An item naming an entity the world lacks fails the call before anything changes."""
        each = self.touch.each or ""
        rest = {k: v for k, v in self.given.items() if k != each}
        filled = {k: self.make("assign", k, template=v) for k, v in self.touch.assign.items()}
        calls = [{**filled, **rest, **(x if isinstance(x, dict) else {each: x})} for x in self.given[each]]
        one = self.touch.model_copy(update={"each": None})
        for call in calls if self.touch.op != "create" else []:
            ident, found = Server(self.world, one, {}, call, call)._named()
            if found is None:
                return Served(None, ident)
        for call in calls:
            Server(self.world, one, {}, call, call).serve()
        return Served(self.make(self.touch.op, json.dumps(self.given, sort_keys=True, default=str)))

    # --- one entity --------------------------------------------------------------------------

    def _named(self) -> tuple[str, dict[str, Any] | None]:
        if self.entity.one:
            return ONE, self.world.one(self.touch.entity)
        ident = key_of(self.given.get(self.touch.by or self.entity.id, ""))
        if self.touch.key and self.touch.key != self.entity.id:  # named by another field (a slug, an email)
            kind = self.touch.entity
            named = (e for e in self.world.entities(kind) if key_of(e.get(self.touch.key, "")) == ident)
            found = next((e for e in named if self._kept(e)), None)  # a day's bar of the stock the call names
            return (key_of(found[self.entity.id]) if found else ident), found
        found = self.world.get(self.touch.entity, ident)
        if found is None and self.entity.open and ident and ident not in self.world.deleted[self.touch.entity]:
            made = _at(self.make("id", ident), self.touch.path)
            if isinstance(made, dict):
                made = self._as_entity(made)
                found = {**made, self.entity.id: _typed(ident, made.get(self.entity.id))}
                agreed(found, set(found) - {self.entity.id}, ident)
                self.world.virtual[self.touch.entity][ident] = found
        return ident, found

    def _shaped(self, entity: dict[str, Any], *key: Any) -> Any:
        data = self.make(*key)
        shape = _at(data, self.touch.path)
        whole = self.touch.fields.get("")
        if whole is not None and whole in entity:  # the result is one field of the entity (a bare TVL, a history)
            return _put(data, self.touch.path, copy.deepcopy(entity[whole]))
        if not isinstance(shape, dict):  # a sentence ("Document 1 has been deleted"): nothing to fill in
            return data
        return _put(data, self.touch.path, self._overlay(shape, entity))

    def _read(self) -> Served:
        ident, found = self._named()
        if found is None:
            return Served(None, ident)
        named = self.args.get(self.touch.part) if self.touch.part else None
        part = found.get(str(named)) if named is not None else None
        if isinstance(part, dict) and self.touch.part:  # the record the call asked for (revenue), named as asked
            found = {**found, **part, self.touch.part: named}
        return Served(self._shaped(found, "read", ident))

    def _update(self) -> Served:
        ident, found = self._named()
        if found is None:
            return Served(None, ident)
        stamps = _at(self.make("update", ident), self.touch.path)  # when the server says the change was made
        stamps = (
            {k: v for k, v in stamps.items() if (STAMP.search(k) and k in found) or k in self.touch.changes}
            if isinstance(stamps, dict)
            else {}
        )
        ahead = {field: copy.deepcopy(found[src]) for field, src in self.touch.becomes.items() if src in found}
        changed = self.world.relate(self.touch.entity, {**found, **stamps, **ahead, **_parsed(self._written(), found)})
        agreed(not_before(changed, found, set(stamps)), set(stamps) - set(self._written()), ident)
        for param, field in self.touch.append.items():
            if param in self.given:
                had = changed.get(field)
                changed[field] = [*(had if isinstance(had, list) else []), self.given[param]]
        for field, steps in self.touch.cycle.items():
            if steps:
                now = changed.get(field)
                changed[field] = steps[(steps.index(now) + 1) % len(steps)] if now in steps else steps[0]
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
        kind = self.touch.entity
        if self.entity.one:  # a new game, a new session: the object starts again from its seed
            record = {**seeded(self.entity, partial(self.world.rng, "seed", kind))[0], **self._written()}
            self.world.state[kind][ONE] = record
            return Served(_put(data, self.touch.path, overlay(made, record, self.entity.id, self.touch.fields)))
        record = self._as_entity(made)
        record.update(self._written())
        if self.touch.by and self.touch.by in self.given:
            record[self.entity.id] = self.given[self.touch.by]
        ident = key_of(record.get(self.entity.id, "") if record.get(self.entity.id) is not None else "")
        sent = self.entity.id in self._written() or bool(self.touch.by and self.touch.by in self.given)
        if sent and self.world.get(kind, ident) is not None:  # a second note of one title: "Title (2)", as apps do
            number = 2
            while self.world.get(kind, f"{ident} ({number})") is not None:
                number += 1
            ident = f"{ident} ({number})"
            record[self.entity.id] = ident
        elif not ident or self.world.get(kind, ident) is not None:  # no id, or one the world holds: the service's
            ident = self._fresh_id()
            record[self.entity.id] = _typed(ident, record.get(self.entity.id))
        written = set(self._written())
        agreed(fresh(record, written), set(record) - written - {self.entity.id}, record.get(self.entity.id))
        self.world.relate(kind, record)
        self.world.state[kind][ident] = record
        self.world.deleted[kind].discard(ident)
        self.world.made[kind].append(ident)
        shown = self.world.view(kind, record)
        return Served(_put(data, self.touch.path, overlay(made, shown, self.entity.id, self.touch.fields)))

    def _fresh_id(self) -> str:
        """An id the service would give a new entity: shaped like the ids the world holds (a hex digest, DOC-1234),
        or a docker-style name where ids are words; never one the world holds."""
        kind = self.touch.entity
        rng = self.world.rng("fresh", kind, len(self.world.made[kind]))
        like = next((i for i in self.world.ids(kind) if i), "")
        for _ in range(20):
            if any(c.isdigit() for c in like):
                hexed = bool(re.fullmatch(r"[0-9a-f]+", like))
                ident = "".join(_like(c, rng, hexed) for c in like)
            else:
                sep = "-" if "-" in like else "_"
                ident = f"{rng.choice(NAME_WORDS)}{sep}{rng.choice(NAME_PEOPLE)}"
            if self.world.get(kind, ident) is None and ident not in self.world.deleted[kind]:
                return ident
        return f"{like or kind}-{len(self.world.made[kind]) + 2}"

    def _written(self) -> dict[str, Any]:
        return set_fields(self.touch.set, self.given)

    def _about(self, made: dict[str, Any], n: int) -> dict[str, Any]:
        """A made-up match of an open kind about what was asked: when none of its words are the request's,
        its title is the request's words and a catalogue noun ("Earthquake catalog"), not a filler title (its
        slug follows), never a ``{fake:catch_phrase}`` shown as a match."""
        asked = " ".join(str(self.given[p]) for p in self.touch.match if isinstance(self.given.get(p), str)).strip()
        wanted = search_words(asked)
        labels = [k for k, v in made.items() if _LABEL.fullmatch(k.lower()) and isinstance(v, str)]
        labels = [k for k in labels if k != self.entity.id]
        if not wanted or not labels:
            return made
        out = dict(made)
        if not matched_words(wanted, _words(made)):
            rng = self.world.rng("about", asked, n)
            year = f" {rng.randint(2008, 2025)}" if rng.random() < 0.4 else ""
            title = f"{asked[:1].upper()}{asked[1:]} {rng.choice(ABOUT_TAILS)}{year}"
            out.update(dict.fromkeys(labels, title))
        ident, title = made.get(self.entity.id), str(out[labels[0]])
        if isinstance(ident, str) and SLUG.fullmatch(ident) and not _words(ident) & _words(title):
            out[self.entity.id] = "-".join(WORD.findall(title.lower()))  # a made-up slug reads as its title
        for key in labels:  # a title opening with the request's words: 'Vision transformer: a survey'
            text = str(out[key])
            out[key] = text[:1].upper() + text[1:]
        return out

    # --- lists -------------------------------------------------------------------------------

    def _count(self, shown: int) -> int:
        value = self.given.get(self.touch.limit) if self.touch.limit else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return min(value, 50)
        if self.entity.open or self.touch.op == "search":
            return shown
        if self.touch.limit is None and any(p in self.given for p in self.touch.through):
            return max(shown, RANGE)  # a range the call names in full (prices from a start through an end date)
        if self.touch.limit is None or any(p in self.given for p in [*self.touch.filter, *self.touch.since]):
            return max(shown, UNLIMITED)  # no page size, or a view of some (a user's submissions): all of them
        return shown

    def _sorted(self, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The entities in the order the list claims (``sort``'s argument, else ``order``); else those this
        conversation created first (a list shows the newest, as most servers do), then the rest as they were."""
        field, desc = _order(self.given.get(self.touch.sort) if self.touch.sort else None, self.touch.order)
        way = self.given.get(self.touch.sort_dir) if self.touch.sort_dir else None
        desc = str(way).lower().startswith("desc") if isinstance(way, str) else desc
        field = self.touch.fields.get(field, field) if field else None
        if field:
            have = [e for e in entities if _sortable(_at(e, field)) is not None]
            rest = [e for e in entities if _sortable(_at(e, field)) is None]
            return sorted(have, key=lambda e: _sortable(_at(e, field)), reverse=desc) + rest  # type: ignore[arg-type,return-value]
        made = self.world.made[self.touch.entity]
        first = {i: n for n, i in enumerate(reversed(made))}
        return sorted(entities, key=lambda e: first.get(key_of(e.get(self.entity.id, "")), len(first)))

    def _kept(self, e: dict[str, Any]) -> bool:
        """Whether an entity passes the call's filters and bounds (and the touch's ``where``)."""
        given, touch = self.given, self.touch
        bounds = [(touch.since, ">="), (touch.until, "<"), (touch.through, "<=")]
        return (
            all(_fits(e.get(f), given[p]) for p, f in touch.filter.items() if p in given)
            and all(e.get(field) == value for field, value in touch.where.items())
            and all(
                _within(_at(e, f), given[p], way) for fields, way in bounds for p, f in fields.items() if p in given
            )
        )

    def _ranked(self) -> tuple[list[dict[str, Any]], bool]:
        """The entities the call can list, best match first, and whether they are all that match."""
        kept = [e for e in self.world.entities(self.touch.entity) if self._kept(e)]
        asked = [str(self.given[p]).strip().lower() for p in self.touch.match if p in self.given]
        wanted = search_words(asked)
        if self.touch.op != "search" or not any(asked):
            return self._sorted(kept), True
        text = [looked_at(e, self.touch.within) for e in kept]  # what the search reads of each entity
        if not wanted:  # no word to look for ("1:1"): the text as it was typed
            return [
                e for e, t in zip(kept, text) if all(a in json.dumps(t, ensure_ascii=False).lower() for a in asked)
            ], True
        need = 1 if self.touch.fuzzy else len(wanted)  # every word of the request, as a search engine ANDs them
        scored = [(max(matched_words(wanted, _words(x)) for x in t), i, e) for i, (e, t) in enumerate(zip(kept, text))]
        ranked = sorted(scored, key=lambda x: (-x[0], x[1]))
        if self.touch.fuzzy and not self.entity.open:  # a relevance search: the best matches, then the nearest
            return [e for _, _, e in ranked], False
        matches = [e for score, _, e in ranked if score >= need]
        ordered = self.touch.order or (self.touch.sort and self.touch.sort in self.given)
        return (self._sorted(matches) if ordered else matches), True

    def _list(self) -> Served:
        data = self.make("list", json.dumps(self.given, sort_keys=True, default=str))
        shown = _at(data, self.touch.path)
        if not isinstance(shown, list):
            return Served(data)
        n = self._count(len(shown))
        ranked, complete = self._ranked()
        page = self.given.get(self.touch.page) if self.touch.page else None
        skip = (page - 1) * n if isinstance(page, int) and not isinstance(page, bool) and page > 1 else 0
        chosen = ranked[skip : skip + n]
        raws = item_templates(self.template, self.touch.path)
        query = json.dumps(self.given, sort_keys=True, default=str)
        kind = self.touch.entity
        taken = {key_of(e.get(self.entity.id, "")) for e in chosen}
        named = {_label(e) for e in chosen} - {None}  # two papers of one list never share a title
        tries = 0
        while self.entity.open and raws and len(chosen) < n and tries < 3 * n:  # more of an endless holding
            made = self._as_entity(self.make("item", query, tries, template=raws[tries % len(raws)], n=len(chosen) + 1))
            made = self._about(made, tries)
            tries += 1
            ident = key_of(made.get(self.entity.id, ""))
            agreed(made, set(made) - {self.entity.id}, ident)
            if not ident or ident in taken or ident in self.world.deleted[kind] or _label(made) in named:
                continue
            if self.world.get(kind, ident) is None:
                self.world.virtual[kind][ident] = made
            taken.add(ident)
            named |= {_label(self.world.get(kind, ident) or made)} - {None}
            chosen.append(self.world.get(kind, ident) or made)
        if self.entity.open and (self.touch.order or self.touch.sort in self.given):
            chosen = self._sorted(chosen)  # made entities take their place in the order too
        items = []
        by_id = {key_of(self._as_entity(x).get(self.entity.id, "")): x for x in shown if isinstance(x, dict)}
        for i, entity in enumerate(chosen):
            raw = raws[i % len(raws)] if raws else None
            shape = by_id.get(key_of(entity.get(self.entity.id, "")))  # a template item about this very entity
            if shape is None:
                shape = shown[i] if i < len(shown) else (self.make("shape", i, template=raw, n=i + 1) if raw else {})
            whole = self.touch.fields.get("")
            items.append(copy.deepcopy(entity.get(whole)) if whole else self._overlay(shape, entity))  # bare ids
        data = _put(data, self.touch.path, items)
        found = len(ranked) if complete and not self.entity.open else None  # an endless holding: its own count
        return Served(_counted(data, self.touch.path, len(items), found))


_LABEL = re.compile(r"(?:\w+_)?title|name|headline")
WRITES = ("create", "update", "delete")
SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)+")
RANGE = 60  # the most a range with no page size shows (about three months of trading days)
UNLIMITED = 20  # a list with no page size, or a filtered one the call does not limit, shows this many at most
# what a service names a thing the person did not name (docker: "eager_hopper"), and the words it is made of
NAME_WORDS = ("eager", "quirky", "brave", "calm", "clever", "dreamy", "focused", "jolly", "nifty", "serene")
NAME_PEOPLE = ("hopper", "turing", "lovelace", "curie", "noether", "ritchie", "knuth", "shannon", "franklin")
# a made-up match's title, from the words of the request: "Earthquake catalog", "Earthquake statistics 2019"
ABOUT_TAILS = ("data", "records", "statistics", "survey", "report", "catalog", "index", "summary", "archive", "map")
_ORDER = re.compile(r"^\s*([-+]?)\s*([\w.]+)(?:\s+(asc|desc)\w*)?", re.I)


def _order(sent: Any, default: str | None) -> tuple[str | None, bool]:
    """(field, highest first) of a sort argument ("points desc", "-points", "name asc") or the touch's order."""
    fallback = _ORDER.match(default) if default else None
    for text in (sent, default):
        match = _ORDER.match(str(text)) if isinstance(text, str) and text.strip() else None
        if match:
            sign, field, way = match.groups()
            if not sign and not way and fallback:  # a bare field sorts the way the list does ("price": highest first)
                sign = fallback.group(1)
            return field, sign == "-" or (way or "").lower() == "desc"
    return None, False


def looked_at(entity: dict[str, Any], within: list[str]) -> list[Any]:
    """The texts a search reads of an entity, any one of which must hold the request's words: the entity; the
    ``within`` fields; a list field among them item by item (a route is found by one stop's name, not by words
    of two stops: "Tai Po Central" is not "Wong Tai Sin" and "Tsz Wan Shan (Central)")."""
    if not within:
        return [entity]
    flat = {f: entity.get(f) for f in within if not isinstance(entity.get(f), list)}
    items: list[Any] = [[flat, item] for f in within if isinstance(entity.get(f), list) for item in entity[f]]
    return items or [flat]


def _fits(have: Any, sent: Any) -> bool:
    """Whether an entity's field passes a filter: equal to the value (case-blind), holding it (a list field: the
    chains a protocol runs on), or one of the values sent (a list of tickers)."""
    if isinstance(sent, list):
        return any(_fits(have, one) for one in sent)
    if isinstance(have, list):
        return any(_fits(one, sent) for one in have)
    return str(have if have is not None else "").lower() == str(sent).lower()


def _sortable(value: Any) -> tuple[int, Any] | None:
    """A field's value as it sorts: numbers as numbers, text (dates are ISO text) case-blind; None: no value."""
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, (int, float)):
        return (0, value)
    return (1, str(value).lower())


def _within(value: Any, bound: Any, way: str) -> bool:
    """Whether a field's value is at or after (``>=``), before (``<``) or at or before (``<=``) a bound: numbers as
    numbers, dates and other text as text (ISO dates sort as text); an entity without the field is kept."""
    have, edge = _sortable(value), _sortable(bound)
    if have is None or edge is None or have[0] != edge[0]:
        return True
    return have >= edge if way == ">=" else have < edge if way == "<" else have <= edge


def _like(c: str, rng: random.Random, hexed: bool) -> str:
    """A character of a new id, of the class of ``c`` (a digit for a digit, hex for hex)."""
    if hexed and c.isalnum():
        return rng.choice("0123456789abcdef")
    if c.isdigit():
        return str(rng.randint(0, 9))
    if c.isalpha():
        letter = chr(rng.randint(97, 122))
        return letter.upper() if c.isupper() else letter
    return c


def _unsent(template: Any, unsent: dict[str, Any]) -> Any:
    """The template with each echo of a parameter the call left out replaced by what the service shows for it:
    its ``assign`` generator, else the empty value of its type (``None`` for a word, ``{}``, ``[]``)."""
    if isinstance(template, dict):
        return {k: _unsent(v, unsent) for k, v in template.items()}
    if isinstance(template, list):
        return [_unsent(v, unsent) for v in template]
    if isinstance(template, str) and "{" in template:
        whole = SLOT.fullmatch(template)
        if whole and whole.group(1) in unsent:
            return copy.deepcopy(unsent[whole.group(1)])
        return SLOT.sub(lambda m: _said(unsent[m.group(1)]) if m.group(1) in unsent else m.group(0), template)
    return template


def _said(value: Any) -> str:
    return value if isinstance(value, str) else "" if value in (None, {}, []) else json.dumps(value)


def _label(entity: dict[str, Any]) -> str | None:
    """What a reader tells an entity by (its title or name), lower-cased; None when it has neither."""
    value = next((v for k, v in entity.items() if _LABEL.fullmatch(k.lower()) and isinstance(v, str)), None)
    return value.strip().lower() if value else None


def matched_words(wanted: set[str], words: set[str]) -> int:
    """How many of the request's words the entity has: a word, or the start of one ("onboard" in "onboarding",
    "checklists" for "checklist"; a two-letter word only whole: "po" is not "pokong"); a word in a script without
    spaces anywhere in one (灰度发布 in 灰度发布手册)."""
    score = 0
    for w in wanted:
        stem = w[:-1] if w.isascii() and len(w) > 4 and w.endswith("s") else w
        whole = w.isascii() and len(w) <= 2
        score += any((x == w if whole else x.startswith(stem)) if w.isascii() else w in x for x in words)
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


def serve(
    world: WorldState,
    touch: Touch,
    template: Any,
    args: dict[str, Any],
    given: dict[str, Any],
    unsent: dict[str, Any] | None = None,
) -> Served:
    """One call's result from ``world`` (changing it for writes); ``missing`` names an id the world lacks.
    ``given`` is what the call said; ``args`` adds the values the tool assumed (for the template's slots);
    ``unsent``: for a write, what the result shows for each parameter the call left out (the empty value
    of its type), so it never reports a value the person did not give."""
    return Server(world, touch, template, args, given, unsent).serve()


def drawn(world: WorldState, draw: Draw, rng: random.Random, picked: dict[str, Any]) -> Any:
    """A value from the world for a parameter: an entity's id (or ``field``); parameters drawn together for
    one call come from one entity (``picked`` holds it), so a namespace and a slug name the same doc. The
    conversation's person is one entity all along, and a draw ``of`` them takes one of their own."""
    kind = draw.entity
    if kind not in picked:
        if kind == world.spec.person:
            picked[kind] = world.person_of(rng)
        else:
            name = draw.field or world.spec.entities[kind].id
            fits = [
                e
                for e in world.state.get(kind, {}).values()
                if name in e and all(e.get(k) == v for k, v in draw.where.items())
            ]
            if draw.of and world.person is None and fits:  # the first value about them picks the person
                choice = rng.choice(fits)
                world.person = world.get(world.spec.person or "", choice.get(draw.of))
            if draw.of:
                person = world.person_of(rng)
                ident = key_of(person.get(world.spec.entities[world.spec.person or ""].id, ""))
                fits = [e for e in fits if key_of(e.get(draw.of, "")) == ident]
            if not fits:
                raise Missing(f"world:{kind}")
            picked[kind] = rng.choice(fits)
    entity = picked[kind]
    name = draw.field or world.spec.entities[kind].id
    if name not in entity:
        raise Missing(f"world:{kind}.{name}")
    return entity[name]
