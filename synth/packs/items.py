"""A goal's answer, written from the items it asks for.

"Give me its fee history: week, month and all time" asks three things; the answer says each of them from
the result, or why not ("the result gives no figure for month"), so it cannot drop one. A verdict item
("is it maintained?") says yes or no from a test on the result, with the figure that decides it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from synth.packs.model import Goal, Item
from synth.packs.template import Missing, fill, get_path

_TEST = re.compile(r"^\s*([\w.\-$:]+)\s*(<=|>=|==|!=|<|>|\bhas\b)\s*(.+?)\s*$")
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "has": lambda a, b: str(b).lower() in str(a).lower(),  # 'r.stops has Mong Kok': a list or text holding it
}


def parse_tests(test: str) -> list[tuple[str, str, str]]:
    """Every test of a verdict's ``when`` ('a >= 1 and b < 2'); ValueError when one is not 'SLOT OP VALUE'."""
    return [parse_test(part) for part in test.split(" and ")]


def parse_test(test: str) -> tuple[str, str, str]:
    """``'r.0.created_at >= 2025-11-01'`` -> (slot, operator, value); ValueError when it is not one."""
    m = _TEST.match(test)
    if m is None:
        raise ValueError(f"{test!r} is not 'SLOT OP VALUE' (OP one of < <= > >= == != has)")
    return m.group(1), m.group(2), m.group(3).strip("'\"")


def _operand(slot: str, args: dict[str, Any], result: Any) -> Any:
    value = get_path(result, slot[2:]) if slot.startswith("r.") else args.get(slot)
    if value is None:
        raise Missing(slot)
    return value


def holds(test: str, args: dict[str, Any], result: Any) -> bool:
    """Whether a verdict's test holds on the call's arguments and result: a slot against a value or another
    slot ('r.-1.tvl > r.0.tvl'), tests joined by ' and ' all holding; numbers compare as numbers, anything
    else as text (ISO dates and times in order). Missing when a slot is not there."""
    return all(_holds(part, args, result) for part in test.split(" and "))


def _holds(test: str, args: dict[str, Any], result: Any) -> bool:
    slot, op, value = parse_test(test)
    left = _operand(slot, args, result)
    if value.startswith("r.") or value in args:
        value = _operand(value, args, result)
    if op == "has":
        return _OPS[op](json.dumps(left, ensure_ascii=False) if not isinstance(left, str) else left, value)
    try:
        return _OPS[op](float(left), float(value))
    except (TypeError, ValueError):
        return _OPS[op](str(left), value)


def said(item: Item, lookup: Callable[[str], str], args: dict[str, Any], result: Any) -> str:
    """One item in the answer's words: from the result, or why not."""
    try:
        text = item.say
        if item.when is not None and not holds(item.when, args, result):
            text = item.otherwise or item.say
        return fill(text, lookup)
    except Missing:
        return item.missing or f"the result gives no figure for {item.ask}"


def joined(parts: list[str]) -> str:
    """Items one after another: sentences as they are, phrases as a list ("a, b and c"); when some are
    sentences, each is said as one."""
    ends = [p.rstrip().endswith((".", "!", "?")) for p in parts]
    if any(ends):  # each a sentence; the ones after the first open with a capital ('(27 April). The top of ...')
        said = [p if end else p.rstrip().rstrip(",;") + "." for p, end in zip(parts, ends)]
        return " ".join([said[0], *(p[:1].upper() + p[1:] for p in said[1:])])
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def answer(goal: Goal, lookup: Callable[[str], str], args: dict[str, Any], result: Any) -> str:
    """The answer to ``goal``: its frame (``goal.answer``) with every item said in it."""
    items = joined([said(item, lookup, args, result) for item in goal.items])
    frame = goal.answer or "{items}"
    text = fill(frame, lambda slot: items if slot == "items" else lookup(slot))
    text = _DOUBLED.sub(r"\1", text[:1].upper() + text[1:])  # 'note: it says: 25 off.' + the frame's '.'
    return text if ENDED.search(text) else text.rstrip() + "."


# a sentence's end, closing quotes and brackets after it allowed ('...(20 December 2013)' is not one: another
# answer after it would run on)
ENDED = re.compile(r"[.!?][\"'”’)\]]*\s*$")
_BLOCK = re.compile(
    r"(?:^|\n)(?:[ │└]|```)[^\n]*$|(?:^|\n)\S*(?:\s\S*)?\s*$"
)  # a tree, a file, a last line of 1-2 words
_DOUBLED = re.compile(r"(?<![.])([.!?])\.(?![.])")


def ended(answer: str) -> str:
    """An answer another follows in one message, ending as a sentence does ("... saved as PMID_1.pdf" then "Here
    are" ran on); a block (a file, a tree) and a line ending in a colon or semicolon end as they are."""
    text = answer.rstrip()
    block = "\n" in text and _BLOCK.search(text) is not None
    return answer if not text or block or ENDED.search(text) or text.endswith((":", ";", "…")) else text + "."
