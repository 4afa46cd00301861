"""``synth pack check``: is a pack usable for its server? Every slot fillable, every value valid.

Checks expand each template several times with different seeds, so a generator that only
sometimes breaks a schema (a number out of range, a bad date) is caught here, not in a run. Every
problem names the tool, the place, what is wrong and the fix, tagged with the rule it breaks
(synth.packs.rules, which the pack prompt states); one mistake gives one message: what cannot be
checked because of an earlier problem (answers of a result that does not expand) is not reported again.
"""

from __future__ import annotations

import difflib
import json
import random
import re
from typing import Any

from synth.asks import periods
from synth.packs.check_world import check_world, sample_world
from synth.packs.draw import arguments, draw, goal_params
from synth.packs.items import parse_tests
from synth.packs.model import Goal, Pack, Pool, Range, ToolPack, goal_of
from synth.packs.rules import BY_ID
from synth.packs.template import Expander, Missing, answer_slot, fed, fill, get_path, slots
from synth.packs.world import WorldState
from synth.records import Problem, ServerSpec, ToolSpec
from synth.stages.gates import schema_error

SAMPLES = 6


def check_pack(pack: Pack, server: ServerSpec, file: str) -> list[Problem]:
    """Every problem of ``pack`` against ``server``, each naming the tool, the place and the fix."""
    out: list[Problem] = []

    def problem(tool: str | None, pointer: str, what: str, fix: str, severity: str = "error", rule: str = "") -> None:
        assert not rule or rule in BY_ID, rule
        tag = f" [{rule}]" if rule else ""
        out.append(
            Problem(
                severity=severity, file=file, server=server.id, tool=tool, pointer=pointer, what=what + tag, fix=fix
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
                rule="tools",
            )
            continue
        _check_tool(tool, tp, pack, server, problem)
    check_world(pack, server, problem)
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
    filled = _filled(tp) & set(props)
    missing = [p for p in tool.required if p not in filled]
    places = {
        **{k: "say" for k in tp.say},
        **{k: "ask" for k in tp.ask},
        **{k: "cases" for c in tp.cases for k in c},
        **{k: "values" for k in tp.values},
    }
    for param, place in places.items():
        if param in props:
            continue
        near = difflib.get_close_matches(param, missing or list(props), n=1, cutoff=0.6)
        if near and near[0] in missing:  # one mistake (a misspelt name), one message
            missing.remove(near[0])
            fix = f"rename {param!r} to {near[0]!r}, the required parameter that has no values"
        else:
            fix = f"use a parameter of {tool.name}: {', '.join(props) or '(it has none)'}"
        problem(tool.name, f"{at}/{place}/{param}", f"{param!r} is not a parameter of {tool.name}", fix, rule="params")
    fed = {f.param for t in pack.tools.values() for f in t.feeds if f.to == tool.name}
    for param in missing:
        problem(
            tool.name,
            f"{at}/values",
            f"the required parameter {param!r} has no values",
            f"add values: {{{param!r}: [8-12 real values]}} or a range"
            + (" (a feed alone does not cover goals for this tool on its own)" if param in fed else ""),
            rule="required",
        )
    world = sample_world(pack)
    _check_values(tool, tp, problem, world)
    _check_goals(tool, tp.goals, filled, f"{at}/goals", problem, server)
    samples = _samples(tool, tp, world)
    expandable = _check_results(tool, tp, filled, samples, at, problem)
    _check_items(tool, tp.goals, expandable, samples, f"{at}/goals", problem)
    for i, answer in enumerate(tp.answers):
        if expandable and not any(_answer_fits(answer, t, args) for t in expandable for args in samples[:2]):
            problem(
                tool.name,
                f"{at}/answers/{i}",
                f"answer {i} has a slot not every result template fills ({_unfilled(answer, expandable, samples)})",
                "use {r.path} for fields every result has, {count:r.list}, and parameters with values",
                rule="answer-slots",
            )
    for i, failure in enumerate(tp.failures):
        if not any(_answer_fits(failure.answer, failure.result, args) for args in samples[:2]):
            problem(
                tool.name,
                f"{at}/failures/{i}/answer",
                f"failure {i}'s answer has a slot its own result does not fill "
                f"({_unfilled(failure.answer, [failure.result], samples)})",
                "refer to the failure result's own fields as {r.path}, and to parameters with values",
                rule="failure-slots",
            )
    for i, feed in enumerate(tp.feeds):
        _check_feed(tool, tp, feed, pack, server, samples, expandable, f"{at}/feeds/{i}", problem)


def _filled(tp: ToolPack) -> set[str]:
    """The parameters an entry gives values for (a pool, a range, or a case)."""
    return set(tp.values) | {k for c in tp.cases for k in c}


def _check_results(tool: ToolSpec, tp: ToolPack, filled: set[str], samples, at: str, problem) -> list[Any]:
    """Report result templates with a slot nothing fills; return the templates that expand."""
    ok = []
    for i, template in enumerate(tp.results):
        bad = None
        for args in samples:
            try:
                Expander(random.Random(1), args).value(template)
            except Missing as exc:
                bad = str(exc.args[0])
                break
        if bad is None:
            ok.append(template)
        elif bad in tool.properties:
            problem(
                tool.name,
                f"{at}/results/{i}",
                f"result {i} echoes {{{bad}}}, a parameter with no values in this entry",
                f"add values for {bad!r}, or write a fixed value or a generator in its place",
                rule="result-slots",
            )
        else:
            problem(
                tool.name,
                f"{at}/results/{i}",
                f"result {i} has the slot {{{bad}}}, which is neither a parameter with values nor a generator",
                "use a parameter with values, {n} inside $repeat, or a generator (int, num, pick, date, fake, id); "
                "text in braces is always read as a slot, so write literal text without them",
                rule="result-slots",
            )
    return ok


def _unfilled(text: str, templates: list[Any], samples) -> str:
    """The first slot of ``text`` that fails against the first template, for the message."""
    args = samples[0] if samples else {}
    try:
        result = Expander(random.Random(3), args).value(templates[0])
        fill(text, lambda s: answer_slot(s, args, result))
    except Missing as exc:
        return f"{{{exc.args[0]}}}"
    return "a slot"


def _check_values(tool: ToolSpec, tp: ToolPack, problem, world: WorldState | None) -> None:
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
                value = draw(values, rng, Expander(rng, world=world))
            except Missing as exc:
                problem(
                    tool.name,
                    f"{at}/{param}",
                    f"{{{exc.args[0]}}} in a value of {param!r} is not a generator",
                    "values may use generators only ({int:..}, {fake:..}, ...); a literal brace cannot be written",
                    rule="valid-values",
                )
                break
            error = schema_error(alone, {param: value})
            if error:
                problem(
                    tool.name,
                    f"{at}/{param}",
                    f"the value {value!r} of {param!r} breaks its schema: {error}",
                    f"keep every value of {param!r} to its type, format, pattern, enum and range: {_brief(schema)}",
                    rule="valid-values",
                )
                break
        if isinstance(values, (Pool, Range)) and not closed:
            for key, text in values.phrase.items():
                if key.casefold() not in text.casefold():
                    problem(
                        tool.name,
                        f"{at}/{param}/phrase/{key}",
                        f"the phrase {text!r} does not contain the value {key!r}",
                        "say the value as it is sent (a non-enum value must be grounded in the request)",
                        rule="phrase",
                    )


def _brief(schema: dict[str, Any]) -> str:
    keys = ("type", "enum", "format", "pattern", "minimum", "maximum", "minLength", "maxLength")
    return json.dumps({k: schema[k] for k in keys if k in schema}, ensure_ascii=False)[:200]


def _check_goals(tool: ToolSpec, goals, filled: set[str], at: str, problem, server: ServerSpec) -> None:
    """Goal problems, one message per mistake: a slot without values is reported once with every goal using it."""
    unfilled: dict[str, list[int]] = {}
    for i, goal in enumerate(map(goal_of, goals)):
        for slot in dict.fromkeys(slots(goal.text)):
            if ":" not in slot and slot not in filled:
                unfilled.setdefault(slot, []).append(i)
        _check_set(tool, goal, f"{at}/{i}", problem)
        for other in server.tools:
            if re.search(rf"(?<![\w]){re.escape(other.name)}(?![\w])", goal.text) and (
                "_" in other.name or any(c.isupper() for c in other.name[1:])
            ):
                problem(
                    tool.name,
                    f"{at}/{i}",
                    f"goal {i} names the tool {other.name!r}",
                    "say what the person wants, not which tool",
                    rule="no-tool-names",
                )
    for slot, where in unfilled.items():
        known = slot in tool.properties
        problem(
            tool.name,
            f"{at}/{where[0]}",
            f"goal{'s' * (len(where) > 1)} {', '.join(map(str, where))} use{'s' * (len(where) == 1)} {{{slot}}}, "
            + ("a parameter with no values in this entry" if known else f"which is not a parameter of {tool.name}"),
            f"add values for {slot!r}, or leave the slot out" if known else "use a parameter that has values",
            rule="goal-slots",
        )


def _check_items(tool: ToolSpec, goals, results: list[Any], samples, at: str, problem, first=None) -> None:
    """A goal that asks for several things declares them (goal-items), and its items and answer frame fill from
    the results of its (last) tool (item-slots); ``first``: the first tool's (results, samples) in a feed."""
    for i, goal in enumerate(map(goal_of, goals)):
        said = fill(goal.text, lambda s: "5")  # "top {limit}" asks for a number of things too
        asked, wanted = periods(said), _WANTED.search(said)
        if not goal.items and (asked or wanted):
            what = f"the periods {', '.join(asked)}" if asked else f'"{wanted.group(0)}"' if wanted else ""
            problem(
                tool.name,
                f"{at}/{i}",
                f"goal {i} asks for {what} and declares no items, so its answer can leave one unsaid",
                'add "items": one per thing asked, each with the answer\'s words for it from the result'
                + ("" if asked else ", or answers that name every item ({each:r.list|$name})"),
                # a number of things is often met by the tool's answers ({each:...}); periods never are
                severity="error" if asked else "warning",
                rule="goal-items",
            )
        texts = [(f"{at}/{i}/answer", goal.answer, True)] if goal.answer else []
        for k, item in enumerate(goal.items):
            # an item that says why it may be missing needs one template that fills it, any other every one
            every = item.missing is None
            texts += [(f"{at}/{i}/items/{k}/say", item.say, every)]
            texts += [(f"{at}/{i}/items/{k}/otherwise", item.otherwise, every)] if item.otherwise else []
            if item.when is not None:
                try:
                    parse_tests(item.when)
                except ValueError as exc:
                    problem(
                        tool.name,
                        f"{at}/{i}/items/{k}/when",
                        str(exc),
                        "write it as 'r.path >= value'",
                        rule="item-slots",
                    )
        for pointer, text, every in texts:  # an item has no other wording to fall back on
            fits = [any(_item_fits(text, t, args, first) for args in samples[:2]) for t in results]
            if results and not (all(fits) if every else any(fits)):
                problem(
                    tool.name,
                    pointer,
                    f"goal {i} has a slot not every result template fills in {text!r}",
                    "use {r.path} for fields every result has, {first:r.path} for the first tool's in a feed, "
                    "{each:r.list|$field} and parameters with values",
                    rule="item-slots",
                )


_WANTED = re.compile(
    r"(?i)\b(?:top|first|newest|latest|last)\s+(?:\d+|few|ten|five|three|twenty)\b(?!\s+(?:days|weeks|months|years|hours))"
)


def _item_fits(text: str, template: Any, args: dict[str, Any], first) -> bool:
    rng = random.Random(3)
    try:
        result = Expander(rng, args).value(template)
        before = (
            Expander(rng, first[1][0] if first and first[1] else {}).value(first[0][0]) if first and first[0] else None
        )

        def lookup(slot: str) -> str:
            if slot == "items":
                return "the items"
            if slot.startswith("first:"):
                if before is None:
                    raise Missing(slot)
                return answer_slot(slot[len("first:") :], first[1][0] if first[1] else {}, before)
            return answer_slot(slot, args, result)

        fill(text, lookup)
    except Missing:
        return False
    return True


def _check_set(tool: ToolSpec, goal: Goal, at: str, problem) -> None:
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
                f"the goal sets {param!r} to {value!r}, which is not an enum value, a boolean or the default",
                f"say the value in the goal as {{{param}}} (with values for it) instead of setting it",
                rule="goal-set",
            )


