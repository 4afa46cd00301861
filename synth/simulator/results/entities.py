"""The small helpers every result shape shares: timestamps near 2026-06-01, positions in a pool,
ids, the text a call is about, exchange rates, the word lists records draw from (tasks, services,
packages, table columns, models...), and the plain record of a kind nothing else knows.
The records themselves are made in ``synth.simulator.results.things`` and the modules it names. All
randomness comes from ``ctx.rng``.
"""

from __future__ import annotations

import datetime as dt
import re
import zlib
from collections.abc import Collection
from typing import Any

from synth.simulator.tables import table
from synth.simulator.values.values import Context, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/entities", "keywords", dict[str, re.Pattern[str]])

_ANCHOR = dt.datetime(2026, 6, 1, 9, 0, 0)


def stamp(ctx: Context, lo: float = -3, hi: float = 0) -> str:
    """An ISO timestamp ``lo``..``hi`` days from 2026-06-01 09:00 UTC."""
    t = _ANCHOR + dt.timedelta(seconds=int(ctx.rng.uniform(lo, hi) * 86400))
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def later(stamp: str, hours: float) -> str:
    """The ISO timestamp ``hours`` after ``stamp`` (a day's end rolls into the next day)."""
    t = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ") + dt.timedelta(hours=hours)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def day(ctx: Context, lo: int = -30, hi: int = 30) -> str:
    return (_ANCHOR + dt.timedelta(days=ctx.rng.randint(lo, hi))).date().isoformat()


def slot(text: str, args: dict[str, Any], i: int, n: int) -> int:
    """Position ``i`` of a list in a pool of ``n``: distinct for the items of one result, varied across calls."""
    return (zlib.crc32((text + repr(sorted(args.items(), key=lambda kv: kv[0]))).encode()) + i) % n


def ident(prefix: str, ctx: Context) -> str:
    return f"{prefix[:3]}_{ctx.rng.randint(10000, 99999)}"


def hexid(ctx: Context, n: int) -> str:
    return "".join(ctx.rng.choice("0123456789abcdef") for _ in range(n))


# the argument words that name what a call is about, most telling first
_CONTENT_KEYS = table("results/entities", "content_keys", tuple[str, ...])


def arg(args: dict[str, Any], *keys: str, types: tuple[type, ...] = (str,)) -> Any:
    """The first argument whose name has one of ``keys`` as a word."""
    for key in keys:
        for k, v in args.items():
            if key in words(k) and isinstance(v, types) and not isinstance(v, bool):
                return v
    return None


def given(args: dict[str, Any], keys: Collection[str], default: Any = None, kind: Any = str) -> Any:
    """The first argument (in the call's order) of type ``kind`` whose name has one of ``keys`` as a word."""
    return next((v for k, v in args.items() if isinstance(v, kind) and set(words(k)) & set(keys)), default)


def focus(args: dict[str, Any]) -> tuple[str, str]:
    """What a call is about, as (key, value): the most content-like string argument."""
    strings = [(k, v) for k, v in args.items() if isinstance(v, str) and v.strip()]
    for key in _CONTENT_KEYS:
        for k, v in strings:
            if key in words(k):
                return k, v
    return max(strings, key=lambda kv: len(kv[1])) if strings else ("", "")


def numbers(args: dict[str, Any]) -> list[float]:
    out: list[float] = []
    for v in args.values():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(v)
        elif isinstance(v, list):
            out.extend(x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool))
        elif isinstance(v, str) and re.fullmatch(r"-?\d+(\.\d+)?", v.strip()):
            out.append(float(v))
    return out


def short(text: str, n: int = 12) -> str:
    """The first ``n`` words of a text, for quoting it back."""
    w = text.split()
    return " ".join(w[:n]) + ("..." if len(w) > n else "")


def url_topic(url: str) -> str:
    """``https://docs.python.org/3/library/asyncio.html`` -> "asyncio"."""
    path = re.sub(r"^[a-z]+://[^/]+", "", url).strip("/")
    parts = [p for p in re.split(r"[/?#=&]", path) if p and not p.isdigit()]
    last = _KEYWORDS["url_topic"].sub("", parts[-1]) if parts else ""
    return " ".join(words(last)) or host(url)


def host(url: str) -> str:
    m = re.match(r"^[a-z]+://(?:www\.)?([^/]+)", url)
    return m.group(1) if m else url


# --- word lists ------------------------------------------------------------------------------------

TASKS = table("results/entities", "tasks", tuple[str, ...])
PROJECTS = table("results/entities", "projects", tuple[str, ...])
TEAMS = table("results/entities", "teams", tuple[str, ...])
INDUSTRIES = table("results/entities", "industries", tuple[str, ...])
SERVICES = table("results/entities", "services", tuple[str, ...])
PACKAGES = table("results/entities", "packages", tuple[tuple[str, str, str, str], ...])
COLUMNS = table("results/entities", "columns", dict[str, tuple[tuple[str, str], ...]])
CRM_PROPERTIES = table("results/entities", "crm_properties", tuple[tuple[str, str, str], ...])
CATEGORY_NAMES = table("results/entities", "category_names", tuple[str, ...])
LOG_LINES = table("results/entities", "log_lines", tuple[tuple[str, str], ...])
TRENDING = table("results/entities", "trending", tuple[str, ...])
MODELS = table("results/entities", "models", tuple[tuple[str, str, int], ...])
CODENAMES = table("results/entities", "codenames", tuple[str, ...])


_RATES = table("results/entities", "rates", dict[str, float])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/entities", "pools", dict[str, tuple[str, ...]])


def rate(a: str, b: str) -> float | None:
    """How many ``b`` one ``a`` buys, from fixed 2026-06-01 rates."""
    if a.upper() in _RATES and b.upper() in _RATES:
        return _RATES[b.upper()] / _RATES[a.upper()]
    return None


def rates_from(base: str, codes: tuple[str, ...]) -> dict[str, float]:
    """What one ``base`` buys of each of ``codes`` (but itself), from the same fixed rates."""
    return {c: _RATES[c] / _RATES[base] for c in codes if c != base}


def fallback(noun: str, ctx: Context, index: int = 0) -> dict[str, Any]:
    """A thing of a kind nothing above knows, saying only what any such thing has: an id and a name.

    Owners and dates would make it one more copy of the same made-up record for every unknown tool (issue
    10 found one returned by 38 tools, medical calculators included); a value tool returns a value.
    """
    if noun in _POOLS["fallback.value"]:
        return {noun: round(ctx.rng.uniform(1, 500), 2)}
    return {"id": ident(noun, ctx), "name": f"{ctx.rng.choice(CODENAMES)} {noun}"}
