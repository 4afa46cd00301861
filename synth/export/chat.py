"""The train and valid outputs: OpenAI chat fine-tuning lines, one per conversation of the split.

The message format itself (``ToolNames``, ``openai_messages``) lives in synth.messages; it is
imported here too, so ``synth.export.chat`` keeps every name it had.
"""

from __future__ import annotations

from typing import Any

from synth.messages import ToolNames, openai_call, openai_messages, openai_tool
from synth.records import Conversation, ServerSpec
from synth.rundir.output import Rows

__all__ = ["ToolNames", "chat_line", "openai_call", "openai_messages", "openai_tool", "rows"]


def chat_line(conv: Conversation, server: ServerSpec, names: ToolNames) -> dict[str, Any]:
    """One fine-tuning example: the whole conversation and the tools offered."""
    rename = lambda n: names(server.id, n)  # noqa: E731
    tools = [openai_tool(t, rename(t.name)) for t in server.tools if t.name in conv.tools]
    return {"messages": openai_messages(conv.messages, rename), "tools": tools}


def rows(split: str) -> Rows:
    """The chat file of ``split`` (train or valid): each conversation of that split, as one fine-tuning line."""
    return lambda item: [chat_line(item.conv, item.server, item.names)] if item.split == split else []
