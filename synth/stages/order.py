"""Order claims: does an answer call an item top, most or newest while its result ranks another above it?

"The most-read doc in infra is X with 483 reads ... Next: Y (3033 reads)" and "The top one is 'Why our
Postgres bill tripled' (523 points), followed by ... 680 points" claim an order the result's own numbers
deny. ``contradicted_claims`` finds them: in an answer's sentence with a claim word (top, most, highest,
best, newest, latest, cheapest ...), the item the sentence names (by its title or name, in a list of
records the turn's results hold) and a number or date of that item the answer cites; another item of the
same list with a higher value of that field (lower, for cheapest/lowest/oldest) contradicts the claim.
Read off messages only (records or chat lines), like synth.stages.consistency.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from synth.stages.consistency import _as_dict, _parsed

HIGH = re.compile(r"(?i)\b(?:top|most|highest|biggest|largest|leading|greatest|number one)\b|\bbest\b(?!-)")
LOW = re.compile(r"(?i)\b(?:cheapest|lowest|least|fewest|smallest|nearest|closest)\b(?!-)")
# the field a claim word is about, where the word says it: "nearest" is a distance, "most cited" citations
_SIZE_OF = "tvl|size|cap|volume|count|total|amount|supply|deposit|bytes|length|area|population|enrollment"
_ABOUT = {
    "nearest": "distance|dist|miles|km",
    "closest": "distance|dist|miles|km",
    "cheapest": "price|cost|fare|rate|amount",
    "biggest": _SIZE_OF,  # "the biggest pool ... $25.4 billion and 2.93% APY" is about its size, not its APY
    "largest": _SIZE_OF,
}
_SIZE = re.compile(r"(?i)\b(?:biggest|largest)\b")
_NEXT = re.compile(r"(?i)\b(?:most|least)[- ](\w{4,})")
_CHANGE = re.compile(r"(?i)change|pct|percent|delta|diff")
_TIME = re.compile(r"(?i)year|date|time|_at$|At$")
_LOWER_IS_BETTER = re.compile(r"(?i)distance|dist$|miles|km$|price|cost|fare")
NEW = re.compile(r"(?i)\b(?:newest|latest|most recent)\b(?!-)")
OLD = re.compile(r"(?i)\b(?:oldest|earliest)\b(?!-)")
QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")  # "... citations). 2 of the citing papers ..." is two
_LABEL = re.compile(r"(?i)^(?:\w+_)?(?:title|name|headline|symbol|ticker|login|slug)$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_ID = re.compile(r"(?i)(?:^|_)id$|[a-z]Id$|^pageid$|^pmid$|^rank$|^index$")


def _lists(data: Any) -> Iterator[list[dict[str, Any]]]:
    """Every list of two or more records inside a result, however deep."""
    if isinstance(data, list):
        items = [x for x in data if isinstance(x, dict)]
        if len(items) >= 2 and len(items) == len(data):
            yield items
        for x in data:
            yield from _lists(x)
    elif isinstance(data, dict):
        for v in data.values():
            yield from _lists(v)


def _labels(item: dict[str, Any]) -> list[str]:
    return [v for k, v in item.items() if _LABEL.match(k) and isinstance(v, str) and len(v) >= 3]


def _cited(value: Any, text: str) -> bool:
    """Whether the answer states the value (a number as written or with thousands separators, a date)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        forms = {str(value), f"{value:,}"}
        return any(re.search(rf"(?<![\d.,]){re.escape(f)}(?![\d]|[.,]\d)", text) for f in forms)
    return isinstance(value, str) and bool(_DATE.match(value)) and value[:10] in text


