"""Realistic argument values from a parameter's name, schema and description.

Each value comes with a *kind* ("city", "email", "query", ...) that the request writer
uses to phrase it the way a person would. Randomness comes only from the ``random.Random``
passed in (seeded per conversation), so values never depend on the order of work.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

from synth.facts import pattern_example
from synth.simulator import vocab
from synth.simulator.tables import table
from synth.simulator.values.context import ANCHOR, Context, bounds, human, number, seed_faker, words  # noqa: F401  (re-exported)
from synth.simulator.values.strings import string_value

_EXAMPLE = table("values/values", "example", re.Pattern[str])


def schema_type(schema: dict[str, Any]) -> str | None:
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    if t is None:
        if "properties" in schema:
            return "object"
        if "items" in schema:
            return "array"
        if "enum" in schema and schema["enum"]:
            return {bool: "boolean", int: "integer", float: "number"}.get(type(schema["enum"][0]), "string")
    return t if isinstance(t, str) else None


def branch(schema: dict[str, Any]) -> dict[str, Any]:
    """One concrete alternative of an anyOf/oneOf/allOf schema (the first that is not null)."""
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            merged = {k: v for k, v in schema.items() if k != key}
            return branch({**merged, **options[0]})
    if isinstance(schema.get("allOf"), list):
        merged = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            if isinstance(part, dict):
                merged.update({k: v for k, v in part.items() if k not in merged or k != "description"})
        return merged
    return schema


def make_value(name: str, schema: dict[str, Any], ctx: Context, depth: int = 0) -> tuple[Any, str]:
    """A value for one parameter, and its kind."""
    schema = branch(schema)
    value, kind = _value(name, schema, ctx, depth)
    if isinstance(value, str):
        value = _fit_pattern(_fit_length(value, schema, ctx.rng), schema, ctx.rng)
    return value, kind


_DIGITS = table("values/values", "digits", re.Pattern[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("values/values", "pools", dict[str, tuple[str, ...]])


def _fit_pattern(value: str, schema: dict[str, Any], rng: random.Random) -> str:
    """Digits-only patterns (``^\\d{14}$``, ``^\\d+$``) are common for national ids and codes."""
    pattern = schema.get("pattern")
    if not isinstance(pattern, str):
        return value
    try:
        if re.search(pattern, value):
            return value
    except re.error:
        return value
    m = _DIGITS.match(pattern)
    if m:
        length = int(m.group(1)) if m.group(1) else 8
        return "".join(rng.choice("0123456789") for _ in range(length))
    return pattern_example(pattern, rng) or value  # "^[A-Z]{3}$": a string the schema accepts, not the guess


def _fit_length(value: str, schema: dict[str, Any], rng: random.Random) -> str:
    """Respect minLength/maxLength: a state code where two letters are allowed, a long key where 64 are needed."""
    hi = schema.get("maxLength")
    lo = schema.get("minLength")
    if isinstance(hi, int) and len(value) > hi:
        value = value[:hi].rstrip() or value[:hi]
    if isinstance(lo, int) and len(value) < lo:
        if " " in value:  # text: say more, in whole sentences
            extra = iter(rng.sample(vocab.MESSAGES, len(vocab.MESSAGES)) * (1 + lo // 40))
            while len(value) < lo:
                value = f"{value} {next(extra)}"
        else:  # a key or code: more of the same kind of characters
            alphabet = (
                "0123456789abcdef" if re.fullmatch(r"(0x)?[0-9a-f]+", value) else "abcdefghjkmnpqrstuvwxyz23456789"
            )
            value += "".join(rng.choice(alphabet) for _ in range(lo - len(value)))
    return value


def _value(name: str, schema: dict[str, Any], ctx: Context, depth: int) -> tuple[Any, str]:
    description = str(schema.get("description") or "")
    if "const" in schema:
        return schema["const"], "enum"
    enum = [v for v in schema.get("enum") or [] if v is not None]
    if enum:
        return ctx.rng.choice(enum), "enum"
    t = schema_type(schema)
    if t == "boolean":
        return ctx.rng.random() < 0.6, "bool"
    if t in ("integer", "number"):
        return number(name, schema, description, t, ctx), "number"
    if t == "array":
        return _array(name, schema, ctx, depth)
    if t == "object":
        return _object(name, schema, ctx, depth), "object"
    return string_value(name, schema, description, ctx)


def _array(name: str, schema: dict[str, Any], ctx: Context, depth: int) -> tuple[list[Any], str]:
    items: dict[str, Any] = schema["items"] if isinstance(schema.get("items"), dict) else {"type": "string"}
    lo = schema.get("minItems", 1) or 1
    hi = schema.get("maxItems", 3)
    least = min(lo, 3) if lo <= 3 else min(lo, 20)  # minItems is a floor, not a suggestion (20: a guard)
    count = ctx.rng.randint(least, max(least, min(hi if isinstance(hi, int) else 3, 3)))
    singular = name[:-1] if name.endswith("s") and len(name) > 3 else name
    out: list[Any] = []
    kind = "list"
    for attempt in range(count * 3):  # a few extra draws to find distinct items
        if len(out) == count or depth > 3:
            break
        # the conversation's one city comes first; more than one city needs others
        value, kind = make_value(singular, items, ctx if attempt < count else replace(ctx, city=None), depth + 1)
        if value not in out:
            out.append(value)
    while out and len(out) < least and not schema.get("uniqueItems"):  # a value with no second spelling, repeated
        out.append(out[len(out) % len(out)])
    return out, f"list:{kind}"


def _object(name: str, schema: dict[str, Any], ctx: Context, depth: int) -> dict[str, Any]:
    props = schema.get("properties") or {}
    if not props and schema.get("additionalProperties") is False:
        return {}
    if not props:  # a free-form object: a small, plausible filter
        key = ctx.rng.choice(_POOLS["object.key"])
        pool = {"status": vocab.STATUSES, "category": vocab.CATEGORIES, "tag": vocab.TAGS}[key]
        return {key: ctx.rng.choice(pool)}
    if depth > 3:
        return {}
    required = set(schema.get("required") or [])
    out: dict[str, Any] = {}
    for key, sub in props.items():
        if not isinstance(sub, dict):
            continue
        if key in required or ctx.rng.random() < 0.3:
            out[key], _ = make_value(key, sub, ctx, depth + 1)
    return out
