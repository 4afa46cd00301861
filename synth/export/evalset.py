"""The eval output: one item per gold call of a test conversation (Foundry's layout), then one per turn whose
right move is no call (ask, decline, answer)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from synth.messages import ToolNames, openai_call, openai_messages, openai_tool
from synth.records import Conversation, ServerSpec
from synth.rundir import CHAT
from synth.rundir.output import Accepted


def rows(item: Accepted) -> Iterable[dict[str, Any]]:
    """The eval items of a conversation of the test split (the train and valid ones are chat lines)."""
    return () if item.split in CHAT else eval_items(item.conv, item.server, item.names)


def eval_items(conv: Conversation, server: ServerSpec, names: ToolNames) -> Iterable[dict[str, Any]]:
    """One item per gold call: the conversation before it, the tools, and the expected call; then one per
    decision turn (ask, decline, answer) whose expected output is no call (``decision_items``)."""
    yield from _call_items(conv, server, names)
    yield from decision_items(conv, server, names)


def decision_items(conv: Conversation, server: ServerSpec, names: ToolNames) -> Iterable[dict[str, Any]]:
    """One item per turn whose right move is no call, in Foundry's layout: ``expected_output`` has no
    ``tool_calls`` and, as ``content``, what the gold assistant said; ``metadata.decision`` names the move.
    synth's grader scores any text 1.0 on it and any call 0.0 (``unnecessary_call``)."""
    rename = lambda n: names(server.id, n)  # noqa: E731
    tools = [openai_tool(t, rename(t.name)) for t in server.tools if t.name in conv.tools]
    for d in conv.decisions or ():
        yield {
            "item": {
                "messages": openai_messages(conv.messages[: d.message], rename),
                "tools": tools,
                "expected_output": {"role": "assistant", "content": conv.messages[d.message].content, "tool_calls": []},
                "metadata": {
                    "id": f"{conv.id}:m{d.message}",
                    "conversation_id": conv.id,
                    "decision": d.kind,
                    "server": server.id,
                    "tool": NO_CALL,
                    "split": conv.split,
                    **({"author": conv.author} if conv.author else {}),
                    "tool_errors": [m.tool_call_id for m in conv.messages[: d.message] if m.is_error],
                },
            }
        }


NO_CALL = "(no call)"  # the tool column of an item whose right move is no call


def _call_items(conv: Conversation, server: ServerSpec, names: ToolNames) -> Iterable[dict[str, Any]]:
    rename = lambda n: names(server.id, n)  # noqa: E731
    tools = [openai_tool(t, rename(t.name)) for t in server.tools if t.name in conv.tools]
    index = 0
    for position, message in enumerate(conv.messages):
        for call in message.tool_calls:
            # the turn's other gold calls: a model that makes them too, in parallel, is not scored down
            parallel = [openai_call(c, rename(c.name)) for c in message.tool_calls if c.id != call.id]
            yield {
                "item": {
                    "messages": openai_messages(conv.messages[:position], rename),
                    "tools": tools,
                    "expected_output": {"role": "assistant", "tool_calls": [openai_call(call, rename(call.name))]},
                    "metadata": {
                        "id": f"{conv.id}:{index}",
                        "conversation_id": conv.id,
                        "call_index": index,
                        "server": server.id,
                        "tool": call.name,
                        "split": conv.split,
                        "parallel_calls": parallel,
                        **({"author": conv.author} if conv.author else {}),
                        # the calls before this one whose results were errors (the server's isError)
                        "tool_errors": [m.tool_call_id for m in conv.messages[:position] if m.is_error],
                    },
                }
            }
            index += 1
