"""The pack checker's world rules: does a pack's ``world`` hold together with its tools and their schemas?

The rules are ``synth.packs.rules.WORLD_RULES`` (the pack prompt states them); ``check_world`` reports a
broken one with the tool, the JSON pointer, the fix and the rule's id.
"""

from __future__ import annotations

import random
import re
from typing import Any

from synth.packs.check_made import check_made
from synth.packs.model import Draw, Pack, Touch
from synth.packs.template import Expander, Missing, get_path
from synth.packs.world import WorldState, key_of, looked_at, matched_words, search_words
from synth.records import ServerSpec

MIN_SEEDED = 10  # "a few dozen": fewer makes every search return the same few entities


def sample_world(pack: Pack) -> WorldState | None:
    """A world to draw sample values from while checking (seed 0, a fixed scenario)."""
    if pack.world is None:
        return None
    try:
        return WorldState.fresh(pack.world, 0, "check")
    except Missing:  # a seed with a slot that cannot be filled: reported by check_world
        return None


def check_world(pack: Pack, server: ServerSpec, problem) -> None:
    """Report every broken world rule of ``pack`` (``problem(tool, pointer, what, fix[, severity])``)."""
    touches = {name: tp.world for name, tp in pack.tools.items() if tp.world is not None}
    if pack.world is None:
        for name in touches:
            problem(
                name,
                f"/tools/{name}/world",
                "the tool touches a world the pack does not declare",
                'declare it beside "tools": "world": {"entities": {kind: {"id": field, "seed": [...]}}}',
                rule="world-kinds",
            )
        return
    fields = _seeds(pack, problem)
    if pack.world.person is not None and pack.world.person not in fields:
        problem(
            None,
            "/world/person",
            f"{pack.world.person!r} is not a kind of the world",
            _kinds(fields),
            rule="world-kinds",
        )
    persons = [(n, p, v) for n, tp in pack.tools.items() for p, v in tp.values.items() if isinstance(v, Draw) and v.of]
    if persons and pack.world.person is None:
        n, p, _ = persons[0]
        problem(
            n,
            f"/tools/{n}/values/{p}",
            'a draw "of" the person, and no "person" kind',
            'name it: "world": {"person": kind}',
            rule="world-draw",
        )
    for name, tp in pack.tools.items():
        tool = server.tool(name)
        if tool is None:
            continue
        for param, values in tp.values.items():
            if isinstance(values, Draw):
                _check_draw(name, param, values, fields, problem)
        if tp.world is not None:
            _check_touch(name, tp.world, _params(tool.properties, tp.world), fields, tp.results, problem, pack)
            _check_search(name, tp.world, tp.values, pack, problem)
            _check_order(name, tp.world, set(tool.properties), fields, tool.description, problem)
            check_made(name, tp.world, tp.results, pack, problem)
        else:
            _check_outside(name, tp.results, pack, problem)
    _check_refs(pack, fields, problem)


def _seeds(pack: Pack, problem) -> dict[str, set[str]]:
    """Each kind's fields (as its seeds have them), reporting seeds without ids, repeated ids and thin worlds."""
    assert pack.world is not None
    out: dict[str, set[str]] = {}
    for kind, entity in pack.world.entities.items():
        at = f"/world/entities/{kind}/seed"
        try:
            records = Expander(random.Random(0)).value(entity.seed)
        except Missing as exc:
            problem(
                None,
                at,
                f"slot {{{exc.args[0]}}} in a seed cannot be filled",
                "seeds use generators only",
                rule="world-seed",
            )
            out[kind] = set()
            continue
        records = [r for r in records if isinstance(r, dict)]
        out[kind] = {k for r in records for k in r}
        if entity.one:
            if len(records) != 1:
                problem(None, at, f"{len(records)} {kind} objects seeded", "seed the one object once", rule="world-one")
            continue
        if not entity.id:
            problem(
                None,
                f"/world/entities/{kind}",
                f"{kind} has no id field",
                f'name the field that holds a {kind}\'s id in "id", or say "one": true for a server whose state is '
                "one object",
                rule="world-kinds",
            )
            continue
        ids = [key_of(r.get(entity.id, "")) for r in records]
        if any(not i for i in ids):
            problem(
                None,
                at,
                f"a seeded {kind} has no {entity.id!r}",
                f"give every seeded {kind} its {entity.id!r}",
                rule="world-kinds",
            )
        twice = sorted({i for i in ids if i and ids.count(i) > 1})
        if twice:
            problem(
                None, at, f"ids seeded twice: {', '.join(twice[:5])}", "give each entity its own id", rule="world-kinds"
            )
        if len(records) < MIN_SEEDED:
            problem(
                None,
                at,
                f"{len(records)} {kind} entities seeded",
                f"seed at least {MIN_SEEDED}",
                "warning",
                rule="world-seed",
            )
    for kind, entity in pack.world.entities.items():
        out[kind] |= set(entity.derived)
        for name, rule in entity.derived.items():
            at = f"/world/entities/{kind}/derived/{name}"
            if rule.entity not in out:
                problem(None, at, f"{rule.entity!r} is not a kind of the world", _kinds(out), rule="world-kinds")
            elif rule.by not in out[rule.entity]:
                problem(
                    None, at, f"{rule.entity} has no field {rule.by!r}", _fields(out[rule.entity]), rule="world-kinds"
                )
            elif rule.op in ("sum", "first") and not rule.field:
                problem(
                    None,
                    at,
                    f"a {rule.op} without a field",
                    f'name the {rule.entity} field in "field"',
                    rule="world-kinds",
                )
    return out


