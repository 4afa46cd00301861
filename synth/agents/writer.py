"""The LLM backend's agents, one scenario at a time: the same records the offline writer makes.

query generator -> refiner -> planner -> executor (native tool calls) with the tool simulator
answering each call and the user simulator answering each question -> deterministic gates ->
reviewer. Every response is kept in ``spent`` so tokens can be counted; every way out is a
``StageFailure`` with a reason.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from synth import templates
from synth.agents import roles
from synth.agents.decisions import asked, decide
from synth.agents.people import person
from synth.agents.toolsim import LLMToolRuntime, SimulatorFailed
from synth.errors import BackendError, EndpointDown, LiveError
from synth.export.chat import ToolNames, openai_messages, openai_tool
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse, stats_of
from synth.llm.structured import ask
from synth.llm.structured import failure_reason as _reason
from synth.records import (
    Message,
    Review,
    Scenario,
    ServerSpec,
    StageFailure,
    ToolCall,
    Trajectory,
    Written,
    content_hash,
)
from synth.runtime.base import AsyncToolRuntime, ToolResult, ToolRuntime
from synth.runtime.pick import pick_async_runtime
from synth.scenarios.made import made, query_id
from synth.scenarios.system_prompts import opening
from synth.stages import gates
from synth.stages.whole import cut_reason

if TYPE_CHECKING:  # the pool loads the MCP SDK: only runs that go live import it
    from synth.live.pool import Pool

MAX_TURNS = 16


@dataclass(frozen=True)
class Agents:
    """Who answers each role: a backend and a model per role, and the run's seed."""

    backends: dict[str, ChatBackend]
    models: dict[str, str]
    seed: int
    names: ToolNames
    pool: Pool | None = None  # live servers (--execute live): entries with a connection are called for real
    # a scenario's tool results without a model (its server's pack; every server's with [roles.tool] backend =
    # "offline"), or None: the model's tool role answers that scenario
    tool_runtime: Callable[[Scenario], ToolRuntime | None] | None = None

    def backend(self, role: str) -> ChatBackend:
        return self.backends[role]


async def write(
    scenario: Scenario, server: ServerSpec, offered: tuple[str, ...], agents: Agents, spent: list[ChatResponse]
) -> Written | StageFailure:
    """One conversation for ``scenario``; ``spent`` collects every response (model "role:model") for tokens."""
    episode = _Episode(scenario, server, offered, agents, [])
    try:
        return await _write(episode)
    finally:
        spent.extend(episode.log)


async def _ask(agents: Agents, request: ChatRequest, model: type, stage: str, item: str, log: list[ChatResponse]):
    before = len(log)
    out = await ask(agents.backend(request.role), request, model, stage, item, log)
    for i in range(before, len(log)):  # remember which role spent the tokens
        log[i] = log[i].model_copy(update={"model": f"{request.role}:{log[i].model or request.model}"})
    return out


@dataclass
class _Episode:
    """One scenario being written: its server and offered tools, who writes it, and every response spent."""

    scenario: Scenario
    server: ServerSpec
    offered: tuple[str, ...]
    agents: Agents
    log: list[ChatResponse]
    items: tuple[str, ...] = ()  # what the request asks for (the query generator's items): the answer says each

    @property
    def sid(self) -> str:
        return self.scenario.id

    @property
    def models(self) -> dict[str, str]:
        return self.agents.models

    @property
    def who(self) -> str:
        """The person behind the scenario's requests, in one line (synth.agents.people)."""
        return person(self.scenario, self.server, self.agents.seed).describe()

    async def ask(self, request: ChatRequest, model: type, stage: str) -> Any:
        return await _ask(self.agents, request, model, stage, self.sid, self.log)

    def openai(self, messages: list[Message]) -> list[dict[str, Any]]:
        return openai_messages(messages, lambda n: self.agents.names(self.server.id, n))


