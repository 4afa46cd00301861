"""The offline backend's agents in one pass: query, plan and trajectory for a scenario.

Arguments are drawn first (the plan), then the request is written to state them, so every
gold value is grounded by construction; the gates check it anyway.
"""

from __future__ import annotations

import json
from typing import Any

from synth.offline import language
from synth.offline.scenario import rng_for
from synth.offline.simulate import simulate
import dataclasses

from synth.offline.simulate import noun
from synth.offline.values import Context, make_value, words
from synth.offline import vocab
from synth.templates import render
from synth.records import (
    Message,
    Plan,
    PlanStep,
    Query,
    Scenario,
    ServerSpec,
    ToolCall,
    Trajectory,
    content_hash,
    make_id,
)

_MAX_OPTIONAL = 3
_UNASKABLE = {"bool", "enum", "object", "code"}


def write(scenario: Scenario, server: ServerSpec, topic: str, seed: int) -> tuple[Query, Plan, Trajectory]:
    rng = rng_for(seed, "write", scenario.id)
    ctx = Context(rng=rng, topic=topic, city=rng.choice(vocab.CITIES)[0])
    tools = [server.tool(name) for name in scenario.tools]
    assert all(tools), "scenario names a tool the server does not have"

    chosen: dict[str, tuple[Any, str]] = {}  # one value per parameter name across the conversation
    steps: list[language.Step] = []
    for i, tool in enumerate(tools):
        assert tool is not None
        about = f"{' '.join(words(tool.name))} {tool.description[:200]}".lower()
        ctx = dataclasses.replace(ctx, subject=noun(tool), about=about)
        linked = {lk.param: lk.field for lk in scenario.links if lk.to_step == i}
        optional = [p for p in tool.properties if p not in tool.required]
        picked = [p for p in optional if rng.random() < 0.35][:_MAX_OPTIONAL]
        args: dict[str, Any] = {}
        kinds: dict[str, str] = {}
        for param in [*tool.required, *picked]:
            schema = tool.properties.get(param)
            if not isinstance(schema, dict):
                continue
            if param in chosen and _fits(chosen[param][0], schema):  # one symbol/city per conversation
                args[param], kinds[param] = chosen[param]
                continue
            value, kind = make_value(param, schema, ctx)
            if kind == "guess" and param not in tool.required:
                continue  # an optional parameter we cannot fill well is left out, not invented
            args[param], kinds[param] = value, kind
            if param not in linked:
                chosen[param] = (value, kind)
        steps.append(language.Step(tool, args, kinds, linked, set()))

    withheld: tuple[str, ...] = ()
    if scenario.multi_turn:
        askable = [(i, p) for i, s in enumerate(steps) for p in s.tool.required
                   if p in s.args and p not in s.linked and s.kinds.get(p) not in _UNASKABLE
                   and not any(p in other.args for j, other in enumerate(steps) if j < i)
                   # a value the request states anyway (for another step) cannot be held back
                   and not any(s.args[p] == v for j, other in enumerate(steps) if j != i for v in other.args.values())]
        if askable:
            i, p = rng.choice(askable)
            steps[i].withheld.add(p)
            withheld = (f"{i}.{p}",)

    text = language.request(steps, scenario.persona or None, rng)
    query = Query(id=make_id("query", scenario.id, text), scenario_id=scenario.id, text=text, withheld=withheld)
    plan = Plan(
        id=make_id("plan", scenario.id, [(s.tool.name, s.args) for s in steps]),
        scenario_id=scenario.id,
        steps=tuple(
            PlanStep(step=i, tool=s.tool.name, arguments=s.args,
                     depends_on=tuple(sorted({lk.from_step for lk in scenario.links if lk.to_step == i})))
            for i, s in enumerate(steps)
        ),
    )

    messages: list[Message] = [
        Message(role="system", content=render("conversation.system.j2", server=server)),
        Message(role="user", content=text),
    ]
    results: list[tuple[Any, dict[str, Any], dict[str, Any]]] = []
    for i, step in enumerate(steps):
        for param in sorted(step.withheld):
            messages.append(Message(role="assistant", content=language.ask(step.tool, param, rng)))
            messages.append(Message(role="user", content=language.give(param, step.args[param], step.kinds[param], rng)))
        call = ToolCall(id=f"call_{content_hash([scenario.id, i], 12)}", name=step.tool.name, arguments=step.args)
        messages.append(Message(role="assistant", tool_calls=(call,)))
        provide = {lk.field: steps[lk.to_step].args[lk.param] for lk in scenario.links if lk.from_step == i}
        result = simulate(step.tool, step.args, ctx, provide)
        for lk in scenario.links:  # a detail call about the item a list returned agrees with that item
            if lk.to_step == i and (item := _first_item(results[lk.from_step][2])) is not None:
                result.update({k: v for k, v in item.items() if k in result and k not in step.args})
        results.append((step.tool, step.args, result))
        messages.append(Message(role="tool", tool_call_id=call.id, content=json.dumps(result, ensure_ascii=False)))
    messages.append(Message(role="assistant", content=language.answer(results)))

    trajectory = Trajectory(id=make_id("traj", scenario.id, [m.to_json() for m in messages]),
                            scenario_id=scenario.id, messages=tuple(messages))
    return query, plan, trajectory


def _first_item(result: Any) -> dict[str, Any] | None:
    """The first record of a list result (``{"authors": [{...}, ...]}``), which a chained call is about."""
    if isinstance(result, dict):
        for value in result.values():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return value[0]
    return None


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Reuse a value for a same-named parameter only when its JSON type matches."""
    t = schema.get("type")
    if "enum" in schema:
        return value in schema["enum"]
    expected = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}
    return t not in expected or (isinstance(value, expected[t]) and not (t in ("integer", "number") and isinstance(value, bool)))
