"""Records from what a tool's description promises, for tools with no output schema: the keys it
says the result has ("Returns a dictionary with 'installed' (bool) and 'version' (str)"), or the
fields it lists ("Returns temperature, conditions and humidity"), each with a value its name fits."""

from __future__ import annotations

import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context, make_value, seed_faker, words

_DECLARED = table("results/described", "declared", re.Pattern[str])
_KEY = table("results/described", "key", re.Pattern[str])


def declared(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The keys a description says the result has ("Returns a dictionary with 'installed' (bool) and 'version' (str)
    or 'error' (str)": installed and version; the error is the other outcome), as the tool's own output schema."""
    m = _DECLARED.search(tool.description or "")
    if m is None:
        return None
    first = re.split(r"""\s+or\s+(?=['"`])""", m.group(1))[0]  # "..., or 'error'" names what a failure returns
    keys = _KEY.findall(first)
    if len(keys) < 2:
        return None
    out: dict[str, Any] = {}
    for key, type_name in keys:
        if type_name in ("bool", "boolean"):
            out[key] = ctx.rng.random() < 0.85
        elif type_name in _POOLS["declared.int"]:
            value = field_value(key, ctx, args)
            out[key] = value if isinstance(value, (int, float)) else ctx.rng.randint(1, 500)
        else:
            value = field_value(key, ctx, args)
            out[key] = value if value is not None else make_value(key, {"type": "string"}, ctx)[0]
    return out


_RETURNS = table("results/described", "returns", re.Pattern[str])


def _described_fields(description: str) -> list[str]:
    """Field names from "Returns temperature, conditions and humidity" in a tool's description."""
    best: list[str] = []
    for m in _RETURNS.finditer(description or ""):
        fields = []
        for part in re.split(r",|\band\b|\bor\b|;", m.group(1)):
            w = re.findall(r"[a-zA-Z]+", part.lower())
            w = [x for x in w if x not in _FILLER]
            if 1 <= len(w) <= 3:
                fields.append("_".join(w))
        fields = list(dict.fromkeys(fields))[:5]
        if len(fields) >= len(best):  # on a tie the later, more specific list wins
            best = fields
    return best if len(best) >= 2 else []


def described(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The fields a description promises, when at least two have names that say what they hold."""
    out = {}
    for field in _described_fields(tool.description):
        value = field_value(field, ctx, args)
        if value is not None:
            out[field] = value
    return out if len(out) >= 2 else None


_FILLER = table("results/described", "filler", set[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/described", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/described", "sets", dict[str, frozenset[str]])


def field_value(field: str, ctx: Context, args: dict[str, Any]) -> Any:
    """A realistic value for a field name, or None when the name says too little to choose one."""
    w = set(words(field))
    fake = seed_faker(ctx.rng)
    measured = _measure(w, ctx)
    return measured if measured is not None else _named_value(w, field, ctx, fake)


def _measure(w: set[str], ctx: Context) -> Any:
    """A number, time or coordinate for a field whose name measures something (temperature, price, date)."""
    rng = ctx.rng
    if w & {"temperature", "temp"}:
        return rng.randint(4, 31)
    if w & _SETS["measure.humidity"]:
        return rng.randint(12, 96) if not w & _SETS["measure.confidence"] else round(rng.uniform(0.6, 0.98), 2)
    if w & {"wind", "speed"}:
        return rng.randint(3, 40)
    if w & _SETS["measure.price"]:
        return round(rng.uniform(12, 4800), 2)
    if w & _SETS["measure.count"]:
        return rng.randint(3, 90000)
    if w & _SETS["measure.score"]:
        return round(rng.uniform(3.2, 4.9), 1) if "rating" in w else rng.randint(1, 100)
    if w & _SETS["measure.rate"]:
        return round(rng.uniform(-6, 9), 2)
    if w & {"distance"}:
        return round(rng.uniform(0.4, 900), 1)
    if w & _SETS["measure.duration"] and not w & {"zone"}:
        return rng.randint(5, 900) if not w & {"time"} else E.stamp(ctx, -2, 0)
    if w & _SETS["measure.date"]:
        return E.stamp(ctx, -10, 0)
    if w & {"latitude", "lat"}:
        return vocab.CITY_COORDS.get(ctx.city or "", (41.15, -8.61))[0]
    if w & _SETS["measure.longitude"]:
        return vocab.CITY_COORDS.get(ctx.city or "", (41.15, -8.61))[1]
    return None


def _named_value(w: set[str], field: str, ctx: Context, fake: Any) -> Any:
    """A place, person, text, status or id for a field whose name says which."""
    rng = ctx.rng
    if w & _SETS["named_value.city"]:
        return ctx.city or rng.choice(vocab.CITIES)[0]
    if w & {"country"}:
        return dict(vocab.CITIES).get(ctx.city or "", "Portugal")
    if w & {"email"}:
        return fake.email()
    if w & {"phone"}:
        return fake.phone_number()
    if w & {"address"}:
        return fake.address().replace("\n", ", ")
    if w & _SETS["named_value.url"]:
        return rng.choice(vocab.URLS)
    if w & _SETS["named_value.author"]:
        return fake.user_name() if w & {"username"} else fake.name()
    if w & _SETS["named_value.company"]:
        return fake.company()
    if w & {"name"}:
        return fake.name()
    if w & {"title", "headline"}:
        return rng.choice(vocab.TITLES)
    if w & _SETS["named_value.description"]:
        return rng.choice(vocab.MESSAGES)
    if w & {"status", "state"}:
        return rng.choice(_POOLS["named_value.active"])
    if w & {"currency"}:
        return "USD"
    if w & {"language"}:
        return rng.choice(vocab.LANGUAGES)[1]
    if w & {"version"}:
        return f"{rng.randint(1, 4)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
    if w & _SETS["named_value.conditions"]:
        return rng.choice(_POOLS["named_value.sunny"])
    if w & _SETS["named_value.tags"]:
        return rng.sample(vocab.TAGS, 2)
    if w & {"id", "identifier"}:
        return E.ident(field, ctx)
    return None
