"""The offline backend's agents in one pass: query, plan and trajectory for a scenario.

Arguments are drawn first (the plan), then the request is written to state them, so every
gold value is grounded by construction; the gates check it anyway.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

from synth.live.sandbox import world_paths
from synth.offline import decisions as D
from synth.offline import language
from synth.records import (
    Decision,
    Message,
    Plan,
    Query,
    Scenario,
    ServerSpec,
    ToolCall,
    ToolSpec,
    Trajectory,
    content_hash,
)
from synth.runtime.base import ToolResult, ToolRuntime
from synth.runtime.simulated import SimulatedRuntime
from synth.scenarios.made import made
from synth.scenarios.planner import rng_for
from synth.scenarios.system_prompts import opening
from synth.simulator import vocab
from synth.simulator.toolnames import noun
from synth.simulator.values.params import documented
from synth.simulator.values.values import Context, make_value, words
from synth.stages.reader import internal

P_OPTIONAL = 0.3
_UNASKABLE = {"bool", "enum", "object", "code"}
_UNASKED = {"guess", "text", "code", "object"}  # kinds of optional values a request would not bring up


def write(
    scenario: Scenario, server: ServerSpec, topic: str, seed: int, runtime: ToolRuntime | None = None
) -> tuple[Query, Plan, Trajectory]:
    """One conversation; its calls go to ``runtime`` (default: the schema simulator)."""
    rng = rng_for(seed, "write", scenario.id)
    world = world_paths(server.connection.sandbox) if server.connection is not None else ()
    ctx = Context(rng=rng, topic=topic, city=rng.choice(vocab.CITIES)[0], world=world)
    tools = [server.tool(name) for name in scenario.tools]
    assert all(tools), "scenario names a tool the server does not have"
    steps, ctx = _steps(scenario, server, [t for t in tools if t is not None], ctx)
    withheld = _withhold(steps, rng) if scenario.multi_turn else ()
    text = language.request(steps, scenario.persona or None, rng)
    if runtime is None:  # the simulator puts each value a later step needs where that step reads it
        provide = {
            i: {lk.field: steps[lk.to_step].args[lk.param] for lk in scenario.links if lk.from_step == i}
            for i in range(len(steps))
        }
        runtime = SimulatedRuntime(ctx, provide, scenario.links)
    drng = rng_for(seed, "decision", scenario.id)  # the no-call turns' own stream (synth.offline.decisions)
    decisions: list[Decision] = []
    messages = _conversation(scenario, server, seed, steps, text, runtime, rng, _Guess(server, ctx, drng), decisions)
    alone, messages = _decided(scenario, server, steps, messages, drng, decisions, ctx)
    if alone:  # the request became one no tool serves: it is what the user said, and nothing was planned
        text, withheld, steps = messages[_first_user(messages)].content or "", (), []
    planned = [
        (s.tool.name, s.args, tuple(sorted({lk.from_step for lk in scenario.links if lk.to_step == i})))
        for i, s in enumerate(steps)
    ]
    return made(scenario.id, text, planned, messages, withheld=withheld, decisions=decisions)


class _Guess:
    """Values a model would make up instead of asking: another value of the parameter's kind."""

    def __init__(self, server: ServerSpec, ctx: Context, rng: random.Random):
        self.server, self.ctx = server, dataclasses.replace(ctx, rng=rng)

    def value(self, tool: ToolSpec, param: str, avoid: Any) -> Any:
        schema = tool.properties.get(param)
        for _ in range(4):
            if not isinstance(schema, dict):
                return None
            value, _kind = make_value(param, schema, self.ctx)
            if value != avoid:
                return value
        return None

    def arguments(self, tool: ToolSpec) -> dict[str, Any]:
        return {p: v for p in tool.required if (v := self.value(tool, p, None)) is not None}


