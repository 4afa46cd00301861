"""Tool-use files as people have them, read line by line into records, with the text as written.

Four line formats, detected per line and named in every report:

- ``openai``: OpenAI chat fine-tuning JSONL, ``{"messages": [...], "tools": [...]}`` (what
  ``synth generate`` writes as train.jsonl, what Foundry's demos use);
- ``openai-functions``: the same with the older top-level ``functions`` and ``function_call``
  assistant turns answered by ``function`` messages;
- ``sharegpt``: ``{"conversations": [{"from", "value"}]}`` with calls in Hermes ``<tool_call>`` tags
  (results in ``<tool_response>``, tools in the system turn's ``<tools>`` or a top-level ``tools``),
  or LLaMA-Factory's ``function_call``/``observation`` turns;
- ``apigen``: APIGen's ``{"query", "tools", "answers"}`` rows (tools and answers as JSON strings),
  one user turn and its parallel calls.

Each line gives a ``Sample``: Message and ToolSpec records for the gates, plus each message, the
tools and each call as OpenAI chat JSON *text*. For the OpenAI formats that text is cut out of the
line itself (JSON spans found with the standard decoder), so an export built from it keeps the
user's key order, spacing and ``arguments`` strings byte for byte (``synth.export.spans``); tool
definitions are read by ``synth.export.tool_defs``. Lives in export (not in the derive app) because the
dataset card reports the same audit figures.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.export.spans import elements, members, skip
from synth.export.tool_defs import openai_tools_json, tool_specs
from synth.records import Message, StageFailure, ToolCall, ToolSpec
from synth.rundir import inflater, lines

FORMATS = {
    "openai": "OpenAI chat JSONL with tools",
    "openai-functions": "OpenAI chat JSONL with functions (legacy)",
    "sharegpt": "ShareGPT conversations (Hermes <tool_call> tags)",
    "apigen": "APIGen {query, tools, answers} rows",
}
_ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "gpt": "assistant",
    "model": "assistant",
    "tool": "tool",
    "function": "tool",
    "observation": "tool",
    "function_response": "tool",
    "ipython": "tool",
}
_TAG = {
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


# --- reading a value that may be a JSON string, Python literal, or a structure ---------------


def _loose(value: Any) -> Any:
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


def _text(content: Any) -> str | None:
    if isinstance(content, list):  # content parts: keep the text
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) or content is None else json.dumps(content, ensure_ascii=False)


def _arguments(raw: Any, name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A call's arguments as an object for the gates, and a flag when they are not one."""
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}, [
            {
                "gate": "schema_valid",
                "argument": None,
                "pointer": "",
                "value": raw,
                "why": f"the arguments of {name} are not JSON",
            }
        ]
    if parsed is None or parsed == "":
        return {}, []
    if not isinstance(parsed, dict):
        return {}, [
            {
                "gate": "schema_valid",
                "argument": None,
                "pointer": "",
                "value": parsed,
                "why": f"the arguments of {name} are not a JSON object",
            }
        ]
    return parsed, []


# --- the formats -------------------------------------------------------------------------------


