"""What each agent is asked and what it must answer.

One function per role builds its ``ChatRequest`` from records (the prompts live in prompts/);
one pydantic model per role is the answer it must give. Registry text (tool names, descriptions,
schemas) goes into the prompts as JSON values, so it is data, never template code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from synth import templates
from synth.agents.people import person
from synth.llm.base import ChatRequest
from synth.records import Outcome, Scenario, ServerSpec, ToolSpec


class Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Detail(Answer):
    """A value the person knows but did not write, for one step's parameter (steps count from 1)."""

    step: int = Field(ge=1)
    param: str = Field(min_length=1)
    value: Any


class Draft(Answer):
    request: str = Field(min_length=8)
    details: list[Detail] = Field(default_factory=list)
    # what the request asks for, a short phrase each ("the 30-day total", "is it maintained?"): the executor
    # is asked to say each, and the reviewer checks the answer against them
    items: list[str] = Field(default_factory=list)


class Refined(Answer):
    request: str = Field(min_length=8)


class PlanItem(Answer):
    tool: str
    purpose: str = ""
    depends_on: list[int] = Field(
        default_factory=list, description="the numbers of the earlier steps this one needs, counted from 1"
    )


class PlanAnswer(Answer):
    steps: list[PlanItem] = Field(min_length=1)


class UserReply(Answer):
    reply: str = Field(min_length=1)


class ToolAnswer(Answer):
    # The tool role's answer to one call (synth.agents.toolsim). No docstring: it would enter the schema the
    # model reads, which keeps its name on the wire (ToolResult, the name before the rename).
    model_config = ConfigDict(title="ToolResult")

    result: Any
    is_error: bool = False


class Verdict(Answer):
    step_labels: list[Outcome]
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
    """The query generator's request: the person, and the steps with their tools, each saying in plain words
    which of its values an earlier step returns (the scenario's links)."""
    steps = []
    for i, name in enumerate(scenario.tools):
        tool = server.tool(name)
        if tool is None:
            continue
        gets = [
            {"param": lk.param, "from_step": lk.from_step + 1, "field": lk.field, "where": where(lk.field)}
            for lk in scenario.links
            if lk.to_step == i
        ]
        steps.append({"step": i + 1, "tool": _tool_json(tool), "gets": gets})
    data = {"multi_turn": scenario.multi_turn, "steps": steps}
    return _request(
        "query",
        model,
        "query.system",
        "query.user",
        seed,
        scenario=scenario,
        server=server,
        person=person(scenario, server, seed).describe(),
        steps=steps,
        scenario_json=_dump(data),
    )


def where(path: str) -> str:
    """A result path in plain words: "tables.4" is 'item 5 of "tables"', "results.0.id" is '"id" of item 1 of
    "results"'."""
    said = ""
    for part in path.split("."):
        if part.isdigit():
            said = f"item {int(part) + 1} of {said}" if said else f"item {int(part) + 1}"
        else:
            said = f'"{part}" of {said}' if said else f'"{part}"'
    return said or "the result"


def refine_request(model: str, seed: int, draft: str, tool_names: list[str], who: str = "") -> ChatRequest:
    return _request(
        "refine", model, "refine.system", "refine.user", seed, draft=draft, tool_names=tool_names, person=who
    )


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


def user_request(
    model: str, seed: int, request: str, details: list[dict[str, Any]], transcript: str, who: str = "", next: str = ""
) -> ChatRequest:
    """The user simulator's request; ``details`` as ``spoken_details`` gives them. With ``next`` (a turn the
    conversation adds: a request no tool serves, a follow-up) the person says that next, in their own voice."""
    return _request(
        "user",
        model,
        "user.system",
        "user.user",
        seed,
        request=request,
        person=who,
        next=next,
        details=details,
        details_json=_dump([{k: d[k] for k in ("step", "param", "value", "say")} for d in details]),
        transcript=transcript,
    )


