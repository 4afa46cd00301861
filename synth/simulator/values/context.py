"""What every offline value and result is drawn with: the conversation's ``Context``, a Faker seeded
from it, a parameter's words, and numbers that fit a parameter's name, bounds and description.

The lowest module of the offline value machinery: ``values`` (any JSON type) and ``strings`` (string
parameters) both build on it, and it imports neither, so the two never import each other.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
from dataclasses import dataclass
from typing import Any

from synth.simulator import vocab
from synth.simulator.tables import table
from synth.stages.fakers import Seeded

ANCHOR = dt.date(2026, 6, 1)  # dates are drawn around a fixed day, never "today", for determinism

_CAMEL = table("values/context", "camel", re.Pattern[str])
_RANGE = table("values/context", "range", re.Pattern[str])
_MAX = table("values/context", "max", re.Pattern[str])


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
    world: tuple[str, ...] = ()  # the live sandbox's paths (/workspace/..., folders end in /): real values to use


def seed_faker(rng: random.Random) -> Any:
    """A Faker seeded from ``rng``: its own random stream on the thread's shared Faker (synth.stages.fakers),
    so no process-wide Faker is reseeded under another user."""
    return Seeded(rng.getrandbits(32))


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


def number(name: str, schema: dict[str, Any], description: str, t: str, ctx: Context) -> int | float:
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
    if w & _SETS["plausible.lon"]:
        return vocab.CITY_COORDS.get(ctx.city or "", (41.15, -8.61))[1]
    if w & _SETS["plausible.timestamp"] or (w & _SETS["plausible.start"] and w & {"time"}):
        base = 1780272000  # ANCHOR as unix seconds
        return base + rng.randint(-30, 90) * 86400 * (1000 if "ms" in w or "millis" in description.lower() else 1)
    if (body := _BODY.get(next(iter(sorted(w & set(_BODY))), ""))) is not None and lo is None and hi is None:
        a, b = body
        return rng.randint(int(a), int(b)) if t == "integer" or isinstance(a, int) else round(rng.uniform(a, b), 1)
    if w & {"year"}:
        guess = (2019, 2026)
    elif w & _SETS["plausible.limit"] and not w & {"price"}:
        guess = (3, 20)
    elif w & _SETS["plausible.page"]:
        guess = (1, 3)
    elif w & {"days", "day"}:
        guess = (2, 7)
    elif w & {"hours", "hour"}:
        guess = (1, 12)
    elif w & _SETS["plausible.price"]:
        guess = (20, 500)
    elif w & _SETS["plausible.quantity"]:
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
_BODY = table("values/context", "body", dict[str, tuple[int | float, int | float]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("values/context", "sets", dict[str, frozenset[str]])