async def _write(ep: _Episode) -> Written | StageFailure:
    """Query, refined query, plan, the conversation, the gates and the reviewer; the first failure ends it."""
    sid, seed, m, scenario, server = ep.sid, ep.agents.seed, ep.models, ep.scenario, ep.server
    draft = await ep.ask(roles.query_request(m["query"], seed, scenario, server), roles.Draft, "query")
    if isinstance(draft, StageFailure):
        return draft
    ep.items = tuple(draft.items)
    unknown = [f"{d.step}.{d.param}" for d in draft.details if not _a_parameter(ep, d)]
    if unknown:
        return StageFailure(
            stage="query", item_id=sid, reason="unknown_detail", detail=f"details name no step's parameter: {unknown}"
        )
    refined = await _refine(ep, draft.request)
    if isinstance(refined, StageFailure):
        return refined
    plan_answer = await _plan(ep, refined)
    if isinstance(plan_answer, StageFailure):
        return plan_answer
    details = roles.spoken_details(draft.details, scenario, server)
    messages = await _converse(ep, refined, details, plan_answer)
    if isinstance(messages, StageFailure):
        return messages
    decisions = asked(messages)
    note = roles.plan_note(plan_answer.steps, ep.items, partial(ep.agents.names, ep.server.id))
    decided = await decide(
        scenario,
        server,
        None,
        seed,
        messages,
        lambda msgs: _executor_turn(ep, msgs, note),
        lambda text, msgs: _voiced(ep, refined, details, text, msgs),
    )
    if isinstance(decided, StageFailure):
        return decided
    decisions += [decided] if decided is not None else []
    calls = [c for m in messages for c in m.tool_calls]
    query, plan, trajectory = made(
        sid,
        refined,
        [(c.name, c.arguments, _deps(plan_answer, c.name, i)) for i, c in enumerate(calls)],
        messages,
        withheld=sorted(f"{d.step - 1}.{d.param}" for d in draft.details),
        parent_id=query_id(sid, draft.request),  # the refined request points at its draft
        decisions=decisions,
    )
    review = await _review(ep, messages, trajectory)
    if isinstance(review, StageFailure):
        return review
    # accept, or "human": the pipeline holds it in review_queue.jsonl until a person decides: the plan is
    # the one the conversation carried out, its calls in order, each depending on what the planner said
    return Written(query=query, plan=plan, trajectory=trajectory, review=review)


def _a_parameter(ep: _Episode, detail: roles.Detail) -> bool:
    """Whether a detail names a parameter of the tool of its step."""
    tools = ep.scenario.tools
    tool = ep.server.tool(tools[detail.step - 1]) if detail.step <= len(tools) else None
    return tool is not None and detail.param in tool.properties


async def _refine(ep: _Episode, draft: str) -> str | StageFailure:
    """The refined request; a fenced block of the draft (verbatim text) that the refiner changed is asked
    again once, showing the block; changed again, the scenario fails rather than keep a changed value."""
    request = roles.refine_request(ep.models["refine"], ep.agents.seed, draft, list(ep.scenario.tools), ep.who)
    for _attempt in range(2):
        refined = await ep.ask(request, roles.Refined, "refine")
        if isinstance(refined, StageFailure):
            return refined
        lost = roles.lost_verbatim(draft, refined.request)
        if not lost:
            return refined.request
        note = (
            "Your request changed or left out this fenced block of the draft, which must be kept byte for byte:\n"
            f"{lost[0]}\nAnswer again with the block copied exactly."
        )
        request = request.model_copy(
            update={
                "messages": (
                    *request.messages,
                    {"role": "assistant", "content": json.dumps({"request": refined.request}, ensure_ascii=False)},
                    {"role": "user", "content": note},
                )
            }
        )
    return StageFailure(
        stage="refine", item_id=ep.sid, reason="verbatim_changed", detail=f"the refiner changed: {lost[0][:300]}"
    )


async def _plan(ep: _Episode, request: str) -> roles.PlanAnswer | StageFailure:
    """The planner's steps for the request; a plan naming a tool the server lacks fails."""
    tools = [t for t in (ep.server.tool(n) for n in ep.scenario.tools) if t]
    plan_answer = await ep.ask(
        roles.plan_request(ep.models["plan"], ep.agents.seed, request, tools), roles.PlanAnswer, "plan"
    )
    if isinstance(plan_answer, StageFailure):
        return plan_answer
    unknown = [s.tool for s in plan_answer.steps if ep.server.tool(s.tool) is None]
    if unknown:
        return StageFailure(
            stage="plan",
            item_id=ep.sid,
            reason="unknown_tool",
            detail=f"the plan names tools {ep.server.id} does not have: {unknown}",
        )
    return plan_answer


