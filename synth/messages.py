"""Synth's message records in OpenAI's chat shape: the one message format of the agents and the exports.

OpenAI function names must match ``^[a-zA-Z0-9_-]{1,64}$``; MCP names may hold dots,
spaces or CJK. ``ToolNames`` renames what it must, keeps names unique per server and
records the mapping for the manifest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from synth.records import Message, ServerSpec, ToolCall, ToolSpec, content_hash

_VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class ToolNames:
    """MCP tool name -> OpenAI-valid function name, per server."""

    def __init__(self, servers: Iterable[ServerSpec]):
        self.by_server: dict[str, dict[str, str]] = {}
        for server in servers:
            taken: set[str] = set()
            mapping: dict[str, str] = {}
            for tool in server.tools:
                safe = tool.name if _VALID.match(tool.name) else _sanitise(tool.name)
                if safe in taken:
                    safe = f"{safe[:55]}_{content_hash(tool.name, 8)}"
                taken.add(safe)
                mapping[tool.name] = safe
            self.by_server[server.id] = mapping

    def __call__(self, server: str, name: str) -> str:
        return self.by_server.get(server, {}).get(name) or _sanitise(name)

    def renamed(self) -> dict[str, dict[str, str]]:
        """Only the names that changed, for the manifest."""
        out = {}
        for server, mapping in sorted(self.by_server.items()):
            changed = {k: v for k, v in mapping.items() if k != v}
            if changed:
                out[server] = changed
        return out


def _sanitise(name: str) -> str:
    safe = re.sub(r"[^a-zA-Z0-9_-]+", "_", name).strip("_")[:64]
    if not safe or len(safe) < len(name) / 2:  # mostly non-Latin: keep a stable, readable stub
        safe = f"{safe[:40]}_{content_hash(name, 8)}".strip("_") if safe else f"tool_{content_hash(name, 8)}"
    return safe


def openai_tool(tool: ToolSpec, name: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": tool.description, "parameters": tool.input_schema},
    }


def openai_call(call: ToolCall, name: str) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
    }


def openai_messages(messages: Iterable[Message], rename) -> list[dict[str, Any]]:
    """Records -> OpenAI chat messages; ``rename`` maps an MCP tool name to the exported one."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content or ""})
        elif m.tool_calls:
            line: dict[str, Any] = {"role": "assistant"}
            if m.content:
                line["content"] = m.content
            line["tool_calls"] = [openai_call(c, rename(c.name)) for c in m.tool_calls]
            out.append(line)
        else:
            out.append({"role": m.role, "content": m.content or ""})
    return out