def _openai(text: str, data: dict[str, Any], number: int, server: str, where: str) -> Sample:
    top = members(text, skip(text, 0))
    if not isinstance(data.get("messages"), list) or not data["messages"]:
        raise ValueError("no messages")
    legacy = "tools" not in data and (
        "functions" in data or any(isinstance(m, dict) and "function_call" in m for m in data["messages"])
    )
    raw_tools = data.get("tools") if not legacy else data.get("functions")
    raw_tools = raw_tools if isinstance(raw_tools, list) else []
    if "tools" in top and isinstance(data.get("tools"), list):
        tools_json = text[slice(*top["tools"])]
    elif legacy and "functions" in top and isinstance(data.get("functions"), list):
        tools_json = (
            "["
            + ", ".join(
                '{"type": "function", "function": ' + text[s:e] + "}" for s, e in elements(text, top["functions"][0])
            )
            + "]"
        )
    else:
        tools_json = "[]"
    tools, problems = tool_specs(raw_tools, server, where)
    messages: list[Message] = []
    chat: list[str] = []
    calls: list[tuple[int, str]] = []
    flags: dict[int, list[dict[str, Any]]] = {}
    last_legacy: str | None = None
    for i, ((s, e), m) in enumerate(zip(elements(text, top["messages"][0]), data["messages"])):
        role = _ROLES.get(str(m.get("role"))) if isinstance(m, dict) else None
        if role is None:
            raise ValueError(
                f"messages[{i}] has role {m.get('role') if isinstance(m, dict) else m!r}; "
                "expected system, user, assistant or tool"
            )
        spans = members(text, s)
        records: list[ToolCall] = []
        for k, ((cs, ce), c) in enumerate(
            zip(
                elements(text, spans["tool_calls"][0]) if isinstance(m.get("tool_calls"), list) else [],
                m.get("tool_calls") or [],
            )
        ):
            fn = (c.get("function") if isinstance(c, dict) else None) or {}
            name = str(fn.get("name") or "")
            args, problem = _arguments(fn.get("arguments"), name)
            if problem:
                flags[len(calls)] = problem
            records.append(ToolCall(id=str(c.get("id") or f"call_{i}_{k}"), name=name, arguments=args))
            calls.append((i, text[cs:ce]))
        if isinstance(m.get("function_call"), dict):  # legacy: one call, answered by a "function" message
            fn = m["function_call"]
            last_legacy, name = f"call_{i}", str(fn.get("name") or "")
            args, problem = _arguments(fn.get("arguments"), name)
            if problem:
                flags[len(calls)] = problem
            records.append(ToolCall(id=last_legacy, name=name, arguments=args))
            fs, fe = spans["function_call"]
            calls.append(
                (i, '{"id": ' + json.dumps(last_legacy) + ', "type": "function", "function": ' + text[fs:fe] + "}")
            )
        content = _text(m.get("content"))
        call_id = m.get("tool_call_id") if role == "tool" else None
        if role == "tool" and m.get("role") == "function":
            call_id = call_id or last_legacy
        messages.append(
            Message(
                role=role,
                content=content or (None if records else ""),
                tool_calls=tuple(records),
                tool_call_id=call_id,
            )
        )
        chat.append(text[s:e])
    return Sample(
        number,
        "openai-functions" if legacy else "openai",
        tuple(messages),
        tools,
        tuple(chat),
        tools_json,
        tuple(calls),
        flags,
        tuple(problems),
    )


