"""Canonical argument comparison and the four-way call label, shared by the injector and graders.

Values are compared the way BFCL's AST checker compares them, so a label we emit is one an
evaluator would agree with: JSON strings are parsed, numeric strings are numbers (``"4" == 4``,
``1 == 1.0``), key order is irrelevant, and strings are standardised (lower case, without spaces
and ``,./-_*^``, ``'`` as ``"``). Booleans are never numbers here, though Python says ``True == 1``.

A label is only useful with its reason, so this module also holds what a reason is made of: what
a parameter allows (``Facts``: bounds, choices, format, from the schema or from what the
description says, "(1-10, default: 3)"), what the request said (``Evidence``: the user's words
and earlier tool results), and what a tool is for (``purpose``: its description's first sentence).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Sequence

from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from synth.records import Message, ToolCall, ToolSpec, canonical_json

_STRIP = re.compile(r"[ ,./\-_*^]")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")  # "00123" stays a string: an id, not 123


def standardize(text: str) -> str:
    """BFCL's ``standardize_string``: "April 1, 2024" and "april 1 2024" are the same answer."""
    return _STRIP.sub("", text).lower().replace("'", '"')


def canonical(value: Any) -> Any:
    """One spelling per value, for comparison (not for display)."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                return canonical(json.loads(text))
            except ValueError:
                pass
        if _NUMBER.fullmatch(text):
            return canonical(float(text) if "." in text else int(text))
        return standardize(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):  # True == 1 in Python, not in JSON
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):  # order matters, as in BFCL
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    return bool(a == b)


def same_value(a: Any, b: Any) -> bool:
    """True when an evaluator would accept ``b`` for ``a``."""
    return _equal(canonical(a), canonical(b))


@lru_cache(maxsize=4096)
def _validator(schema_json: str) -> Validator:
    schema = json.loads(schema_json)
    return validator_for(schema, default=Draft202012Validator)(schema)


def schema_validator(schema: dict[str, Any]) -> Validator:
    """A validator of the schema's own draft (2020-12 when it names none), compiled once.

    Keyed by the canonical JSON of the schema, so equal schemas share one compiled validator.
    """
    return _validator(canonical_json(schema))


def classify(tool: ToolSpec | None, gold: ToolCall, candidate: ToolCall) -> str:
    """The label of ``candidate`` against ``gold``: the first of tool, names, values that is wrong.

    A parameter given on one side only is fine when its value is the schema default (BFCL marks
    it optional), so leaving out ``days`` is correct when the gold call asked for the default;
    any other difference in the key sets is a names error.
    """
    if candidate.name != gold.name:
        return "incorrect_tool"
    props = tool.properties if tool is not None else {}
    required = tool.required if tool is not None else []
    got, want = candidate.arguments, gold.arguments
    if any(k not in props and k not in want for k in got):
        return "incorrect_parameter_names"
    if any(r in want and r not in got for r in required):
        return "incorrect_parameter_names"
    for k in got.keys() ^ want.keys():
        schema = props.get(k)
        given = got[k] if k in got else want[k]
        if not (isinstance(schema, dict) and "default" in schema
                and same_value(schema["default"], given)):
            return "incorrect_parameter_names"
    if any(not same_value(want[k], got[k]) for k in want.keys() & got.keys()):
        return "incorrect_parameter_values"
    return "correct"


# --- names and numbers ----------------------------------------------------------------------

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def words(name: str) -> list[str]:
    """``startDate`` / ``start_date`` / ``get-page`` -> ["start", "date"]."""
    return [w for w in re.split(r"[_\-\s.]+", _CAMEL.sub("_", name).lower()) if w]


def loose(name: str) -> str:
    """A name as a lenient grader might match it: ``start_date`` ~ ``startDate``."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spell(n: int) -> str:
    """4 -> "four", 150 -> "one hundred fifty": how a user writes it, or a model passes text."""
    if n < 0:
        return "minus " + spell(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        return _ONES[n // 100] + " hundred" + (" " + spell(n % 100) if n % 100 else "")
    if n < 1_000_000:
        return spell(n // 1000) + " thousand" + (" " + spell(n % 1000) if n % 1000 else "")
    return str(n)


# --- what a parameter allows ------------------------------------------------------------------

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


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    kinds = {str: "string", list: "array", dict: "object", type(None): "null"}
    return kinds.get(type(value), "unknown")


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


# --- what a tool is for ---------------------------------------------------------------------

_LABEL = re.compile(r"^(?:\[[^\]]*\]\s*|(?:legacy|deprecated|experimental|beta)(?:\s+tool)?\s*:\s*"
                    r"|tool\s*:\s*|this tool\s+|use this(?: tool)? to\s+"
                    r"|(?:a )?tool (?:to|that|for)\s+)+", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|。|\s(?:Args|Arguments|Parameters|Returns|Example)s?\s*:")
FILLER_WORDS = {"tool", "tools", "func", "fn", "mcp"}
_VERBS = set("""get fetch retrieve search find list create add update delete remove send set check
    generate run execute read write query extract scrape summarize take export ensure lookup look
    count calculate compute analyze analyse download upload start stop convert translate validate
    verify scan parse book cancel manage save load show display view open close connect navigate
    track make post install upgrade describe explain return provide monitor move copy rename fill
    click capture compare design build record store insert edit modify replace submit publish
    schedule""".split())
_AS_GET = {"return", "provide"}  # "returns X" reads as "get X" after "the user wants to"


def purpose(spec: ToolSpec) -> str:
    """"Legacy tool: Get current temperature for a city (...)." -> "get current temperature ..."."""
    text = _LABEL.sub("", " ".join(spec.description.split()))
    sentence = re.sub(r"\s*\([^)]*\)", "", _SENTENCE.split(text, 1)[0]).strip().rstrip(".!:; ")
    if len(sentence) > 110:
        sentence = sentence[:110].rsplit(" ", 1)[0].rstrip(",;:")
    if not sentence:
        sentence = " ".join(w for w in words(spec.name) if w not in FILLER_WORDS)
    return sentence if sentence[1:2].isupper() else sentence[:1].lower() + sentence[1:]


def _base(word: str) -> str | None:
    w = word.lower()
    stems = (w, w[:-3] + "y" if w.endswith("ies") else "",
             w[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else "",
             w[:-1] if w.endswith("s") else "")
    stem = next((s for s in stems if s in _VERBS), None)
    return "get" if stem in _AS_GET else stem


def infinitive(phrase: str) -> str | None:
    """"retrieves URLs and extracts text" -> "retrieve URLs and extract text"; None if no verb."""
    first, _, rest = phrase.partition(" ")
    verb = _base(first)
    if verb is None:
        return None
    rest = re.sub(r"\b(and|or|then)\s+(\w+)",
                  lambda g: f"{g.group(1)} {_base(g.group(2)) or g.group(2)}", rest)
    return f"{verb} {rest}".strip()
