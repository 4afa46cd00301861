"""The offline writer: user requests, clarifying questions and final answers in plain English.

Requests are built from what each tool does (its description, else its name) and state every
value the calls need, so a model trained on them learns to take values from the user, not to
invent them. Tool names never appear in a request.
"""

from __future__ import annotations

import random
import re
from typing import Any

from synth.packs.items import ended
from synth.records import ToolSpec, content_hash
from synth.runtime.base import ToolResult
from synth.simulator import vocab
from synth.simulator.toolnames import kind as tool_kind
from synth.simulator.toolnames import noun, singular, subject
from synth.simulator.values.values import human, words
from synth.wording import intent, sentences_of


def show(value: Any, kind: str) -> str:
    """A value as a person would write it in a message."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        shown = [show(v, kind.removeprefix("list:")) for v in value]
        return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1] if shown else "none"
    if isinstance(value, dict):
        return ", ".join(f"{human(k)} {show(v, 'text')}" for k, v in value.items())
    if kind in ("query", "text", "code", "guess") and isinstance(value, str):
        return f'"{value}"'
    return str(value)


def inline(clause: str, param: str, value: Any, kind: str) -> str | None:
    """Put a place or name straight into the intent: "forecast for a specific city" -> "forecast for Porto"."""
    if kind not in ("place", "name", "id") or not isinstance(value, str):
        return None
    word = words(param)[-1] if words(param) else param
    pattern = rf"\b(?:a|an|the)\s+(?:specific\s+|given\s+|specified\s+|particular\s+|provided\s+|target\s+)?{re.escape(word)}\b"  # noqa: E501
    new, n = re.subn(pattern, value if kind == "place" else f"{word} {value}", clause, count=1, flags=re.I)
    return new if n else None


def clause(param: str, value: Any, kind: str, rng: random.Random) -> str:
    """One value stated in words: "the city is Porto", "set the limit to 5"."""
    h = human(param)
    v = show(value, kind)
    if isinstance(value, bool):
        return rng.choice((f"{h}: {v}", f"set {h} to {'true' if value else 'false'}"))
    if kind == "number":
        return rng.choice((f"set {h} to {v}", f"use {v} for {h}", f"{h} should be {v}"))
    if kind == "query":
        return rng.choice((f"search for {v}", f"the {h} is {v}"))
    if kind == "guess":
        return f"the {h} should be {v}"
    if kind in ("text", "code"):
        return rng.choice((f"the {h} should be {v}", f"{h}: {v}"))
    if kind == "object":
        return f"for {h} use {v}"
    if isinstance(value, list) and len(value) > 1:
        return rng.choice((f"the {h} are {v}", f"{h}: {v}"))
    if kind == "email":
        return rng.choice((f"the {h} is {v}", f"use {v} as the {h}"))
    return rng.choice((f"the {h} is {v}", f"use {v} as the {h}", f"{h}: {v}"))


class Step:
    """What the writer needs to know about one planned call."""

    def __init__(
        self, tool: ToolSpec, args: dict[str, Any], kinds: dict[str, str], linked: dict[str, str], withheld: set[str]
    ):
        self.tool, self.args, self.kinds, self.linked, self.withheld = tool, args, kinds, linked, withheld


def request(steps: list[Step], persona: str | None, rng: random.Random) -> str:
    """The user's first message: every stated value, no tool names."""
    # A stock sentence about the person ("I'm working on a project.") says nothing about the task and
    # would be the most common sentence of the data; the request starts with the need itself.
    parts: list[str] = []
    for i, step in enumerate(steps):
        text = intent(step.tool)
        stated = [p for p in step.args if p not in step.linked and p not in step.withheld]
        for p in list(stated):
            new = inline(text, p, step.args[p], step.kinds.get(p, "text"))
            if new:
                text, stated = new, [x for x in stated if x != p]
        for p, field in step.linked.items():
            found = f"the {human(field)} from the first result"
            text = inline(text, p, found, "place") or f"{text} for {found}"
        clauses = [clause(p, step.args[p], step.kinds.get(p, "text"), rng) for p in stated]
        if i == 0:
            lead = rng.choice(vocab.OPENERS)
            sentence = f"{lead} {text}"
            sentence += "?" if lead in ("Can you", "Could you", "Would you") else "."
        else:
            sentence = f"{rng.choice(('Then', 'After that,', 'Once you have that,', 'Also,'))} {text}."
        parts.append(sentence)
        if clauses:
            joined = _join(clauses)
            parts.append(joined[0].upper() + joined[1:] + ".")
    return " ".join(p for p in parts if p)


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def ask(tool: ToolSpec, param: str, rng: random.Random) -> str:
    """The assistant asks for a value the user left out."""
    h = human(param)
    hint = ""
    desc = str((tool.properties.get(param) or {}).get("description") or "")
    if desc and len(desc) < 90 and desc.isascii():
        hint = f" ({desc.strip().rstrip('.')})"
    return rng.choice(
        (
            f"I can do that. Which {h} should I use{hint}?",
            f"Sure. What {h} would you like{hint}?",
            f"Happy to help. Could you tell me the {h}{hint}?",
        )
    )


