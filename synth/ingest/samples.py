"""What every line format of ``synth.ingest.formats`` reads into (``Sample``), and the pieces they share:
roles, Hermes tags, loose JSON, a call's arguments and a Hermes call body."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

from synth.ingest.spans import members, skip
from synth.records import Message, ToolCall, ToolSpec

# Each format's role names -> the OpenAI role.
OPENAI_ROLE = {
    **dict.fromkeys(("system", "developer"), "system"),
    **dict.fromkeys(("user", "human"), "user"),
    **dict.fromkeys(("assistant", "gpt", "model"), "assistant"),
    **dict.fromkeys(("tool", "function", "observation", "function_response", "ipython"), "tool"),
}
TAG = {
    name: re.compile(rf"<{name}>\s*(.*?)\s*</{name}>", re.DOTALL) for name in ("tool_call", "tool_response", "tools")
}


@dataclass(frozen=True)
class Sample:
    """One readable line: records for the gates, and OpenAI chat JSON text for the exports."""

    line: int
    format: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    chat: tuple[str, ...]  # each message as OpenAI chat JSON text
    tools_json: str  # the tools array as OpenAI JSON text
    calls: tuple[tuple[int, str], ...]  # (index of its message, the call as JSON text), in call order
    call_flags: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # call index -> problems found reading it
    problems: tuple[str, ...] = ()  # about the line's tools (unusable schemas), not about a call


@dataclass
class Reading:
    """A Sample as it is read, message by message: records, chat text, calls, and what reading a call found."""

    messages: list[Message] = field(default_factory=list)
    chat: list[str] = field(default_factory=list)
    calls: list[tuple[int, str]] = field(default_factory=list)
    flags: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def call(self, position: int, text: str, problem: list[dict[str, Any]]) -> None:
        """The next call, as JSON text, in the message at ``position``; its problems flag it."""
        if problem:
            self.flags[len(self.calls)] = problem
        self.calls.append((position, text))

    def sample(
        self, number: int, format: str, tools: tuple[ToolSpec, ...], tools_json: str, problems: list[str]
    ) -> Sample:
        return Sample(
            number,
            format,
            tuple(self.messages),
            tools,
            tuple(self.chat),
            tools_json,
            tuple(self.calls),
            self.flags,
            tuple(problems),
        )


# --- reading a value that may be a JSON string, Python literal, or a structure ---------------


def loose(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        pass
    try:
        return ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"not JSON: {value[:60]!r}") from None


def text_of(content: Any) -> str | None:
    if isinstance(content, list):  # content parts: keep the text
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) or content is None else json.dumps(content, ensure_ascii=False)


def arguments(raw: Any, name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A call's arguments as an object for the gates, and a flag when they are not one."""
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}, _not_an_object(raw, f"the arguments of {name} are not JSON")
    if parsed is None or parsed == "":
        return {}, []
    if not isinstance(parsed, dict):
        return {}, _not_an_object(parsed, f"the arguments of {name} are not a JSON object")
    return parsed, []


def _not_an_object(value: Any, why: str) -> list[dict[str, Any]]:
    return [{"gate": "schema_valid", "argument": None, "pointer": "", "value": value, "why": why}]


def call_text(block: str, position: int, k: int) -> tuple[ToolCall, str, list[dict[str, Any]]]:
    """One Hermes ``<tool_call>`` body (or a function_call turn) as a ToolCall and OpenAI call text,
    the arguments cut from the body as written."""
    data = loose(block)
    if not isinstance(data, dict) or not data.get("name"):
        raise ValueError(f'a tool call is not {{"name", "arguments"}}: {block[:60]!r}')
    raw = data.get("arguments", data.get("parameters", {}))
    if isinstance(raw, str):
        args_text = raw
    else:
        try:  # the object as written, when the body is JSON
            spans = members(block, skip(block, 0))
            key = "arguments" if "arguments" in spans else "parameters"
            args_text = block[slice(*spans[key])] if key in spans else json.dumps(raw, ensure_ascii=False)
        except (ValueError, IndexError):
            args_text = json.dumps(raw, ensure_ascii=False)
    args, flags = arguments(raw, str(data["name"]))
    call = ToolCall(id=f"call_{position}_{k}", name=str(data["name"]), arguments=args)
    text = json.dumps(
        {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": args_text}}, ensure_ascii=False
    )
    return call, text, flags
