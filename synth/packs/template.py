"""The slot language of packs: filling goals, result templates and answers.

Everything random comes from the ``random.Random`` and the ``Faker`` passed in (made per scenario
by the caller), so the same scenario always expands to the same text and results.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from collections.abc import Callable
from typing import Any

from faker import Faker

from synth.stages.fakers import Seeded
from synth.wording import BASE_DATE, large, state, when, words

SLOT = re.compile(r"\{([a-z]+:[^{}]*|[A-Za-z_$][\w.\-$]*)\}")
FAKES = frozenset(
    {
        "name",
        "first_name",
        "last_name",
        "company",
        "email",
        "city",
        "country",
        "country_code",
        "street_address",
        "address",
        "postcode",
        "phone_number",
        "url",
        "domain_name",
        "user_name",
        "job",
        "word",
        "sentence",
        "catch_phrase",
        "uuid4",
        "iban",
        "isbn13",
        "color_name",
        "license_plate",
        "ipv4",
        "file_name",
        "currency_code",
    }
)


class Missing(KeyError):
    """A slot that the values at hand cannot fill."""


def get_path(value: Any, path: str, rng: random.Random | None = None) -> Any:
    """``locations.0.name`` inside a result (``locations.*.name``: any item's, drawn by ``rng``); raises Missing
    when any step is absent.

    ``path~regex`` reads a value out of text (what real servers often return): the regex's first group (or
    the whole match) in the text at ``path`` (the whole result when empty; JSON text when not a string), the
    first match, or one drawn by ``rng``: ``~Commit: ([0-9a-f]{40})`` is a commit id a git log listed.
    """
    path, cut, pattern = path.partition("~")
    node = value
    for part in path.split(".") if path else []:
        if part == "*" and isinstance(node, list) and node:  # any item: the first, or one drawn by ``rng``
            node = rng.choice(node) if rng is not None else node[0]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise Missing(path)
    if not cut:
        return node
    text = node if isinstance(node, str) else json.dumps(node, ensure_ascii=False)
    found = [m.group(1) if m.groups() else m.group(0) for m in re.finditer(pattern, text, re.MULTILINE)]
    if not found:
        raise Missing(f"{path}~{pattern}")
    return rng.choice(found) if rng is not None else found[0]


def fed(value: Any, schema: Any) -> Any:
    """A value read from a result, as the parameter takes it: one item becomes a list for an array."""
    if isinstance(schema, dict) and schema.get("type") == "array" and not isinstance(value, list):
        return [value]
    return value


def spoken(value: Any) -> str:
    """A value as a person would write it in a sentence."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list) and any(isinstance(v, dict) for v in value):
        if all(isinstance(v, dict) and _sayable(v) for v in value):  # two events, a file to read
            parts = [_spoken_record(v) for v in value]
            return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
        return json.dumps(value, ensure_ascii=False)  # documents, a pipeline: pasted, not read out
    if isinstance(value, list):
        parts = [spoken(v) for v in value]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1] if parts else ""
    if isinstance(value, dict):
        return _spoken_record(value)
    return str(value)


TITLE_KEYS = ("title", "name", "subject", "summary")
KEY_PHRASES = {
    "due_date": "due {}",
    "start_date": "from {}",
    "end_date": "to {}",
    "date": "on {}",
    "location": "at {}",
    "calendar_name": "in my {} calendar",
    "list_name": "on my {} list",
    "folder": "in the {} folder",
    "notes": "note: {}",
    "content": "{}",
    "body": "{}",
    "text": "{}",
    "path": "{}",
    "url": "{}",
    "file": "{}",
    "pages": "pages {}",
    "activityStatus": "to {}",  # a tenant's new state, as a person asks for it: "hooli" to COLD
}


