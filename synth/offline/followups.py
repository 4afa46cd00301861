"""Follow-ups the conversation already answers, read off an earlier tool result.

A person who has just seen a result asks about it ("Which of those is the cheapest?", "What was the
humidity again?"); the answer is in the result, so the right move is to answer, not to call again. A
pack's ``followups`` say it in the server's own words; otherwise one is made from the result's fields:
a comparison over a list of named items with a number each, else one field of the result the answer
before did not state.
"""

from __future__ import annotations

import json
import random
from typing import Any

from synth.packs.model import ToolPack
from synth.packs.template import Missing, answer_slot, fill
from synth.wording import large, when, words

_LABELS = ("name", "title", "symbol", "ticker", "label", "display_name", "full_name", "headline", "city", "code")
_SKIP = {"id", "lat", "lon", "lng", "latitude", "longitude", "index", "rank", "page", "offset", "limit", "n"}
# bookkeeping a person does not ask about: a status, a message, a code, a page count, a link
_META = {"status", "msg", "message", "code", "success", "ok", "error", "updated", "url", "uri", "link", "href", "query"}
_UNITS = {
    "c": "°C",
    "f": "°F",
    "pct": "%",
    "percent": "%",
    "kph": " km/h",
    "mph": " mph",
    "mm": " mm",
    "km": " km",
    "miles": " miles",
    "mi": " miles",
    "kg": " kg",
    "usd": " USD",
    "eur": " EUR",
    "ms": " ms",
    "sec": " seconds",
    "seconds": " seconds",
    "minutes": " minutes",
    "min": " minutes",
    "hours": " hours",
    "m": " m",
    "inhg": " inHg",
    "hpa": " hPa",
    "mb": " mb",
}

HIGH = ("Which of those has the highest {field}?", "Of those, which one has the most {field}?")
LOW = ("And which has the lowest {field}?", "Which of those has the least {field}?")
SAY_HIGH = ("{label} has the highest {field}, at {value}.", "That's {label}: {value}, the highest of them.")
SAY_LOW = ("{label} has the lowest {field}, at {value}.", "That would be {label}, with {value}.")
AGAIN = ("Sorry, what was the {field} again?", "Remind me, what was the {field}?")  # the answer said it
RECALL = ("What's the {field}, by the way?", "And the {field}?", "Did it mention the {field}?")  # it did not
SAY_RECALL = ("The {field} is {value}.", "It's {value}.", "{value}, according to the result.")
# the same for a plural field ("authors"): "What are the authors?", not "What's the authors?"
AGAIN_MANY = ("Sorry, what were the {field} again?", "Remind me, what were the {field}?")
RECALL_MANY = ("What are the {field}, by the way?", "And the {field}?", "Did it mention the {field}?")
SAY_RECALL_MANY = ("The {field} are {value}.", "They're {value}.", "{value}, according to the result.")
_HOW_MANY = {"count", "total", "total count", "num results", "result count", "total results", "matches", "hits"}
HOW_MANY = ("Sorry, how many was that?", "How many were there in all?", "How many did it find?")
SAY_HOW_MANY = ("{value} in all.", "There were {value}.", "{value}.")
HOW_MANY_OF = ("How many {noun} were there?", "Sorry, how many {noun} was that?")
SAY_HOW_MANY_OF = ("{value} {noun}.", "There were {value} {noun}.")
# a time asked back as a person asks it: "When was it created?", not "what was the created again?"
WHEN_DONE = ("When was it {done}?", "Sorry, when was it {done}?")
SAY_WHEN_DONE = ("It was {done} on {value}.", "On {value}.")
WHEN = ("When was that, again?", "What date and time did it give?", "And when is that?")
SAY_WHEN = ("{Value}.", "It says {value}.")
_DONE = {
    "created",
    "updated",
    "modified",
    "published",
    "released",
    "started",
    "ended",
    "posted",
    "closed",
    "merged",
    "added",
    "refreshed",
    "submitted",
    "opened",
    "joined",
    "registered",
    "scheduled",
    "changed",
}
# words a person does not ask about by name: a machine's word for a thing, or a stamp
_JARGON = {
    "uuid",
    "guid",
    "slug",
    "hash",
    "ts",
    "dt",
    "json",
    "raw",
    "meta",
    "etag",
    "sha",
    "md5",
    "mime",
    "enum",
    "obj",
    "str",
    "num",
    "idx",
    "ref",
    "src",
    "fk",
    "pk",
    "datetime",
    "timestamp",
    "epoch",
    "utc",
    "iso",
}
_COUNTED = {"total", "num", "number", "count", "n"}
_SHORT = {"age", "fee", "tax", "day", "low", "max", "min", "net", "end", "top", "sum", "new", "old", "of", "per", "big"}