def _decided(
    scenario: Scenario,
    server: ServerSpec,
    steps: list[language.Step],
    messages: list[Message],
    rng: random.Random,
    decisions: list[Decision],
    ctx: Context,
) -> tuple[bool, list[Message]]:
    """The scenario's decline or answer turn added to ``messages`` (synth.offline.decisions); whether the
    decline is the whole conversation."""
    guess = _Guess(server, ctx, rng)
    if scenario.decision == "answer":
        answer = D.add_answer(messages, rng, lambda _name: None, rng.choice(D.ALSO))
        decisions += [answer] if answer is not None else []
    options = D.declines_for(server.tools, server, None) if scenario.decision == "decline" else []
    if not options:
        return False, messages
    declined = rng.choice(options)
    where = D.place(rng, declined)
    offer = list({s.tool.name: s.tool for s in steps}.values())
    if where == "last":
        decisions.append(D.add_decline(messages, declined, offer, rng, guess.arguments, rng.choice(D.ALSO)))
        return False, messages
    start = _first_user(messages)
    head: list[Message] = messages[:start]
    decline = D.add_decline(head, declined, offer, rng, guess.arguments)
    if where == "alone":
        decisions[:] = [decline]
        return True, head
    shift = len(head) - start  # the request and the no come before everything else
    first = messages[start]
    opened = Message(role="user", content=rng.choice(D.AFTER_NO) + (first.content or ""))
    decisions[:] = [decline] + [d.model_copy(update={"message": d.message + shift}) for d in decisions]
    return False, head + [opened] + messages[start + 1 :]


def _first_user(messages: list[Message]) -> int:
    """Where the first request is: after the system prompt, when the conversation has one."""
    return next(i for i, m in enumerate(messages) if m.role == "user")


def _steps(
    scenario: Scenario, server: ServerSpec, tools: list[ToolSpec], ctx: Context
) -> tuple[list[language.Step], Context]:
    """Each call's arguments, drawn before the request is written; the context as the last call left it."""
    chosen: dict[str, tuple[Any, str]] = {}  # one value per parameter name across the conversation
    steps: list[language.Step] = []
    for i, tool in enumerate(tools):
        about = f"{' '.join(words(tool.name))} {tool.description[:200]}".lower()
        ctx = dataclasses.replace(ctx, subject=noun(tool), about=about)
        linked = {lk.param: lk.field for lk in scenario.links if lk.to_step == i}
        args, kinds = _arguments(tool, server, linked, chosen, ctx)
        _in_order(tool, args)
        steps.append(language.Step(tool, args, kinds, linked, set()))
    return steps, ctx


def _arguments(
    tool: ToolSpec, server: ServerSpec, linked: dict[str, str], chosen: dict[str, tuple[Any, str]], ctx: Context
) -> tuple[dict[str, Any], dict[str, str]]:
    """The required arguments and, now and then, one optional setting, with the kind of each value."""
    rng = ctx.rng
    props = documented(tool, server.tools)  # descriptions from the docstring's Args: where the schema has none
    optional = [p for p in tool.properties if p not in tool.required]
    # a person asks for an optional setting now and then, one at a time; the rest stay at the tool's defaults
    picked = [rng.choice(optional)] if optional and rng.random() < P_OPTIONAL else []
    args: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    for param in [*tool.required, *picked]:
        schema = props.get(param)
        if not isinstance(schema, dict):
            continue
        kind = chosen[param][1] if param in chosen else ""
        if (
            param in chosen
            and _fits(chosen[param][0], schema)
            and kind != "code"
            and not (ctx.world and kind == "path")
        ):
            # one symbol/city per conversation; code fits the tool that runs it (a SELECT to read_query, an INSERT
            # to write_query) and a path of a live world one tool (a folder to list, a file to read): each draws its own
            args[param], kinds[param] = chosen[param]
            continue
        value, kind = make_value(param, schema, ctx)
        if param not in tool.required and (kind in _UNASKED or value == schema.get("default")):
            continue  # an optional value nobody would ask for (a guess, boilerplate, the default) is left out
        args[param], kinds[param] = value, kind
        if param not in linked:
            chosen[param] = (value, kind)
    return args, kinds


def _withhold(steps: list[language.Step], rng: random.Random) -> tuple[str, ...]:
    """One required value the request leaves out, for the assistant to ask for (none when none can be)."""
    askable = [
        (i, p)
        for i, s in enumerate(steps)
        for p in s.tool.required
        if p in s.args
        and p not in s.linked
        and s.kinds.get(p) not in _UNASKABLE
        and not internal(s.tool, p)  # the model writes it (why it calls); no person would know it
        and not any(p in other.args for j, other in enumerate(steps) if j < i)
        # a value the request states anyway (for another step) cannot be held back
        and not any(s.args[p] == v for j, other in enumerate(steps) if j != i for v in other.args.values())
    ]
    if not askable:
        return ()
    i, p = rng.choice(askable)
    steps[i].withheld.add(p)
    return (f"{i}.{p}",)


