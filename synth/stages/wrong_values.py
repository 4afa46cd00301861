"""Wrong-value negatives: generators of candidates with one value of the gold call changed.

Most come from the conversation itself (synth.stages.scalars): another item of the result the
gold value came from, a value given for another purpose, two arguments swapped, part of a value,
the gold number in the unit it is confused with. The rest are made from the parameter's schema
and description (synth.stages.mutate): a wrong type, a value outside the choices, the range or
the format, a valid value the request did not ask for.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from synth.grade import FORMAT_NAMES, json_type, same_value, show
from synth.stages import mutate as m
from synth.stages.candidates import Candidate, Ctx, Generator, Node, fits, replace, value_at
from synth.stages.scalars import shape, sibling_reason
from synth.stages.units import unit_mixup

_TYPE_NAMES = {
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "boolean": "a boolean (true or false)",
    "object": "an object",
}
_KINDS = {
    "string": "the string",
    "array": "the list",
    "object": "the object",
    "boolean": "the boolean",
    "number": "the number",
}


def _value_reason(c: Ctx, subtype: str, node: Node, new: Any) -> str:
    p, f, tool, want = node.label, node.facts, c.gold.name, c.wanted(node)
    if subtype == "wrong_type":
        old = node.value
        t = f.schema.get("type") or ("integer" if type(old) is int else json_type(old))
        types = t if isinstance(t, list) else [t]
        expected = " or ".join(_TYPE_NAMES.get(x, x) for x in types if x != "null")
        given = f"{_KINDS.get(json_type(new), 'the value')} {show(new)}"
        return f"'{p}' is {given}, but {tool} expects {expected}; {want}."
    if subtype == "out_of_enum":
        allowed = ", ".join(show(x, 30) for x in f.choices[:8]) + ", ..." * (len(f.choices) > 8)
        return f"'{p}' is {show(new)}, which is not one of the allowed values ({allowed}); {want}."
    if subtype == "out_of_range" and isinstance(new, (str, list)):
        unit, key = ("characters", "Length") if isinstance(new, str) else ("items", "Items")
        lo = f.schema.get("min" + key)
        hi = f.schema.get("max" + key)
        limit = f"at least {lo}" if isinstance(lo, int) and len(new) < lo else f"at most {hi}"
        return f"'{p}' has {len(new)} {unit}, but it must have {limit}; {want}."
    if subtype == "out_of_range":
        return f"'{p}' is {show(new)}, but {want} and the tool accepts {f.range_text()}."
    if subtype == "wrong_format":
        return f"'{p}' is {show(new)}, but {tool} expects {FORMAT_NAMES[f.fmt]}; {want}."
    return f"'{p}' is {show(new)}, but {want}."


def _changer(subtype: str, propose: Callable[[Node, Ctx, random.Random], Any]) -> Generator:
    """A values error: exactly one value of the gold call changed (maybe inside an object)."""

    def generate(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
        nodes = list(c.nodes)
        rng.shuffle(nodes)
        for node in nodes:
            for new in islice(propose(node, c, rng), 4):
                yield Candidate(
                    subtype,
                    c.call(replace(c.gold.arguments, node.path, new)),
                    _value_reason(c, subtype, node, new),
                    node,
                )

    return generate


def _scalars(c: Ctx, rng: random.Random) -> list[Node]:
    nodes = [n for n in c.nodes if json_type(n.value) in ("string", "number")]
    rng.shuffle(nodes)
    return nodes


def _sibling_result(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """Another item of the result list the gold value came from: the second hit for the first."""
    for node in _scalars(c, rng):
        name = node.path[-1]
        for new, where, at in islice(c.context.siblings(node.value), 6):
            if fits(new, name, node.facts.schema) and json_type(new) == json_type(node.value):
                reason = sibling_reason(node.label, new, where, at, node.value, c.evidence.said(node.value))
                yield Candidate("sibling_result", c.call(replace(c.gold.arguments, node.path, new)), reason, node)


def _context_value(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """A value the conversation gave for another purpose: another argument, result field or number."""
    for node in _scalars(c, rng):
        name, level = node.path[-1], value_at(c.gold.arguments, node.path[:-1])
        tried = 0
        for new, why in c.context.others(name, node.value, level):
            if tried >= 4:
                break
            if fits(new, name, node.facts.schema) and json_type(new) == json_type(node.value):
                tried += 1
                yield Candidate(
                    "context_value",
                    c.call(replace(c.gold.arguments, node.path, new)),
                    f"'{node.label}' is {show(new)}, {why}; {c.wanted(node)}.",
                    node,
                )


def _case_blind(value: Any) -> tuple[Any, ...]:
    """A value's shape (synth.stages.scalars.shape) whatever the case of its first letter."""
    kind = shape(value)
    return kind[:6] + kind[7:]


