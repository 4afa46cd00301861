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
user's key order, spacing and ``arguments`` strings byte for byte (``synth.ingest.spans``); tool
definitions are read by ``synth.ingest.tool_defs``. Lives in export (not in the derive app) because the
dataset card reports the same audit figures.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from synth.ingest.samples import OPENAI_ROLE, TAG, Reading, Sample, arguments, call_text, loose, text_of
from synth.ingest.spans import elements, members, skip
from synth.ingest.tool_defs import openai_tools_json, tool_specs
from synth.records import Message, StageFailure, ToolCall
from synth.rundir import inflater, lines

FORMATS = {
    "openai": "OpenAI chat JSONL with tools",
    "openai-functions": "OpenAI chat JSONL with functions (legacy)",
    "sharegpt": "ShareGPT conversations (Hermes <tool_call> tags)",
    "apigen": "APIGen {query, tools, answers} rows",
}


# --- the formats -------------------------------------------------------------------------------


def _openai(text: str, data: dict[str, Any], number: int, server: str, where: str) -> Sample:
    top = members(text, skip(text, 0))
    if not isinstance(data.get("messages"), list) or not data["messages"]:
        raise ValueError("no messages")
    legacy = "tools" not in data and (
        "functions" in data or any(isinstance(m, dict) and "function_call" in m for m in data["messages"])
    )
    raw_tools = data.get("tools") if not legacy else data.get("functions")
    tools_json = _openai_tools_text(text, top, data, legacy)
    tools, problems = tool_specs(raw_tools if isinstance(raw_tools, list) else [], server, where)
    out = Reading()
    last_legacy: str | None = None
    for i, ((s, e), m) in enumerate(zip(elements(text, top["messages"][0]), data["messages"])):
        role = OPENAI_ROLE.get(str(m.get("role"))) if isinstance(m, dict) else None
        if role is None:
            raise ValueError(
                f"messages[{i}] has role {m.get('role') if isinstance(m, dict) else m!r}; "
                "expected system, user, assistant or tool"
            )
        records, last_legacy = _openai_calls(text, members(text, s), m, i, out, last_legacy)
        call_id = m.get("tool_call_id") if role == "tool" else None
        if role == "tool" and m.get("role") == "function":
            call_id = call_id or last_legacy
        content = text_of(m.get("content"))
        out.messages.append(
            Message(
                role=role, content=content or (None if records else ""), tool_calls=tuple(records), tool_call_id=call_id
            )
        )
        out.chat.append(text[s:e])
    return out.sample(number, "openai-functions" if legacy else "openai", tools, tools_json, problems)


def _openai_tools_text(text: str, top: dict[str, tuple[int, int]], data: dict[str, Any], legacy: bool) -> str:
    """The tools array as written (legacy ``functions`` wrapped as tools), or ``[]``."""
    if "tools" in top and isinstance(data.get("tools"), list):
        return text[slice(*top["tools"])]
    if legacy and "functions" in top and isinstance(data.get("functions"), list):
        wrapped = (
            '{"type": "function", "function": ' + text[s:e] + "}" for s, e in elements(text, top["functions"][0])
        )
        return "[" + ", ".join(wrapped) + "]"
    return "[]"


def _openai_calls(
    text: str, spans: dict[str, tuple[int, int]], m: dict[str, Any], i: int, out: Reading, last_legacy: str | None
) -> tuple[list[ToolCall], str | None]:
    """The calls of message ``i``: its tool_calls as written, or a legacy function_call made one (with the id
    its ``function`` answer refers to, returned as the latest legacy call)."""
    records: list[ToolCall] = []
    listed = elements(text, spans["tool_calls"][0]) if isinstance(m.get("tool_calls"), list) else []
    for k, ((cs, ce), c) in enumerate(zip(listed, m.get("tool_calls") or [])):
        fn = (c.get("function") if isinstance(c, dict) else None) or {}
        name = str(fn.get("name") or "")
        args, problem = arguments(fn.get("arguments"), name)
        records.append(ToolCall(id=str(c.get("id") or f"call_{i}_{k}"), name=name, arguments=args))
        out.call(i, text[cs:ce], problem)
    if isinstance(m.get("function_call"), dict):  # legacy: one call, answered by a "function" message
        fn = m["function_call"]
        last_legacy, name = f"call_{i}", str(fn.get("name") or "")
        args, problem = arguments(fn.get("arguments"), name)
        records.append(ToolCall(id=last_legacy, name=name, arguments=args))
        fs, fe = spans["function_call"]
        out.call(
            i, '{"id": ' + json.dumps(last_legacy) + ', "type": "function", "function": ' + text[fs:fe] + "}", problem
        )
    return records, last_legacy


