"""What a request asks, read from its words: the periods it names and how many items it wants.

A request knows what it asks ("fee history: week, month and all time"; "the first 5 comments"), and its
answer says each of those from the result, or why not. The pack author declares a goal's items itself
(``synth.packs.model.Item``); this module reads them back from any text, so the realism figures and the
reader gate hold every author (packs, the fallback, a model) to the same words.
"""

from __future__ import annotations

import json
import re
from typing import Any

from synth.wording import spell

# a period a request can name, and the words an answer can say it with (a request's words count too)
PERIODS: dict[str, tuple[str, str]] = {
    # name: (how a request names it, how an answer may say it)
    "day": (
        r"\b(?:24 ?h(?:ours?)?|24-hour|today(?:'s)?|daily|one day|past day|last day|yesterday(?:'s)?)\b",
        r"\b(?:24 ?h(?:ours?)?|24-hour|today(?:'s)?|daily|(?:one|a|the|past|last|single) day|yesterday(?:'s)?|1d)\b",
    ),
    "week": (
        r"\b(?:weeks?|weekly|7 days|seven days|7d)\b(?!end)",
        r"\b(?:weeks?|weekly|7 days|seven days|7-day|7d)\b(?!end)",
    ),
    "month": (
        r"\b(?:months?|monthly|30 days|thirty days|30d)\b",
        r"\b(?:months?|monthly|30 days|thirty days|30-day|30d)\b",
    ),
    "year": (
        r"\b(?:years?|yearly|annual|12 months|365 days|1y)\b",
        r"\b(?:years?|yearly|annual|12 months|12-month|365 days|1y)\b",
    ),
    "all time": (
        r"\b(?:all[ -]time|since launch|lifetime|ever since|since (?:it|they) (?:launched|started))\b",
        r"\b(?:all[ -]time|since (?:launch|it launched|they launched|it started|inception)|lifetime|in total|"
        r"cumulative|overall)\b",
    ),
}
_ASKED = {name: re.compile(ask, re.I) for name, (ask, _) in PERIODS.items()}
_SAID = {name: re.compile(said, re.I) for name, (_, said) in PERIODS.items()}
# "this week" as when the person acts ("I'm travelling next week") is not a period asked for
_WHEN = re.compile(
    r"\b(?:next|this|coming|every|per|a|each|in a|for a|for the)\s+(?:week(?:end)?|month|year|day)\b", re.I
)


