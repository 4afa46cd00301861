"""Step 6, error injection: labelled negatives from each accepted gold call, for tool-call judges.

For one gold call we emit the call itself (``correct``), at most one hard positive (a call that
differs from it and is still right: a default made explicit or left out, synth.stages.positives)
and one negative per error label, ``incorrect_tool``, ``incorrect_parameter_names`` and
``incorrect_parameter_values``, each with a subtype and a failure_reason that names the parameter,
what was given and what was expected. Negatives look like real mistakes, not like a generator: a
sibling tool whose name or description overlaps, exactly one missing argument, a sibling tool's
parameter name (synth.stages.wrong_names), and wrong values taken from the conversation (synth.stages.wrong_values).

Subtypes are drawn from a ``random.Random`` seeded by (seed, conversation, call, label), never a
shared stream, so the output does not depend on the order of work. Every candidate is re-checked
with synth.grade.classify and a per-subtype check (a wrong type must fail the schema, a
contradicting value must pass it, ...); a candidate that does not hold is dropped and the next is
tried. When none holds, the label gives a StageFailure, never a mislabelled record.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from synth.grade import (
    Evidence,
    classify,
    format_ok,
    json_type,
    loose,
    same_value,
    standardize,
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
from synth.stages.candidates import Candidate, Ctx, Generator, nodes_of, tool_info, value_at
from synth.stages.positives import hard_positives
from synth.stages.scalars import Scalars
from synth.stages.wrong_names import NAME_GENERATORS
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
        ("unexpected_extra", 2.0),
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
P_ABSENT = 0.2  # calls whose wrong-value negative may carry a value found nowhere in the conversation
# kinds whose wrong value comes from the conversation: one found nowhere in it is not what the kind says
FROM_CONTEXT = frozenset({"sibling_result", "context_value", "swapped_arguments", "partial_value"})
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


GENERATORS: dict[str, Generator] = {**NAME_GENERATORS, **VALUE_GENERATORS}


# --- checks -------------------------------------------------------------------------------------


def _check(c: Ctx, label: str, cand: Candidate) -> str:
    """Why the candidate is not a clean example of its label and subtype; "" when it is."""
    got = classify(c.tool.spec, c.gold, cand.call)
    if got != label:
        return f"classified as {got}"
    if any(classify(spec, call, cand.call) == "correct" for spec, call in c.needed):
        return "a call the turn still needs"
    if label == "incorrect_tool" and cand.call.name in {call.name for _, call in c.needed}:
        return "a tool the turn still needs"  # right tool, other arguments: no wrong tool
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


class _Said:
    """The history's text, case-folded JSON, made the first time a candidate is measured against it."""

    def __init__(self, history: Sequence[Message]):
        self.history, self._text = history, ""

    def __contains__(self, value: str) -> bool:
        if not self._text:
            self._text = json.dumps([m.to_json() for m in self.history], ensure_ascii=False).lower()
        return value in self._text


def _absent(cand: Candidate, said: _Said) -> bool:
    """Whether the wrong value is nowhere in the conversation's text ``said`` (case-folded JSON of the
    history), as a whole: a judge can spot it without reading back, by its surface. The measure of
    synth.export.card.realism's ``wrong_values_absent`` (there, ["Porto"] counts by the "Porto" inside it)."""
    if cand.node is None:
        return False
    new = value_at(cand.call.arguments, cand.node.path)
    return json.dumps(new, ensure_ascii=False).strip('"').lower() not in said


def _draw(
    c: Ctx, label: str, rng: random.Random, said: _Said, surface: bool = True
) -> tuple[Candidate | None, list[str]]:
    """Subtypes in a weighted random order; the first candidate that holds wins. A wrong value found
    nowhere in the conversation (a near miss, a wrong type, a value the request did not ask for) wins
    only for a share P_ABSENT of calls: most wrong values are drawn from the context, for a judge to read."""
    order = sorted(SUBTYPES[label], key=lambda sw: -(rng.random() ** (1.0 / sw[1])))
    values = label == "incorrect_parameter_values"
    notes = []  # type: ignore[var-annotated]
    for subtype, _ in order:
        tried, why = 0, ""
        try:
            for cand in islice(GENERATORS[subtype](c, rng), MAX_TRIES):
                tried += 1
                why = _check(c, label, cand)
                if not why and values and subtype in FROM_CONTEXT and _absent(cand, said):
                    why = "the value is nowhere in the conversation"
                elif not why and values and not surface and _absent(cand, said):
                    why = "the value is nowhere in the conversation (kept for a share of calls only)"
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
    kin: tuple[tuple[ToolSpec, ...], ...] = (),
    needed: Sequence[tuple[ToolSpec | None, ToolCall]] = (),
) -> tuple[list[ScoredCall], list[StageFailure]]:
    """The gold call as ``correct`` plus one checked negative per error label, or a StageFailure. ``kin``: tiers
    of tools whose optional parameters an extra may borrow (synth.stages.extras); ``needed``: the turn's other
    calls still to make, with their tools (synth.stages.inject.still_needed), none of which a negative may be."""
    info = tool_info(tool)
    c = Ctx(
        info,
        tuple(tool_info(s) for s in siblings if s.name != tool.name),
        gold,
        Evidence(history),
        nodes_of(info, gold.arguments),
        Scalars(history),
        kin,
        tuple(needed),
    )
    base: dict[str, Any] = {
        "conversation_id": conversation_id,
        "server": tool.server,
        "call_index": call_index,
        "history": tuple(history),
        "gold_call": gold,
    }
    scored = _correct(tool, gold, base, seed)
    said = _Said(history)
    # whether this call's wrong value may be one found nowhere: drawn from the call itself, so a conversation
    # a person edited (another id) gets the same kinds of negatives again
    surface = int(content_hash([seed, "surface", gold.name, gold.arguments]), 16) / 16**16 < P_ABSENT
    failures = []
    for label in SUBTYPES:
        rng = random.Random(int(content_hash([seed, conversation_id, call_index, label]), 16))
        found, notes = _draw(c, label, rng, said, surface)
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
        else:
            failures.append(_missed(tool, gold, label, notes, base))
    return scored, failures


