"""Realistic argument values from a parameter's name, schema and description.

Each value comes with a *kind* ("city", "email", "query", ...) that the request writer
uses to phrase it the way a person would. Randomness comes only from the ``random.Random``
passed in (seeded per conversation), so values never depend on the order of work.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from dataclasses import dataclass, replace
from typing import Any

from faker import Faker

from synth.facts import pattern_example
from synth.offline import vocab

_FAKER = Faker("en_US")
ANCHOR = dt.date(2026, 6, 1)  # dates are drawn around a fixed day, never "today", for determinism

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_EXAMPLE = re.compile(r"""(?:e\.g\.?|for example|example:|such as|like)\s*[:,]?\s*['"`]([^'"`]{2,40})['"`]""", re.I)
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:-|–|to|and)\s*(-?\d+(?:\.\d+)?)")
_MAX = re.compile(r"\b(?:max(?:imum)?|up to|at most)\s*(?:of\s*|is\s*|:\s*)?(\d+)", re.I)


def words(name: str) -> list[str]:
    """``startDate`` / ``start_date`` / ``start-date`` -> ["start", "date"]."""
    return [w for w in re.split(r"[_\-\s.]+", _CAMEL.sub("_", name).lower()) if w]


def human(name: str) -> str:
    """A parameter name as words: ``maxResults`` -> "max results"."""
    return " ".join(words(name)) or name


@dataclass(frozen=True)
class Context:
    """What a value may depend on besides its own parameter."""

    rng: random.Random
    topic: str = "general"  # a key of vocab.QUERIES, from the server's category and tools
    city: str | None = None  # keeps one place per conversation
    subject: str = ""  # what the current tool is about ("location", "issue"), from its name
    about: str = ""  # the current tool's name and first sentence, lower-cased: "excel", "wikipedia" live here


def seed_faker(rng: random.Random) -> Faker:
    _FAKER.seed_instance(rng.getrandbits(32))
    return _FAKER


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


def bounds(schema: dict[str, Any], description: str) -> tuple[float | None, float | None]:
    lo = schema.get("minimum", schema.get("exclusiveMinimum"))
    hi = schema.get("maximum", schema.get("exclusiveMaximum"))
    if "exclusiveMinimum" in schema and isinstance(lo, (int, float)) and not isinstance(lo, bool):
        lo = lo + 1
    if "exclusiveMaximum" in schema and isinstance(hi, (int, float)) and not isinstance(hi, bool):
        hi = hi - 1
    if lo is None and hi is None and description:
        m = _RANGE.search(description)
        if m and float(m.group(1)) < float(m.group(2)) <= 100000:
            lo, hi = float(m.group(1)), float(m.group(2))
        elif (m := _MAX.search(description)) is not None:
            hi = float(m.group(1))
    return (lo if isinstance(lo, (int, float)) else None, hi if isinstance(hi, (int, float)) else None)


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


_DIGITS = re.compile(r"^\^?\\d(?:\{(\d+)(?:,(\d+))?\}|\+|\*)\$?$")


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
            alphabet = "0123456789abcdef" if re.fullmatch(r"(0x)?[0-9a-f]+", value) else "abcdefghjkmnpqrstuvwxyz23456789"
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
        return _number(name, schema, description, t, ctx), "number"
    if t == "array":
        return _array(name, schema, ctx, depth)
    if t == "object":
        return _object(name, schema, ctx, depth), "object"
    from synth.offline.strings import string_value  # strings builds on this module's Context and numbers

    return string_value(name, schema, description, ctx)


def _number(name: str, schema: dict[str, Any], description: str, t: str, ctx: Context) -> int | float:
    """A plausible number of the schema's type, inside its bounds however it was guessed (a timestamp where 0
    is the maximum is 0)."""
    value = _plausible(name, schema, description, t, ctx)
    if t == "integer" and not isinstance(value, int):  # a latitude where the schema wants an integer
        value = round(value)
    lo, hi = bounds(schema, description)
    if lo is not None and value < lo:
        value = math.ceil(lo) if t == "integer" else lo
    if hi is not None and value > hi:
        value = math.floor(hi) if t == "integer" else hi
    return value


def _plausible(name: str, schema: dict[str, Any], description: str, t: str, ctx: Context) -> int | float:
    w = set(words(name))
    lo, hi = bounds(schema, description)
    rng = ctx.rng
    if w & {"lat", "latitude"}:
        return vocab.CITY_COORDS.get(ctx.city or "", (41.15, -8.61))[0]
    if w & {"lon", "lng", "longitude"}:
        return vocab.CITY_COORDS.get(ctx.city or "", (41.15, -8.61))[1]
    if w & {"timestamp", "epoch", "ts"} or (w & {"start", "end", "from", "to", "since", "until"} and w & {"time"}):
        base = 1780272000  # ANCHOR as unix seconds
        return base + rng.randint(-30, 90) * 86400 * (1000 if "ms" in w or "millis" in description.lower() else 1)
    if (body := _BODY.get(next(iter(sorted(w & set(_BODY))), ""))) is not None and lo is None and hi is None:
        a, b = body
        return rng.randint(int(a), int(b)) if t == "integer" or isinstance(a, int) else round(rng.uniform(a, b), 1)
    if w & {"year"}:
        guess = (2019, 2026)
    elif w & {"limit", "count", "size", "top", "k", "max", "num", "results", "number", "n", "amount"} and not w & {"price"}:
        guess = (3, 20)
    elif w & {"page", "offset", "skip"}:
        guess = (1, 3)
    elif w & {"days", "day"}:
        guess = (2, 7)
    elif w & {"hours", "hour"}:
        guess = (1, 12)
    elif w & {"price", "budget", "cost"}:
        guess = (20, 500)
    elif w & {"quantity", "qty", "adults", "guests", "people", "rooms"}:
        guess = (1, 4)
    elif w & {"id"}:
        guess = (1000, 99999)
    elif w & {"rating", "stars"}:
        guess = (3, 5)
    elif w & {"temperature"}:
        guess = (0, 1) if t == "number" else (15, 30)
    else:
        guess = (1, 50)
    a = lo if lo is not None else guess[0]
    b = hi if hi is not None else max(guess[1], a)
    if lo is not None and hi is None:
        b = max(a, a + guess[1] - guess[0])
    if hi is not None and lo is None:
        a = min(guess[0], b)
    if max(a, guess[0]) <= min(b, guess[1]):  # a person asks for 10 results, not 82, when 1-100 is allowed
        a, b = max(a, guess[0]), min(b, guess[1])
    if t == "integer" or (float(a).is_integer() and float(b).is_integer() and "temperature" not in w):
        value: int | float = rng.randint(int(a), int(b))
        if t == "number" and not float(a).is_integer():
            value = float(value)
    else:
        value = round(rng.uniform(float(a), float(b)), 2)
    multiple = schema.get("multipleOf")
    if isinstance(multiple, (int, float)) and multiple > 0 and not isinstance(multiple, bool):
        value = type(value)(round(value / multiple) * multiple)
    return value


# Plausible adult values for body and vital-sign parameters, so a dosage calculator gets a real patient.
_BODY: dict[str, tuple[float, float]] = {
    "age": (18, 85), "weight": (52, 110), "height": (152, 196), "scr": (0.6, 1.6), "creatinine": (0.6, 1.6),
    "systolic": (105, 160), "diastolic": (65, 100), "sbp": (105, 160), "dbp": (65, 100), "heart": (55, 110),
    "hr": (55, 110), "bmi": (18.5, 34.0), "glucose": (70, 180), "cholesterol": (150, 260), "hdl": (35, 80),
    "ldl": (70, 190), "sodium": (132, 146), "potassium": (3.4, 5.2), "albumin": (2.8, 4.8), "bilirubin": (0.3, 2.5),
    "inr": (0.9, 2.5), "hemoglobin": (10.5, 16.5), "platelets": (140, 380), "temp": (36.2, 38.9),
}


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
        key = ctx.rng.choice(("status", "category", "tag"))
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
