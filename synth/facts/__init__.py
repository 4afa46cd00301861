"""What a parameter allows and where a value came from: the material of a failure_reason.

``Facts``: bounds, choices and format of one parameter, from its schema or from what its
description says ("(1-10, default: 3)"). ``Evidence`` (``synth.facts.evidence``): what the request said,
the user's words and earlier tool results. A label is only useful with its reason; these say what the
reason is made of.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from re import _parser  # type: ignore[attr-defined]  # the stdlib's own regex parser, to draw from a pattern
from typing import Any

from synth.facts.evidence import Evidence as Evidence  # re-exported: the second half of a reason
from synth.wording import words

_NUM = r"-?\d+(?:\.\d+)?"
_RANGE = re.compile(rf"(?<![\w.\-/:])({_NUM})\s*(?:-|–|to|\.\.)\s*({_NUM})(?![\w.\-/:%])", re.I)
_BETWEEN = re.compile(rf"\bbetween\s+({_NUM})\s+and\s+({_NUM})", re.I)
_AFTER = r"\s*(?:of|is|value)?\s*[:=]?\s*(" + _NUM + r")(?![\w.\-/])"
_MAX = re.compile(r"(?:\b(?:max(?:imum)?|up to|at most|no more than)|<=?)" + _AFTER, re.I)
_MIN = re.compile(r"(?:\b(?:min(?:imum)?|at least|no less than)|>=?)" + _AFTER, re.I)
_QUOTED = r"""(?:"[^"]{1,30}"|'[^']{1,30}'|`[^`]{1,30}`)"""
_CHOICES = re.compile(  # "Valid periods: "1d", "5d", "1mo""
    r"\b(?:valid|allowed|possible|supported|one of|options?|values?)\b[^:\n]{0,30}:\s*"
    rf"({_QUOTED}(?:\s*(?:,|or|\|)\s*(?:or\s+)?{_QUOTED})+)",
    re.I,
)
_HEX = "[0-9a-fA-F]"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1?\d?\d)"
_FORMATS: dict[str, re.Pattern[str]] = {
    "email": re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "date-time": re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?"),
    "time": re.compile(r"\d{2}:\d{2}(?::\d{2})?(?:[Zz]|[+-]\d{2}:\d{2})?"),
    "uri": re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+"),
    "uuid": re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"),
    "ipv4": re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}"),
}
_FORMAT_ALIASES = {"url": "uri", "iri": "uri", "ip": "ipv4"}
FORMAT_NAMES = {
    "email": "an email address like name@example.com",
    "date": "an ISO date (YYYY-MM-DD)",
    "date-time": "an ISO 8601 date-time (YYYY-MM-DDTHH:MM:SS)",
    "time": "a 24-hour time (HH:MM)",
    "uri": "a full URL with its scheme (https://...)",
    "uuid": "a UUID (8-4-4-4-12 hex digits)",
    "ipv4": "an IPv4 address (four numbers 0-255)",
}


def format_ok(fmt: str, value: Any) -> bool:
    """Our own strict reading of a JSON Schema format (jsonschema skips formats by default)."""
    pattern = _FORMATS.get(fmt)
    if pattern is None or not isinstance(value, str) or not pattern.fullmatch(value):
        return False
    if fmt in ("date", "date-time"):
        try:
            dt.date.fromisoformat(value[:10])
        except ValueError:
            return False
    return True


_POOL = string.ascii_lowercase + string.digits + string.ascii_uppercase + "-_. @/:#"
_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": str.isdigit,
    "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
    "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
    "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
}


class _Undrawable(Exception):
    """A pattern construct no string is drawn for (a lookaround, a backreference, a conditional)."""


def pattern_example(pattern: str, rng: random.Random, tries: int = 8) -> str | None:
    """A string ``pattern`` matches (``re.search``, as JSON Schema reads it), drawn from the parsed pattern:
    "^[A-Z]{3}$" gives "QHX". None when the pattern cannot be drawn from or no draw matches."""
    try:
        parsed = _parser.parse(pattern)
        for _ in range(tries):
            text = _draw(list(parsed), rng)
            if re.search(pattern, text):
                return text
    except (re.error, _Undrawable, IndexError, ValueError, OverflowError):
        pass
    return None


def _draw(items: list[Any], rng: random.Random) -> str:
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name in ("ANY", "NOT_LITERAL", "IN"):
            pool = [c for c in _POOL if _member(c, name, arg)]
            out.append(rng.choice(pool))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = arg
            out += [_draw(list(sub), rng) for _ in range(rng.randint(lo, min(hi, lo + 3)))]
        elif name == "SUBPATTERN":
            out.append(_draw(list(arg[-1]), rng))
        elif name == "ATOMIC_GROUP":
            out.append(_draw(list(arg), rng))
        elif name == "BRANCH":
            out.append(_draw(list(rng.choice(arg[1])), rng))
        elif name != "AT":  # anchors take no characters
            raise _Undrawable(name)
    return "".join(out)


def _member(c: str, name: str, arg: Any) -> bool:
    """Whether one character matches an ANY, NOT_LITERAL or IN (character class) item."""
    if name == "ANY":
        return c != "\n"
    if name == "NOT_LITERAL":
        return c != chr(arg)
    negate = bool(arg) and str(arg[0][0]) == "NEGATE"
    hit = False
    for op, value in arg[negate:]:
        kind = str(op)
        if kind == "LITERAL":
            hit = hit or c == chr(value)
        elif kind == "RANGE":
            hit = hit or value[0] <= ord(c) <= value[1]
        elif kind == "CATEGORY":
            hit = hit or _CATEGORIES.get(str(value), lambda _: False)(c)
        else:
            raise _Undrawable(kind)
    return hit != negate


