"""The pack checker's world rules: does a pack's ``world`` hold together with its tools and their schemas?

The rules are ``synth.packs.rules.WORLD_RULES`` (the pack prompt states them); ``check_world`` reports a
broken one with the tool, the JSON pointer, the fix and the rule's id.
"""

from __future__ import annotations

import random
from typing import Any

from synth.packs.model import Draw, Pack, Touch
from synth.packs.template import Expander, Missing, get_path
from synth.packs.world import WorldState, key_of, matched_words, search_words
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
    for name, tp in pack.tools.items():
        tool = server.tool(name)
        if tool is None:
            continue
        for param, values in tp.values.items():
            if isinstance(values, Draw):
                _check_draw(name, param, values, fields, problem)
        if tp.world is not None:
            _check_touch(name, tp.world, set(tool.properties), fields, tp.results, problem)
            _check_search(name, tp.world, tp.values, pack, problem)


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
        out[kind] = {k for r in records for k in r}
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
    elif values.field and values.field not in fields[values.entity]:
        problem(
            tool,
            at,
            f"{values.entity} has no field {values.field!r}",
            _fields(fields[values.entity]),
            rule="world-draw",
        )


def _check_touch(
    tool: str, touch: Touch, params: set[str], fields: dict[str, set[str]], results: list[Any], problem
) -> None:
    at = f"/tools/{tool}/world"
    if touch.entity not in fields:
        problem(tool, at, f"{touch.entity!r} is not a kind of the world", _kinds(fields), rule="world-kinds")
        return
    have = fields[touch.entity]
    named = [touch.by] if touch.by else []
    for param in [*named, *touch.match, *touch.filter, *([touch.limit] if touch.limit else []), *touch.set]:
        if param not in params:
            problem(
                tool,
                at,
                f"{param!r} is not a parameter of {tool}",
                f"use one of: {', '.join(sorted(params))}",
                rule="world-params",
            )
    for field in [*([touch.key] if touch.key else []), *touch.filter.values(), *touch.fields.values()]:
        if field not in have:
            problem(tool, at, f"{touch.entity} has no field {field!r}", _fields(have), rule="world-params")
    if touch.op in ("read", "update", "delete") and not touch.by:
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
        elif touch.op == "read" and not isinstance(node, dict):
            problem(
                tool,
                f"{at}/path",
                f"result template {i} has no record at {touch.path!r}",
                _where(False),
                rule="world-path",
            )


def _check_search(tool: str, touch: Touch, values: dict[str, Any], pack: Pack, problem) -> None:
    """A search's listed values for its ``match`` parameters each find a seeded entity (closed kinds only)."""
    assert pack.world is not None
    entity = pack.world.entities.get(touch.entity)
    if touch.op != "search" or touch.fuzzy or entity is None or entity.open:
        return
    try:
        seeded = [search_words(r) for r in Expander(random.Random(0)).value(entity.seed) if isinstance(r, dict)]
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