def _sayable(record: dict[str, Any]) -> bool:
    """Whether every field of ``record`` is one a person names by what it means (a title, a due date, a
    path), or a graph's link: a note or an event is said in words; anything else (a filter, a document) is pasted
    as JSON."""
    return (
        _link(record)
        or _address(record) is not None
        or _email(record) is not None
        or all(
            (k in KEY_PHRASES or k in TITLE_KEYS)
            and (
                not isinstance(v, (dict, list))
                or (isinstance(v, list) and not any(isinstance(x, (dict, list)) for x in v))
            )
            for k, v in record.items()
        )
    )


_ADDRESS = {"address1", "address2", "street", "line1", "line2", "city", "state", "zip", "postal_code", "country"}


def _address(record: dict[str, Any]) -> str | None:
    """A postal address as it is written on an envelope: "1 Main St, Unit 4, Burlington, VT 05401"."""
    if not record or set(record) - _ADDRESS or not all(isinstance(v, (str, int)) for v in record.values()):
        return None
    region = " ".join(str(record[k]) for k in ("state", "zip", "postal_code") if record.get(k))
    lines = [str(v) for k, v in record.items() if v and k not in ("state", "zip", "postal_code", "country")]
    country = [str(record["country"])] if record.get("country") else []
    return ", ".join([*lines, *([region] if region else []), *country])


def _email(record: dict[str, Any]) -> str | None:
    """An e-mail or a text message as a person dictates it: to whom, the subject, what it says (``body``, or a
    message's ``content``)."""
    if "to" not in record or not set(record) <= {"to", "cc", "bcc", "subject", "body", "content"}:
        return None
    if not all(isinstance(v, str) for v in record.values()) or ("body" in record and "content" in record):
        return None
    parts = [f"to {record['to']}"] + [f"{k} {record[k]}" for k in ("cc", "bcc") if record.get(k)]
    if record.get("subject"):
        parts.append(f'subject "{record["subject"]}"')
    said = ", ".join(parts)
    body = record.get("body") or record.get("content")
    return f'{said}, saying: "{body}"' if body else said


def _link(record: dict[str, Any]) -> bool:
    return set(record) == {"from", "to", "relationType"} and all(isinstance(v, str) for v in record.values())


def _spoken_record(record: dict[str, Any]) -> str:
    """A record as a person writes it: a flat note, reminder or event in words, its title first and its
    fields by what they mean; a query or a document pasted as JSON; never ``key value`` pairs that spell
    parameter names."""
    if _link(record):  # a knowledge graph's link, its type as stored: "the works_at link from Dana Okafor to ..."
        return f"the {record['relationType']} link from {record['from']} to {record['to']}"
    written = _address(record) or _email(record)
    if written:
        return written
    if not _sayable(record):
        return json.dumps(record, ensure_ascii=False)
    title = next((k for k in TITLE_KEYS if isinstance(record.get(k), str)), None)
    parts = [f'"{record[title]}"'] if title else []
    for key, value in record.items():
        if key != title:
            parts.append(KEY_PHRASES.get(key, key.replace("_", " ") + " {}").format(spoken(value)))
    return ", ".join(parts)


def fill(text: str, lookup: Callable[[str], str]) -> str:
    """Replace every slot with ``lookup(slot)``; Missing propagates so the caller can try another text."""
    return SLOT.sub(lambda m: lookup(m.group(1)), text)


EACH_MAX = 25  # a list said item by item names at most this many, then how many more


def each(slot: str, result: Any) -> str:
    """``each:r.path|$name ($tvl)``: every item of the list at ``path`` (``path[key=value]``: those whose key holds
    the value), each said by the text after ``|`` (``$field``, ``$a.b``: the item's values; the item itself
    without one), as "a, b and c": a person who asked for five stories gets five."""
    path, _, form = slot[len("each:r") :].lstrip(".").partition("|")
    path, _, where = path.rstrip("]").partition("[")
    items, (key, _, wanted) = get_path(result, path), where.partition("=")
    items = [i for i in items if isinstance(i, dict) and str(i.get(key)) == wanted] if where else items
    if not isinstance(items, list) or not items:
        raise Missing(slot)

    def one(item: Any) -> str:
        if not form:
            return spoken(item)
        return _FIELD.sub(
            lambda m: _value(f"r.{path}.{m.group(1)}".replace("..", "."), get_path(item, m.group(1))), form
        )

    parts = [one(item) for item in items[:EACH_MAX]]
    if len(items) > EACH_MAX:
        parts.append(f"{len(items) - EACH_MAX} more")
    if len(parts) > 1 and all(p.rstrip().endswith((".", "!", "?")) for p in parts):
        return " ".join(parts)  # sentences ('"Llama 2": Releases ... for dialogue.') follow one another
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