def _correct(tool: ToolSpec, gold: ToolCall, base: dict[str, Any], seed: int) -> list[ScoredCall]:
    """The gold call, and at most one hard positive that still grades ``correct``."""
    conversation_id, call_index = base["conversation_id"], base["call_index"]
    first_id = make_id("scored", conversation_id, call_index, "correct", gold.name, gold.arguments)
    scored = [ScoredCall(id=first_id, tool_call=gold, score="correct", subtype="gold", **base)]
    rng = random.Random(int(content_hash([seed, conversation_id, call_index, "correct"]), 16))
    for subtype, call in islice(hard_positives(tool, gold, rng), 1):
        if classify(tool, gold, call) == "correct":
            record_id = make_id("scored", conversation_id, call_index, "correct", subtype, call.name, call.arguments)
            scored.append(ScoredCall(id=record_id, tool_call=call, score="correct", subtype=subtype, **base))
    return scored


def _missed(tool: ToolSpec, gold: ToolCall, label: str, notes: list[str], base: dict[str, Any]) -> StageFailure:
    """Why no negative of ``label`` could be made for the call: every subtype's reason."""
    if not gold.arguments and label == "incorrect_parameter_values":
        notes = [f"{gold.name} is called without arguments, so there is no value to change"]
    return StageFailure(
        stage="inject",
        item_id=gold.id,
        reason=f"no_{label}",
        detail="; ".join(notes),
        raw={"conversation_id": base["conversation_id"], "call_index": base["call_index"], "tool": tool.key},
    )


def still_needed(messages: Sequence[Message], position: int, call: ToolCall) -> list[ToolCall]:
    """The calls the turn makes besides ``call`` (at ``messages[position]``) from there on: the others of its
    message (made in parallel) and those of later messages before the person speaks again. The person asked
    for each, so none is a wrong call, whatever the label against ``call`` says (eval's ``parallel_calls``)."""
    rest = [c for c in messages[position].tool_calls if c.id != call.id]
    for message in messages[position + 1 :]:
        if message.role == "user":
            break
        rest += message.tool_calls
    return rest


def kin(server: ServerSpec, servers: Iterable[ServerSpec]) -> tuple[tuple[ToolSpec, ...], ...]:
    """The tools of the registry's other servers, in two tiers: those of ``server``'s category (same-domain
    servers), then the rest. An ``unexpected_extra`` borrows their optional parameters where they fit the
    tool (synth.stages.extras), the nearer tier first."""
    others = sorted((s for s in servers if s.id != server.id), key=lambda s: s.id)
    domain = (server.category or "").lower() not in ("", "others")
    same = tuple(t for s in others if domain and s.category == server.category for t in s.tools)
    rest = tuple(t for s in others if not (domain and s.category == server.category) for t in s.tools)
    return same, rest


def negatives(
    conv: Conversation, server: ServerSpec, seed: int, kin: tuple[tuple[ToolSpec, ...], ...] = ()
) -> tuple[list[ScoredCall], list[StageFailure]]:
    """Every gold call of a conversation with its negatives; siblings are the other tools it offers, then the
    server's tools and ``kin`` (the registry's other servers' tools, in tiers: synth.stages.inject.kin)."""
    offered = [t for t in server.tools if t.name in conv.tools]
    others = (server.tools, *kin)
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
                    kin=others,
                    needed=[(server.tool(c.name), c) for c in still_needed(conv.messages, position, call)],
                )
                scored.extend(made)
                missed.extend(failed)
            index += 1
    return scored, missed
