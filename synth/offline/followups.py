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
from synth.wording import words

_LABELS = ("name", "title", "symbol", "ticker", "label", "display_name", "full_name", "headline", "city", "code")
_SKIP = {"id", "lat", "lon", "lng", "latitude", "longitude", "index", "rank", "page", "offset", "limit", "n"}
# bookkeeping a person does not ask about: a status, a message, a code, a page count, a link
_META = {"status", "msg", "message", "code", "success", "ok", "error", "updated", "url", "uri", "link", "href", "query"}
_UNITS = {"c": "°C", "f": "°F", "pct": "%", "percent": "%", "kph": " km/h", "mph": " mph", "mm": " mm", "km": " km"}

HIGH = ("Which of those has the highest {field}?", "Of those, which one has the most {field}?")
LOW = ("And which has the lowest {field}?", "Which of those has the least {field}?")
SAY_HIGH = ("{label} has the highest {field}, at {value}.", "That's {label}: {value}, the highest of them.")
SAY_LOW = ("{label} has the lowest {field}, at {value}.", "That would be {label}, with {value}.")
AGAIN = ("Sorry, what was the {field} again?", "Remind me, what was the {field}?")  # the answer said it
RECALL = ("Did it say what the {field} is?", "What's the {field}, by the way?", "And the {field}?")  # it did not
SAY_RECALL = ("The {field} is {value}.", "It says {value}.", "{Field}: {value}.")
_HOW_MANY = {"count", "total", "total count", "num results", "result count", "total results", "matches", "hits"}
HOW_MANY = ("Sorry, how many was that?", "How many were there in all?", "How many did it find?")
SAY_HOW_MANY = ("{value} in all.", "There were {value}.", "{value}.")


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
            if k not in _SKIP and not k.lower().endswith("id") and all(_number(i.get(k)) for i in items)
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
            label=best[label], field=field, value=f"{best[key]}{unit}"
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
    unsaid = [(k, v) for k, v in fields if str(v) not in stated] or fields
    if not unsaid:
        return None
    key, value = rng.choice(unsaid)
    field, unit = _field(key)
    if not field:
        return None
    if field in _HOW_MANY and _number(value):  # "what was the count again?" is not how a person asks
        return rng.choice(HOW_MANY), rng.choice(SAY_HOW_MANY).format(value=value)
    ask = rng.choice(AGAIN if str(value) in stated else RECALL).format(field=field)
    say = rng.choice(SAY_RECALL).format(
        field=field, Field=field[:1].upper() + field[1:], value=f"{value}{unit}".rstrip(".")
    )
    return ask, say


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
