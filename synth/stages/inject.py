"""Step 6, error injection: labelled negatives from each accepted gold call, for tool-call judges.

For one gold call we emit the call itself (``correct``), at most one hard positive (a call that
differs from it and is still right: a default made explicit or left out, synth.stages.positives)
and one negative per error label, ``incorrect_tool``, ``incorrect_parameter_names`` and
``incorrect_parameter_values``, each with a subtype and a failure_reason that names the parameter,
what was given and what was expected. Negatives look like real mistakes, not like a generator: a
sibling tool whose name or description overlaps, exactly one missing argument, a sibling tool's
parameter name, and wrong values taken from the conversation (synth.stages.wrong_values).

Subtypes are drawn from a ``random.Random`` seeded by (seed, conversation, call, label), never a
shared stream, so the output does not depend on the order of work. Every candidate is re-checked
with synth.grade.classify and a per-subtype check (a wrong type must fail the schema, a
contradicting value must pass it, ...); a candidate that does not hold is dropped and the next is
tried. When none holds, the label gives a StageFailure, never a mislabelled record.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any

from synth.grade import (
    Evidence,
    branch,
    classify,
    format_ok,
    infinitive,
    json_type,
    loose,
    same_value,
    standardize,
    words,
)
from synth.records import (
    Conversation,
    Message,
    ScoredCall,
    ServerSpec,
    StageFailure,
    ToolCall,
    ToolSpec,
    content_hash,
    make_id,
)
from synth.stages import mutate as m
from synth.stages import names as nm
from synth.stages.candidates import Candidate, Ctx, Generator, ToolInfo, fits, nodes_of, tool_info, value_at
from synth.stages.context import Context
from synth.stages.positives import hard_positives
from synth.stages.wrong_values import VALUE_GENERATORS

log = logging.getLogger(__name__)

SUBTYPES: dict[str, tuple[tuple[str, float], ...]] = {  # (subtype, weight of its draw)
    "incorrect_tool": (("sibling_tool", 2.0), ("hallucinated_tool", 1.0)),
    "incorrect_parameter_names": (
        ("missing_required", 1.0),
        ("sibling_param", 1.5),
        ("case_renamed", 1.5),
        ("synonym_renamed", 1.5),
        ("plural_renamed", 0.5),
        ("unexpected_extra", 1.0),
    ),
    "incorrect_parameter_values": (
        ("sibling_result", 6.0),
        ("context_value", 4.0),
        ("swapped_arguments", 3.0),
        ("unit_mixup", 3.0),
        ("partial_value", 2.0),
        ("wrong_format", 1.5),
        ("wrong_type", 0.3),
        ("out_of_enum", 0.5),
        ("out_of_range", 0.5),
        ("contradicts_request", 0.3),
    ),
}
MAX_TRIES = 12  # candidates tried per subtype before the next subtype is drawn
_NOT_APPLICABLE = {
    "sibling_tool": "no other tool with an overlapping name or description is offered",
    "hallucinated_tool": "every invented name is a real tool",
    "missing_required": "no required parameter among two or more arguments",
    "sibling_param": "no sibling tool has a parameter that could pass for one of this call's",
    "plural_renamed": "no parameter name with a singular or plural form",
    "case_renamed": "no multi-word parameter name",
    "synonym_renamed": "no parameter name with a known synonym",
    "unexpected_extra": "every habitual extra is a real parameter",
    "wrong_type": "no argument to change",
    "out_of_enum": "no parameter with a list of allowed values",
    "out_of_range": "no parameter with a range or length limit",
    "wrong_format": "no parameter with a format (email, date, URL, UUID, ...)",
    "contradicts_request": "no other valid value found",
    "sibling_result": "no gold value sits in a list of an earlier tool result",
    "context_value": "the conversation holds no other value of the same kind that fits",
    "swapped_arguments": "no two arguments of the same kind to exchange",
    "unit_mixup": "no numeric parameter with a unit in its name or description",
    "partial_value": "no value of several words or parts",
}


# --- tools and names -----------------------------------------------------------------------------


def _wrong_tool_reason(c: Ctx, other: ToolInfo) -> str:
    gold, inf, inf_other = c.gold.name, infinitive(c.tool.purpose), infinitive(other.purpose)
    head = f"The user wants to {inf}" if inf else f"The request needs {gold} ({c.tool.purpose})"
    name = other.spec.name
    tail = f"{name} is meant to {inf_other}" if inf_other else f"{name} is for {other.purpose}"
    return f"{head}; {tail}. {gold} was needed."


def _sibling_tool(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """The most similar other tool of the server, called with the gold arguments mapped onto it."""
    ranked = []
    for score, s in _similar_tools(c.tool, c.siblings):
        args = _map_arguments(c.gold.arguments, s, rng, c.context.values())
        well_formed = s.validator.is_valid(args)  # a call that looks right is the harder negative
        ranked.append((-(score + 0.5 * well_formed), s.spec.name, s, args))
    for _, _, s, args in sorted(ranked, key=lambda r: r[:2]):
        yield Candidate("sibling_tool", c.call(args, s.spec.name), _wrong_tool_reason(c, s))


_SIMILAR: dict[tuple[int, ...], tuple[tuple[ToolInfo, ...], list[tuple[float, ToolInfo]]]] = {}


def _similar_tools(tool: ToolInfo, siblings: tuple[ToolInfo, ...]) -> list[tuple[float, ToolInfo]]:
    """The three siblings most like ``tool`` (by name, topic and parameters) that do something else, with
    their scores; worked out once per tool and set of siblings (a run offers the same sets again and again)."""
    key = (id(tool), *map(id, siblings))
    hit = _SIMILAR.get(key)
    if hit is not None and hit[0][0] is tool and all(a is b for a, b in zip(hit[0][1:], siblings)):
        return hit[1]

    def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
        return len(a & b) / len(a | b) if a | b else 0.0

    def score(s: ToolInfo) -> float:
        params = jaccard(frozenset(tool.spec.properties), frozenset(s.spec.properties))
        name = jaccard(tool.name_words, s.name_words)
        return 2 * name + jaccard(tool.topic, s.topic) + params / 2

    options = [
        s
        for s in siblings
        if s.purpose != tool.purpose
        and s.loose != tool.loose
        and (tool.name_words & s.name_words or len(tool.topic & s.topic) >= 2)
    ]
    best = [(score(s), s) for s in sorted(options, key=lambda s: (-score(s), s.spec.name))[:3]]
    if len(_SIMILAR) >= 4096:
        _SIMILAR.clear()
    _SIMILAR[key] = ((tool, *siblings), best)  # the objects are held, so their ids in the key stay theirs
    return best


def _map_arguments(gold: dict[str, Any], sibling: ToolInfo, rng: random.Random, pool: list[Any]) -> dict[str, Any]:
    """Same-named arguments stay; other required ones take gold values of the same JSON type."""
    props = sibling.spec.properties
    out = {k: v for k, v in gold.items() if k in props}
    spare = [(k, v) for k, v in gold.items() if k not in props]
    for name in sibling.spec.required:
        if name in out:
            continue
        fitting = [kv for kv in spare if fits(kv[1], name, branch(props.get(name)))]
        if fitting:
            best = max(fitting, key=lambda kv: len(set(words(kv[0])) & set(words(name))))
            spare.remove(best)
            out[name] = best[1]
        else:
            schema = props.get(name, {})
            fitting = [v for v in pool if fits(v, name, branch(schema))]
            out[name] = m.filler(name, schema, rng, fitting)
    return out


def _hallucinated_tool(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    taken = {t.loose for t in (c.tool, *c.siblings)}
    inf, name = infinitive(c.tool.purpose), c.gold.name
    need = f"{name} was needed to {inf}" if inf else f"{name} ({c.tool.purpose}) was needed"
    params = c.tool.spec.required or list(c.tool.spec.properties)
    noun = (words(params[0]) or [""])[-1] if params else ""
    for new in nm.hallucinated_names(name, noun, rng):
        if loose(new) not in taken:
            yield Candidate(
                "hallucinated_tool",
                c.call(dict(c.gold.arguments), new),
                f"'{new}' is not one of the available tools; {need}.",
            )


def _missing_required(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    keys = [k for k in c.tool.spec.required if k in c.gold.arguments]
    if len(c.gold.arguments) < 2:
        return  # dropping the only argument leaves an empty call: too easy to spot
    rng.shuffle(keys)
    for k in keys:
        node = next(n for n in c.nodes if n.path == (k,))
        args = {a: v for a, v in c.gold.arguments.items() if a != k}
        yield Candidate("missing_required", c.call(args), f"Required parameter '{k}' is missing; {c.wanted(node)}.")


_RENAME_HINTS = {  # (after a missing required name, after an unknown optional one)
    "plural_renamed": (" (it is spelled '{k}')", "the parameter is spelled '{k}'"),
    "case_renamed": (" (it is spelled '{k}')", "the parameter is spelled '{k}'"),
    "synonym_renamed": ("", "the value belongs in '{k}'"),
}


def _renamer(subtype: str, propose: Callable[[str, random.Random], list[str]]) -> Generator:
    """A names error: one argument renamed to a name the schema does not have."""

    def generate(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
        props, tool = c.tool.spec.properties, c.gold.name
        keys = list(c.gold.arguments)
        rng.shuffle(keys)
        for k in keys:
            # a lenient grader must not map the new name onto another parameter (or, unless only
            # the case changed, back onto this one)
            near = {loose(p) for p in (*props, k) if p != k or subtype != "case_renamed"}
            for new in propose(k, rng)[:4]:
                if new in props or new in c.gold.arguments or loose(new) in near:
                    continue
                args = {(new if a == k else a): v for a, v in c.gold.arguments.items()}
                required, optional = (h.format(k=k) for h in _RENAME_HINTS[subtype])
                unknown = f"'{new}' is not a parameter of {tool}"
                reason = (
                    f"Required parameter '{k}' is missing; {unknown}{required}."
                    if k in c.tool.spec.required
                    else f"{unknown}; {optional}."
                )
                yield Candidate(subtype, c.call(args), reason)

    return generate


def _sibling_param(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """A parameter name carried over from a sibling tool (``query`` of the search for ``city``)."""
    props, tool = list(c.tool.spec.properties), c.gold.name
    others = [(s.spec.name, list(s.spec.properties)) for s in c.siblings]
    schemas = {(s.spec.name, p): branch(x) for s in c.siblings for p, x in s.spec.properties.items()}
    keys = list(c.gold.arguments)
    rng.shuffle(keys)
    near = {loose(p) for p in props}
    for k in keys:
        for new, owner in nm.sibling_params(k, props, others)[:3]:
            if (
                new in c.gold.arguments
                or loose(new) in near
                or not fits(c.gold.arguments[k], new, schemas[(owner, new)])
            ):
                continue  # the value must pass for the sibling's parameter too
            args = {(new if a == k else a): v for a, v in c.gold.arguments.items()}
            unknown = f"'{new}' is a parameter of {owner}, not of {tool}"
            reason = (
                f"Required parameter '{k}' is missing; {unknown}."
                if k in c.tool.spec.required
                else f"{unknown}; the value belongs in '{k}'."
            )
            yield Candidate("sibling_param", c.call(args), reason)


def _unexpected_extra(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    props, tool = list(c.tool.spec.properties), c.gold.name
    listed = ", ".join(f"'{p}'" for p in props[:6]) + (", ..." if len(props) > 6 else "")
    for name, value in nm.extra_params(set(c.tool.topic), props, rng)[:4]:
        if name in c.gold.arguments:
            continue
        reason = (
            f"'{name}' is not a parameter of {tool}; it accepts only {listed}."
            if props
            else f"{tool} takes no parameters, but the call passes '{name}'."
        )
        yield Candidate("unexpected_extra", c.call({**c.gold.arguments, name: value}), reason)


GENERATORS: dict[str, Generator] = {
    "sibling_tool": _sibling_tool,
    "hallucinated_tool": _hallucinated_tool,
    "missing_required": _missing_required,
    "sibling_param": _sibling_param,
    "plural_renamed": _renamer("plural_renamed", lambda name, _: nm.plural_renamed(name)),
    "case_renamed": _renamer("case_renamed", lambda name, _: nm.case_renamed(name)),
    "synonym_renamed": _renamer("synonym_renamed", nm.synonym_renamed),
    "unexpected_extra": _unexpected_extra,
    **VALUE_GENERATORS,
}


# --- checks -------------------------------------------------------------------------------------


def _check(c: Ctx, label: str, cand: Candidate) -> str:
    """Why the candidate is not a clean example of its label and subtype; "" when it is."""
    got = classify(c.tool.spec, c.gold, cand.call)
    if got != label:
        return f"classified as {got}"
    args, gold, sub = cand.call.arguments, c.gold.arguments, cand.subtype
    if label == "incorrect_tool":
        if sub == "sibling_tool":
            ok = cand.call.name in {s.spec.name for s in c.siblings}
        else:
            ok = loose(cand.call.name) not in {t.loose for t in (c.tool, *c.siblings)}
        return "" if ok else "the tool name is not what the subtype says"
    if label == "incorrect_parameter_names":
        if any(k in c.tool.spec.properties for k in set(args) - set(gold)):
            return "a new name is a real parameter"
        if sub == "missing_required" and not set(gold) - set(args) <= set(c.tool.spec.required):
            return "a dropped parameter is optional"
        return ""
    changed = [k for k in gold if not same_value(gold[k], args.get(k))]
    if sub == "swapped_arguments":
        return _check_swap(c, args, changed)
    if set(args) != set(gold) or len(changed) != 1 or cand.node is None:
        return "not exactly one value changed"
    node, f = cand.node, cand.node.facts
    new, old = value_at(args, node.path), node.value
    valid = c.tool.validator.is_valid(args)
    same_type = json_type(new) == json_type(old)
    if sub == "wrong_type":
        if valid:
            return "the schema accepts it"
        return "" if not same_type else "same JSON type"
    if sub == "out_of_enum" and f.choices_from == "schema":
        return "" if not valid and same_type else "the schema accepts it"
    if sub == "out_of_enum":
        allowed = {standardize(str(x)) for x in f.choices}
        return "" if standardize(str(new)) not in allowed else "an allowed value"
    if sub == "out_of_range":
        in_schema = f.bounds_from == "schema" or not isinstance(new, (int, float))
        outside = not valid if in_schema else f.outside(new)
        return "" if same_type and outside else "inside the range, or another type"
    if sub == "wrong_format":
        clean = valid and isinstance(new, str) and format_ok(f.fmt, old)
        return "" if clean and not format_ok(f.fmt, new) else "not a clean format error"
    if not valid or not same_type:
        return "the schema rejects it" if not valid else "another JSON type"
    if (
        (f.fmt and not format_ok(f.fmt, new))
        or f.outside(new)
        or (f.choices and old in f.choices and new not in f.choices)
    ):
        return "breaks the parameter's format, choices or range"
    return ""


def _check_swap(c: Ctx, args: dict[str, Any], changed: list[str]) -> str:
    gold = c.gold.arguments
    if set(args) != set(gold) or len(changed) != 2:
        return "not exactly two values exchanged"
    a, b = changed
    if not (same_value(args[a], gold[b]) and same_value(args[b], gold[a])):
        return "the values are not exchanged"
    if not c.tool.validator.is_valid(args):
        return "the schema rejects it"
    return ""


# --- the stage ----------------------------------------------------------------------------------


def _draw(c: Ctx, label: str, rng: random.Random) -> tuple[Candidate | None, list[str]]:
    """Subtypes in a weighted random order; the first candidate that holds wins."""
    order = sorted(SUBTYPES[label], key=lambda sw: -(rng.random() ** (1.0 / sw[1])))
    notes = []  # type: ignore[var-annotated]
    for subtype, _ in order:
        tried, why = 0, ""
        try:
            for cand in islice(GENERATORS[subtype](c, rng), MAX_TRIES):
                tried += 1
                why = _check(c, label, cand)
                if not why:
                    return cand, notes
        except Exception as exc:  # an odd schema costs one subtype, not the conversation
            log.warning("inject: %s crashed on %s: %r", subtype, c.tool.spec.key, exc)
            notes.append(f"{subtype}: crashed ({type(exc).__name__}: {str(exc)[:120]})")
            continue
        notes.append(f"{subtype}: {why} ({tried} tried)" if tried else f"{subtype}: {_NOT_APPLICABLE[subtype]}")
    return None, notes


def inject_call(
    tool: ToolSpec,
    siblings: Sequence[ToolSpec],
    gold: ToolCall,
    history: Sequence[Message],
    *,
    conversation_id: str,
    call_index: int,
    seed: int,
) -> tuple[list[ScoredCall], list[StageFailure]]:
    """The gold call as ``correct`` plus one checked negative per error label, or a StageFailure."""
    info = tool_info(tool)
    c = Ctx(
        info,
        tuple(tool_info(s) for s in siblings if s.name != tool.name),
        gold,
        Evidence(history),
        nodes_of(info, gold.arguments),
        Context(history),
    )
    base: dict[str, Any] = {
        "conversation_id": conversation_id,
        "server": tool.server,
        "call_index": call_index,
        "history": tuple(history),
        "gold_call": gold,
    }
    first_id = make_id("scored", conversation_id, call_index, "correct", gold.name, gold.arguments)
    scored = [ScoredCall(id=first_id, tool_call=gold, score="correct", subtype="gold", **base)]
    rng = random.Random(int(content_hash([seed, conversation_id, call_index, "correct"]), 16))
    for subtype, call in islice(hard_positives(info.spec, gold, rng), 1):
        if classify(tool, gold, call) == "correct":
            record_id = make_id("scored", conversation_id, call_index, "correct", subtype, call.name, call.arguments)
            scored.append(ScoredCall(id=record_id, tool_call=call, score="correct", subtype=subtype, **base))
    failures = []
    for label in SUBTYPES:
        rng = random.Random(int(content_hash([seed, conversation_id, call_index, label]), 16))
        found, notes = _draw(c, label, rng)
        if found is not None:
            call = found.call
            record_id = make_id("scored", conversation_id, call_index, label, found.subtype, call.name, call.arguments)
            scored.append(
                ScoredCall(
                    id=record_id,
                    tool_call=call,
                    score=label,
                    subtype=found.subtype,
                    failure_reason=found.reason,
                    **base,
                )
            )
            continue
        if not gold.arguments and label == "incorrect_parameter_values":
            notes = [f"{gold.name} is called without arguments, so there is no value to change"]
        failures.append(
            StageFailure(
                stage="inject",
                item_id=gold.id,
                reason=f"no_{label}",
                detail="; ".join(notes),
                raw={"conversation_id": conversation_id, "call_index": call_index, "tool": tool.key},
            )
        )
    return scored, failures


def negatives(conv: Conversation, server: ServerSpec, seed: int) -> tuple[list[ScoredCall], list[StageFailure]]:
    """Every gold call of a conversation with its negatives; siblings are the other tools it offers."""
    offered = [t for t in server.tools if t.name in conv.tools]
    scored: list[ScoredCall] = []
    missed: list[StageFailure] = []
    index = 0
    for position, message in enumerate(conv.messages):
        for call in message.tool_calls:
            tool = server.tool(call.name)
            if tool is None:  # the gates reject unknown tools before this; a caller skipping them gets a reason
                missed.append(
                    StageFailure(
                        stage="inject",
                        item_id=call.id,
                        reason="unknown_tool",
                        detail=f"{call.name!r} is not a tool of {server.id}",
                    )
                )
            else:
                made, failed = inject_call(
                    tool,
                    [s for s in offered if s.name != tool.name],
                    call,
                    conv.messages[:position],
                    conversation_id=conv.id,
                    call_index=index,
                    seed=seed,
                )
                scored.extend(made)
                missed.extend(failed)
            index += 1
    return scored, missed
