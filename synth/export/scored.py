"""The scored output: each scored call (the gold call and its negatives) in the limbic layout, plus what a
judge-builder needs to trace them. The review queue reads the same rows (``rows``, made once a conversation)."""

from __future__ import annotations

import json
from typing import Any

from synth.messages import openai_messages
from synth.records import ScoredCall, ServerSpec, ToolCall
from synth.rundir.output import Accepted


def rows(item: Accepted) -> list[dict[str, Any]]:
    """A conversation's scored rows (with its author, when it has one), made once however many ask."""

    def make() -> list[dict[str, Any]]:
        made = (scored_line(r, item.server, item.conv.tools, item.split, tools(item)) for r in item.scored)
        return [{**row, "author": item.conv.author} if item.conv.author else row for row in made]

    return item.shared("scored", make)


def tools(item: Accepted) -> list[dict[str, Any]]:
    """The tools a conversation offered, in the limbic spelling: one list for all its scored and decision rows."""
    return item.shared("tools", lambda: available_tools(item.server, item.conv.tools))


def call_row(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
    }


def available_tools(server: ServerSpec, offered: tuple[str, ...]) -> list[dict[str, Any]]:
    """The tools a scored row offers, in the limbic spelling (one list can serve every row of a conversation)."""
    return [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in server.tools
        if t.name in offered
    ]


def scored_line(
    record: ScoredCall,
    server: ServerSpec,
    offered: tuple[str, ...],
    split: str,
    tools: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One limbic-style row. Tool names stay as the MCP server spells them; ``tools``: the offered tools'
    list (``available_tools``) when the caller made it once for several rows."""
    return {
        "id": record.id,
        "conversation_id": record.conversation_id,
        "call_index": record.call_index,
        "server": record.server,
        "split": split,
        "available_tools": available_tools(server, offered) if tools is None else tools,
        "message_history": openai_messages(record.history, lambda n: n),
        "tool_call": call_row(record.tool_call),
        "score": record.score,
        "subtype": record.subtype,
        "failure_reason": record.failure_reason,
        "gold_call": call_row(record.gold_call),
    }
