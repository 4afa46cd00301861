"""Judge rows for the no-call decisions, and preference pairs (TRL's conversational layout) from every
labelled negative and every decision.

``scored_decisions.jsonl`` holds, for each turn whose right move is no call (synth.records.Decision), the call
a model might make there, labelled ``unnecessary_call`` (a decline or an answer from context) or
``guessed_value`` (a value made up where the assistant should have asked), in the limbic fields of
``scored.jsonl`` plus ``decision`` and ``gold_response`` (what the assistant rightly said). It is a file (and
a Hub config) of its own, so ``scored`` keeps limbic's four labels.

A preference pair is one row ``{"prompt": [messages], "chosen": [assistant message], "rejected": [assistant
message], "tools": [OpenAI tools]}``, TRL's explicit-prompt conversational preference type with its
``tools`` column (docs: huggingface.co/docs/trl/dataset_formats): from a scored negative, chosen is the gold
call and rejected the negative; from a decision, chosen is what the assistant said and rejected the call.
The negative's ``label`` and ``subtype`` are kept beside them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from synth.messages import openai_messages
from synth.records import Conversation, Decision, ToolCall

DECISION_LABELS = {"ask": "guessed_value", "decline": "unnecessary_call", "answer": "unnecessary_call"}


def _call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
    }


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
        "tool_call": _call(d.wrong),
        "score": DECISION_LABELS[d.kind],
        "subtype": d.kind,
        "failure_reason": d.why,
        "gold_response": {"role": "assistant", "content": conv.messages[d.message].content},
    }
    return {**row, "author": conv.author} if conv.author else row


def _openai_tools(available: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """limbic's ``available_tools`` as the OpenAI ``tools`` list chat templates (and TRL) take."""
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["input_schema"]},
        }
        for t in available
    ]


def pair(row: dict[str, Any]) -> dict[str, Any] | None:
    """The preference pair of one scored row (a negative: None for a correct one) or one decision row."""
    if row.get("score") == "correct":
        return None
    if "gold_response" in row:
        chosen = row["gold_response"]
    else:
        chosen = {"role": "assistant", "tool_calls": [row["gold_call"]]}
    return {
        "id": row["id"],
        "conversation_id": row["conversation_id"],
        "server": row["server"],
        "split": row["split"],
        "prompt": row["message_history"],
        "chosen": [chosen],
        "rejected": [{"role": "assistant", "tool_calls": [row["tool_call"]]}],
        "tools": _openai_tools(row["available_tools"]),
        "label": row["score"],
        "subtype": row["subtype"],
        "decision": row.get("decision", "call"),
        "failure_reason": row["failure_reason"],
    }