# a length of time that is no period of figures: an age ("6 years and 2 months"), "two weeks ago", "3 days"
_SPAN = re.compile(
    r"\b(?!(?:24 hours?|7 days|30 days|12 months|365 days)\b)(?:\d+|a few|several|"
    + "|".join(spell(n) for n in range(2, 21))
    + r")[ -](?:hours?|days?|weeks?|months?|years?)\b(?: (?:ago|old))?",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_QUOTED = re.compile(r'"[^"]*"|```.*?```', re.S)  # text the person wants sent or used, not asked about


def periods(request: str) -> list[str]:
    """The periods one sentence of a request asks figures for together ("week, month and all time";
    "today's number and last week's"), in the order of ``PERIODS``; empty when no sentence names two (one
    alone is usually when the person acts, not what they ask)."""
    best: list[str] = []
    for sentence in _SENTENCE.split(_QUOTED.sub(" ", request)):
        text = _SPAN.sub(" ", _WHEN.sub(" ", sentence))
        found = [name for name, pattern in _ASKED.items() if pattern.search(text)]
        best = found if len(found) > len(best) else best
    return best if len(best) >= 2 else []


def unsaid_periods(request: str, answer: str) -> list[str]:
    """Of the periods a request asks together, those its answer never says (by any of its words)."""
    return [name for name in periods(request) if not _SAID[name].search(answer)]


_NUMBER = r"(\d{1,2}|" + "|".join(spell(n) for n in range(2, 21)) + ")"
# "the first 5 comments", "top 20 by volume", "3 stories", "five headlines": a number before a plural noun,
# or after "top"/"first"/"latest"
_COUNT = re.compile(
    rf"\b(?:(?:top|first|latest|last|newest|recent|best)\s+{_NUMBER}\b|{_NUMBER}\s+(?:[a-z\-]+\s+){{0,2}}?[a-z]{{3,}}s\b)",
    re.I,
)
# "show me 5", "give me three", "3 of them": a number asked for with no noun after it
_COUNT_BARE = re.compile(
    rf"\b(?:show|give|list|pull|get|fetch|find|send)\s+(?:me\s+)?(?:the\s+)?{_NUMBER}(?=\s*(?:[.,;:!?]|$|please\b))"
    rf"|\b{_NUMBER}\s+of\s+them\b",
    re.I,
)
_SPELLED = {spell(n): n for n in range(2, 21)}
_NOT_ITEMS = re.compile(
    r"(?i)^(?:days|weeks|months|years|hours|minutes|seconds|nights|adults|children|kids|people|guests|times|"
    r"percent|points|miles|kms?|dollars|euros|stars|degrees|pages|words|lines|bytes|characters|steps|years old)$"
)


def count_asked(request: str) -> int:
    """How many items a request asks for (0 when it names no number of things)."""
    return max(counts(request), default=0)


def counts(request: str) -> set[int]:
    """Every number of things a request asks for ("3 stories", "the top five"), none for a page or a span."""
    out: set[int] = set()
    for m in _COUNT.finditer(request):
        if re.search(r"(?i)\b(?:page|number|no\.|#)\s*$", request[: m.start()]):
            continue  # "page 7 of protocols" asks for a page, not seven things
        word = m.group(1) or m.group(2)
        after = request[m.end() :].split()
        noun = m.group(0).split()[-1] if m.group(2) else (after[0].strip(".,;:?!") if after else "")
        if _NOT_ITEMS.match(noun):
            continue
        n = int(word) if word.isdigit() else _SPELLED.get(word.lower(), 0)
        out |= {n} if 2 <= n <= 50 else set()
    for m in _COUNT_BARE.finditer(request):
        word = m.group(1) or m.group(2)
        n = int(word) if word.isdigit() else _SPELLED.get(word.lower(), 0)
        out |= {n} if 2 <= n <= 50 else set()
    return out


LABELS = ("title", "name", "headline", "full_name", "label", "symbol", "city", "station", "chain", "login")
# an answer that names fewer than asked and says why: "only 3", "the first 3 of 20", "and 2 more"
WHY_FEWER = re.compile(
    r"(?i)\b(?:only|just|more|others|rest|remaining|first \d+|top \d+|and \d+ (?:more|other)|\d+ of \d+)\b"
)


def labels(result: str) -> list[str]:
    """The names of the items of a result's longest list (each item's title, name, ...), lowercased; empty
    when its items have none."""
    try:
        data: Any = json.loads(result)
    except ValueError:
        return []
    if not isinstance(data, (dict, list)):
        return []
    lists = [data] if isinstance(data, list) else [v for v in data.values() if isinstance(v, list)]
    records = max(lists, key=len, default=[])
    out = [
        str(next((r[k] for k in LABELS if isinstance(r.get(k), str) and len(r[k]) >= 3), "")).lower()[:60]
        for r in records
        if isinstance(r, dict)
    ]
    return out if out and all(out) else []


def named_fewer(asked: int, answer: str, results: list[str]) -> str:
    """When a request asked for ``asked`` items and a result holds them (or holds more than the answer
    names), the answer naming fewer without saying why: "" when it names enough."""
    if asked < 2:
        return ""
    low = answer.lower()
    for result in results:
        items = labels(result)
        if len(items) < 2:
            continue
        named = sum(label in low for label in items)
        if 0 < named < min(asked, len(items)) and not WHY_FEWER.search(answer):
            return f"{asked} asked, the result holds {len(items)} and the answer names {named}"
    return ""
