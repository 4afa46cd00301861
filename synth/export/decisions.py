"""The decisions output: judge rows for the no-call decisions.

``scored_decisions.jsonl`` holds, for each turn whose right move is no call (synth.records.Decision), the call
a model might make there, labelled ``unnecessary_call`` (a decline or an answer from context) or
``guessed_value`` (a value made up where the assistant should have asked), in the limbic fields of
``scored.jsonl`` plus ``decision`` and ``gold_response`` (what the assistant rightly said). It is a file (and
a Hub config) of its own, so ``scored`` keeps limbic's four labels.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from synth.export import scored
from synth.messages import openai_messages
from synth.records import Conversation, Decision
from synth.rundir.output import Accepted

DECISION_LABELS = {"ask": "guessed_value", "decline": "unnecessary_call", "answer": "unnecessary_call"}


def rows(item: Accepted) -> list[dict[str, Any]]:
    """A conversation's judge rows, made once however many ask (the preference pairs read them too)."""
    return item.shared("decisions", lambda: list(decision_lines(item.conv, item.split, scored.tools(item))))


def decision_lines(conv: Conversation, split: str, tools: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """One judge row per decision of ``conv`` that has a wrong call (``tools``: the limbic tool list)."""
    for d in conv.decisions or ():
        if d.wrong is not None:
            yield decision_line(conv, d, split, tools)


def decision_line(conv: Conversation, d: Decision, split: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    assert d.wrong is not None
    row = {
        "id": f"{conv.id}:m{d.message}",
        "conversation_id": conv.id,
        "server": conv.server,
        "split": split,
        "decision": d.kind,
        "available_tools": tools,
        "message_history": openai_messages(conv.messages[: d.message], lambda n: n),
        "tool_call": scored.call_row(d.wrong),
        "score": DECISION_LABELS[d.kind],
        "subtype": d.kind,
        "failure_reason": d.why,
        "gold_response": {"role": "assistant", "content": conv.messages[d.message].content},
    }
    return {**row, "author": conv.author} if conv.author else row
