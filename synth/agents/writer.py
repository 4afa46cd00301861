"""The LLM backend's agents, one scenario at a time: the same records the offline writer makes.

query generator -> refiner -> planner -> executor (native tool calls) with the tool simulator
answering each call and the user simulator answering each question -> deterministic gates ->
reviewer. Every response is kept in ``spent`` so tokens can be counted; every way out is a
``StageFailure`` with a reason.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from synth import templates
from synth.agents import roles
from synth.agents.toolsim import LLMToolRuntime, SimulatorFailed
from synth.errors import BackendError, EndpointDown
from synth.export.chat import ToolNames, openai_messages, openai_tool
from synth.live.client import LiveError
from synth.live.pool import Pool
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse
from synth.llm.structured import ask
from synth.llm.structured import failure_reason as _reason
from synth.records import (
    Message,
    Plan,
    PlanStep,
    Query,
    Scenario,
    ServerSpec,
    StageFailure,
    ToolCall,
    Trajectory,
    Written,
    content_hash,
    make_id,
)
from synth.runtime.base import ToolResult, ToolRuntime
from synth.runtime.live import LiveRuntime
from synth.stages import gates

MAX_TURNS = 16


@dataclass(frozen=True)
class Agents:
    """Who answers each role: a backend and a model per role, and the run's seed."""

    backends: dict[str, ChatBackend]
    models: dict[str, str]
    seed: int
    names: ToolNames
    pool: Pool | None = None  # live servers (--execute live): entries with a connection are called for real

    def backend(self, role: str) -> ChatBackend:
        return self.backends[role]


async def write(
    scenario: Scenario, server: ServerSpec, offered: tuple[str, ...], agents: Agents, spent: list[ChatResponse]
) -> Written | StageFailure:
    """One conversation for ``scenario``; ``spent`` collects every response (model "role:model") for tokens."""
    log: list[ChatResponse] = []
    try:
        return await _write(scenario, server, offered, agents, log)
    finally:
        spent.extend(log)


async def _ask(agents: Agents, request: ChatRequest, model: type, stage: str, item: str, log: list[ChatResponse]):
    before = len(log)
    out = await ask(agents.backend(request.role), request, model, stage, item, log)
    for i in range(before, len(log)):  # remember which role spent the tokens
        log[i] = log[i].model_copy(update={"model": f"{request.role}:{log[i].model or request.model}"})
    return out


async def _write(
    scenario: Scenario, server: ServerSpec, offered: tuple[str, ...], agents: Agents, log: list[ChatResponse]
) -> Written | StageFailure:
    sid, seed, m = scenario.id, agents.seed, agents.models
    tools = [t for t in (server.tool(n) for n in scenario.tools) if t]
    draft = await _ask(agents, roles.query_request(m["query"], seed, scenario, server), roles.Draft, "query", sid, log)
    if isinstance(draft, StageFailure):
        return draft
    refined = await _ask(
        agents,
        roles.refine_request(m["refine"], seed, draft.request, list(scenario.tools)),
        roles.Refined,
        "refine",
        sid,
        log,
    )
    if isinstance(refined, StageFailure):
        return refined
    draft_query = Query(id=make_id("query", sid, draft.request), scenario_id=sid, text=draft.request)
    query = Query(
        id=make_id("query", sid, refined.request),
        scenario_id=sid,
        text=refined.request,
        parent_id=draft_query.id,
        withheld=tuple(sorted(draft.details)),
    )
    plan_answer = await _ask(
        agents, roles.plan_request(m["plan"], seed, refined.request, tools), roles.PlanAnswer, "plan", sid, log
    )
    if isinstance(plan_answer, StageFailure):
        return plan_answer
    unknown = [s.tool for s in plan_answer.steps if server.tool(s.tool) is None]
    if unknown:
        return StageFailure(
            stage="plan",
            item_id=sid,
            reason="unknown_tool",
            detail=f"the plan names tools {server.id} does not have: {unknown}",
        )

    messages = await _converse(scenario, server, offered, agents, refined.request, draft.details, plan_answer, log)
    if isinstance(messages, StageFailure):
        return messages
    trajectory = Trajectory(
        id=make_id("traj", sid, [x.to_json() for x in messages]), scenario_id=sid, messages=tuple(messages)
    )
    calls = trajectory.calls
    plan = Plan(
        id=make_id("plan", sid, [(c.name, c.arguments) for c in calls]),
        scenario_id=sid,
        steps=tuple(
            PlanStep(
                step=i,
                tool=c.name,
                arguments=c.arguments,
                depends_on=tuple(d for d in _deps(plan_answer, c.name) if d < i),
            )
            for i, c in enumerate(calls)
        ),
    )
    checked = await asyncio.to_thread(gates.review, trajectory, server)  # CPU work off the event loop
    if checked.verdict != "accept":
        return gates.failure(checked, sid)
    verdict = await _ask(
        agents,
        roles.review_request(m["review"], seed, roles.transcript(_openai(messages, agents, server))),
        roles.Verdict,
        "review",
        sid,
        log,
    )
    if isinstance(verdict, StageFailure):
        return verdict
    labels = tuple((verdict.step_labels + ["success"] * len(calls))[: len(calls)])
    review = checked.model_copy(
        update={
            "step_labels": labels,
            "verdict": verdict.verdict,
            "confidence": verdict.confidence,
            "reasons": tuple(verdict.reasons),
        }
    )
    if verdict.verdict == "reject":
        return StageFailure(
            stage="review",
            item_id=sid,
            reason="reviewer_reject",
            detail="; ".join(verdict.reasons)[:500] or verdict.verdict,
        )
    # accept, or "human": the pipeline holds it in review_queue.jsonl until a person decides
    return Written(query=query, plan=plan, trajectory=trajectory, review=review)


