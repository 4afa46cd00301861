"""The gate on turns whose right move is no call (synth.records.Decision), beside the call gates.

Each decision must be an assistant message in words, with no call, answering a user message; an answer
from context must state a value that an earlier tool result holds (else it was not from context); a
conversation may go without any call only when it is a decline. Call conversations keep every gate.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from synth.grade import text_decision
from synth.records import Decision, Message, Trajectory


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _from_results(text: str, earlier: list[Message]) -> bool:
    """Whether ``text`` states a value (a string of two characters or more, or a number) of an earlier result."""
    for m in earlier:
        if m.role != "tool":
            continue
        try:
            data = json.loads(m.content or "")
        except ValueError:
            continue
        for value in _leaves(data):
            if isinstance(value, bool) or value is None:
                continue
            said = str(value)
            if (isinstance(value, (int, float)) or len(said) >= 2) and said in text:
                return True
    return False


def problem(decision: Decision, messages: tuple[Message, ...]) -> str | None:
    """What is wrong with one decision turn, in words, or None."""
    at = decision.message
    if not 0 < at < len(messages):
        return f"{decision.kind} at message {at}: no such message"
    message, before = messages[at], messages[at - 1]
    if message.role != "assistant" or message.tool_calls or not (message.content or "").strip():
        return f"{decision.kind} at message {at}: not an assistant message in words without a call"
    if before.role != "user" and not (decision.kind == "ask" and before.role == "tool"):  # ask after a result
        return f"{decision.kind} at message {at}: does not answer a user message"
    if decision.kind == "answer" and not _from_results(message.content or "", list(messages[:at])):
        return f"answer at message {at}: states no value of an earlier tool result"
    if decision.kind == "decline" and text_decision(message.content) != "decline":
        return f"decline at message {at}: does not say it cannot do what was asked"
    return None


def problems(trajectory: Trajectory) -> list[str]:
    """Every decision's problem, and a conversation without a call that is not a decline."""
    decisions = trajectory.decisions or ()
    out = [p for d in decisions if (p := problem(d, trajectory.messages)) is not None]
    if not trajectory.calls and not any(d.kind == "decline" for d in decisions):
        out.append("no tool calls")
    return out