def _call_text(block: str, position: int, k: int) -> tuple[ToolCall, str, list[dict[str, Any]]]:
    """One Hermes ``<tool_call>`` body (or a function_call turn) as a ToolCall and OpenAI call text,
    the arguments cut from the body as written."""
    data = _loose(block)
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
    args, flags = _arguments(raw, str(data["name"]))
    call = ToolCall(id=f"call_{position}_{k}", name=str(data["name"]), arguments=args)
    text = json.dumps(
        {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": args_text}}, ensure_ascii=False
    )
    return call, text, flags


def _sharegpt(data: dict[str, Any], number: int, server: str, where: str) -> Sample:
    turns = data["conversations"]
    raw_tools: Any = _loose(data.get("tools")) if data.get("tools") else None
    messages: list[Message] = []
    chat: list[str] = []
    calls: list[tuple[int, str]] = []
    flags: dict[int, list[dict[str, Any]]] = {}
    pending: list[str] = []  # ids of calls not answered yet, in order
    for i, turn in enumerate(turns):
        if not isinstance(turn, dict) or "from" not in turn:
            raise ValueError(f'conversations[{i}] has no "from"')
        source, value = str(turn["from"]), str(turn.get("value") or "")
        role = "assistant" if source == "function_call" else _ROLES.get(source)
        if role is None:
            raise ValueError(
                f"conversations[{i}] is from {source!r}; expected system, human, gpt, tool or function_call"
            )
        if role == "system" and raw_tools is None and _TAG["tools"].search(value):
            body = _TAG["tools"].search(value).group(1)  # type: ignore[union-attr]
            try:
                raw_tools = _loose(body)
            except ValueError:  # one JSON object a line
                raw_tools = [_loose(x) for x in body.splitlines() if x.strip()]
            raw_tools = raw_tools if isinstance(raw_tools, list) else [raw_tools]
        position = len(messages)
        if role == "assistant":
            blocks = [value] if source == "function_call" else _TAG["tool_call"].findall(value)
            records, texts = [], []
            for k, block in enumerate(blocks):
                call, call_text, problem = _call_text(block, position, k)
                if problem:
                    flags[len(calls)] = problem
                records.append(call)
                texts.append(call_text)
                calls.append((position, call_text))
            pending += [c.id for c in records]
            content = "" if source == "function_call" else _TAG["tool_call"].sub("", value).strip()
            messages.append(
                Message(role="assistant", content=content or (None if records else ""), tool_calls=tuple(records))
            )
            line: dict[str, Any] = {"role": "assistant"}
            if content or not records:
                line["content"] = content
            chat.append(
                json.dumps(line, ensure_ascii=False)[:-1]
                + (', "tool_calls": [' + ", ".join(texts) + "]}" if texts else "}")
            )
        elif role == "tool":
            for body in _TAG["tool_response"].findall(value) or [value]:
                call_id = pending.pop(0) if pending else None
                messages.append(Message(role="tool", content=body, tool_call_id=call_id))
                chat.append(json.dumps({"role": "tool", "tool_call_id": call_id, "content": body}, ensure_ascii=False))
        else:
            messages.append(Message(role=role, content=value))
            chat.append(json.dumps({"role": role, "content": value}, ensure_ascii=False))
    raw_tools = raw_tools if isinstance(raw_tools, list) else []
    tools, problems = tool_specs(raw_tools, server, where)
    return Sample(
        number,
        "sharegpt",
        tuple(messages),
        tools,
        tuple(chat),
        openai_tools_json(raw_tools),
        tuple(calls),
        flags,
        tuple(problems),
    )


def _apigen(data: dict[str, Any], number: int, server: str, where: str) -> Sample:
    query = data["query"]
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query is empty")
    raw_tools = _loose(data.get("tools") or "[]")
    given = data.get("answers")
    answers_text = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
    answers = _loose(answers_text)
    if not isinstance(raw_tools, list) or not isinstance(answers, list):
        raise TypeError("tools and answers must be JSON arrays")
    try:
        spans = elements(answers_text, skip(answers_text, 0))
    except (ValueError, IndexError):
        spans = []
    records, texts, flags = [], [], {}
    for k, answer in enumerate(answers):
        block = answers_text[slice(*spans[k])] if len(spans) == len(answers) else json.dumps(answer, ensure_ascii=False)
        call, call_text, problem = _call_text(block, 1, k)
        if problem:
            flags[k] = problem
        records.append(call)
        texts.append(call_text)
    tools, problems = tool_specs(raw_tools, server, where)
    user = Message(role="user", content=query)
    messages = (user, Message(role="assistant", content=None, tool_calls=tuple(records))) if records else (user,)
    chat = (
        json.dumps({"role": "user", "content": query}, ensure_ascii=False),
        '{"role": "assistant", "tool_calls": [' + ", ".join(texts) + "]}",
    )
    return Sample(
        number,
        "apigen",
        messages,
        tools,
        chat[: len(messages)],
        openai_tools_json(raw_tools),
        tuple((1, t) for t in texts),
        flags,
        tuple(problems),
    )


def detect(data: Any) -> str | None:
    """The format of one parsed line, or None."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("messages"), list):
        return "openai"
    if isinstance(data.get("conversations"), list):
        return "sharegpt"
    if "query" in data and "answers" in data:
        return "apigen"
    return None


def read(source: Path, server: str) -> Iterator[Sample | StageFailure]:
    """Each non-blank line of ``source`` as a Sample, or a StageFailure saying why it cannot be read."""
    inflate = inflater(source)  # a run's train.jsonl refers to its tool lists (synth.rundir): the public rows
    for number, text in lines(source):
        where = f"{source.name}:{number}"
        text = text.rstrip("\r\n").lstrip("\ufeff")  # CRLF files, and a BOM some editors put first
        try:
            data = json.loads(text)
        except ValueError as exc:
            yield _unreadable(where, number, "not_json", f"not JSON ({getattr(exc, 'msg', exc)})")
            continue
        if inflate is not None:
            data = inflate(data)
            text = json.dumps(data, ensure_ascii=False)  # the line as it was made
        kind = detect(data)
        if kind is None:
            yield _unreadable(
                where,
                number,
                "unknown_format",
                'not a known format: expected "messages" (OpenAI), '
                '"conversations" (ShareGPT) or "query" and "answers" (APIGen)',
            )
            continue
        try:
            if kind == "openai":
                yield _openai(text, data, number, server, where)
            elif kind == "sharegpt":
                yield _sharegpt(data, number, server, where)
            else:
                yield _apigen(data, number, server, where)
        except (ValueError, AttributeError, TypeError, KeyError, IndexError) as exc:
            yield _unreadable(where, number, "bad_shape", f"{FORMATS[kind]}: {exc}")


def _unreadable(where: str, number: int, reason: str, why: str) -> StageFailure:
    return StageFailure(
        stage="read",
        item_id=where,
        reason=reason,
        detail=f"{where}: {why}; fix the line or leave it out",
        raw={"line": number},
    )