def _field(key: str) -> tuple[str, str]:
    """A result key as a person says it, and its unit: ``temperature_c`` -> ("temperature", "°C")."""
    parts = [w.lower() for w in words(key)]
    unit = _UNITS.get(parts[-1], "") if len(parts) > 1 else ""
    return " ".join(parts[:-1] if unit else parts), unit


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _lists(data: Any, depth: int = 0) -> list[list[dict[str, Any]]]:
    """Lists of records in a result (top level and one level down)."""
    if isinstance(data, list) and len(data) >= 2 and all(isinstance(x, dict) for x in data):
        return [data]
    if isinstance(data, dict) and depth < 2:
        return [found for v in data.values() for found in _lists(v, depth + 1)]
    return []


def _compare(data: Any, rng: random.Random) -> tuple[str, str] | None:
    """ "Which of those has the highest X?" over a list of named items that each carry a number X."""
    for items in _lists(data):
        label = next((k for k in _LABELS if all(isinstance(i.get(k), str) and i.get(k) for i in items)), None)
        numbers = [
            k
            for k in items[0]
            if k not in _SKIP
            and not k.lower().endswith("id")
            and not {w.lower() for w in words(k)} & (_JARGON | _DONE)  # "the highest created" is no question
            and all(_number(i.get(k)) for i in items)
        ]
        numbers = [k for k in numbers if len({i[k] for i in items}) == len(items)]  # one clear winner
        if label is None or not numbers:
            continue
        key = rng.choice(numbers)
        field, unit = _field(key)
        high = rng.random() < 0.6
        best = (max if high else min)(items, key=lambda i: i[key])
        ask = rng.choice(HIGH if high else LOW).format(field=field)
        say = rng.choice(SAY_HIGH if high else SAY_LOW).format(
            label=best[label], field=field, value=f"{_amount(best[key])}{unit}"
        )
        return ask, say
    return None


def _recall(data: Any, stated: str, echoed: list[Any], rng: random.Random) -> tuple[str, str] | None:
    """ "What was the X again?" for a short field of the result (or of its first item) the answer left out."""
    record = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else data
    if not isinstance(record, dict):
        return None
    inner = [v for k, v in record.items() if isinstance(v, dict) and k.lower() not in _META]
    if len(inner) == 1 and all(not isinstance(v, dict) or v is inner[0] for v in record.values()):
        record = {k: v for k, v in record.items() if not isinstance(v, dict)} | inner[0]  # {"product": {...}}
    fields = [
        (k, v)
        for k, v in record.items()
        if k.lower() not in _SKIP
        and not k.lower().endswith(("id", "_at", "url", "uri"))
        and not {w.lower() for w in words(k)} & (_META | {"filter", "from", "to"})
        and v not in echoed  # what the call was asked with is no news
        and (_number(v) or (isinstance(v, str) and 0 < len(v) <= 60 and "\n" not in v))
        and len(words(k)) >= 1
    ]
    unsaid = [(k, v) for k, v in fields if str(v) not in stated]
    heard = [(k, v) for k, v in fields if str(v) in stated]
    # the first a person can ask about by name: news first, then what the answer said ("what was it again?")
    for key, value in [*rng.sample(unsaid, len(unsaid)), *rng.sample(heard, len(heard))]:
        found = _asked(key, value, stated, rng)
        if found is not None:
            return found
    return None