def _check_draw(tool: str, param: str, values: Draw, fields: dict[str, set[str]], problem) -> None:
    at = f"/tools/{tool}/values/{param}"
    if values.entity not in fields:
        problem(
            tool,
            at,
            f"draws from {values.entity!r}, which is not a kind of the world",
            _kinds(fields),
            rule="world-draw",
        )
    else:
        for name in [*([values.field] if values.field else []), *([values.of] if values.of else []), *values.where]:
            if name not in fields[values.entity]:
                problem(
                    tool,
                    at,
                    f"{values.entity} has no field {name!r}",
                    _fields(fields[values.entity]),
                    rule="world-draw",
                )


def _params(properties: dict[str, Any], touch: Touch) -> set[str]:
    """The names a world entry may use: the tool's parameters, and for a write of several (``each``) the keys of
    its items too."""
    items = properties.get(touch.each or "", {}).get("items", {}) if touch.each else {}
    keys = items.get("properties", {}) if isinstance(items, dict) else {}
    return set(properties) | set(keys if isinstance(keys, dict) else ())


def _check_touch(
    tool: str, touch: Touch, params: set[str], fields: dict[str, set[str]], results: list[Any], problem, pack: Pack
) -> None:
    at = f"/tools/{tool}/world"
    if touch.entity not in fields:
        problem(tool, at, f"{touch.entity!r} is not a kind of the world", _kinds(fields), rule="world-kinds")
        return
    have = fields[touch.entity]
    named = [touch.by] if touch.by else []
    limits = [touch.limit] if touch.limit else []
    sorts = [p for p in (touch.sort, touch.sort_dir, touch.page, touch.part) if p]
    bounds = [*touch.since, *touch.until, *touch.through]
    for param in [
        *named,
        *touch.match,
        *touch.filter,
        *limits,
        *(p.split(".")[0] for p in touch.set),  # a dotted param reads inside an argument
        *touch.assign,
        *([touch.each] if touch.each else []),
        *touch.append,
        *sorts,
        *bounds,
    ]:
        if param not in params:
            problem(
                tool,
                at,
                f"{param!r} is not a parameter of {tool}",
                f"use one of: {', '.join(sorted(params))}",
                rule="world-params",
            )
    named_fields = [*([touch.key] if touch.key else []), *touch.filter.values(), *touch.fields.values()]
    for field in [*named_fields, *touch.cycle, *touch.within, *touch.where]:
        if field not in have:
            problem(tool, at, f"{touch.entity} has no field {field!r}", _fields(have), rule="world-params")
    one = pack.world is not None and touch.entity in pack.world.entities and pack.world.entities[touch.entity].one
    if touch.op in ("read", "update", "delete") and not touch.by and not one:
        problem(
            tool, at, f'a {touch.op} without "by"', 'name the parameter that holds the id in "by"', rule="world-path"
        )
    listing = touch.op in ("search", "list")
    for i, template in enumerate(results):
        try:
            node = get_path(Expander(random.Random(0), _Any()).value(template), touch.path)
        except Missing:
            problem(
                tool, f"{at}/path", f"{touch.path!r} is not in result template {i}", _where(listing), rule="world-path"
            )
            continue
        if listing and not isinstance(node, list):
            problem(
                tool,
                f"{at}/path",
                f"result template {i} has no list at {touch.path!r}",
                _where(True),
                rule="world-path",
            )
        elif touch.op == "read" and not isinstance(node, dict) and "" not in touch.fields:  # '' shows one field
            problem(
                tool,
                f"{at}/path",
                f"result template {i} has no record at {touch.path!r}",
                _where(False),
                rule="world-path",
            )
        elif touch.op in ("read", "create", "update") and isinstance(node, dict) and not _shown(node, touch) & have:
            inner = [k for k, v in node.items() if isinstance(v, dict) and set(v) & have]
            if inner:  # {"message": ..., "doc": {...}} with no path: the world would fill in nothing
                deeper = f"{touch.path}.{inner[0]}" if touch.path else inner[0]
                problem(
                    tool,
                    f"{at}/path",
                    f"the record at {touch.path or 'the top'} of result template {i} has no field of "
                    f"{touch.entity}; its fields are under {inner[0]!r}",
                    f'"path": "{deeper}"',
                    rule="world-path",
                )


