"""What each agent is asked and what it must answer.

One function per role builds its ``ChatRequest`` from records (the prompts live in prompts/);
one pydantic model per role is the answer it must give. Registry text (tool names, descriptions,
schemas) goes into the prompts as JSON values, so it is data, never template code.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from synth import templates
from synth.llm.base import ChatRequest
from synth.records import Scenario, ServerSpec, ToolSpec

ROLES = ("query", "refine", "plan", "executor", "user", "tool", "review")
STEP_LABELS = ("success", "internal_error", "input_error", "irrelevant_response", "unable_to_accomplish")


class Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Draft(Answer):
    request: str = Field(min_length=8)
    details: dict[str, Any] = Field(default_factory=dict)


class Refined(Answer):
    request: str = Field(min_length=8)


class PlanItem(Answer):
    tool: str
    purpose: str = ""
    depends_on: list[int] = Field(default_factory=list)


class PlanAnswer(Answer):
    steps: list[PlanItem] = Field(min_length=1)


class UserReply(Answer):
    reply: str = Field(min_length=1)


class ToolResult(Answer):
    result: Any
    is_error: bool = False


class Verdict(Answer):
    step_labels: list[
        Literal["success", "internal_error", "input_error", "irrelevant_response", "unable_to_accomplish"]
    ]
    verdict: Literal["accept", "reject", "human"]
    reasons: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _tool_json(tool: ToolSpec) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name, "description": tool.description[:1500], "input_schema": tool.input_schema}
    if tool.output_schema:
        out["output_schema"] = tool.output_schema
    return out


def _hash(*names: str) -> str:
    return "+".join(templates.template_hash(n) for n in names)


def _request(role: str, model: str, system: str, user: str, seed: int, **render: Any) -> ChatRequest:
    names = (f"{system}.j2", f"{user}.j2")
    return ChatRequest(
        role=role,
        model=model,
        seed=seed,
        template_hash=_hash(*names),
        messages=(
            {"role": "system", "content": templates.render(names[0], **render)},
            {"role": "user", "content": templates.render(names[1], **render)},
        ),
    )


def query_request(model: str, seed: int, scenario: Scenario, server: ServerSpec) -> ChatRequest:
    tools = [server.tool(n) for n in scenario.tools]
    data = {
        "tools": [_tool_json(t) for t in tools if t],
        "persona": scenario.persona,
        "multi_turn": scenario.multi_turn,
        "links": [lk.model_dump() for lk in scenario.links],
    }
    return _request(
        "query", model, "query.system", "query.user", seed, scenario=scenario, server=server, scenario_json=_dump(data)
    )


def refine_request(model: str, seed: int, draft: str, tool_names: list[str]) -> ChatRequest:
    return _request("refine", model, "refine.system", "refine.user", seed, draft=draft, tool_names=tool_names)


def plan_request(model: str, seed: int, request: str, tools: list[ToolSpec]) -> ChatRequest:
    """The planner's request. Its answer schema lists the scenario's tool names as an ``enum``, so an
    endpoint that enforces the schema cannot name a tool the server does not have."""
    req = _request(
        "plan",
        model,
        "planner.system",
        "planner.user",
        seed,
        request=request,
        tools_json=_dump([_tool_json(t) for t in tools]),
    )
    return req.model_copy(update={"response_schema": plan_schema([t.name for t in tools]), "schema_name": "PlanAnswer"})


def plan_schema(names: list[str]) -> dict[str, Any]:
    """PlanAnswer's JSON schema, inlined (no ``$ref``, which some endpoints do not follow), with
    ``steps[].tool`` limited to ``names``."""
    schema = PlanAnswer.model_json_schema()
    item = schema.pop("$defs")["PlanItem"]
    if names:
        item["properties"]["tool"]["enum"] = sorted(set(names))
    schema["properties"]["steps"]["items"] = item
    return schema


def user_request(model: str, seed: int, request: str, details: dict[str, Any], transcript: str) -> ChatRequest:
    return _request(
        "user",
        model,
        "user.system",
        "user.user",
        seed,
        request=request,
        details_json=_dump(details),
        transcript=transcript,
    )


def tool_request(
    model: str, seed: int, tool: ToolSpec, arguments: dict[str, Any], needs: list[str], results: list[Any]
) -> ChatRequest:
    return _request(
        "tool",
        model,
        "tool.system",
        "tool.user",
        seed,
        tool_json=_dump(_tool_json(tool)),
        arguments_json=_dump(arguments),
        needs=needs,
        results_json=_dump(results),
    )


def review_request(model: str, seed: int, transcript: str) -> ChatRequest:
    return _request("review", model, "reviewer.system", "reviewer.user", seed, transcript=transcript)


def plan_note(steps: list[PlanItem]) -> str:
    """The planner's steps, shown to the executor as a system note (never written into the data)."""
    return templates.render("executor.plan.j2", plan_json=_dump([s.model_dump() for s in steps]))


def transcript(messages: list[dict[str, Any]]) -> str:
    """A conversation as plain text for the user simulator and the reviewer."""
    lines = []
    for m in messages:
        if m["role"] == "system":
            continue
        if m.get("tool_calls"):
            for c in m["tool_calls"]:
                lines.append(f"assistant calls {c['function']['name']} {c['function']['arguments']}")
        elif m["role"] == "tool":
            lines.append(f"tool result: {m.get('content', '')[:1500]}")
        else:
            lines.append(f"{m['role']}: {m.get('content') or ''}")
    return "\n".join(lines)