def _samples(tool: ToolSpec, tp: ToolPack, world: WorldState | None = None) -> list[dict[str, Any]]:
    params = [p for p in tool.properties if p in tp.values or any(p in c for c in tp.cases)]
    out = []
    for seed in range(SAMPLES):
        rng = random.Random(seed)
        try:
            out.append(arguments(tp, params, rng, Expander(rng, world=world)))
        except Missing:  # a value with a bad slot: reported by _check_values
            continue
    return out


def _answer_fits(answer: str, template: Any, args: dict[str, Any]) -> bool:
    rng = random.Random(3)
    try:
        result = Expander(rng, args).value(template)
        fill(answer, lambda s: answer_slot(s, args, result))
    except Missing:
        return False
    return True


def _check_feed(
    tool: ToolSpec, tp: ToolPack, feed, pack: Pack, server: ServerSpec, samples, results, at: str, problem
) -> None:
    target = server.tool(feed.to)
    if target is None:
        problem(
            tool.name,
            f"{at}/to",
            f"the feed goes to {feed.to!r}, which is not a tool of {server.id}",
            "name a tool of this server",
            rule="feed-target",
        )
        return
    if feed.param not in target.properties:
        problem(
            tool.name,
            f"{at}/param",
            f"{feed.param!r} is not a parameter of {feed.to}",
            f"use one of: {', '.join(target.properties)}",
            rule="feed-target",
        )
        return
    if not _feed_value_ok(tool, feed, target, samples, results, at, problem):
        return
    consumer = pack.tools.get(feed.to)
    # a consumer not written yet (pack build asks in groups) is held to its values once it is
    filled = _filled(tp) | (_filled(consumer) if consumer else set(target.properties))
    for i, goal in enumerate(map(goal_of, feed.goals)):
        if feed.param in goal_params(goal):
            problem(
                tool.name,
                f"{at}/goals/{i}",
                f"feed goal {i} states {{{feed.param}}}, the value the feed carries",
                "leave the fed value out of the request: it comes from this tool's result",
                rule="feed-goals",
            )
    _check_goals(tool, feed.goals, filled - {feed.param}, f"{at}/goals", problem, server)
    if consumer is not None:
        world = sample_world(pack)
        later_samples = _samples(target, consumer, world)
        later_results = [t for t in consumer.results if any(_expands(t, a) for a in later_samples[:1] or [{}])]
        _check_items(target, feed.goals, later_results, later_samples, f"{at}/goals", problem, (results, samples))
    later = (_filled(consumer) if consumer else set(target.properties)) | {feed.param}
    _check_goals(target, feed.then, later, f"{at}/then", problem, server)


def _expands(template: Any, args: dict[str, Any]) -> bool:
    try:
        Expander(random.Random(3), args).value(template)
    except Missing:
        return False
    return True


def _feed_value_ok(tool: ToolSpec, feed, target: ToolSpec, samples, results, at: str, problem) -> bool:
    """The feed's path is in every (expandable) result template and its value fits the target parameter."""
    for template in results:
        try:
            value = get_path(Expander(random.Random(5), samples[0] if samples else {}).value(template), feed.path)
        except Missing:
            problem(
                tool.name,
                f"{at}/path",
                f"the path {feed.path!r} is not in every result template of {tool.name}",
                "give every result template the field, or point the path at one they all have",
                rule="feed-path",
            )
            return False
        value = fed(value, target.properties[feed.param])
        error = schema_error(
            {"type": "object", "properties": {feed.param: target.properties[feed.param]}}, {feed.param: value}
        )
        if error:
            problem(
                tool.name,
                f"{at}/path",
                f"the value at {feed.path!r} ({value!r}) is not valid for {feed.to}.{feed.param}: {error}",
                f"point the path at a field valid for {feed.param} ({_brief(target.properties[feed.param])}), or "
                "make that field so",
                rule="feed-type",
            )
            return False
    return True
