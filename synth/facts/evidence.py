"""Where a value came from: the request, the user's words and earlier tool results (``Evidence``), the one
definition of "grounded" that the gates, the label reasons and the grader share."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from functools import cached_property, lru_cache
from typing import Any

from synth.facts import sql
from synth.records import Message
from synth.wording import spell

_THOUSANDS = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)")  # "1,000,000", never "1,2,3"
_TOKEN = re.compile(r"(?<![\w.])-?(?:0|[1-9]\d*)(?:\.\d+)?(?![\w]|\.\d)")  # "03" is no 3: a date part
_NUMERIC = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")  # "007" stays a string: an id, not 7 (as in grade)
_WORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")  # a Latin word goes on (the text is case-folded)
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_MONTHS = tuple("january february march april may june july august september october november december".split())
_MONTH = r"(" + "|".join(m[:3] + (m[3:] and f"(?:{m[3:]})?") for m in _MONTHS) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_PROSE_DATES = (
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(\d{{4}})\b"),  # "march 5, 2024" (month, day, year)
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b"),
)  # "5 march 2024"


def _number(value: float) -> float:
    """One spelling per number: 3.0 is 3."""
    return int(value) if float(value).is_integer() else value


def _dates(text: str) -> set[str]:
    """The ISO dates a text names, written as ISO or in English ("March 5, 2024", "5th of Mar 2024")."""
    out = {f"{y}-{m}-{d}" for y, m, d in _ISO_DATE.findall(text)}
    for order, pattern in enumerate(_PROSE_DATES):
        for found in pattern.finditer(text):
            month, day, year = found.groups() if order == 0 else (found[2], found[1], found[3])
            index = next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(month[:3]))
            try:
                out.add(dt.date(int(year), index, int(day)).isoformat())
            except ValueError:
                pass
    return out


class _Source:
    """One message as evidence: its words (case-folded), the numbers and dates they name, and, for a JSON
    tool result, every string and number inside it however deep (JSON text inside a string included)."""

    def __init__(self, name: str, content: str):
        self.name = name
        texts = [content]
        self._json_numbers: set[float] = set()
        self._walk(content, texts, top=True, layers=0)
        self.text = "\n".join(texts).casefold()

    @cached_property
    def numbers(self) -> set[float]:
        plain = _THOUSANDS.sub(lambda m: m[0].replace(",", ""), self.text)
        return self._json_numbers | {
            _number(float(x)) if "." in x else int(x)  # int: ids past 2**53 stay exact
            for x in _TOKEN.findall(plain)
        }

    @cached_property
    def dates(self) -> set[str]:
        return _dates(self.text)

    def _walk(self, value: Any, texts: list[str], top: bool, layers: int) -> None:
        """Strings and numbers inside ``value``; ``layers`` counts JSON texts opened so far (4 at most)."""
        if isinstance(value, str):
            text = value.strip()
            if layers < 4 and text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
                try:
                    self._walk(json.loads(text), texts, False, layers + 1)
                    return
                except ValueError:
                    pass
            if not top:  # the raw content is already there; a leaf's unescaped text ("Zürich", not "Z\u00fcrich")
                texts.append(value)
        elif isinstance(value, (dict, list)):
            for v in value.values() if isinstance(value, dict) else value:
                self._walk(v, texts, False, layers)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            self._json_numbers.add(_number(value))

    def holds(self, value: Any) -> bool:
        if isinstance(value, bool) or value is None:
            return False  # nobody types "true": a closed domain is grounded by Evidence.grounded, not here
        if isinstance(value, (int, float)):
            n = _number(value)
            return n in self.numbers or (
                isinstance(n, int) and 0 <= n < 1000 and re.search(rf"\b{spell(n)}\b", self.text) is not None
            )
        if isinstance(value, str):
            return self._holds_text(value.strip().casefold())
        if isinstance(value, list):
            return bool(value) and all(self.holds(v) for v in value)
        return False

    def _holds_text(self, s: str) -> bool:
        if s.startswith("#") and len(s) > 1:  # "#123" is the id the user wrote as 123 or #123
            return self._holds_text(s[1:])
        if _NUMERIC.fullmatch(s):  # "3" for 3.0, "1000" for "1,000"; never the digits of another number
            return self.holds(float(s) if "." in s else int(s))
        if _ISO_DATE.fullmatch(s) and s in self.dates:
            return True
        return bool(s) and _whole(s, self.text)


def _whole(s: str, text: str) -> bool:
    """``s`` in ``text`` as whole words ("adult" in "adults"): "port" is not in "porto", "o" not in "go"; a "-"
    or "." at an end needs no boundary, nor does a script written without spaces ("東京" in "東京に行きたい")."""
    left, right = s[0] in _WORD, s[-1] in _WORD
    at = text.find(s)
    while at >= 0:
        end = at + len(s)
        if right:
            end += 2 if text.startswith("es", end) else 1 if text.startswith("s", end) else 0
        if not (left and at and text[at - 1] in _WORD) and not (right and text[end : end + 1] in _WORD):
            return True
        at = text.find(s, at + 1)
    return False


@lru_cache(maxsize=1024)
def _source(name: str, content: str) -> _Source:
    """A message read once: the gates read the same earlier results again for every later call."""
    return _Source(name, content)


class Evidence:
    """What a call may draw its values from: the user's words and earlier tool results.

    The one definition of grounded, used by the gates, the grader's label reasons, derive and audit. A
    value is in a text when its case-folded text is, as whole words ("port" is not in "Porto"); a number
    when the text names it however written (3, 3.0, "3", 1,000, "four"); a "#123" id as 123; an ISO date also in
    English ("March 5, 2024"); a list when each item is; a JSON tool result is read leaf by leaf, nested
    JSON text included. ``said`` asks the user's words only, ``source`` says where, ``grounded`` also
    counts booleans and nulls, a closed domain nobody needs to say.
    """

    def __init__(self, history: Sequence[Message]):
        names = {call.id: call.name for m in history for call in m.tool_calls}
        self.user = _source("user", "\n".join(m.content or "" for m in history if m.role == "user"))
        self.results = [
            _source(names.get(m.tool_call_id or "", "earlier tool"), m.content or "")
            for m in history
            if m.role == "tool"
        ]

    def said(self, value: Any) -> bool:
        """The user wrote this value ("4" or "four" for 4)."""
        return self.user.holds(value)

    def source(self, value: Any) -> str:
        """ "user", the name of the tool whose result holds the value, or ""."""
        if self.said(value):
            return "user"
        return next((r.name for r in self.results if r.holds(value)), "")

    def grounded(self, value: Any) -> bool:
        """The call may use this value: a boolean or null, one the user or an earlier result gave, or an
        array or object whose every leaf is (each from wherever: the gates read arguments leaf by leaf)."""
        if isinstance(value, (list, dict)):
            return all(self.grounded(v) for v in (value.values() if isinstance(value, dict) else value))
        if isinstance(value, bool) or value is None or self.source(value):
            return True
        # SQL the assistant wrote: every table, column and literal in it from the person or a result (issue 39)
        return isinstance(value, str) and sql.grounded(value, lambda part: bool(self.source(part)))
