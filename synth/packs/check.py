"""``synth pack check``: is a pack usable for its server? Every slot fillable, every value valid.

Checks expand each template several times with different seeds, so a generator that only
sometimes breaks a schema (a number out of range, a bad date) is caught here, not in a run.
"""

from __future__ import annotations

import random
import re
from typing import Any

from synth.packs.draw import arguments, draw, goal_params
from synth.packs.model import Goal, Pack, Pool, Range, ToolPack, goal_of
from synth.packs.template import Expander, Missing, answer_slot, fill, get_path, slots
from synth.records import Problem, ServerSpec, ToolSpec
from synth.stages.gates import schema_error

SAMPLES = 6


def check_pack(pack: Pack, server: ServerSpec, file: str) -> list[Problem]:
    """Every problem of ``pack`` against ``server``, each naming the tool, the place and the fix."""
    out: list[Problem] = []

    def problem(tool: str | None, pointer: str, what: str, fix: str, severity: str = "error") -> None:
        out.append(
            Problem(
                severity=severity,
                file=file,
                server=server.id,
                tool=tool,
                pointer=pointer,
                what=what,
                fix=fix,
            )
        )

    names = {t.name for t in server.tools}
    for name, tp in pack.tools.items():
        tool = server.tool(name)
        if tool is None:
            problem(
                name,
                f"/tools/{name}",
                f"{server.id} has no tool {name!r}",
                f"use one of: {', '.join(sorted(names))[:300]}",
            )
            continue
        _check_tool(tool, tp, pack, server, problem)
    missing = sorted(names - set(pack.tools))
    if missing:
        problem(
            None,
            "/tools",
            f"no entry for {len(missing)} tool(s): {', '.join(missing)[:300]}",
            "add them; without an entry those tools use the plain fallback",
            "warning",
        )
    return out


def _check_tool(tool: ToolSpec, tp: ToolPack, pack: Pack, server: ServerSpec, problem) -> None:
    at = f"/tools/{tool.name}"
    props = tool.properties
    for param in [*tp.values, *(k for c in tp.cases for k in c), *tp.ask, *tp.say]:
        if param not in props:
            problem(
                tool.name,
                at,
                f"{param!r} is not a parameter of {tool.name}",
                f"parameters are: {', '.join(props) or '(none)'}",
            )
    filled = set(tp.values) | {k for c in tp.cases for k in c}
    fed = {f.param for t in pack.tools.values() for f in t.feeds if f.to == tool.name}
    for param in tool.required:
        if param not in filled:
            problem(
                tool.name,
                f"{at}/values",
                f"required parameter {param!r} has no values",
                "add a pool or a range under values (or a case)"
                + (" (feeds alone do not cover single-tool goals)" if param in fed else ""),
            )
    _check_values(tool, tp, problem)
    for i, goal in enumerate(map(goal_of, tp.goals)):
        _check_goal(tool, goal, filled, f"{at}/goals/{i}", problem, server)
    samples = _samples(tool, tp)
    for i, template in enumerate(tp.results):
        for args in samples:
            try:
                Expander(random.Random(1), args).value(template)
            except Missing as exc:
                problem(
                    tool.name,
                    f"{at}/results/{i}",
                    f"slot {{{exc.args[0]}}} cannot be filled",
                    "use a parameter of the tool, {n} inside $repeat, or a generator (int, num, pick, date, fake, id)",
                )
                break
    for i, answer in enumerate(tp.answers):
        if not any(_answer_fits(answer, template, args) for template in tp.results for args in samples[:2]):
            problem(
                tool.name,
                f"{at}/answers/{i}",
                "the answer has a slot that no result template fills",
                "refer to result fields as {r.path} (e.g. {r.items.0.name}) and to arguments by name",
            )
    for i, failure in enumerate(tp.failures):
        if not any(_answer_fits(failure.answer, failure.result, args) for args in samples[:2]):
            problem(
                tool.name,
                f"{at}/failures/{i}",
                "the failure answer has a slot its result does not fill",
                "refer to the failure result's fields as {r.path} and to arguments by name",
            )
    for i, feed in enumerate(tp.feeds):
        _check_feed(tool, tp, feed, pack, server, samples, f"{at}/feeds/{i}", problem)