def _asked(key: str, value: Any, stated: str, rng: random.Random) -> tuple[str, str] | None:
    """(the question a person asks about field ``key``, the answer with its value as a person writes it), or
    None when the key is no name a person uses ("uuid", "etag")."""
    parts = [w.lower() for w in words(key)]
    if not parts or set(parts) & _JARGON - {"datetime", "timestamp", "ts", "dt"} or not all(w.isalpha() for w in parts):
        return None
    named = parts[:-1] if len(parts) > 1 and parts[-1] in _UNITS else parts  # temperature_c: "c" is its unit
    if any(len(w) <= 3 and w not in _SHORT for w in named):  # "php", "apy": abbreviations
        return None
    date = when(value, key)
    if date is not None:
        done = next((w for w in parts if w in _DONE), None)
        if done is not None:
            return rng.choice(WHEN_DONE).format(done=done), rng.choice(SAY_WHEN_DONE).format(done=done, value=date)
        return rng.choice(WHEN), rng.choice(SAY_WHEN).format(value=date, Value=date[:1].upper() + date[1:])
    if set(parts) & _JARGON or (len(parts) == 1 and parts[0] in _DONE):
        return None
    field, unit = _field(key)
    if not field:
        return None
    amount = _amount(value)
    if field in _HOW_MANY and _number(value):  # "what was the count again?" is not how a person asks
        return rng.choice(HOW_MANY), rng.choice(SAY_HOW_MANY).format(value=amount)
    counted = [w for w in field.split() if w not in _COUNTED]
    if _number(value) and len(counted) < len(field.split()) and counted and counted[-1].endswith("s"):
        noun = " ".join(counted)  # total_records: "How many records were there?"
        return rng.choice(HOW_MANY_OF).format(noun=noun), rng.choice(SAY_HOW_MANY_OF).format(value=amount, noun=noun)
    many = isinstance(value, list) or (field.endswith("s") and not field.endswith(("ss", "us", "is")))
    if many and _number(value):  # samples: 20 is "How many samples were there?", not "what were the samples?"
        return rng.choice(HOW_MANY_OF).format(noun=field), rng.choice(SAY_HOW_MANY_OF).format(value=amount, noun=field)
    again, recall = (AGAIN_MANY, RECALL_MANY) if many else (AGAIN, RECALL)
    ask = rng.choice(again if str(value) in stated else recall).format(field=field)
    said = f"{amount}{unit}".rstrip(".")
    if said.endswith(("?", "!")):  # a sentence of its own: 'It says "Are we still on for Saturday?"'
        return ask, f'It says "{said}"'
    say = rng.choice(SAY_RECALL_MANY if many else SAY_RECALL).format(field=field, value=said)
    return ask, say[:1].upper() + say[1:]


def _amount(value: Any) -> str:
    """A number as a person writes it: 1368420.0 -> "1.37 million", 52340 -> "52,340", 3.14159 -> "3.14"."""
    if not _number(value):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    rounded = large(value)
    if rounded is not None:
        return rounded
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return f"{value:.2f}".rstrip("0").rstrip(".") if abs(value) >= 1 else f"{value:.3g}"


def followup(
    content: str, args: dict[str, Any], stated: str, entry: ToolPack | None, rng: random.Random
) -> tuple[str, str] | None:
    """(the user's follow-up, the answer from the result) for a tool result ``content``, or None when the
    result gives nothing to ask about (plain text, an error)."""
    try:
        data = json.loads(content)
    except ValueError:
        return None
    if isinstance(data, dict) and ({"error", "errors", "isError"} & set(data)):
        return None  # a failure is explained, not asked about
    if entry is not None and entry.followups:
        options = list(entry.followups)
        rng.shuffle(options)
        for option in options:
            try:
                slot = lambda name: answer_slot(name, args, data)  # noqa: E731
                return fill(option.ask, slot), fill(option.answer, slot)
            except Missing:
                continue
    return _compare(data, rng) or _recall(data, stated, list(args.values()), rng)
