"""Step 6, error injection: labelled negatives from each accepted gold call, for tool-call judges.

For one gold call we emit the call itself (``correct``) and one negative per error label,
``incorrect_tool``, ``incorrect_parameter_names`` and ``incorrect_parameter_values``, each with a
subtype and a failure_reason that names the parameter, what was given and what was expected.

Subtypes are drawn from a ``random.Random`` seeded by (seed, conversation, call, label), never a
shared stream, so the output does not depend on the order of work. Every candidate is re-checked
with synth.grade.classify and a per-subtype check (a wrong type must fail the schema, a
contradicting value must pass it, ...); a candidate that does not hold is dropped and the next is
tried. When none holds, the label gives a StageFailure, never a mislabelled record.
"""

from __future__ import annotations

import logging
import random
import re
from dataclasses import dataclass
from itertools import islice
from typing import Any, Callable, Iterator, Sequence

from jsonschema.protocols import Validator

from synth.grade import (FILLER_WORDS, FORMAT_NAMES, Evidence, Facts, branch, classify, facts,
                         format_ok, infinitive, json_type, loose, purpose, same_value,
                         schema_validator, show, standardize, words)
from synth.records import (Conversation, Message, ScoredCall, ServerSpec, StageFailure, ToolCall, ToolSpec, content_hash,
                           make_id)
from synth.stages import mutate as m
from synth.stages import names as nm
from synth.stages.context import Context, sibling_reason
from synth.stages.positives import hard_positives

log = logging.getLogger(__name__)

