"""The preference output: preference pairs (TRL's conversational layout) from every labelled negative and every
decision. Off unless asked for (``--outputs ...,preference``: ``preference.jsonl``); ``synth export --format dpo``
makes the same pairs from any run's scored and decision rows.

A preference pair is one row ``{"prompt": [messages], "chosen": [assistant message], "rejected": [assistant
message], "tools": [OpenAI tools]}``, TRL's explicit-prompt conversational preference type with its
``tools`` column (docs: huggingface.co/docs/trl/dataset_formats): from a scored negative, chosen is the gold
call and rejected the negative; from a decision, chosen is what the assistant said and rejected the call.
The negative's ``label`` and ``subtype`` are kept beside them.
"""

from __future__ import annotations

from typing import Any

from synth.export import decisions, scored
from synth.rundir.names import PREFERENCE as PREFERENCE  # named with the run's other files
from synth.rundir.output import Accepted


def rows(item: Accepted) -> list[dict[str, Any]]:
    """A conversation's pairs: its scored negatives', then its decisions'."""
    return [p for row in (*scored.rows(item), *decisions.rows(item)) if (p := pair(row)) is not None]


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
        **({"author": row["author"]} if row.get("author") else {}),  # "fallback": no pack wrote it (issue 39)
    }