def _sharegpt(data: dict[str, Any], number: int, server: str, where: str) -> Sample:
    raw_tools: Any = loose(data.get("tools")) if data.get("tools") else None
    out = Reading()
    pending: list[str] = []  # ids of calls not answered yet, in order
    for i, turn in enumerate(data["conversations"]):
        if not isinstance(turn, dict) or "from" not in turn:
            raise ValueError(f'conversations[{i}] has no "from"')
        source, value = str(turn["from"]), str(turn.get("value") or "")
        role = "assistant" if source == "function_call" else OPENAI_ROLE.get(source)
        if role is None:
            raise ValueError(
                f"conversations[{i}] is from {source!r}; expected system, human, gpt, tool or function_call"
            )
        if role == "system" and raw_tools is None and (tags := TAG["tools"].search(value)):
            raw_tools = _tools_in_system(tags.group(1))
        if role == "assistant":
            pending += _sharegpt_calls(out, source, value)
        elif role == "tool":
            for body in TAG["tool_response"].findall(value) or [value]:
                call_id = pending.pop(0) if pending else None
                out.messages.append(Message(role="tool", content=body, tool_call_id=call_id))
                out.chat.append(
                    json.dumps({"role": "tool", "tool_call_id": call_id, "content": body}, ensure_ascii=False)
                )
        else:
            out.messages.append(Message(role=role, content=value))
            out.chat.append(json.dumps({"role": role, "content": value}, ensure_ascii=False))
    raw_tools = raw_tools if isinstance(raw_tools, list) else []
    tools, problems = tool_specs(raw_tools, server, where)
    return out.sample(number, "sharegpt", tools, openai_tools_json(raw_tools), problems)


def _tools_in_system(body: str) -> list[Any]:
    """The tools a system turn lists in ``<tools>``: a JSON array, one object, or one JSON object a line."""
    try:
        raw_tools = loose(body)
    except ValueError:  # one JSON object a line
        raw_tools = [loose(x) for x in body.splitlines() if x.strip()]
    return raw_tools if isinstance(raw_tools, list) else [raw_tools]


def _sharegpt_calls(out: Reading, source: str, value: str) -> list[str]:
    """An assistant turn: its ``<tool_call>`` tags (or a function_call turn) as calls; their ids."""
    position = len(out.messages)
    blocks = [value] if source == "function_call" else TAG["tool_call"].findall(value)
    records, texts = [], []
    for k, block in enumerate(blocks):
        call, text, problem = call_text(block, position, k)
        records.append(call)
        texts.append(text)
        out.call(position, text, problem)
    content = "" if source == "function_call" else TAG["tool_call"].sub("", value).strip()
    out.messages.append(
        Message(role="assistant", content=content or (None if records else ""), tool_calls=tuple(records))
    )
    line: dict[str, Any] = {"role": "assistant"}
    if content or not records:
        line["content"] = content
    out.chat.append(
        json.dumps(line, ensure_ascii=False)[:-1] + (', "tool_calls": [' + ", ".join(texts) + "]}" if texts else "}")
    )
    return [c.id for c in records]


def _apigen(data: dict[str, Any], number: int, server: str, where: str) -> Sample:
    query = data["query"]
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query is empty")
    raw_tools = loose(data.get("tools") or "[]")
    given = data.get("answers")
    answers_text = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
    answers = loose(answers_text)
    if not isinstance(raw_tools, list) or not isinstance(answers, list):
        raise TypeError("tools and answers must be JSON arrays")
    try:
        spans = elements(answers_text, skip(answers_text, 0))
    except (ValueError, IndexError):
        spans = []
    out, records = Reading(), []
    for k, answer in enumerate(answers):
        block = answers_text[slice(*spans[k])] if len(spans) == len(answers) else json.dumps(answer, ensure_ascii=False)
        call, text, problem = call_text(block, 1, k)
        records.append(call)
        out.call(1, text, problem)
    tools, problems = tool_specs(raw_tools, server, where)
    out.messages.append(Message(role="user", content=query))
    out.chat.append(json.dumps({"role": "user", "content": query}, ensure_ascii=False))
    if records:
        out.messages.append(Message(role="assistant", content=None, tool_calls=tuple(records)))
        out.chat.append('{"role": "assistant", "tool_calls": [' + ", ".join(t for _, t in out.calls) + "]}")
    return out.sample(number, "apigen", tools, openai_tools_json(raw_tools), problems)


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
