"""What a parameter allows and where a value came from: the material of a failure_reason.

``Facts``: bounds, choices and format of one parameter, from its schema or from what its
description says ("(1-10, default: 3)"). ``Evidence``: what the request said, the user's words and
earlier tool results. A label is only useful with its reason; these say what the reason is made of.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from synth.records import Message
from synth.wording import spell, words

_NUM = r"-?\d+(?:\.\d+)?"
_RANGE = re.compile(rf"(?<![\w.\-/:])({_NUM})\s*(?:-|–|to|\.\.)\s*({_NUM})(?![\w.\-/:%])", re.I)
_BETWEEN = re.compile(rf"\bbetween\s+({_NUM})\s+and\s+({_NUM})", re.I)
_AFTER = r"\s*(?:of|is|value)?\s*[:=]?\s*(" + _NUM + r")(?![\w.\-/])"
_MAX = re.compile(r"(?:\b(?:max(?:imum)?|up to|at most|no more than)|<=?)" + _AFTER, re.I)
_MIN = re.compile(r"(?:\b(?:min(?:imum)?|at least|no less than)|>=?)" + _AFTER, re.I)
_QUOTED = r"""(?:"[^"]{1,30}"|'[^']{1,30}'|`[^`]{1,30}`)"""
_CHOICES = re.compile(  # "Valid periods: "1d", "5d", "1mo""
    r"\b(?:valid|allowed|possible|supported|one of|options?|values?)\b[^:\n]{0,30}:\s*"
    rf"({_QUOTED}(?:\s*(?:,|or|\|)\s*(?:or\s+)?{_QUOTED})+)", re.I)
_HEX = "[0-9a-fA-F]"
_OCTET = r"(?:25[0-5]|2[0-4]\d|1?\d?\d)"
_FORMATS: dict[str, re.Pattern[str]] = {
    "email": re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "date-time": re.compile(
        r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?"),
    "time": re.compile(r"\d{2}:\d{2}(?::\d{2})?(?:[Zz]|[+-]\d{2}:\d{2})?"),
    "uri": re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+"),
    "uuid": re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"),
    "ipv4": re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}"),
}
_FORMAT_ALIASES = {"url": "uri", "iri": "uri", "ip": "ipv4"}
FORMAT_NAMES = {
    "email": "an email address like name@example.com", "date": "an ISO date (YYYY-MM-DD)",
    "date-time": "an ISO 8601 date-time (YYYY-MM-DDTHH:MM:SS)", "time": "a 24-hour time (HH:MM)",
    "uri": "a full URL with its scheme (https://...)", "uuid": "a UUID (8-4-4-4-12 hex digits)",
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


def branch(schema: Any) -> dict[str, Any]:
    """The concrete alternative of an Optional/anyOf schema, for reading its type and limits."""
    if not isinstance(schema, dict):
        return {}
    for key in ("anyOf", "oneOf"):
        options = [o for o in schema.get(key) or []
                   if isinstance(o, dict) and o.get("type") != "null"]
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
        """"1 to 10", "at least 1", "more than 0 and at most 100"."""
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
        return f"'{value}'" if len(value) <= limit else f"'{value[:limit - 3]}...'"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Evidence:
    """Where a gold value came from: the user's words or an earlier tool result."""

    def __init__(self, history: Sequence[Message]):
        self.user = "\n".join(m.content or "" for m in history if m.role == "user").casefold()
        names = {call.id: call.name for m in history for call in m.tool_calls}
        self.results = [(names.get(m.tool_call_id or "", "earlier tool"),
                         (m.content or "").casefold()) for m in history if m.role == "tool"]

    def _in(self, value: Any, text: str) -> bool:
        if isinstance(value, bool) or value is None:
            return False  # nobody types "true"
        if isinstance(value, (int, float)):
            n = int(value) if float(value).is_integer() else value
            if re.search(rf"(?<![\w.]){re.escape(str(n))}(?![\w]|\.\d)", text):
                return True
            return (isinstance(n, int) and 0 <= n < 1000
                    and re.search(rf"\b{spell(n)}\b", text) is not None)
        if isinstance(value, str):
            s = value.strip().casefold()
            return len(s) >= 2 and s in text
        if isinstance(value, list):
            return bool(value) and all(self._in(v, text) for v in value)
        return False

    def said(self, value: Any) -> bool:
        """The user wrote this value ("4" or "four" for 4)."""
        return self._in(value, self.user)

    def source(self, value: Any) -> str:
        """"user", the name of the tool whose result holds the value, or ""."""
        if self.said(value):
            return "user"
        return next((name for name, text in self.results if self._in(value, text)), "")