def _deps(plan: roles.PlanAnswer, tool: str) -> list[int]:
    return next((s.depends_on for s in plan.steps if s.tool == tool), [])


def _openai(messages: list[Message], agents: Agents, server: ServerSpec) -> list[dict[str, Any]]:
    return openai_messages(messages, lambda n: agents.names(server.id, n))


async def _converse(
    scenario: Scenario,
    server: ServerSpec,
    offered: tuple[str, ...],
    agents: Agents,
    request: str,
    details: dict[str, Any],
    plan: roles.PlanAnswer,
    log: list[ChatResponse],
) -> list[Message] | StageFailure:
    """The executor talks to the user simulator and calls tools until it gives a final answer.

    Tools answer through the LLM tool role, or, on a live run, through the entry's real server.
    """
    sid = scenario.id
    live = LiveRuntime(agents.pool, server) if agents.pool is not None and server.connection is not None else None
    try:
        return await _talk(scenario, server, offered, agents, request, details, plan, log, live)
    except LiveError as error:  # the server could not be reached or broke off: the scenario ends with its line
        return StageFailure(stage="execute", item_id=sid, reason=error.reason, detail=str(error)[:500])
    finally:
        if live is not None:
            await asyncio.to_thread(live.close)


async def _talk(
    scenario: Scenario,
    server: ServerSpec,
    offered: tuple[str, ...],
    agents: Agents,
    request: str,
    details: dict[str, Any],
    plan: roles.PlanAnswer,
    log: list[ChatResponse],
    live: ToolRuntime | None,
) -> list[Message] | StageFailure:
    sid, seed, m = scenario.id, agents.seed, agents.models
    rename = {agents.names(server.id, t.name): t.name for t in server.tools}
    tools = tuple(openai_tool(t, agents.names(server.id, t.name)) for t in server.tools if t.name in offered)
    system = templates.render("conversation.system.j2", server=server)
    note = roles.plan_note(plan.steps)
    messages: list[Message] = [Message(role="system", content=system), Message(role="user", content=request)]
    results: list[Any] = []
    runtime: ToolRuntime = live or LLMToolRuntime(
        scenario, m["tool"], seed, lambda request, model, stage: _ask(agents, request, model, stage, sid, log)
    )
    for _turn in range(MAX_TURNS):
        chat = _openai(messages, agents, server)
        req = ChatRequest(
            role="executor",
            model=m["executor"],
            seed=seed,
            tools=tools,
            template_hash=templates.template_hash("executor.plan.j2"),
            messages=(chat[0], {"role": "system", "content": note}, *chat[1:]),
        )
        try:
            answer = await agents.backend("executor").complete(req)
        except EndpointDown:
            raise  # the run stops: every item would fail the same way
        except BackendError as exc:
            return StageFailure(stage="execute", item_id=sid, reason=_reason(exc), detail=str(exc)[:500])
        log.append(answer.model_copy(update={"model": f"executor:{answer.model or req.model}"}))
        if answer.tool_calls:
            calls = []  # type: ignore[var-annotated]
            for raw in answer.tool_calls:
                fn = raw.get("function") or {}
                try:
                    arguments = json.loads(fn.get("arguments") or "{}")
                except ValueError:
                    return StageFailure(
                        stage="execute",
                        item_id=sid,
                        reason="invalid_arguments_json",
                        detail=f"{fn.get('name')}: {str(fn.get('arguments'))[:300]}",
                    )
                if not isinstance(arguments, dict):
                    return StageFailure(
                        stage="execute",
                        item_id=sid,
                        reason="invalid_arguments_json",
                        detail=f"{fn.get('name')}: arguments are not an object",
                    )
                name = rename.get(str(fn.get("name")), str(fn.get("name")))
                step = len(results) + len(calls)
                calls.append(ToolCall(id=f"call_{content_hash([sid, step], 12)}", name=name, arguments=arguments))
            messages.append(Message(role="assistant", content=answer.content or None, tool_calls=tuple(calls)))
            for call in calls:
                tool = server.tool(call.name)
                if tool is None:  # the gates reject it with its reason; no runtime can play it
                    result = ToolResult.of({"error": f"unknown tool {call.name}"}, "llm", is_error=True)
                else:
                    try:
                        result = await runtime.call(tool, call.arguments)
                    except SimulatorFailed as exc:
                        return exc.failure
                results.append(result.data)
                messages.append(
                    Message(role="tool", tool_call_id=call.id, content=result.content, source=result.source)
                )
            continue
        text = (answer.content or "").strip()
        if not text:
            return StageFailure(stage="execute", item_id=sid, reason="empty_answer", detail="no text and no tool call")
        messages.append(Message(role="assistant", content=text))
        if results and not text.endswith("?"):
            return messages
        reply = await _ask(
            agents,
            roles.user_request(m["user"], seed, request, details, roles.transcript(_openai(messages, agents, server))),
            roles.UserReply,
            "user",
            sid,
            log,
        )
        if isinstance(reply, StageFailure):
            return reply
        messages.append(Message(role="user", content=reply.reply))
    last = next((x.content for x in reversed(messages) if x.role == "assistant" and x.content), "")
    return StageFailure(
        stage="execute",
        item_id=sid,
        reason="too_many_turns",
        detail=f"no final answer after {MAX_TURNS} assistant turns; last said: {last[:200]}",
    )