def _comparable(a: Any, b: Any, dates: bool) -> bool:
    """Two numbers (a claim of size) or two dates (a claim of time)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    if dates:
        return isinstance(a, str) and isinstance(b, str) and bool(_DATE.match(a) and _DATE.match(b))
    return isinstance(a, (int, float)) and isinstance(b, (int, float))


def _beaten(item: dict[str, Any], items: list[dict[str, Any]], sentence: str, low: bool, dates: bool) -> str | None:
    """The field the sentence cites of ``item`` on which another item of the list ranks above it, with that item."""
    cited = [k for k, v in item.items() if not _ID.search(k) and _cited(v, sentence)]
    word = LOW.search(sentence) or _SIZE.search(sentence)
    about = _ABOUT.get(word.group(0).lower(), "") if word else ""
    after = _NEXT.search(sentence)
    about = about or (after.group(1)[:3].lower() if after else "")
    if about:  # the claim names what it is about: only those fields
        cited = [k for k in cited if re.search(about, k, re.I)]
    elif not low:  # "best bet, 109 meters away": for a distance or a price less is better, not a contradiction
        cited = [k for k in cited if not _LOWER_IS_BETTER.search(k)]
    if not dates:  # "Top results: X (2019, 1512 citations)": a year says when, not how good; a change, how it moved
        cited = [k for k in cited if not _TIME.search(k) and not _CHANGE.search(k)]
    for key in cited:
        value = item[key]
        for other in items:
            if other is item or not _comparable(value, other.get(key), dates):
                continue
            if (other[key] < value) if low else (other[key] > value):
                label = (_labels(other) or ["another item"])[0]
                return f"{key} {value!r}, but {label!r} has {other[key]!r}"
    return None


def _texts(data: Any) -> Iterator[str]:
    """The longer strings of a result (titles, descriptions): words the answer quotes, not claims it makes."""
    if isinstance(data, dict):
        data = list(data.values())
    if isinstance(data, list):
        for v in data:
            yield from _texts(v)
    elif isinstance(data, str) and len(data) >= 12:
        yield data


def _claims(answer: str, results: Sequence[Any] = ()) -> Iterator[tuple[str, int, bool, bool]]:
    """Each sentence of the answer with a claim word: where the word is, whether it claims the low end, and
    whether it is about time. A claim word inside a title or a text the result holds ("Best practices for
    ...", "experts weigh in on the latest news") is the result's, not a claim."""
    texts = {t for data in results for t in _texts(data)}
    for sentence in SENTENCE.split(answer):
        quoted = [m.span() for m in QUOTED.finditer(sentence)]
        quoted += [(i, i + len(t)) for t in texts if (i := sentence.find(t)) >= 0]
        for pattern, low, dates in ((NEW, False, True), (OLD, True, True), (LOW, True, False), (HIGH, False, False)):
            at = next(
                (m.start() for m in pattern.finditer(sentence) if not any(a <= m.start() < b for a, b in quoted)), -1
            )
            if at >= 0:
                yield sentence, at, low, dates
                break


def _named(items: list[dict[str, Any]], sentence: str, at: int) -> dict[str, Any] | None:
    """The item the claim is about: the first one the sentence names after the claim word, else before it."""
    text = sentence.lower()
    places = [(i, x) for x in items for lb in _labels(x) if (i := text.find(lb.lower())) >= 0]
    after = [p for p in places if p[0] >= at]
    return min(after or places, key=lambda p: p[0] if after else -p[0], default=(0, None))[1]


def claims_and_contradictions(messages: Iterable[Any]) -> tuple[int, list[str]]:
    """How many order claims the answers make about listed items, and a line for each one the turn's results
    contradict ("'X' is called top: points 523, but 'Y' has 680")."""
    results: list[Any] = []
    claims, out = 0, []
    for m in (_as_dict(x) for x in messages):
        role = m.get("role")
        if role == "user":
            results = []
        elif role == "tool":
            results.append(_parsed(m.get("content")))
        elif role == "assistant" and m.get("content") and results:
            lists = [items for data in results for items in _lists(data)]
            for sentence, at, low, dates in _claims(str(m["content"]), results):
                for items in lists:
                    named = _named(items, sentence, at)
                    if named is None:
                        continue
                    claims += 1
                    beaten = _beaten(named, items, sentence, low, dates)
                    if beaten:
                        end = "lowest" if low else "top"
                        out.append(f"{_labels(named)[0]!r} is called {end}: {beaten} ({sentence[:160]!r})")
                    break
    return claims, out


def contradicted_claims(messages: Iterable[Any]) -> list[str]:
    """The order claims of a conversation's answers that their results contradict, one line each."""
    return claims_and_contradictions(messages)[1]
