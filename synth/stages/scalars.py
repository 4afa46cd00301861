"""Values the conversation already holds, as material for hard wrong-value negatives.

A judge that only sees invented values learns to spot the generator. The mistakes models make
are values taken from the context: the second search hit instead of the first, the number the
user gave for something else, the argument of an earlier call. ``Scalars`` collects every scalar
of the conversation before a call (tool results, earlier call arguments, numbers the user typed)
with where it came from, and proposes such values for one parameter, each with the words that
say where it came from ("the second location in the search_locations_tool result").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from synth.grade import json_type, same_value, show, words
from synth.records import Message

_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_GENERIC_LISTS = {
    "results",
    "items",
    "data",
    "hits",
    "records",
    "entries",
    "matches",
    "list",
    "values",
    "rows",
    "response",
    "output",
}
_NUMBER = re.compile(r"(?<![\w.\-/:])(\d{1,7}(?:\.\d+)?)(?![\w.\-/:%]|\.\d)")
_TOKEN = re.compile(
    r"https?://[^\s,;)]+|[\w.+-]+@[\w-]+\.[\w.]+|'[^']{2,40}'|\"[^\"]{2,40}\""
    r"|(?<![\w:/\\])(?:[A-Za-z]:\\|~/|/)[\w.\-]+(?:[/\\][\w.\-]+)+"  # a path: /home/maria/lease.docx
    r"|\b[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+\b"  # a name in camel case: FaqEntry, PepsiCo
    r"|\b[A-Za-z]+[_\-]?\d[\w\-]*\b|\b(?:[A-Z][\w\-]+\s)+[A-Z][\w\-]+\b"
)


# one thing under two names, the second in brackets: "PepsiCo (PEP)", "Auckland (Pacific/Auckland)"
_NAME = r"[A-Z][\w.'&\-]*(?:\s(?:(?:of|the|de|and|&)\s)?[A-Z][\w.'&\-]*){0,3}"
_LEAD = re.compile(r"^(?:(?:it's|the|a|an|this|that|in|on|for|at|my|our|and|but|so|also|of|de)\s+)+", re.I)
_PAIR = re.compile(rf"({_NAME}) \(([^()\s,;]{{2,40}}|[A-Z0-9][\w.'&\-]*(?: [A-Z0-9][\w.'&\-]*){{1,3}})\)")


def ordinal(i: int) -> str:
    return _ORDINALS[i] if 0 <= i < len(_ORDINALS) else f"#{i + 1}"


def _singular(key: str) -> str:
    if key.lower() in _GENERIC_LISTS:
        return "hit"
    w = (words(key) or [key])[-1]
    if w.endswith("ies"):
        return w[:-3] + "y"
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


@dataclass(frozen=True)
class Seen:
    """One scalar of the conversation and where it is."""

    value: Any
    tool: str  # the tool whose result or call holds it ("" for the user)
    kind: str  # "result", "call" or "user"
    path: tuple[str | int, ...]  # inside the result or the call's arguments
    text: str = ""  # the user's words around a number

    @property
    def key(self) -> str:
        return next((str(p) for p in reversed(self.path) if isinstance(p, str)), "")

    def describe(self) -> str:
        """ "the second location in the search_locations_tool result", "'query' of the earlier ..."."""
        if self.kind == "user" and self.text == self.value:
            return "which the user mentioned for something else"
        if self.kind == "user":
            return f"the number the user gave in '{self.text}'"
        if self.kind == "call":
            return f"the '{self.key}' of the earlier {self.tool} call"
        index = next((i for i, p in enumerate(self.path) if isinstance(p, int)), None)
        if index is not None and index > 0 and isinstance(self.path[index - 1], str):
            noun = _singular(str(self.path[index - 1]))
            key = self.key
            field = (
                "the "
                if key == self.path[index - 1]
                else f"the {key} of the "
                if key.isalpha() and key.islower()
                else f"'{key}' of the "
            )
            return f"{field}{ordinal(int(self.path[index]))} {noun} in the {self.tool} result"
        key = self.key
        return (
            f"the {key} in the {self.tool} result"
            if key.isalpha() and key.islower()
            else f"the '{key}' in the {self.tool} result"
        )


def _walk(data: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _walk(v, path + (str(k),))
    elif isinstance(data, list):
        for i, v in enumerate(data[:20]):
            yield from _walk(v, path + (i,))
    elif data is not None:
        yield path, data


def shape(value: Any) -> tuple[Any, ...]:
    """What makes two strings pass for each other: spaces, digits, URL, email, length class."""
    if not isinstance(value, str):
        return (json_type(value),)
    v = value.strip()
    return (
        "string",
        " " in v,
        bool(re.search(r"\d", v)),
        "://" in v,
        "@" in v,
        len(v) > 40,
        v[:1].isupper(),
        "/" in v or "\\" in v,  # a path or a slug with a slash: 'mp4' does not pass for one
    )


class Scalars:
    """Every scalar of the conversation before a call, with where it came from."""

    def __init__(self, history: Sequence[Message]):
        names = {call.id: call.name for m in history for call in m.tool_calls}
        self.seen: list[Seen] = []
        self.pairs: list[tuple[str, str]] = []  # (a name, the other name the user gave the same thing)
        for m in history:
            for call in m.tool_calls:
                self.seen += [Seen(v, call.name, "call", p) for p, v in _walk(call.arguments, ())]
            if m.role == "tool":
                try:
                    data = json.loads(m.content or "")
                except ValueError:
                    continue
                tool = names.get(m.tool_call_id or "", "earlier tool")
                self.seen += [Seen(v, tool, "result", p) for p, v in _walk(data, ())]
            if m.role == "user":
                for found in _PAIR.finditer(m.content or ""):
                    name, other = (_LEAD.sub("", g) for g in found.groups())
                    if name and other:
                        self.pairs += [(name, other), (other, name)]
                for found in _TOKEN.finditer(m.content or ""):  # URLs, emails, ids, quoted, Names
                    token = found.group(0).strip("'\"").rstrip(".")
                    self.seen.append(Seen(token, "", "user", (), token))
                for clause in re.split(r"[;!?\n]|[.,]\s", m.content or ""):
                    for found in _NUMBER.finditer(clause):
                        n = float(found.group(1))
                        text = " ".join(clause.split())
                        self.seen.append(
                            Seen(
                                int(n) if n.is_integer() else n,
                                "",
                                "user",
                                (),
                                text if len(text) <= 60 else text[:57] + "...",
                            )
                        )

    def values(self) -> list[Any]:
        return [s.value for s in self.seen]

    def siblings(self, gold: Any) -> Iterator[tuple[Any, Seen, Seen]]:
        """Other items of a result list where the gold value sits: (value, where, where gold is)."""
        for at in self.seen:
            if at.kind != "result" or not same_value(at.value, gold):
                continue
            for i, p in enumerate(at.path):
                if not isinstance(p, int):
                    continue
                for other in self.seen:
                    o = other.path
                    if (
                        other.kind == "result"
                        and other.tool == at.tool
                        and len(o) == len(at.path)
                        and o[:i] == at.path[:i]
                        and o[i + 1 :] == at.path[i + 1 :]
                        and o[i] != p
                        and not same_value(other.value, gold)
                    ):
                        yield other.value, other, at

    def others(self, name: str, gold: Any, arguments: dict[str, Any]) -> Iterator[tuple[Any, str]]:
        """Values of the gold's kind the conversation holds for another purpose, with their origin.

        The other name the user gave the same thing comes first ("PepsiCo (PEP)"), then the call's other
        arguments, then earlier calls' arguments and result fields
        named like the parameter, then any result field or user number of the same shape.
        """
        kind, name_words = shape(gold), set(words(name))
        for one, other in self.pairs:  # "PepsiCo" for PEP: the user named it both ways
            if same_value(one, gold) and not same_value(other, gold):
                yield other, f"the name the user gave beside {show(gold)}"
        for k, v in arguments.items():
            if k != name and shape(v) == kind and not same_value(v, gold):
                yield v, f"the value meant for '{k}'"
        ranked: list[tuple[int, int, Any, str]] = []
        for n, s in enumerate(self.seen):
            if shape(s.value) != kind or same_value(s.value, gold):
                continue
            named = bool(set(words(s.key)) & name_words) or s.key == name
            ranked.append((0 if named else 1 + (s.kind == "user"), n, s.value, s.describe()))
        for _, _, v, why in sorted(ranked, key=lambda r: r[:2]):
            yield v, why


def sibling_reason(param: str, new: Any, where: Seen, gold_at: Seen, gold: Any, user_said: bool) -> str:
    """ "'city' is 'Porto Alegre', the second location in the search_locations_tool result; ..."."""
    index = next((p for p in gold_at.path if isinstance(p, int)), 0)
    first = ordinal(int(index))
    tail = (
        f"the user asked for {show(gold)}, the {first}" if user_said else f"the call needed the {first}, {show(gold)}"
    )
    return f"'{param}' is {show(new)}, {where.describe()}; {tail}."