def _check_values(tool: ToolSpec, tp: ToolPack, problem) -> None:
    at = f"/tools/{tool.name}/values"
    for param, values in tp.values.items():
        schema = tool.properties.get(param)
        if not isinstance(schema, dict):
            continue
        closed = "enum" in schema or schema.get("type") == "boolean"
        alone = {"type": "object", "properties": {param: schema}}  # one object: its validator is found by identity
        rng = random.Random(7)
        for _ in range(SAMPLES * 2):
            try:
                value = draw(values, rng, Expander(rng))
            except Missing as exc:
                problem(
                    tool.name,
                    f"{at}/{param}",
                    f"slot {{{exc.args[0]}}} in a value cannot be filled",
                    "values may use generators only ({int:..}, {fake:..}, ...); a literal brace cannot be written",
                )
                break
            error = schema_error(alone, {param: value})
            if error:
                problem(
                    tool.name,
                    f"{at}/{param}",
                    f"value {value!r} breaks the schema: {error}",
                    "keep values to the parameter's type, format, pattern, enum and range",
                )
                break
        if isinstance(values, (Pool, Range)) and not closed:
            for key, text in values.phrase.items():
                if key.casefold() not in text.casefold():
                    problem(
                        tool.name,
                        f"{at}/{param}/phrase/{key}",
                        f"phrase {text!r} does not contain the value {key!r}",
                        "a non-enum value must be said as it is sent, or the call cannot be grounded in the request",
                    )


def _check_goal(tool: ToolSpec, goal: Goal, filled: set[str], at: str, problem, server: ServerSpec) -> None:
    for slot in slots(goal.text):
        if slot not in filled:
            problem(
                tool.name,
                at,
                f"slot {{{slot}}} is not a parameter with values",
                "use parameter names that have values (or cases) in this tool's entry",
            )
    for param, value in goal.set.items():
        schema = tool.properties.get(param) or {}
        closed = (
            value in (schema.get("enum") or [])
            or isinstance(value, bool)
            or ("default" in schema and schema["default"] == value)
        )
        if not closed:
            problem(
                tool.name,
                at,
                f"goal sets {param!r} to {value!r}, which is not an enum value, a boolean or the default",
                "state the value in the goal as a {slot} instead, so the call is grounded in the user's words",
            )
    for other in server.tools:
        if re.search(rf"(?<![\w]){re.escape(other.name)}(?![\w])", goal.text) and (
            "_" in other.name or any(c.isupper() for c in other.name[1:])
        ):
            problem(
                tool.name, at, f"the goal names the tool {other.name!r}", "say what the person wants, not which tool"
            )


def _samples(tool: ToolSpec, tp: ToolPack) -> list[dict[str, Any]]:
    params = [p for p in tool.properties if p in tp.values or any(p in c for c in tp.cases)]
    out = []
    for seed in range(SAMPLES):
        rng = random.Random(seed)
        out.append(arguments(tp, params, rng, Expander(rng)))
    return out


def _answer_fits(answer: str, template: Any, args: dict[str, Any]) -> bool:
    rng = random.Random(3)
    try:
        result = Expander(rng, args).value(template)
        fill(answer, lambda s: answer_slot(s, args, result))
    except Missing:
        return False
    return True


def _check_feed(tool: ToolSpec, tp: ToolPack, feed, pack: Pack, server: ServerSpec, samples, at: str, problem) -> None:
    target = server.tool(feed.to)
    if target is None:
        problem(tool.name, at, f"feeds {feed.to!r}, which is not a tool of {server.id}", "name a tool of this server")
        return
    if feed.param not in target.properties:
        problem(
            tool.name,
            at,
            f"{feed.param!r} is not a parameter of {feed.to}",
            f"parameters are: {', '.join(target.properties)}",
        )
        return
    for template in tp.results:
        try:
            value = get_path(Expander(random.Random(5), samples[0] if samples else {}).value(template), feed.path)
        except Missing:
            problem(
                tool.name,
                at,
                f"path {feed.path!r} is not in every result template",
                "give every result template the field the next tool needs",
            )
            return
        error = schema_error(
            {"type": "object", "properties": {feed.param: target.properties[feed.param]}}, {feed.param: value}
        )
        if error:
            problem(
                tool.name,
                at,
                f"the value at {feed.path!r} ({value!r}) is not valid for {feed.to}.{feed.param}: {error}",
                "point the path at a field of the right type",
            )
            return
    consumer = pack.tools.get(feed.to)
    filled = set(tp.values) | {k for c in tp.cases for k in c}
    if consumer:
        filled |= set(consumer.values) | {k for c in consumer.cases for k in c}
    for i, goal in enumerate(map(goal_of, feed.goals)):
        if feed.param in goal_params(goal):
            problem(
                tool.name,
                f"{at}/goals/{i}",
                f"the goal states {feed.param!r}, which must come from the result",
                "leave the fed value out of the request",
            )
        _check_goal(tool, goal, filled - {feed.param}, f"{at}/goals/{i}", problem, server)