def _check_search(tool: str, touch: Touch, values: dict[str, Any], pack: Pack, problem) -> None:
    """A search's listed values for its ``match`` parameters each find a seeded entity (closed kinds only)."""
    assert pack.world is not None
    entity = pack.world.entities.get(touch.entity)
    if touch.op != "search" or touch.fuzzy or entity is None or entity.open:
        return
    try:
        records = [r for r in Expander(random.Random(0)).value(entity.seed) if isinstance(r, dict)]
        seeded = [search_words(text) for r in records for text in looked_at(r, touch.within)]
    except Missing:
        return  # reported by _seeds
    for param in touch.match:
        pool = values.get(param)
        for value in pool if isinstance(pool, list) else []:
            wanted = search_words(value)
            if wanted and not any(matched_words(wanted, words) == len(wanted) for words in seeded):
                problem(
                    tool,
                    f"/tools/{tool}/values/{param}",
                    f"the search for {value!r} finds no seeded {touch.entity}",
                    f'seed a {touch.entity} about it, drop the value, or say "fuzzy": true if the server ranks '
                    "everything",
                    "warning",
                    rule="world-search",
                )


def _shown(node: dict[str, Any], touch: Touch) -> set[str]:
    """The entity fields a result record shows: its keys, as ``fields`` names them (``summary`` -> tvl_summary)."""
    return {touch.fields.get(k, k) for k in node}


def _kinds(fields: dict[str, set[str]]) -> str:
    return f"use a kind declared under world.entities: {', '.join(sorted(fields)) or '(none)'}"


def _fields(have: set[str]) -> str:
    return f"use a field the seeded entities have: {', '.join(sorted(have))[:300]}"


def _where(listing: bool) -> str:
    what = "the list of entities" if listing else "the entity's record"
    return f'point "path" at {what} in every result template ("" for the result itself)'


class _Any(dict[str, Any]):
    """Arguments for expanding a template only to see its shape: every slot is a placeholder."""

    def __bool__(self) -> bool:
        return True

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return 3 if key in ("limit", "num_results", "max_results", "count", "page_size", "days") else f"<{key}>"


# --- relations, order and tools outside the world --------------------------------------------------------

# a tool's description that claims an order its list follows ("newest first", "sorted by points")
CLAIMS_ORDER = re.compile(
    r"(?i)\b(?:newest|latest|most recent|oldest|highest|lowest|top|most|best)\b[\w ]{0,20}\bfirst\b|"
    r"\b(?:sorted|ordered|ranked) by\b(?: \w+)?"
)
RELEVANCE = re.compile(r"(?i)relevan|match")  # a search's own ranking, which a search keeps by itself


def _check_order(
    tool: str, touch: Touch, params: set[str], fields: dict[str, set[str]], description: str, problem
) -> None:
    """A list's ``order`` names a field of its kind; a list whose description claims an order says which."""
    if touch.op not in ("list", "search") or touch.entity not in fields:
        return
    at = f"/tools/{tool}/world"
    if touch.order:
        name = touch.order.lstrip("+-").split()[0]
        name = touch.fields.get(name, name)
        if name.split(".")[0] not in fields[touch.entity]:
            problem(
                tool,
                at,
                f"{touch.entity} has no field {name!r} to order by",
                _fields(fields[touch.entity]),
                rule="world-order",
            )
    claim = CLAIMS_ORDER.search(description or "")
    if claim and not touch.order and not touch.sort and not RELEVANCE.search(claim.group(0)):
        problem(
            tool,
            at,
            f"the description says {claim.group(0)!r} but the list names no order",
            'say the field it sorts by: "order": "-created" (highest or newest first) or "order": "name"',
            rule="world-order",
        )