def give(param: str, value: Any, kind: str, rng: random.Random) -> str:
    """The user's answer to a clarifying question."""
    v = show(value, kind)
    return rng.choice((f"{v}, please.", f"Let's go with {v}.", f"The {human(param)} is {v}.", f"Use {v}."))


_UNITS = {
    "c": "°C",
    "f": "°F",
    "pct": "%",
    "percent": "%",
    "kph": " km/h",
    "mph": " mph",
    "usd": " USD",
    "bytes": " bytes",
    "kb": " KB",
    "mb": " MB",
    "gb": " GB",
    "m": " m",
    "cm": " cm",
    "km": " km",
    "kg": " kg",
    "ms": " ms",
    "s": " s",
    "sec": " s",
    "seconds": " s",
    "min": " min",
    "minutes": " min",
    "h": " h",
    "hours": " h",
    "kbps": " kbps",
    "mbps": " Mbps",
    "hz": " Hz",
}
_DONE = {"success", "succeeded", "ok", "done", "completed", "complete", "true"}


def _bookkeeping(key: str, value: Any) -> bool:
    """A field nobody relays after an action: a success flag (the answer says it worked), the change's time."""
    k = key.lower()
    if k in ("status", "success", "ok", "state") and str(value).lower() in _DONE:
        return True
    return k.endswith("_at") or k in ("timestamp", "time", "updated", "created")


def _note(result: dict[str, Any]) -> str:
    """A short message the service wrote about what it did ("Applied the effect to layer 3"), as a sentence."""
    note = result.get("message")
    if not isinstance(note, str) or "\n" in note or not 0 < len(note.strip()) <= 160:
        return ""
    note = note.strip().rstrip(".!")
    return note[:1].upper() + note[1:]


