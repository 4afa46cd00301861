"""Wrong tools and wrong parameter names for error injection, proposed from the gold call.

``incorrect_tool``: the most similar sibling tool with the gold arguments mapped onto it, or an invented
name; ``incorrect_parameter_names``: a required argument left out, a sibling tool's parameter name, a
renamed one (case, plural, synonym) or an extra (synth.stages.extras). Each generator yields candidates, best first;
synth.stages.inject checks every one before it becomes a record (wrong values: synth.stages.wrong_values).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from synth.grade import branch, infinitive, loose, words
from synth.memo import ByIdentity
from synth.stages import mutate as m
from synth.stages import names as nm
from synth.stages.candidates import Candidate, Ctx, Generator, ToolInfo, fits
from synth.stages.extras import unexpected_extra


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


_SIMILAR: ByIdentity[list[tuple[float, ToolInfo]]] = ByIdentity()


def _similar_tools(tool: ToolInfo, siblings: tuple[ToolInfo, ...]) -> list[tuple[float, ToolInfo]]:
    """The three siblings most like ``tool`` (by name, topic and parameters) that do something else, with
    their scores; worked out once per tool and set of siblings (a run offers the same sets again and again)."""
    known = _SIMILAR.get(tool, *siblings)
    if known is not None:
        return known

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
    return _SIMILAR.put((tool, *siblings), best)


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


NAME_GENERATORS: dict[str, Generator] = {
    "sibling_tool": _sibling_tool,
    "hallucinated_tool": _hallucinated_tool,
    "missing_required": _missing_required,
    "sibling_param": _sibling_param,
    "plural_renamed": _renamer("plural_renamed", lambda name, _: nm.plural_renamed(name)),
    "case_renamed": _renamer("case_renamed", lambda name, _: nm.case_renamed(name)),
    "synonym_renamed": _renamer("synonym_renamed", nm.synonym_renamed),
    "unexpected_extra": unexpected_extra,
}