_FIELD = re.compile(r"\$([A-Za-z_0-9][\w\-]*(?:\.[\w\-]+)*)")  # $title, $raft.term, $2025-12-31


def _value(name: str, value: Any) -> str:
    """A value as an answer says it: an amount rounded as a person writes it when its key (or the key of the
    object holding it: ``currentChainTvls.Ethereum``, ``cashflow.1.2025-12-31``) names an amount, and the key
    itself is no date, time, id or rank; a date or a unix time in words (synth.wording.when)."""
    keys = [k for k in name.split(".")[1:] or [name] if not k.lstrip("-").isdigit() and not _DAY.match(k)]
    last = words(keys[-1]) if keys else []
    stamp = bool(last) and last[-1] in _NOT_AMOUNT and last[-2:] != ["all", "time"]  # totalAllTime: an amount
    amount = bool(keys) and not stamp and bool(_AMOUNT.search(".".join(keys[-2:])))
    rounded = large(value) if amount else None
    said = state(value, last[-1]) if last else None  # a status or a phase in words: 'phase 2', not 'PHASE2'
    if isinstance(value, dict) and value and not _sayable(value) and all(_scalar(v) for v in value.values()):
        return ", ".join(f"{k.replace('_', ' ')} {spoken(v)}" for k, v in value.items())  # "color black, size M"
    return rounded or said or when(value, keys[-1] if keys else "") or spoken(value)  # not a stamp: "due 18 May"


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and len(str(value)) <= 40


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")  # a column named by its date (cash flow by year end)
# the last word of a key whose number is a time, an id or a place in a list, never an amount
_NOT_AMOUNT = frozenset({"date", "time", "timestamp", "stamp", "at", "id", "year", "rank", "created", "updated"})


def answer_slot(slot: str, args: dict[str, Any], result: Any) -> str:
    """An answer's slot: an argument, ``r.path`` into the result, ``count:r.path``, ``each:r.path|form``
    (every item of a list), or ``re:regex`` (the first group of the regex's first match in the result's
    text)."""
    if slot.startswith(("each:r.", "each:r|")) or slot == "each:r":
        return each(slot, result)
    if slot.startswith(("count:r.", "count:r|")) or slot == "count:r":
        value = get_path(result, slot[len("count:r") :].lstrip("."))
        if not isinstance(value, list):
            raise Missing(slot)
        return str(len(value))
    if slot == "r":  # a bare amount (a TVL) as a person writes it
        return large(result) or spoken(result)
    if slot.startswith("r."):
        return _value(slot, get_path(result, slot[2:]))
    if slot.startswith("re:"):  # {re:Message: (.+)}: the first match in a text result (see get_path)
        return spoken(get_path(result, "~" + slot[3:]))
    if slot in args:  # a state the call sent, in words too: 'PRs in state merged'
        return state(args[slot], (words(slot) or [""])[-1]) or spoken(args[slot])
    raise Missing(slot)


# a result key whose number is an amount a person rounds (a TVL, a market cap, downloads), not a label
_AMOUNT = re.compile(
    r"(?i)tvl|cap|volume|revenue|income|profit|cash|flow|downloads|balance|fees|sales|assets|debt|equity"
    r"|earnings|spend|cost|supply|amount|usd|value|total|sum"
)


def slots(text: str) -> list[str]:
    return [m.group(1) for m in SLOT.finditer(text)]