def summarise(tool: ToolSpec, args: dict[str, Any], result: dict[str, Any]) -> str:
    """One sentence about a result, using its actual values and not repeating the request.

    The form varies with the call (a hash, not a random stream, so callers need not pass one).
    """
    k = tool_kind(tool)
    if any(key.lower() in ("status", "success", "ok") and str(v).lower() in _DONE for key, v in result.items()):
        k = "action"  # a result that reports success is about something done, whatever the tool's name says
    thing = human(noun(tool))
    pick = int(content_hash([tool.name, args], 8), 16)
    lists = [(key, v) for key, v in result.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
    if k == "list" and lists:
        key, items = lists[0]
        total, things, first = result.get("total", len(items)), human(key), _facts(items[0], 3, set())
        if total == 1:  # one match is said as one thing, not as a list of one
            thing = singular(things)
            return _one(pick, f"I found one {thing}: {first}.", f"Just one {thing} came back: {first}.")
        return _one(
            pick,
            f"I found {total} {things}. The top one: {first}.",
            f"There are {total} {things}; first up is {first}.",
            f"{total} {things} came back, led by {first}.",
            f"Top result of {total}: {first}.",
        )
    if isinstance(result.get("expression"), str) and isinstance(result.get("result"), (int, float)):
        return f"{result['expression']} = {_number(result['result'])}."  # a sum is said as a sum, not as a change
    note = _note(result) if k == "action" else ""
    skip = set(args) | (
        {key for key, v in result.items() if _bookkeeping(key, v)} | {"message"} if k == "action" else set()
    )
    facts = _facts(result, 4 if k != "action" else 3, skip)
    texts = [v for key, v in result.items() if key not in args and isinstance(v, str) and v.strip()]
    if facts == "an empty record" and texts and k != "action":  # a page, a document: its opening, as a person relays it
        text = " ".join(max(texts, key=len).split())
        return f"Here's how it starts: {text[:240].rsplit(' ', 1)[0] + '...' if len(text) > 240 else text}"
    written = [v for v in texts if "\n" in v]  # a file's content is what was asked for, not only its size
    if written and k != "action":
        text = " / ".join(line.strip() for line in max(written, key=len).splitlines() if line.strip())
        facts += f'; it reads: "{text[:200].rsplit(" ", 1)[0] + "..." if len(text) > 200 else text}"'
    if k == "action":
        what = human(" ".join(subject(tool))).removesuffix(" request")
        if facts == "an empty record":  # nothing to relay but that it worked, and what the service said of it
            if note:
                return _one(pick, f"Done. {note}.", f"{note}.", f"All set: {note[:1].lower()}{note[1:]}.")
            return _one(pick, f"Done: the {what} went through.", f"The {what} is done.", "All set, that worked.")
        if note:
            return _one(pick, f"Done. {note} ({facts}).", f"{note}: {facts}.")
        return _one(
            pick,
            f"Done. The {what} went through: {facts}.",
            f"That's done: {facts}.",
            f"The {what} is complete ({facts}).",
            f"All set. {facts[:1].upper()}{facts[1:]}.",
        )
    if lists:
        key, items = lists[0]
        listed = f"{human(key)}: " + "; ".join(_facts(item, 3, set()) for item in items[:3])
        facts = listed if facts == "an empty record" else f"{facts}; {listed}"
    return _one(
        pick,
        f"The {thing} shows {facts}.",
        f"For the {thing}: {facts}.",
        f"Got it: {facts}.",
        f"{facts[:1].upper()}{facts[1:]}.",
        f"This is the {thing}: {facts}.",
    )


def _one(pick: int, *forms: str) -> str:
    """One of the ways to say it, chosen by the call's hash so the same call reads the same."""
    return forms[pick % len(forms)]


def _number(value: Any) -> Any:
    """Floats as a person reads them: 1.1717557 -> 1.1718, 199.99999999 -> 200."""
    if isinstance(value, float):
        value = round(value, 4 if abs(value) < 10 else 2)
        return int(value) if value.is_integer() and abs(value) >= 10 else value
    return value


def fact(key: str, value: Any) -> str:
    """``temperature_c: 21`` -> "temperature 21°C"; ``rates: {"EUR": 1.17}`` -> "rates EUR 1.17"."""
    w = words(key)
    if isinstance(value, list):
        value = _join([str(_number(v)) for v in value[:3]]) + (f" and {len(value) - 3} more" if len(value) > 3 else "")
        value = value.replace(" and ", ", ", value.count(" and ") - 1) if value.count(" and ") > 1 else value
    if isinstance(value, dict):
        value = ", ".join(f"{k} {_number(v)}" for k, v in list(value.items())[:4])
    value = _number(value)
    if len(w) > 1 and w[-1] in _UNITS:
        return f"{' '.join(w[:-1])} {value}{_UNITS[w[-1]]}"
    return f"{' '.join(w) or key} {value}"


def _scalars(value: Any) -> bool:
    if isinstance(value, dict):  # rates {"EUR": 1.17}, variables {"PORT": "8080"}: short values a sentence can carry
        return bool(value) and all(
            _scalars(v) and not isinstance(v, dict) and len(str(v)) <= 60 for v in value.values()
        )
    if isinstance(value, list):  # suggestions, tags: a few short words
        return bool(value) and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) and len(str(v)) <= 60 for v in value
        )
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


_LABELS = ("name", "title", "display_name", "full_name", "label", "headline")


def _facts(record: dict[str, Any], limit: int, skip: set[str]) -> str:
    """A record's first few values; one that has a name is said by its name ("Lapras (id 131 and types
    water and ice)", not "name Lapras, id 131 ...")."""
    label = next((k for k in _LABELS if k not in skip and isinstance(record.get(k), str) and record[k].strip()), None)
    facts = [
        fact(key, value)
        for key, value in record.items()
        if key not in skip and key != label and _scalars(value) and not (isinstance(value, str) and "\n" in value)
    ]
    if label is not None:
        name = " ".join(record[label].split())
        return f"{name} ({_join(facts[: limit - 1])})" if facts and limit > 1 else name
    return _join(facts[:limit]) if facts else "an empty record"


