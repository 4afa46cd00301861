"""``synth derive``: eval items, scored calls and T-Eval subsets from anyone's OpenAI chat file.

Each line is ``{"messages": [...], "tools": [...]}`` (what ``synth generate`` writes as train.jsonl,
what Foundry's generator writes, or production logs). The conversation goes through the same gates
as generated data (tool exists, arguments validate, every value grounded), so the report says how
much of someone else's data invents values; what passes gets one eval item per tool call, the
injected negatives, and the T-Eval subsets. A line that cannot be read is counted with its reason.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.export.chat import ToolNames, eval_items
from synth.export.scored import scored_line
from synth.export.teval import TevalWriter
from synth.records import (Conversation, Message, Plan, PlanStep, Query, Scenario, ServerSpec, StageFailure, ToolCall,
                           ToolSpec, Trajectory, content_hash, conversation_id, make_id)
from synth.registry.normalize import normalize_schema
from synth.rundir import EVAL, REJECTED, SCORED, RunWriter, lines, write_json
from synth.stages import gates
from synth.stages.inject import negatives


def _tools(raw: Any, server: str, where: str) -> tuple[ToolSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise ValueError("no tools: each line needs a \"tools\" array of OpenAI function definitions")
    out = []
    for i, entry in enumerate(raw):
        fn = entry.get("function", entry) if isinstance(entry, dict) else None
        if not isinstance(fn, dict) or not fn.get("name"):
            raise ValueError(f"tools[{i}] is not {{\"type\": \"function\", \"function\": {{\"name\", \"parameters\"}}}}")
        schema = fn.get("parameters") or fn.get("input_schema") or {"type": "object", "properties": {}}
        normal, problems = normalize_schema(schema, file=where, server=server, tool=fn["name"])
        if normal is None:
            raise ValueError(f"tools[{i}] {fn['name']}: unusable schema: {problems[0].what if problems else 'invalid'}")
        out.append(ToolSpec(server=server, name=str(fn["name"]), description=str(fn.get("description") or ""),
                            input_schema=normal, schema_hash=content_hash(schema)))
    return tuple(out)


def _messages(raw: Any) -> tuple[Message, ...]:
    if not isinstance(raw, list) or not raw:
        raise ValueError("no messages")
    out = []
    for i, m in enumerate(raw):
        role = m.get("role") if isinstance(m, dict) else None
        if role not in ("system", "user", "assistant", "tool"):
            raise ValueError(f"messages[{i}] has role {role!r}; expected system, user, assistant or tool")
        calls = []
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            args = fn.get("arguments") or "{}"
            try:
                parsed = json.loads(args) if isinstance(args, str) else args
            except ValueError:
                raise ValueError(f"messages[{i}] calls {fn.get('name')} with arguments that are not JSON") from None
            if not isinstance(parsed, dict):
                raise ValueError(f"messages[{i}] calls {fn.get('name')} with arguments that are not an object")
            calls.append(ToolCall(id=str(c.get("id") or f"call_{i}_{len(calls)}"), name=str(fn.get("name")), arguments=parsed))
        content = m.get("content")
        if isinstance(content, list):  # content parts: keep the text
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        out.append(Message(role=role, content=content or (None if calls else ""),
                           tool_calls=tuple(calls), tool_call_id=m.get("tool_call_id")))
    return tuple(out)


def _conversation(index: int, server: ServerSpec, messages: tuple[Message, ...]) -> Conversation | StageFailure:
    calls = [c for m in messages for c in m.tool_calls]
    conv_id = conversation_id(messages)
    if not calls:
        return StageFailure(stage="derive", item_id=conv_id, reason="no_tool_calls", detail="the conversation calls no tool")
    trajectory = Trajectory(id=make_id("traj", conv_id), scenario_id=conv_id, messages=messages)
    review = gates.review(trajectory, server)
    if review.verdict != "accept":
        return gates.failure(review, conv_id)
    scenario = Scenario(id=make_id("scn", "derive", conv_id), index=index, server=server.id,
                        tools=tuple(dict.fromkeys(c.name for c in calls)), persona="")
    request = next((m.content or "" for m in messages if m.role == "user"), "")
    return Conversation(id=conv_id, scenario=scenario, split="test", review=review,
                        query=Query(id=make_id("query", conv_id, request), scenario_id=scenario.id, text=request),
                        plan=Plan(id=make_id("plan", conv_id), scenario_id=scenario.id,
                                  steps=tuple(PlanStep(step=i, tool=c.name, arguments=c.arguments) for i, c in enumerate(calls))),
                        messages=messages, tools=tuple(t.name for t in server.tools))


def derive(source: Path, out: Path, seed: int = 0, server_id: str | None = None) -> dict[str, Any]:
    """Write eval.jsonl, scored.jsonl, teval/, rejected.jsonl and derive_report.json into ``out``."""
    if not source.is_file():
        raise ConfigError(f"{source} does not exist; pass an OpenAI chat JSONL file ({{\"messages\", \"tools\"}} per line)")
    out.mkdir(parents=True, exist_ok=True)
    sid = server_id or source.stem
    counts: Counter[str] = Counter()
    calls = grounded_fail = 0
    teval = TevalWriter(out)
    with RunWriter(out, (EVAL, SCORED, REJECTED), compact=False) as files:  # files for people: plain public rows
        for number, line in lines(source):
            where = f"{source.name}:{number}"
            try:
                data = json.loads(line)
                tools = _tools(data.get("tools"), sid, where)
                messages = _messages(data.get("messages"))
            except (ValueError, AttributeError) as exc:
                failure = StageFailure(stage="derive", item_id=where, reason="unreadable_line",
                                       detail=f"{where}: {exc}; fix the line or leave it out")
                files.write(REJECTED, failure.to_json())
                counts["unreadable_line"] += 1
                continue
            server = ServerSpec(id=sid, name=sid, source=source.name, tools=tools)
            conv = _conversation(number, server, messages)
            n_calls = sum(len(m.tool_calls) for m in messages)
            calls += n_calls
            if isinstance(conv, StageFailure):
                counts[conv.reason] += 1
                grounded_fail += conv.reason == "grounded"
                files.write(REJECTED, {**conv.to_json(), "line": number})
                continue
            counts["accepted"] += 1
            names = ToolNames([server])
            for item in eval_items(conv, server, names):
                files.write(EVAL, item)
                counts["eval_items"] += 1
            scored, missed = negatives(conv, server, seed)
            for record in scored:
                files.write(SCORED, scored_line(record, server, conv.tools, "test"))
                counts[f"scored:{record.score}"] += 1
            for failure in missed:
                files.write(REJECTED, failure.to_json())
            teval.add(conv, server, scored)
    report = {"source": source.as_posix(), "conversations": counts["accepted"] + sum(
                  v for k, v in counts.items() if k not in ("accepted", "eval_items") and not k.startswith("scored:")),
              "accepted": counts["accepted"], "tool_calls": calls, "eval_items": counts["eval_items"],
              "rejected": {k: v for k, v in sorted(counts.items()) if k not in ("accepted", "eval_items") and not k.startswith("scored:")},
              "conversations_with_ungrounded_values": grounded_fail,
              "scored": {k.split(":", 1)[1]: v for k, v in sorted(counts.items()) if k.startswith("scored:")},
              "teval": teval.close()}
    write_json(out / "derive_report.json", report)
    return report