class Expander:
    """Expands result templates and pool strings for one scenario."""

    def __init__(self, rng: random.Random, args: dict[str, Any] | None = None, world: Any = None):
        self.rng, self.args = rng, args or {}
        self.world = world  # the conversation's WorldState, for values drawn from it
        self._faker_seed = rng.getrandbits(32)  # drawn now, so a lazy Faker changes no other draw
        self._fake: Faker | None = None

    @property
    def fake(self) -> Faker:
        """A Faker of this expander's own (no shared global), made only when a template asks for one."""
        if self._fake is None:
            self._fake = Seeded(self._faker_seed)  # type: ignore[assignment]  # a Faker in all but its class
        return self._fake  # type: ignore[return-value]

    def value(self, template: Any, n: int | None = None) -> Any:
        if isinstance(template, dict) and "$pick" in template:  # one of several forms, each with its own slots
            forms = template["$pick"]
            return self.value(self.rng.choice(forms), n) if isinstance(forms, list) and forms else None
        if isinstance(template, dict):
            return {k: self.value(v, n) for k, v in template.items()}
        if isinstance(template, list):
            out: list[Any] = []
            for item in template:
                if isinstance(item, dict) and "$repeat" in item:
                    count = self._count(item["$repeat"])
                    out.extend(self.value(item.get("$item"), i + 1) for i in range(count))
                else:
                    out.append(self.value(item, n))
            return out
        if isinstance(template, str):
            if "{" not in template:  # most strings of a template are plain text
                return template
            whole = SLOT.fullmatch(template)
            if whole:
                return self.slot(whole.group(1), n, typed=True)
            return SLOT.sub(lambda m: spoken(self.slot(m.group(1), n, typed=False)), template)
        return template

    def _count(self, spec: Any) -> int:
        if isinstance(spec, int):
            return spec
        text = str(spec)
        if text.startswith("{") and text.endswith("}"):
            value = self.slot(text[1:-1], None, typed=True)
            return max(0, min(int(value), 10)) if isinstance(value, (int, float)) else 3
        lo, _, hi = text.partition("-")
        return self.rng.randint(int(lo), int(hi or lo))

    def slot(self, name: str, n: int | None, typed: bool) -> Any:
        kind, sep, arg = name.partition(":")
        if not sep:
            if name == "n" and n is not None:
                return n
            if name in self.args:
                return self.args[name]
            raise Missing(name)
        if kind == "int":
            lo, hi = _bounds(arg)
            return self.rng.randint(int(lo), int(hi))
        if kind == "num":
            lo, hi = _bounds(arg)
            decimals = max(len(x.partition(".")[2]) for x in _NUMBER.findall(arg)) or 1
            return round(self.rng.uniform(lo, hi), decimals)
        if kind == "pick":
            return self.rng.choice(arg.split("|"))
        if kind == "table":  # {table:email|a@x.com=aaron_7181|...}: the value the argument maps to (a lookup's
            param, *rows = arg.split("|")  # result follows what it looked up); an unknown one draws as pick
            pairs = dict(row.partition("=")[::2] for row in rows)
            key = str(self.args.get(param))
            return pairs[key] if key in pairs else self.rng.choice(list(pairs.values()))
        if kind == "date":  # {date:3} is three days after the base date; {date:n} follows the item number
            days = (n or 0) if arg == "n" else int(arg or 0)
            return (BASE_DATE + dt.timedelta(days=days)).isoformat()
        if kind == "fake":
            if arg not in FAKES:
                raise Missing(name)
            return str(getattr(self.fake, arg)())
        if kind == "id":
            return "".join(self._char(c) for c in arg)
        raise Missing(name)

    def _char(self, c: str) -> str:
        if c == "#":
            return str(self.rng.randint(0, 9))
        if c == "?":
            return chr(self.rng.randint(65, 90))
        if c == "*":
            return self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
        return c


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _bounds(arg: str) -> tuple[float, float]:
    match = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*", arg)
    if not match:
        raise Missing(arg)
    lo, hi = float(match.group(1)), float(match.group(2))
    return (lo, hi) if lo <= hi else (hi, lo)
