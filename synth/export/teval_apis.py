"""A server as T-Eval sees it: tool names (``Server.tool``), API descriptions, a conversation's plan steps and
its history in T-Eval's roles (``synth.export.teval`` writes the subsets from these)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from synth.records import Conversation, Message, ServerSpec, ToolCall, ToolSpec
from synth.wording import intent


def _slug(server_name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.findall(r"[A-Za-z0-9]+", server_name)) or "Server"


@lru_cache(maxsize=256)
def _tool_names(server_name: str, tools: tuple[str, ...]) -> dict[str, str]:
    """Each tool's T-Eval name: ``Slug.tool`` with every non-word character of the tool made ``_``
    (T-Eval finds names with ``\\w+\\.\\w+``), kept unique within the server."""
    slug, out, taken = _slug(server_name), {}, set()
    for tool in tools:
        base = re.sub(r"\W+", "_", tool).strip("_") or "tool"
        name, n = f"{slug}.{base}", 2
        while name in taken or name == f"{slug}.FinishAction":
            name, n = f"{slug}.{base}_{n}", n + 1
        out[tool] = name
        taken.add(name)
    return out


def api_name(server: ServerSpec, tool: str) -> str:
    """The tool's T-Eval name, ``Server.tool`` (a tool the server does not list gets one of its own)."""
    names = _tool_names(server.name, tuple(t.name for t in server.tools))
    return names.get(tool) or _tool_names(server.name, (tool,))[tool]


def api_list(names: list[str]) -> list[str]:
    """The names in an order where none comes after a name it is a prefix of (longest first, else
    as given): T-Eval gives a str plan step the first listed name among those found earliest."""
    return sorted(dict.fromkeys(names), key=len, reverse=True)


def plan_steps(conv: Conversation) -> list[tuple[ToolCall, list[int]]]:
    """The plan's steps: each distinct call once (a call repeated with the same arguments, a retry,
    is one step: T-Eval cannot tell two equal steps apart and may match them crosswise), with the
    steps it depends on: the plan's own dependencies when the plan is the calls made, and any earlier
    step whose result holds one of this call's argument values that the user did not give."""
    calls = conv.calls
    results = {m.tool_call_id: m.content or "" for m in conv.messages if m.role == "tool"}
    said = " ".join(m.content or "" for m in conv.messages if m.role == "user")
    planned = [s.tool for s in conv.plan.steps] == [c.name for c in calls]
    step_of: dict[int, int] = {}  # call index -> step index
    firsts: dict[str, int] = {}
    steps: list[tuple[ToolCall, set[int]]] = []
    for i, call in enumerate(calls):
        deps = {d for d in conv.plan.steps[i].depends_on if 0 <= d < i} if planned else set()
        values = [v for v in _leaves(call.arguments) if v not in said]
        deps |= {j for j in range(i) if any(v in results.get(calls[j].id, "") for v in values)}
        same = json.dumps([call.name, call.arguments], sort_keys=True, ensure_ascii=False)
        if same not in firsts:
            firsts[same] = len(steps)
            steps.append((call, set()))
        step_of[i] = firsts[same]
        steps[step_of[i]][1].update(
            step_of[d] for d in deps if step_of[d] < step_of[i]
        )  # a repeat keeps its first place
    return [(call, sorted(deps)) for call, deps in steps]


def _leaves(value: Any) -> list[str]:
    """The values of arguments that can carry a result into a call: names, ids and numbers long
    enough not to be there by chance (not flags, small counts or sentences)."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [str(value)] if len(str(value)) >= 5 else []
    text = str(value)
    return [text] if len(text) >= 4 and len(text.split()) <= 6 else []


def api(server: ServerSpec, tool: ToolSpec) -> dict[str, Any]:
    """A tool described the way T-Eval's api_descrip.json describes one."""

    def params(names: list[str]) -> list[dict[str, Any]]:
        out = []
        for n in names:
            s = tool.properties.get(n) or {}
            out.append(
                {
                    "name": n,
                    "type": str(s.get("type", "any")).upper(),
                    "description": str(s.get("description", ""))[:200],
                }
            )
        return out

    required = [n for n in tool.properties if n in tool.required]
    return {
        "name": api_name(server, tool.name),
        "description": tool.description[:500],
        "required_parameters": params(required),
        "optional_parameters": params([n for n in tool.properties if n not in required]),
        "return_data": [],
    }


def api_text(server: ServerSpec, conv: Conversation) -> str:
    """The conversation's tools, described as T-Eval describes APIs, as JSON text."""
    return json.dumps([api(server, t) for t in server.tools if t.name in conv.tools], ensure_ascii=False)


def teval_history(server: ServerSpec, messages: tuple[Message, ...]) -> list[dict[str, str]]:
    """A conversation in T-Eval's roles: calls as name/args text, tool results as function responses."""
    out = []
    for m in messages:
        if m.role in ("system",):
            continue
        if m.tool_calls:
            text = "\n".join(
                f"name: {api_name(server, c.name)}\nargs: {json.dumps(c.arguments, ensure_ascii=False)}"
                for c in m.tool_calls
            )
            out.append({"role": "assistant", "content": text})
        elif m.role == "tool":
            out.append({"role": "user", "content": f"Response: {m.content or ''}"})
        else:
            out.append({"role": m.role, "content": m.content or ""})
    return out


def thought(tool: ToolSpec) -> str:
    """The thought before a call, as a T-Eval answer gives it."""
    return f"I need to {intent(tool)}."