async def _review(ep: _Episode, messages: list[Message], trajectory: Trajectory) -> Review | StageFailure:
    """The gates' review with the reviewer model's verdict and step labels, or why it was turned away."""
    checked = await asyncio.to_thread(gates.review, trajectory, ep.server, True)  # CPU work off the event loop
    if checked.verdict != "accept":
        return gates.failure(checked, ep.sid)
    calls = trajectory.calls
    # the gates label a call whose result the runtime marked isError (synth.stages.gates.step_labels)
    failed = {c.id: label for c, label in zip(calls, checked.step_labels, strict=True) if label != "success"}
    if calls and len(failed) == len(calls):  # nothing worked: not a conversation to learn success from
        detail = "; ".join(f"{c.name}: {failed[c.id]}" for c in calls)
        return StageFailure(stage="review", item_id=ep.sid, reason="all_calls_failed", detail=detail[:500])
    verdict = await ep.ask(
        roles.review_request(
            ep.models["review"],
            ep.agents.seed,
            roles.transcript(ep.openai(messages), failed),
            len(failed),
            ep.items,
        ),
        roles.Verdict,
        "review",
    )
    if isinstance(verdict, StageFailure):
        return verdict
    if verdict.verdict == "reject":
        return StageFailure(
            stage="review",
            item_id=ep.sid,
            reason="reviewer_reject",
            detail="; ".join(verdict.reasons)[:500] or verdict.verdict,
        )
    labels = _labels(checked.step_labels, verdict.step_labels)
    return checked.model_copy(
        update={
            "step_labels": labels,
            "verdict": verdict.verdict,
            "confidence": verdict.confidence,
            "reasons": tuple(verdict.reasons),
        }
    )


def _labels(gates: tuple[str, ...], said: list[str]) -> tuple[str, ...]:
    """One label per call: the gates' for a call whose result was an error (never "success", whatever the
    reviewer says), else the reviewer's ("success" for a call it did not label)."""
    said = (said + ["success"] * len(gates))[: len(gates)]
    return tuple(mine if mine != "success" else theirs for mine, theirs in zip(gates, said, strict=True))


async def _voiced(
    ep: _Episode, request: str, details: list[dict[str, Any]], text: str, messages: list[Message]
) -> str | StageFailure:
    """A turn the conversation adds (a request no tool serves, a follow-up), said by the user simulator in the
    person's own voice: the office manager who writes in lowercase does not turn formal for it."""
    reply = await ep.ask(
        roles.user_request(
            ep.models["user"], ep.agents.seed, request, details, roles.transcript(ep.openai(messages)), ep.who, text
        ),
        roles.UserReply,
        "user",
    )
    return reply if isinstance(reply, StageFailure) else reply.reply.strip() or text


def _deps(plan: roles.PlanAnswer, tool: str, i: int) -> tuple[int, ...]:
    """The earlier calls call ``i`` (to ``tool``) depends on, by position; the planner numbers steps from 1,
    as the query prompt does."""
    said = next((s.depends_on for s in plan.steps if s.tool == tool), [])
    return tuple(d - 1 for d in said if 0 < d <= i)


async def _converse(
    ep: _Episode, request: str, details: list[dict[str, Any]], plan: roles.PlanAnswer
) -> list[Message] | StageFailure:
    """The executor talks to the user simulator and calls tools until it gives a final answer.

    Tools answer through the entry's real server on a live run; else the server's pack (its world and
    templates, offline) when it has one, or the LLM tool role (always, with [roles.tool] backend = "llm").
    """
    agents = ep.agents
    offline = agents.tool_runtime(ep.scenario) if agents.tool_runtime is not None else None
    runtime = pick_async_runtime(
        ep.server,
        agents.pool,
        model=None if offline is not None else partial(_tool_model, ep),
        offline=None if offline is None else (lambda: offline),
    )
    assert runtime is not None, "an LLM run always has a tool role"
    try:
        return await _talk(ep, request, details, plan, runtime)
    except LiveError as error:  # the server could not be reached or broke off: the scenario ends with its line
        return StageFailure(stage="execute", item_id=ep.sid, reason=error.reason, detail=str(error)[:500])
    finally:
        await runtime.aclose()  # a live server goes back to the pool, off the event loop


def _tool_model(ep: _Episode) -> AsyncToolRuntime:
    """The tool role as a model: it answers each call from the tool's schema and the conversation so far."""
    return LLMToolRuntime(ep.scenario, ep.models["tool"], ep.agents.seed, lambda req, model, st: ep.ask(req, model, st))