def branch(schema: Any) -> dict[str, Any]:
    """The concrete alternative of an Optional/anyOf schema, for reading its type and limits."""
    if not isinstance(schema, dict):
        return {}
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or [] if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            return {**{k: v for k, v in schema.items() if k != key}, **options[0]}
    return schema


@dataclass(frozen=True)
class Facts:
    """What one parameter allows, from its schema and from what its description says."""

    path: str  # "days", or "position.x" inside an object
    schema: dict[str, Any]
    description: str
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False  # exclusive bound
    hi_open: bool = False
    bounds_from: str = ""  # "schema" or "description"
    choices: tuple[Any, ...] = ()
    choices_from: str = ""
    fmt: str = ""

    @property
    def name(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    def outside(self, value: Any) -> bool:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        below = self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo)
        above = self.hi is not None and (value >= self.hi if self.hi_open else value > self.hi)
        return below or above

    def range_text(self) -> str:
        """ "1 to 10", "at least 1", "more than 0 and at most 100"."""

        def num(x: float) -> str:
            return str(int(x)) if float(x).is_integer() else str(x)

        if self.lo is not None and self.hi is not None and not (self.lo_open or self.hi_open):
            return f"{num(self.lo)} to {num(self.hi)}"
        parts = []
        if self.lo is not None:
            parts.append(f"{'more than' if self.lo_open else 'at least'} {num(self.lo)}")
        if self.hi is not None:
            parts.append(f"{'less than' if self.hi_open else 'at most'} {num(self.hi)}")
        return " and ".join(parts)


def facts(path: str, schema: Any, description: str, value: Any) -> Facts:
    """Bounds, choices and format of a parameter; the description counts if the schema is silent."""
    s = branch(schema)
    text = " ".join(x for x in (str(s.get("description") or ""), description) if x)
    lo, hi, lo_open, hi_open = _schema_bounds(s)
    src = "schema" if lo is not None or hi is not None else ""
    if not src and s.get("type") in ("integer", "number"):
        lo, hi = _text_bounds(text)
        src = "description" if lo is not None or hi is not None else ""
    choices: tuple[Any, ...] = tuple(v for v in s.get("enum") or () if v is not None)
    choices_from = "schema" if choices else ""
    if not choices and (m := _CHOICES.search(text)):
        choices = tuple(q[1:-1] for q in re.findall(_QUOTED, m.group(1)))
        choices_from = "description"
    fmt = _format(path, s, text, value)
    return Facts(path, s, text, lo, hi, lo_open, hi_open, src, choices, choices_from, fmt)


def format_of(path: str, schema: Any, description: str, value: Any) -> str:
    """``facts(...).fmt`` alone, without the bounds and choices (what the injector's ``fits`` asks)."""
    s = branch(schema)
    return _format(path, s, " ".join(x for x in (str(s.get("description") or ""), description) if x), value)


def _schema_bounds(s: dict[str, Any]) -> tuple[float | None, float | None, bool, bool]:
    def num(x: Any) -> float | None:
        return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None

    lo, hi = num(s.get("minimum")), num(s.get("maximum"))
    # draft 4 spells an exclusive bound as a boolean next to minimum/maximum
    lo_open, hi_open = s.get("exclusiveMinimum") is True, s.get("exclusiveMaximum") is True
    if num(s.get("exclusiveMinimum")) is not None:
        lo, lo_open = num(s["exclusiveMinimum"]), True
    if num(s.get("exclusiveMaximum")) is not None:
        hi, hi_open = num(s["exclusiveMaximum"]), True
    return lo, hi, lo_open, hi_open


def _text_bounds(text: str) -> tuple[float | None, float | None]:
    """Ranges people write: "(1-10, default: 3)", "between 1 and 100", "max: 50", "at least 1"."""
    for pattern in (_BETWEEN, _RANGE):
        for found in pattern.finditer(text):
            lo, hi = float(found.group(1)), float(found.group(2))
            if lo < hi <= 1e9:
                return lo, hi
    most, least = _MAX.search(text), _MIN.search(text)
    hi_, lo_ = (float(most.group(1)) if most else None), (float(least.group(1)) if least else None)
    if lo_ is not None and hi_ is not None and lo_ >= hi_:
        return None, None
    return lo_, hi_


def _format(path: str, s: dict[str, Any], text: str, value: Any) -> str:
    """The format a value must have: the schema's, or one its name implies and the value has."""
    given = str(s.get("format") or "")
    given = _FORMAT_ALIASES.get(given, given)
    if given in _FORMATS:
        return given
    if not isinstance(value, str):
        return ""
    w = set(words(path.rsplit(".", 1)[-1]))
    guesses = []
    if w & {"email", "mail"}:
        guesses.append("email")
    if w & {"url", "uri", "link", "href", "website"}:
        guesses.append("uri")
    if w & {"uuid", "guid"}:
        guesses.append("uuid")
    if w & {"date", "datetime", "timestamp", "day"} or "yyyy" in text.lower():
        guesses += ["date", "date-time"]
    return next((g for g in guesses if format_ok(g, value)), "")


# --- what the request said ------------------------------------------------------------------


def show(value: Any, limit: int = 60) -> str:
    """A value as a failure_reason quotes it: 'Porto', 4, true, ["a", "b"]."""
    if isinstance(value, str):
        return f"'{value}'" if len(value) <= limit else f"'{value[: limit - 3]}...'"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- grounding: the one definition ----------------------------------------------------------------
