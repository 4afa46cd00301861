"""What a person may edit in a queued item, and the checks an edit must pass before it is kept.

A conversation is edited as ``{"messages": [...]}`` (synth's message records: tool calls with
object arguments, MCP tool names); a scored call as ``{"tool_call": {"name", "arguments"}, "score",
"subtype", "failure_reason"}``. An edit that does not parse, has the wrong shape, breaks the
conversation's structure, fails the gates, or carries a label the grader disagrees with is refused
with a message that says what to fix.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from synth.grade import classify
from synth.records import (
    LABELS,
    Conversation,
    Message,
    ServerSpec,
    ToolCall,
    Trajectory,
    conversation_id,
    make_id,
)
from synth.review.queue import QueueItem
from synth.scenarios.made import chained, made
from synth.stages import gates


class EditError(ValueError):
    """An edit that cannot be kept; the message says why and how to fix it."""


def editable(item: QueueItem) -> dict[str, Any]:
    """The JSON a person edits for this item."""
    if item.kind == "conversation":
        conv = Conversation.model_validate(item.record)
        messages = []
        for m in conv.messages:
            line = m.to_json()
            if not line.get("tool_calls"):
                line.pop("tool_calls", None)
            messages.append(line)
        return {"messages": messages}
    row = item.record
    fn = row["tool_call"]["function"]
    return {
        "tool_call": {"name": fn["name"], "arguments": json.loads(fn["arguments"])},
        "score": row["score"],
        "subtype": row["subtype"],
        "failure_reason": row["failure_reason"],
    }


def parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise EditError(f"the edit is not valid JSON ({exc}); fix it or press s to skip the item") from None


def _pydantic(exc: ValidationError, prefix: str) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{prefix}{where}: {first['msg']}" if where else f"{prefix}{first['msg']}"


def check_messages(edited: Any, server: ServerSpec) -> tuple[Message, ...]:
    """The edited messages as records, once they have a conversation's shape and pass the gates."""
    if not isinstance(edited, dict) or set(edited) != {"messages"} or not isinstance(edited["messages"], list):
        raise EditError('a conversation edit must be a JSON object {"messages": [...]} and nothing else')
    messages = []
    for i, raw in enumerate(edited["messages"]):
        try:
            messages.append(Message.model_validate(raw))
        except ValidationError as exc:
            raise EditError(_pydantic(exc, f"messages[{i}].")) from None
    first = next((m for m in messages if m.role != "system"), None)
    if first is None or first.role != "user":
        raise EditError("the conversation must start (after any system message) with a user message")
    if messages[-1].role != "assistant" or not messages[-1].content or messages[-1].tool_calls:
        raise EditError("the conversation must end with the assistant's answer in text, after the tool results")
    open_calls: dict[str, str] = {}
    seen: set[str] = set()
    for i, m in enumerate(messages):
        if m.role == "tool":
            if m.tool_call_id not in open_calls:
                raise EditError(
                    f"messages[{i}] is a tool result for {m.tool_call_id!r}, which no earlier tool call "
                    "made or which already has a result"
                )
            del open_calls[m.tool_call_id]
        for call in m.tool_calls:
            if m.role != "assistant":
                raise EditError(f"messages[{i}]: only the assistant calls tools")
            if call.id in seen:
                raise EditError(f"messages[{i}]: tool call id {call.id!r} is used twice")
            seen.add(call.id)
            open_calls[call.id] = call.name
    if open_calls:
        raise EditError(f"tool calls without a result: {', '.join(sorted(open_calls))}; add a tool message for each")
    if not seen:
        raise EditError("the conversation has no tool call left; reject the item instead")
    review = gates.review(Trajectory(id="edit", scenario_id="edit", messages=tuple(messages)), server)
    if review.verdict != "accept":
        raise EditError("the edit fails the gates: " + "; ".join(review.reasons))
    return tuple(messages)


def edited_conversation(
    conv: Conversation, messages: tuple[Message, ...], server: ServerSpec, reviewer: str | None
) -> Conversation:
    """The conversation with a person's messages: new id, re-run gates, plan and request from the calls,
    the same split as the original (an edit never moves an item across splits)."""
    calls = [c for m in messages for c in m.tool_calls]
    request = next(m.content or "" for m in messages if m.role == "user")
    query, plan, trajectory = made(
        conv.scenario.id,
        request,
        chained([(c.name, c.arguments) for c in calls]),
        messages,
        withheld=conv.query.withheld,
        parent_id=conv.query.id,
    )
    query = conv.query if request == conv.query.text else query
    checked = gates.review(trajectory, server)
    review = checked.model_copy(
        update={
            "verdict": "accept",
            "step_labels": tuple("success" for _ in calls),
            "reasons": (f"edited by {reviewer or 'a person'} in synth review",),
        }
    )
    return Conversation(
        id=conversation_id(messages),
        scenario=conv.scenario,
        query=query,
        plan=plan,
        messages=messages,
        tools=conv.tools,
        review=review,
        split=conv.split,
    )


def check_scored(edited: Any, row: dict[str, Any], server: ServerSpec) -> dict[str, Any]:
    """The scored line with a person's call and label, once the grader agrees with the label."""
    keys = {"tool_call", "score", "subtype", "failure_reason"}
    if not isinstance(edited, dict) or set(edited) != keys:
        raise EditError(
            'a scored-call edit must be a JSON object with exactly "tool_call", "score", "subtype" and "failure_reason"'
        )
    call = edited["tool_call"]
    if not (
        isinstance(call, dict)
        and set(call) == {"name", "arguments"}
        and isinstance(call["name"], str)
        and isinstance(call["arguments"], dict)
    ):
        raise EditError('"tool_call" must be {"name": "<tool>", "arguments": {...}} with arguments as an object')
    score, subtype, reason = edited["score"], edited["subtype"], edited["failure_reason"]
    if score not in LABELS:
        raise EditError(f'"score" must be one of {", ".join(LABELS)}, not {score!r}')
    if not isinstance(subtype, str) or not subtype.strip():
        raise EditError('"subtype" must name the kind of error, e.g. "wrong_type" (or "gold" for a correct call)')
    if not isinstance(reason, str) or (score != "correct" and len(reason.strip()) < 10):
        raise EditError(
            '"failure_reason" must say what is wrong with the call, naming the parameter and what was expected'
        )
    gold_fn = row["gold_call"]["function"]
    gold = ToolCall(id=row["gold_call"]["id"], name=gold_fn["name"], arguments=json.loads(gold_fn["arguments"]))
    candidate = ToolCall(id=row["tool_call"]["id"], name=call["name"], arguments=call["arguments"])
    graded = classify(server.tool(gold.name), gold, candidate)
    if graded != score:
        raise EditError(f"the grader labels this call {graded}, not {score}: change the call or the score")
    new = dict(row)
    new["tool_call"] = {
        "id": candidate.id,
        "type": "function",
        "function": {"name": candidate.name, "arguments": json.dumps(candidate.arguments, ensure_ascii=False)},
    }
    new.update(score=score, subtype=subtype, failure_reason="" if score == "correct" else reason)
    new["id"] = make_id(
        "scored", row["conversation_id"], row["call_index"], score, subtype, candidate.name, candidate.arguments
    )
    return new


def check(item: QueueItem, edited: Any, server: ServerSpec) -> Any:
    """Refuse an edit that cannot be kept (EditError); return it as it will be stored in the queue."""
    if item.kind == "conversation":
        return {"messages": [m.to_json() for m in check_messages(edited, server)]}
    check_scored(edited, item.record, server)
    return edited