def spoken_details(details: list[Detail], scenario: Scenario, server: ServerSpec) -> list[dict[str, Any]]:
    """Each detail as the user simulator reads it: what it is about, its value, and how to say it (exactly;
    verbatim, for text with several lines, code or JSON; in their own words, for one of a tool's fixed options)."""
    ordinals = ("first", "second", "third", "fourth", "fifth")
    out = []
    for d in details:
        tool = server.tool(scenario.tools[d.step - 1]) if d.step <= len(scenario.tools) else None
        schema = (tool.properties.get(d.param) if tool else None) or {}
        options = schema.get("enum") if isinstance(schema, dict) else None
        if options or (isinstance(schema, dict) and schema.get("type") == "boolean"):
            say = "in your own words"
        elif isinstance(d.value, (dict, list)) or (isinstance(d.value, str) and "\n" in d.value):
            say = "verbatim"
        else:
            say = "exactly"
        part = ordinals[d.step - 1] if d.step <= len(ordinals) else f"step {d.step}"
        about = f"the {d.param.replace('_', ' ')} for the {part} thing you asked"
        out.append(
            {
                "step": d.step,
                "param": d.param,
                "about": about,
                "value_json": _dump(d.value),
                "value": d.value,
                "say": say,
            }
        )
    return out


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


def review_request(
    model: str, seed: int, transcript: str, errors: int = 0, items: tuple[str, ...] | list[str] = ()
) -> ChatRequest:
    """The reviewer's request; ``errors``: how many tool results were errors (marked in the transcript);
    ``items``: what the request asks for, which the answer must say (from a result, or why not)."""
    return _request(
        "review",
        model,
        "reviewer.system",
        "reviewer.user",
        seed,
        transcript=transcript,
        errors=errors,
        items_json=_dump(list(items)) if items else "",
    )


_FENCED = re.compile(r"```[^\n]*\n.*?\n```", re.S)


def verbatim(text: str) -> list[str]:
    """The fenced blocks of ``text`` (``` on its own line before and after): values every rewriting step keeps."""
    return _FENCED.findall(text)


def lost_verbatim(before: str, after: str) -> list[str]:
    """The fenced blocks of ``before`` that ``after`` does not hold byte for byte."""
    return [block for block in verbatim(before) if block not in after]


def plan_note(
    steps: list[PlanItem], items: tuple[str, ...] | list[str] = (), offered: Callable[[str], str] = str
) -> str:
    """The planner's steps and what the request asks for, shown to the executor as a system note (never
    written into the data). Each step names its tool as the executor is offered it (``offered``: the
    OpenAI-valid name), so "Votars fetch recent transcripts" is the function it can call."""
    return templates.render(
        "executor.plan.j2",
        plan_json=_dump([{**s.model_dump(), "tool": offered(s.tool)} for s in steps]),
        items_json=_dump(list(items)) if items else "",
    )


RESULT_BUDGET = 6000  # characters of one tool result a transcript shows whole; a longer one is cut and says so


def shown(content: str, budget: int = RESULT_BUDGET) -> str:
    """A tool result as a transcript shows it: whole up to ``budget`` characters, else its start and a note
    of how much was cut, so a reader never judges "facts no result gave" from a part it cannot see."""
    if len(content) <= budget:
        return content
    return f"{content[:budget]} [cut here: the first {budget:,} of {len(content):,} characters are shown]"


def transcript(messages: list[dict[str, Any]], failed: dict[str, str] | None = None) -> str:
    """A conversation as plain text for the user simulator and the reviewer; a tool result that was an
    error (``failed``: call id -> what the runtime called it) says so, and one too long to show whole says
    where it was cut."""
    lines = []
    for m in messages:
        if m["role"] == "system":
            continue
        if m.get("tool_calls"):
            for c in m["tool_calls"]:
                lines.append(f"assistant calls {c['function']['name']} {c['function']['arguments']}")
        elif m["role"] == "tool":
            error = (failed or {}).get(m.get("tool_call_id") or "")
            said = f"tool result (ERROR, {error.replace('_', ' ')})" if error else "tool result"
            lines.append(f"{said}: {shown(m.get('content') or '')}")
        else:
            lines.append(f"{m['role']}: {m.get('content') or ''}")
    return "\n".join(lines)