SUBTYPES: dict[str, tuple[tuple[str, float], ...]] = {  # (subtype, weight of its draw)
    "incorrect_tool": (("sibling_tool", 2.0), ("hallucinated_tool", 1.0)),
    "incorrect_parameter_names": (("missing_required", 1.0), ("sibling_param", 1.5),
                                  ("case_renamed", 1.5), ("synonym_renamed", 1.5),
                                  ("plural_renamed", 0.5), ("unexpected_extra", 1.0)),
    "incorrect_parameter_values": (("sibling_result", 6.0), ("context_value", 4.0),
                                   ("swapped_arguments", 3.0), ("unit_mixup", 3.0),
                                   ("partial_value", 1.2),
                                   ("wrong_format", 1.5), ("wrong_type", 0.5), ("out_of_enum", 0.7),
                                   ("out_of_range", 0.7), ("contradicts_request", 0.5)),
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


# --- what is known about a tool and a call ------------------------------------------------------

@dataclass(frozen=True)
class _Tool:
    spec: ToolSpec
    validator: Validator
    docs: dict[str, str]  # docstring lines per parameter: "days: ... (1-10, default: 3)"
    purpose: str  # the description's first sentence, cleaned
    name_words: frozenset[str]
    topic: frozenset[str]  # content words of name, description and parameters
    loose: str  # the name as a lenient grader matches it


_IDS = {"id", "ids", "key", "slug", "code", "token", "uuid", "hash"}  # one-word values
_IMPLIED = (("url", "uri"), ("uri", "uri"), ("link", "uri"), ("email", "email"), ("date", "date"))
_TOOLS: dict[int, _Tool] = {}  # by id(spec); the value keeps the spec, so the id cannot be reused
_DOC_LINE = re.compile(r"\s*[-*•]?\s*`?([A-Za-z_][\w\-]*)`?\s*(?:\([^)]*\))?\s*[:–]\s+(.+)")
_STOP = {"the", "and", "for", "with", "from", "this", "that", "into", "tool", "given", "specific",
         "returns", "args"}


def _tool(spec: ToolSpec) -> _Tool:
    """Everything about a tool that does not depend on the call, computed once per tool."""
    hit = _TOOLS.get(id(spec))
    if hit is not None and hit.spec is spec:
        return hit
    if len(_TOOLS) > 8192:
        _TOOLS.clear()
    props = spec.properties
    docs: dict[str, str] = {}
    for line in spec.description.splitlines():
        if (d := _DOC_LINE.match(line)) and d.group(1) in props:
            docs.setdefault(d.group(1), d.group(2).strip())
    text = re.sub(r"[^\w\s]", " ", f"{spec.name} {spec.description[:300]} {' '.join(props)}")
    topic = frozenset(w for w in words(text) if len(w) > 2 and w not in _STOP)
    info = _Tool(spec, schema_validator(spec.input_schema), docs, purpose(spec),
                 frozenset(words(spec.name)) - FILLER_WORDS, topic, loose(spec.name))
    _TOOLS[id(spec)] = info
    return info


@dataclass(frozen=True)
class _Node:
    """One value of the gold call, at the top level or inside an object argument."""

    path: tuple[str, ...]
    facts: Facts
    value: Any

    @property
    def label(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True)
class _Ctx:
    tool: _Tool
    siblings: tuple[_Tool, ...]
    gold: ToolCall
    evidence: Evidence
    nodes: tuple[_Node, ...]
    context: Context

    def call(self, arguments: dict[str, Any], name: str | None = None) -> ToolCall:
        return ToolCall(id=self.gold.id, name=name or self.gold.name, arguments=arguments)

    def wanted(self, node: _Node) -> str:
        """"the user asked for 4 days", "the search_tool result gave 'Porto'", "the request ..."."""
        v, name = node.value, node.path[-1]
        shown = show(v)
        if json_type(v) == "number" and name.isalpha() and name.islower() and name.endswith("s"):
            shown += " " + (name[:-1] if v == 1 else name)  # "4 days"
        src = self.evidence.source(v)
        if src == "user":
            return f"the user asked for {shown}"
        return f"the {src} result gave {shown}" if src else f"the request calls for {shown}"


def _nodes(tool: _Tool, arguments: dict[str, Any]) -> tuple[_Node, ...]:
    out: list[_Node] = []

    def walk(path: tuple[str, ...], schema: Any, value: Any, doc: str) -> None:
        f = facts(".".join(path), schema, doc, value)
        out.append(_Node(path, f, value))
        props = f.schema.get("properties")
        if isinstance(value, dict) and isinstance(props, dict):
            for k, v in value.items():
                if k in props:
                    walk(path + (k,), props[k], v, "")

    for k, v in arguments.items():
        walk((k,), tool.spec.properties.get(k, {}), v, tool.docs.get(k, ""))
    return tuple(out)


# --- candidates ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    subtype: str
    call: ToolCall
    reason: str
    node: _Node | None = None  # the changed value, for value subtypes


Generator = Callable[[_Ctx, random.Random], Iterator[Candidate]]


def _wrong_tool_reason(c: _Ctx, other: _Tool) -> str:
    gold, inf, inf_other = c.gold.name, infinitive(c.tool.purpose), infinitive(other.purpose)
    head = f"The user wants to {inf}" if inf else f"The request needs {gold} ({c.tool.purpose})"
    name = other.spec.name
    tail = f"{name} is meant to {inf_other}" if inf_other else f"{name} is for {other.purpose}"
    return f"{head}; {tail}. {gold} was needed."


def _sibling_tool(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """The most similar other tool of the server, called with the gold arguments mapped onto it."""
    def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
        return len(a & b) / len(a | b) if a | b else 0.0

    def score(s: _Tool) -> float:
        params = jaccard(frozenset(c.tool.spec.properties), frozenset(s.spec.properties))
        name = jaccard(c.tool.name_words, s.name_words)
        return 2 * name + jaccard(c.tool.topic, s.topic) + params / 2

    options = [s for s in c.siblings if s.purpose != c.tool.purpose and s.loose != c.tool.loose
               and (c.tool.name_words & s.name_words or len(c.tool.topic & s.topic) >= 2)]
    ranked = []
    for s in sorted(options, key=lambda s: (-score(s), s.spec.name))[:3]:
        args = _map_arguments(c.gold.arguments, s, rng, c.context.values())
        well_formed = s.validator.is_valid(args)  # a call that looks right is the harder negative
        ranked.append((-(score(s) + 0.5 * well_formed), s.spec.name, s, args))
    for _, _, s, args in sorted(ranked, key=lambda r: r[:2]):
        yield Candidate("sibling_tool", c.call(args, s.spec.name), _wrong_tool_reason(c, s))


def _fits(value: Any, name: str, schema: dict[str, Any]) -> bool:
    """The value has the parameter's type and could pass for it (no sentence as an id)."""
    if "enum" in schema:
        return value in schema["enum"]
    t = schema.get("type")
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(value, str):
        w = set(words(name))
        fmt = facts(name, schema, "", value).fmt or next((f for k, f in _IMPLIED if k in w), "")
        if fmt and not (format_ok(fmt, value) or format_ok(fmt + "-time", value)):  # or a date-time
            return False
        if " " in value.strip() and w & _IDS:
            return False
    return json_type(value) == t if isinstance(t, str) else True


def _map_arguments(gold: dict[str, Any], sibling: _Tool, rng: random.Random,
                   pool: list[Any]) -> dict[str, Any]:
    """Same-named arguments stay; other required ones take gold values of the same JSON type."""
    props = sibling.spec.properties
    out = {k: v for k, v in gold.items() if k in props}
    spare = [(k, v) for k, v in gold.items() if k not in props]
    for name in sibling.spec.required:
        if name in out:
            continue
        fitting = [kv for kv in spare if _fits(kv[1], name, branch(props.get(name)))]
        if fitting:
            best = max(fitting, key=lambda kv: len(set(words(kv[0])) & set(words(name))))
            spare.remove(best)
            out[name] = best[1]
        else:
            schema = props.get(name, {})
            fitting = [v for v in pool if _fits(v, name, branch(schema))]
            out[name] = m.filler(name, schema, rng, fitting)
    return out


def _hallucinated_tool(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    taken = {t.loose for t in (c.tool, *c.siblings)}
    inf, name = infinitive(c.tool.purpose), c.gold.name
    need = f"{name} was needed to {inf}" if inf else f"{name} ({c.tool.purpose}) was needed"
    params = c.tool.spec.required or list(c.tool.spec.properties)
    noun = (words(params[0]) or [""])[-1] if params else ""
    for new in nm.hallucinated_names(name, noun, rng):
        if loose(new) not in taken:
            yield Candidate("hallucinated_tool", c.call(dict(c.gold.arguments), new),
                            f"'{new}' is not one of the available tools; {need}.")


def _missing_required(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    keys = [k for k in c.tool.spec.required if k in c.gold.arguments]
    if len(c.gold.arguments) < 2:
        return  # dropping the only argument leaves an empty call: too easy to spot
    rng.shuffle(keys)
    for k in keys:
        node = next(n for n in c.nodes if n.path == (k,))
        args = {a: v for a, v in c.gold.arguments.items() if a != k}
        yield Candidate("missing_required", c.call(args),
                        f"Required parameter '{k}' is missing; {c.wanted(node)}.")


_RENAME_HINTS = {  # (after a missing required name, after an unknown optional one)
    "plural_renamed": (" (it is spelled '{k}')", "the parameter is spelled '{k}'"),
    "case_renamed": (" (it is spelled '{k}')", "the parameter is spelled '{k}'"),
    "synonym_renamed": ("", "the value belongs in '{k}'"),
}


def _renamer(subtype: str, propose: Callable[[str, random.Random], list[str]]) -> Generator:
    """A names error: one argument renamed to a name the schema does not have."""
    def generate(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
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
                reason = (f"Required parameter '{k}' is missing; {unknown}{required}."
                          if k in c.tool.spec.required else f"{unknown}; {optional}.")
                yield Candidate(subtype, c.call(args), reason)
    return generate


def _sibling_param(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """A parameter name carried over from a sibling tool (``query`` of the search for ``city``)."""
    props, tool = list(c.tool.spec.properties), c.gold.name
    others = [(s.spec.name, list(s.spec.properties)) for s in c.siblings]
    schemas = {(s.spec.name, p): branch(x) for s in c.siblings for p, x in s.spec.properties.items()}
    keys = list(c.gold.arguments)
    rng.shuffle(keys)
    near = {loose(p) for p in props}
    for k in keys:
        for new, owner in nm.sibling_params(k, props, others)[:3]:
            if (new in c.gold.arguments or loose(new) in near
                    or not _fits(c.gold.arguments[k], new, schemas[(owner, new)])):
                continue  # the value must pass for the sibling's parameter too
            args = {(new if a == k else a): v for a, v in c.gold.arguments.items()}
            unknown = f"'{new}' is a parameter of {owner}, not of {tool}"
            reason = (f"Required parameter '{k}' is missing; {unknown}." if k in c.tool.spec.required
                      else f"{unknown}; the value belongs in '{k}'.")
            yield Candidate("sibling_param", c.call(args), reason)


def _unexpected_extra(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    props, tool = list(c.tool.spec.properties), c.gold.name
    listed = ", ".join(f"'{p}'" for p in props[:6]) + (", ..." if len(props) > 6 else "")
    for name, value in nm.extra_params(set(c.tool.topic), props, rng)[:4]:
        if name in c.gold.arguments:
            continue
        reason = (f"'{name}' is not a parameter of {tool}; it accepts only {listed}." if props
                  else f"{tool} takes no parameters, but the call passes '{name}'.")
        yield Candidate("unexpected_extra", c.call({**c.gold.arguments, name: value}), reason)


def _replace(arguments: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(arguments)
    out[path[0]] = value if len(path) == 1 else _replace(out[path[0]], path[1:], value)
    return out


_TYPE_NAMES = {"integer": "an integer", "number": "a number", "string": "a string",
               "array": "a list", "boolean": "a boolean (true or false)", "object": "an object"}
_KINDS = {"string": "the string", "array": "the list", "object": "the object",
          "boolean": "the boolean", "number": "the number"}


def _value_reason(c: _Ctx, subtype: str, node: _Node, new: Any) -> str:
    p, f, tool, want = node.label, node.facts, c.gold.name, c.wanted(node)
    if subtype == "wrong_type":
        old = node.value
        t = f.schema.get("type") or ("integer" if type(old) is int else json_type(old))
        types = t if isinstance(t, list) else [t]
        expected = " or ".join(_TYPE_NAMES.get(x, x) for x in types if x != "null")
        given = f"{_KINDS.get(json_type(new), 'the value')} {show(new)}"
        return f"'{p}' is {given}, but {tool} expects {expected}; {want}."
    if subtype == "out_of_enum":
        allowed = ", ".join(show(x, 30) for x in f.choices[:8]) + ", ..." * (len(f.choices) > 8)
        return f"'{p}' is {show(new)}, which is not one of the allowed values ({allowed}); {want}."
    if subtype == "out_of_range" and isinstance(new, (str, list)):
        unit, key = ("characters", "Length") if isinstance(new, str) else ("items", "Items")
        lo = f.schema.get("min" + key)
        hi = f.schema.get("max" + key)
        limit = f"at least {lo}" if isinstance(lo, int) and len(new) < lo else f"at most {hi}"
        return f"'{p}' has {len(new)} {unit}, but it must have {limit}; {want}."
    if subtype == "out_of_range":
        return f"'{p}' is {show(new)}, but {want} and the tool accepts {f.range_text()}."
    if subtype == "wrong_format":
        return f"'{p}' is {show(new)}, but {tool} expects {FORMAT_NAMES[f.fmt]}; {want}."
    return f"'{p}' is {show(new)}, but {want}."


def _changer(subtype: str, propose: Callable[[_Node, _Ctx, random.Random], Any]) -> Generator:
    """A values error: exactly one value of the gold call changed (maybe inside an object)."""
    def generate(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
        nodes = list(c.nodes)
        rng.shuffle(nodes)
        for node in nodes:
            for new in islice(propose(node, c, rng), 4):
                yield Candidate(subtype, c.call(_replace(c.gold.arguments, node.path, new)),
                                _value_reason(c, subtype, node, new), node)
    return generate


def _scalars(c: _Ctx, rng: random.Random) -> list[_Node]:
    nodes = [n for n in c.nodes if json_type(n.value) in ("string", "number")]
    rng.shuffle(nodes)
    return nodes


def _sibling_result(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """Another item of the result list the gold value came from: the second hit for the first."""
    for node in _scalars(c, rng):
        name = node.path[-1]
        for new, where, at in islice(c.context.siblings(node.value), 6):
            if _fits(new, name, node.facts.schema) and json_type(new) == json_type(node.value):
                reason = sibling_reason(node.label, new, where, at, node.value,
                                        c.evidence.said(node.value))
                yield Candidate("sibling_result", c.call(_replace(c.gold.arguments, node.path, new)),
                                reason, node)


def _context_value(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """A value the conversation gave for another purpose: another argument, result field or number."""
    for node in _scalars(c, rng):
        name, level = node.path[-1], _at(c.gold.arguments, node.path[:-1])
        tried = 0
        for new, why in c.context.others(name, node.value, level):
            if tried >= 4:
                break
            if _fits(new, name, node.facts.schema) and json_type(new) == json_type(node.value):
                tried += 1
                yield Candidate("context_value", c.call(_replace(c.gold.arguments, node.path, new)),
                                f"'{node.label}' is {show(new)}, {why}; {c.wanted(node)}.", node)


def _swapped_arguments(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """Two arguments of the same kind exchanged: from and to, width and height."""
    top = [n for n in c.nodes if len(n.path) == 1 and json_type(n.value) in ("string", "number")]
    pairs = [(a, b) for i, a in enumerate(top) for b in top[i + 1:]
             if json_type(a.value) == json_type(b.value) and not same_value(a.value, b.value)
             and _fits(a.value, b.label, b.facts.schema) and _fits(b.value, a.label, a.facts.schema)]
    rng.shuffle(pairs)
    for a, b in pairs:
        args = {**c.gold.arguments, a.label: b.value, b.label: a.value}
        reason = (f"'{a.label}' and '{b.label}' are swapped: '{a.label}' is {show(b.value)} and "
                  f"'{b.label}' is {show(a.value)}; for '{a.label}' {c.wanted(a)}.")
        yield Candidate("swapped_arguments", c.call(args), reason, a)


def _unit_mixup(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """The gold number in the unit it is confused with: 68 for 20 (Celsius), 30000 for 30 s."""
    for node in _scalars(c, rng):
        for new, unit, other in m.unit_mixup(node.value, node.facts):
            reason = (f"'{node.label}' is {show(new)}, {show(node.value)} {unit} converted to "
                      f"{other}, but {c.gold.name} takes {unit}; {c.wanted(node)}.")
            yield Candidate("unit_mixup", c.call(_replace(c.gold.arguments, node.path, new)),
                            reason, node)


def _partial_value(c: _Ctx, rng: random.Random) -> Iterator[Candidate]:
    """Part of a value of several words or parts: 'Hong' for 'Hong Kong', the latitude alone."""
    for node in _scalars(c, rng):
        if not isinstance(node.value, str):
            continue
        for new in m.partial(node.value):
            if _fits(new, node.path[-1], node.facts.schema):
                reason = f"'{node.label}' is {show(new)}, only part of the value; {c.wanted(node)}."
                yield Candidate("partial_value", c.call(_replace(c.gold.arguments, node.path, new)),
                                reason, node)


GENERATORS: dict[str, Generator] = {
    "sibling_tool": _sibling_tool,
    "hallucinated_tool": _hallucinated_tool,
    "missing_required": _missing_required,
    "sibling_param": _sibling_param,
    "plural_renamed": _renamer("plural_renamed", lambda name, _: nm.plural_renamed(name)),
    "case_renamed": _renamer("case_renamed", lambda name, _: nm.case_renamed(name)),
    "synonym_renamed": _renamer("synonym_renamed", nm.synonym_renamed),
    "unexpected_extra": _unexpected_extra,
    "wrong_type": _changer("wrong_type", lambda n, c, r: m.wrong_type(n.value, n.facts, r)),
    "out_of_enum": _changer(
        "out_of_enum", lambda n, c, r: n.facts.choices and m.out_of_enum(n.value, n.facts, r)),
    "out_of_range": _changer("out_of_range", lambda n, c, r: m.out_of_range(n.value, n.facts, r)),
    "wrong_format": _changer("wrong_format", lambda n, c, r: m.wrong_format(n.value, n.facts, r)),
    "sibling_result": _sibling_result,
    "context_value": _context_value,
    "swapped_arguments": _swapped_arguments,
    "unit_mixup": _unit_mixup,
    "partial_value": _partial_value,
    "contradicts_request": _changer(
        "contradicts_request", lambda n, c, r: m.contradicting(n.value, n.facts, r, c.evidence.said)
    ),
}


# --- checks -------------------------------------------------------------------------------------

def _check(c: _Ctx, label: str, cand: Candidate) -> str:
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
    new, old = _at(args, node.path), node.value
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
    if ((f.fmt and not format_ok(f.fmt, new)) or f.outside(new)
            or (f.choices and old in f.choices and new not in f.choices)):
        return "breaks the parameter's format, choices or range"
    return ""


def _check_swap(c: _Ctx, args: dict[str, Any], changed: list[str]) -> str:
    gold = c.gold.arguments
    if set(args) != set(gold) or len(changed) != 2:
        return "not exactly two values exchanged"
    a, b = changed
    if not (same_value(args[a], gold[b]) and same_value(args[b], gold[a])):
        return "the values are not exchanged"
    if not c.tool.validator.is_valid(args):
        return "the schema rejects it"
    return ""


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        arguments = arguments[key]
    return arguments


# --- the stage ----------------------------------------------------------------------------------

def _draw(c: _Ctx, label: str, rng: random.Random) -> tuple[Candidate | None, list[str]]:
    """Subtypes in a weighted random order; the first candidate that holds wins."""
    order = sorted(SUBTYPES[label], key=lambda sw: -(rng.random() ** (1.0 / sw[1])))
    notes = []
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
        notes.append(f"{subtype}: {why} ({tried} tried)" if tried
                     else f"{subtype}: {_NOT_APPLICABLE[subtype]}")
    return None, notes


def inject_call(tool: ToolSpec, siblings: Sequence[ToolSpec], gold: ToolCall,
                history: Sequence[Message], *, conversation_id: str, call_index: int,
                seed: int) -> tuple[list[ScoredCall], list[StageFailure]]:
    """The gold call as ``correct`` plus one checked negative per error label, or a StageFailure."""
    info = _tool(tool)
    c = _Ctx(info, tuple(_tool(s) for s in siblings if s.name != tool.name), gold,
             Evidence(history), _nodes(info, gold.arguments), Context(history))
    base: dict[str, Any] = {"conversation_id": conversation_id, "server": tool.server,
                            "call_index": call_index, "history": tuple(history), "gold_call": gold}
    first_id = make_id("scored", conversation_id, call_index, "correct", gold.name, gold.arguments)
    scored = [ScoredCall(id=first_id, tool_call=gold, score="correct", subtype="gold", **base)]
    rng = random.Random(int(content_hash([seed, conversation_id, call_index, "correct"]), 16))
    for subtype, call in islice(hard_positives(info.spec, gold, rng), 1):
        if classify(tool, gold, call) == "correct":
            record_id = make_id("scored", conversation_id, call_index, "correct", subtype, call.name,
                                call.arguments)
            scored.append(ScoredCall(id=record_id, tool_call=call, score="correct", subtype=subtype,
                                     **base))
    failures = []
    for label in SUBTYPES:
        rng = random.Random(int(content_hash([seed, conversation_id, call_index, label]), 16))
        found, notes = _draw(c, label, rng)
        if found is not None:
            call = found.call
            record_id = make_id("scored", conversation_id, call_index, label, found.subtype,
                                call.name, call.arguments)
            scored.append(ScoredCall(
                id=record_id, tool_call=call, score=label,  # type: ignore[arg-type]
                subtype=found.subtype, failure_reason=found.reason, **base))
            continue
        if not gold.arguments and label == "incorrect_parameter_values":
            notes = [f"{gold.name} is called without arguments, so there is no value to change"]
        failures.append(StageFailure(
            stage="inject", item_id=gold.id, reason=f"no_{label}", detail="; ".join(notes),
            raw={"conversation_id": conversation_id, "call_index": call_index, "tool": tool.key}))
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
                missed.append(StageFailure(stage="inject", item_id=call.id, reason="unknown_tool",
                                           detail=f"{call.name!r} is not a tool of {server.id}"))
            else:
                made, failed = inject_call(tool, [s for s in offered if s.name != tool.name], call,
                                           conv.messages[:position], conversation_id=conv.id, call_index=index, seed=seed)
                scored.extend(made)
                missed.extend(failed)
            index += 1
    return scored, missed