def _conversation(
    scenario: Scenario,
    server: ServerSpec,
    seed: int,
    steps: list[language.Step],
    text: str,
    runtime: ToolRuntime,
    rng: random.Random,
    guess: _Guess,
    decisions: list[Decision],
) -> list[Message]:
    """The messages: the request, a question for each withheld value, each call and result, the reply;
    each question is a decision to ask (what a guess would have been is kept in ``decisions``)."""
    messages = [*opening(server, seed, scenario.id), Message(role="user", content=text)]
    results: list[ToolResult] = []
    for i, step in enumerate(steps):
        for param in sorted(step.withheld):
            decisions.append(D.ask_decision(len(messages), _guessed(scenario, i, step, param, guess), param))
            messages.append(Message(role="assistant", content=language.ask(step.tool, param, rng)))
            messages.append(
                Message(role="user", content=language.give(param, step.args[param], step.kinds[param], rng))
            )
        for lk in scenario.links:  # a chained value is read from the earlier result, never invented
            if lk.to_step == i and (fed := fed_value(results[lk.from_step].data, lk.field)) is not None:
                step.args[lk.param] = fed
        call = ToolCall(id=f"call_{content_hash([scenario.id, i], 12)}", name=step.tool.name, arguments=step.args)
        messages.append(Message(role="assistant", tool_calls=(call,)))
        results.append(runtime.call(step.tool, step.args))
        messages.append(results[-1].message(call.id))
    messages.append(
        Message(role="assistant", content=" ".join(language.reply(s.tool, s.args, r) for s, r in zip(steps, results)))
    )
    return messages


def _guessed(scenario: Scenario, i: int, step: language.Step, param: str, guess: _Guess) -> ToolCall | None:
    """Step ``i``'s call with ``param`` made up instead of asked for (None when no other value comes)."""
    value = guess.value(step.tool, param, step.args[param])
    if value is None or step.linked:
        return None
    cid = f"call_{content_hash([scenario.id, i, 'guess'], 12)}"
    return ToolCall(id=cid, name=step.tool.name, arguments={**step.args, param: value})


def fed_value(data: Any, field: str) -> Any:
    """The value a chained call takes from an earlier result: the first ``field`` in it, searching
    records and the first item of lists; for an id parameter (``task_id``), an item's ``id``."""

    def find(value: Any, key: str, depth: int = 0) -> Any:
        if depth > 4:
            return None
        if isinstance(value, dict):
            if key in value and isinstance(value[key], (str, int)) and not isinstance(value[key], bool):
                return value[key]
            children = list(value.values())
        elif isinstance(value, list):
            children = value[:1]
        else:
            return None
        for child in children:
            if isinstance(child, (dict, list)) and (found := find(child, key, depth + 1)) is not None:
                return found
        return None

    found = find(data, field)
    if found is None and (field.lower().endswith("id") or field.lower().endswith("_id")):
        found = find(data, "id")
    return found


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """Reuse a value for a same-named parameter only when its JSON type matches."""
    t = schema.get("type")
    if "enum" in schema:
        return value in schema["enum"]
    expected = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list, "object": dict}
    return t not in expected or (
        isinstance(value, expected[t]) and not (t in ("integer", "number") and isinstance(value, bool))  # type: ignore[arg-type]
    )


def _in_order(tool: ToolSpec, args: dict[str, Any]) -> None:
    """Numbers their tool orders stay in order: "k items from n items" has k <= n, ``min_price`` <= ``max_price``."""
    nums = [p for p, v in args.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    for a in nums:
        for b in nums:
            named = (
                words(a)[:1] in (["min"], ["start"], ["from"])
                and words(b)[:1] in (["max"], ["end"], ["to"])
                and words(a)[1:] == words(b)[1:]
            )
            said = re.search(rf"\b{re.escape(a)}\b[^.]{{0,25}}\bfrom\b[^.]{{0,12}}\b{re.escape(b)}\b", tool.description)
            if a != b and (named or said) and args[a] > args[b]:
                args[a], args[b] = args[b], args[a]