async def _talk(
    ep: _Episode, request: str, details: list[dict[str, Any]], plan: roles.PlanAnswer, runtime: AsyncToolRuntime
) -> list[Message] | StageFailure:
    sid, seed, m, server = ep.sid, ep.agents.seed, ep.models, ep.server
    note = roles.plan_note(plan.steps, ep.items, partial(ep.agents.names, ep.server.id))
    # the deployment's own prompt (or none); how to behave is the plan note's, never written into the data
    messages: list[Message] = [*opening(server, seed, sid), Message(role="user", content=request)]
    results: list[Any] = []
    for _turn in range(MAX_TURNS):
        answer = await _executor_turn(ep, messages, note)
        if isinstance(answer, StageFailure):
            return answer
        if answer.tool_calls:
            calls = _calls(ep, answer, len(results))
            if isinstance(calls, StageFailure):
                return calls
            messages.append(Message(role="assistant", content=answer.content or None, tool_calls=tuple(calls)))
            failed = await _run_calls(ep, runtime, calls, messages, results)
            if failed is not None:
                return failed
            continue
        text = (answer.content or "").strip()
        if not text:
            return StageFailure(stage="execute", item_id=sid, reason="empty_answer", detail="no text and no tool call")
        if any(m.role == "assistant" and m.content == text for m in messages):  # the user could not help
            return StageFailure(
                stage="execute", item_id=sid, reason="asked_again", detail=f"the assistant repeated: {text[:200]}"
            )
        messages.append(Message(role="assistant", content=text))
        if results and not text.endswith("?"):
            return messages
        reply = await ep.ask(
            roles.user_request(m["user"], seed, request, details, roles.transcript(ep.openai(messages)), ep.who),
            roles.UserReply,
            "user",
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


async def _executor_turn(ep: _Episode, messages: list[Message], note: str) -> ChatResponse | StageFailure:
    """The executor's next turn, the plan note after the system prompt; a failed request fails the scenario
    (an endpoint that is down stops the run)."""
    names = ep.agents.names
    tools = tuple(openai_tool(t, names(ep.server.id, t.name)) for t in ep.server.tools if t.name in ep.offered)
    chat = ep.openai(messages)
    head = 1 if chat and chat[0]["role"] == "system" else 0  # the note comes after the system prompt, if any
    req = ChatRequest(
        role="executor",
        model=ep.models["executor"],
        seed=ep.agents.seed,
        tools=tools,
        template_hash=templates.template_hash("executor.plan.j2"),
        messages=(*chat[:head], {"role": "system", "content": note}, *chat[head:]),
    )
    answer = await _complete(ep, req)
    if isinstance(answer, StageFailure) or answer.tool_calls or cut_reason(answer.content, prose=True) is None:
        return answer
    # cut, though the endpoint said it stopped: asked again once with another seed (the same messages, so the
    # answer fits the conversation; a new cache key); still cut, the whole_text gate turns the scenario away
    stats = stats_of(ep.agents.backend("executor"))
    if stats is not None:
        stats.reasks += 1
    return await _complete(ep, req.model_copy(update={"seed": (req.seed or 0) + 1}))


async def _complete(ep: _Episode, req: ChatRequest) -> ChatResponse | StageFailure:
    try:
        answer = await ep.agents.backend("executor").complete(req)
    except EndpointDown:
        raise  # the run stops: every item would fail the same way
    except BackendError as exc:
        return StageFailure(stage="execute", item_id=ep.sid, reason=_reason(exc), detail=str(exc)[:500])
    ep.log.append(answer.model_copy(update={"model": f"executor:{answer.model or req.model}"}))
    return answer


def _calls(ep: _Episode, answer: ChatResponse, made: int) -> list[ToolCall] | StageFailure:
    """The answer's tool calls as records (the tools' own names, ids by position); arguments that are not a
    JSON object fail the scenario."""
    rename = {ep.agents.names(ep.server.id, t.name): t.name for t in ep.server.tools}
    calls: list[ToolCall] = []
    for raw in answer.tool_calls:
        fn = raw.get("function") or {}
        try:
            arguments = json.loads(fn.get("arguments") or "{}")
        except ValueError:
            detail = f"{fn.get('name')}: {str(fn.get('arguments'))[:300]}"
            return StageFailure(stage="execute", item_id=ep.sid, reason="invalid_arguments_json", detail=detail)
        if not isinstance(arguments, dict):
            detail = f"{fn.get('name')}: arguments are not an object"
            return StageFailure(stage="execute", item_id=ep.sid, reason="invalid_arguments_json", detail=detail)
        name = rename.get(str(fn.get("name")), str(fn.get("name")))
        step = made + len(calls)
        calls.append(ToolCall(id=f"call_{content_hash([ep.sid, step], 12)}", name=name, arguments=arguments))
    return calls


async def _run_calls(
    ep: _Episode, runtime: AsyncToolRuntime, calls: list[ToolCall], messages: list[Message], results: list[Any]
) -> StageFailure | None:
    """Each call answered by the runtime (an unknown tool by an error the gates then reject); a simulator
    that cannot answer fails the scenario."""
    for call in calls:
        tool = ep.server.tool(call.name)
        if tool is None:  # the gates reject it with its reason; no runtime can play it
            result = ToolResult.of({"error": f"unknown tool {call.name}"}, "llm", is_error=True)
        else:
            try:
                result = await runtime.call(tool, call.arguments)
            except SimulatorFailed as exc:
                return exc.failure
        results.append(result.data)
        messages.append(result.message(call.id))
    return None