def _check_refs(pack: Pack, fields: dict[str, set[str]], problem) -> None:
    """Each ref names a kind and a field of it; a seeded value that names no entity of that kind is reported."""
    assert pack.world is not None
    for kind, entity in pack.world.entities.items():
        for field, ref in entity.refs.items():
            at = f"/world/entities/{kind}/refs/{field}"
            target = ref if isinstance(ref, str) else ref.entity
            if target not in fields:
                problem(None, at, f"{target!r} is not a kind of the world", _kinds(fields), rule="world-refs")
                continue
            if field not in fields.get(kind, set()):
                problem(None, at, f"{kind} has no field {field!r}", _fields(fields.get(kind, set())), rule="world-refs")
            agree = {} if isinstance(ref, str) else ref.agree
            key = None if isinstance(ref, str) else ref.key
            for there in [*agree.values(), *([key] if key else [])]:
                if there not in fields[target]:
                    problem(None, at, f"{target} has no field {there!r}", _fields(fields[target]), rule="world-refs")
    world = sample_world(pack)
    if world is None:
        return
    for kind, entity in pack.world.entities.items():
        for field, ref in entity.refs.items():
            target = ref if isinstance(ref, str) else ref.entity
            if target not in fields or pack.world.entities[target].open:
                continue
            key = (None if isinstance(ref, str) else ref.key) or (
                field if field in fields[target] else pack.world.entities[target].id
            )
            known = {key_of(e.get(key, "")) for e in world.entities(target)}
            lost = sorted({key_of(e[field]) for e in world.entities(kind) if field in e} - known)
            if lost:
                problem(
                    None,
                    f"/world/entities/{kind}/seed",
                    f"{field} names no seeded {target}: {', '.join(lost[:3])}",
                    f"seed those {target} entities, or use {key} values the world holds",
                    rule="world-refs",
                )


def _check_outside(tool: str, results: list[Any], pack: Pack, problem) -> None:
    """A tool without a world entry whose results describe a kind's entities (its id field and another of its
    fields): they would contradict the world, so the tool must read it (a derived view is a filtered list)."""
    assert pack.world is not None
    world = sample_world(pack)
    for kind, entity in pack.world.entities.items():
        if entity.one or world is None:
            continue
        have = {k for e in world.entities(kind) for k in e}
        keys = {entity.id} | {f for f in have if f.lower() in ("slug", "titleslug", "name") and f != entity.id}
        for i, template in enumerate(results):
            try:
                shown = Expander(random.Random(0), _Any()).value(template)
            except Missing:
                continue
            record = next((r for r in _records(shown) if _describes(r, keys, have)), None)
            if record is not None:
                both = sorted(set(record) & have)
                problem(
                    tool,
                    f"/tools/{tool}/results/{i}",
                    f"the result describes {kind} entities ({', '.join(both[:4])}) without the world, so it can "
                    f"contradict what other tools say of them",
                    f'give the tool a "world" entry that reads them ({{"op": "list", "entity": "{kind}", "filter": '
                    f'...}} for a view of some, "read" for one); a field naming a {kind} from another kind is a ref',
                    # an open kind's other entities are held to one description per id by the runtime
                    "warning" if entity.open else "error",
                    rule="world-touch",
                )
                break


def _describes(record: dict[str, Any], keys: set[str], have: set[str]) -> bool:
    """Whether a result record is an entity of a kind: it has the kind's id (or slug) and a label of the kind
    (title, name) beside it, and one more of its fields when the id is a bare ``id`` or ``name``."""
    named = {k for k in keys if k in record}
    others = (set(record) & have) - named
    labels = {k for k in others if k.lower() in ("title", "name", "display_name", "headline")}
    return bool(named and labels) and len(others) >= (2 if named <= {"id", "name"} else 1)


def _records(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value, *(r for v in value.values() for r in _records(v))]
    if isinstance(value, list):
        return [r for v in value for r in _records(v)]
    return []