def reply(tool: ToolSpec, args: dict[str, Any], result: ToolResult) -> str:
    """What the assistant says about one result: a summary of its values, or why the call failed."""
    pick = int(content_hash([tool.name, args, result.content[:200]], 8), 16)
    if result.is_error:
        why = failure_reason(result.content)
        return _one(
            pick,
            f"That didn't go through: {why}.",
            f"I couldn't do that. The service said: {why}.",
            f"The request was refused: {why}.",
            f"It failed with this message: {why}.",
        )
    data = result.data
    if isinstance(data, str):  # a text result: its opening, as a person would relay it
        text = " ".join(data.split())
        if not text:
            return "The call went through but returned nothing."
        cut = text[:280].rsplit(" ", 1)[0] + "..." if len(text) > 280 else text
        return _one(pick, f"Here's what came back: {cut}", f"The result: {cut}", f"This is what it returned: {cut}")
    return summarise(tool, args, data if isinstance(data, dict) else {"result": data})


def failure_reason(text: str) -> str:
    """An error result in a sentence: the SDK's prefix dropped, one line, no trailing period."""
    line = next((x.strip() for x in text.splitlines() if x.strip()), "no reason given")
    line = re.sub(r"^(Error executing tool \S+: |Error: |error: )", "", line)
    return line[:200].rstrip(". ") or "no reason given"


_QUOTED = re.compile(r'"([^"]{3,})"')
_TOKEN = re.compile(r"[^\s\"(),;]+")
_WORD = re.compile(r"[a-z][a-z'-]{3,}")


def facts_of(text: str) -> set[str]:
    """What an answer tells, as a reader checks it: quoted titles, and every token that is a number, an id,
    a link, an address or a name (capitalised inside a sentence, or in capitals)."""
    found = set(_QUOTED.findall(text))
    for m in _TOKEN.finditer(text):
        token = m.group().rstrip(".:!?'")
        opener = m.start() == 0 or re.search(r"[.!?:]\s*$", text[: m.start()]) is not None
        if any(c.isdigit() for c in token) or "/" in token or "@" in token:
            found.add(token)
        elif token[:1].isupper() and (not opener or token.isupper()) and len(token) > 1:
            found.add(token)
    return found


def _repeats(text: str, rest: str) -> bool:
    """Whether ``text`` tells nothing ``rest`` has not told: each of its facts and most of its words are there."""
    told, said = facts_of(text), _WORD.findall(text.lower())
    if not told or not rest or not all(fact in rest for fact in told):
        return False
    return sum(w in rest.lower() for w in said) >= 0.75 * len(said)


def unrepeated(answers: list[str]) -> list[str]:
    """The answers of one turn without what only repeats: a search answer that named the paper and quoted
    its abstract, then the paper's record saying the same, tells it once. An answer that repeats the others
    goes (later ones are weighed first, so of two alike the earlier stays); of a later answer, a sentence
    that repeats the answers before it goes."""
    kept = list(answers)
    for i in reversed(range(len(kept))):
        if len(facts_of(kept[i])) >= 2 and _repeats(kept[i], " ".join(kept[:i] + kept[i + 1 :])):
            del kept[i]
    for i in range(1, len(kept)):
        before = " ".join(kept[:i])
        sentences = sentences_of(kept[i])
        new = [s for s in sentences if not _repeats(s, before)]
        if new and len(new) < len(sentences):
            kept[i] = " ".join(new)
    return kept


_YES = re.compile(r"^(?:Yes|Yep)[,:.!]\s+(\w)")


def told(answers: list[str], request: str) -> str:
    """A turn's answers as one message: nothing said twice (``unrepeated``); no question inside it that the
    answer after it moots ("Want me to pull the details?" then the details); no "Yes:" to a request that
    asked nothing ("Check the log" is not answered "Yes: ...")."""
    answers = unrepeated(answers)
    for i in range(len(answers) - 1):
        sentences = sentences_of(answers[i])
        kept = [s for s in sentences if not s.rstrip().endswith("?")]
        answers[i] = " ".join(kept) if kept else answers[i]
    text = " ".join([*(ended(a) for a in answers[:-1]), *answers[-1:]])
    if "?" not in request:
        text = _YES.sub(lambda m: m.group(1).upper(), text, count=1)
    return text