def _swapped_arguments(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """Two arguments of the same kind exchanged: from and to, width and height."""
    top = [n for n in c.nodes if len(n.path) == 1 and json_type(n.value) in ("string", "number")]
    pairs = [
        (a, b)
        for i, a in enumerate(top)
        for b in top[i + 1 :]
        if _case_blind(a.value) == _case_blind(b.value)
        and not same_value(a.value, b.value)
        and fits(a.value, b.label, b.facts.schema)
        and fits(b.value, a.label, a.facts.schema)
    ]
    rng.shuffle(pairs)
    for a, b in pairs:
        args = {**c.gold.arguments, a.label: b.value, b.label: a.value}
        reason = (
            f"'{a.label}' and '{b.label}' are swapped: '{a.label}' is {show(b.value)} and "
            f"'{b.label}' is {show(a.value)}; for '{a.label}' {c.wanted(a)}."
        )
        yield Candidate("swapped_arguments", c.call(args), reason, a)


def _unit_mixup(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """The gold number in the unit it is confused with: 68 for 20 (Celsius), 30000 for 30 s."""
    for node in _scalars(c, rng):
        for new, unit, other in unit_mixup(node.value, node.facts):
            reason = (
                f"'{node.label}' is {show(new)}, {show(node.value)} {unit} converted to "
                f"{other}, but {c.gold.name} takes {unit}; {c.wanted(node)}."
            )
            yield Candidate("unit_mixup", c.call(replace(c.gold.arguments, node.path, new)), reason, node)


def _partial_value(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """Part of a value of several words or parts: 'Hong' for 'Hong Kong', the latitude alone."""
    for node in _scalars(c, rng):
        if not isinstance(node.value, str):
            continue
        for new in m.partial(node.value):
            if fits(new, node.path[-1], node.facts.schema):
                reason = f"'{node.label}' is {show(new)}, only part of the value; {c.wanted(node)}."
                yield Candidate("partial_value", c.call(replace(c.gold.arguments, node.path, new)), reason, node)


VALUE_GENERATORS: dict[str, Generator] = {
    "wrong_type": _changer("wrong_type", lambda n, c, r: m.wrong_type(n.value, n.facts, r)),
    "out_of_enum": _changer("out_of_enum", lambda n, c, r: n.facts.choices and m.out_of_enum(n.value, n.facts, r)),
    "out_of_range": _changer("out_of_range", lambda n, c, r: m.out_of_range(n.value, n.facts, r)),
    "wrong_format": _changer("wrong_format", lambda n, c, r: m.wrong_format(n.value, n.facts, r)),
    "sibling_result": _sibling_result,
    "context_value": _context_value,
    "swapped_arguments": _swapped_arguments,
    "unit_mixup": _unit_mixup,
    "partial_value": _partial_value,
    "contradicts_request": _changer(
        "contradicts_request",
        lambda n, c, r: m.contradicting(n.value, n.facts, r, lambda v: bool(c.evidence.source(v))),
    ),
}
