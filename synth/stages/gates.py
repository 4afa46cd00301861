"""Deterministic gates on every gold call, before any reviewer is asked.

1. tool_exists: the call names a tool of the server.
2. schema_valid: the arguments validate against the tool's input schema (jsonschema).
3. grounded: every argument value appears in a user turn or an earlier tool result, or is a
   schema default, enum or const value. Booleans are a closed two-value domain and count as
   grounded, as enum values do. What "appears" means is synth.facts.Evidence, the one definition
   the grader's reasons, derive and audit share.
4. whole_text: no text in the conversation was cut short (synth.stages.whole); only a failure is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema

from synth.grade import Evidence, schema_validator
from synth.records import GateResult, Message, Outcome, Review, ServerSpec, StageFailure, ToolCall, ToolSpec, Trajectory
from synth.stages.decisions import problems
from synth.stages.reader import internal
from synth.stages.whole import cut_message


def schema_error(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """The first validation error as one line, or None when the arguments are valid."""
    try:
        error = jsonschema.exceptions.best_match(schema_validator(schema).iter_errors(arguments))
    except (
        jsonschema.exceptions.SchemaError,
        jsonschema.exceptions.UnknownType,
        jsonschema.exceptions._WrappedReferencingError,  # type: ignore[attr-defined]
    ) as exc:  # the registry should have caught it
        return f"(schema): cannot be checked: {str(exc).splitlines()[0][:200]}"
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(arguments)"
    return f"{where}: {error.message[:200]}"


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar inside a value, with a JSON-pointer-like path."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{path}/{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}/{i}")
    else:
        yield path, value


def _allowed(schema: dict[str, Any], path: str) -> list[Any]:
    """Default, enum and const values found in the schema along a path."""
    node: Any = schema
    for part in path.strip("/").split("/") if path.strip("/") else []:
        if not isinstance(node, dict):
            return []
        if part.isdigit() and isinstance(node.get("items"), dict):
            node = node["items"]
        else:
            node = (node.get("properties") or {}).get(part)
    if not isinstance(node, dict):
        return []
    out = list(node.get("enum") or [])
    for key in ("default", "const"):
        if key in node:
            out.append(node[key])
    return out


def ungrounded(
    call: ToolCall, schema: dict[str, Any], evidence: Evidence, written: frozenset[str] = frozenset()
) -> list[str]:
    """Argument values with no source; ``written`` names parameters the model writes itself (why it calls:
    synth.stages.reader.internal), which need none."""
    out = []
    for path, value in leaves(call.arguments):
        if value in _allowed(schema, path) or evidence.grounded(value) or path.strip("/").split("/")[0] in written:
            continue
        out.append(f"{path.lstrip('/')}={json.dumps(value, ensure_ascii=False)[:80]}")
    return out


def review(trajectory: Trajectory, server: ServerSpec, by_model: bool = False) -> Review:
    """Run the three gates on each call and the whole-text gate on each message; accept only when all pass.
    ``by_model``: models wrote the texts (synth.stages.whole.cut_message holds their prose to more)."""
    gates: list[GateResult] = []
    reasons: list[str] = []
    messages = list(trajectory.messages)
    for index, message in enumerate(messages):
        cut = cut_message(message, by_model)
        if cut is not None:
            detail = f"message {index} ({message.role}) was cut short: {cut}"
            gates.append(GateResult(gate="whole_text", call_id="", passed=False, detail=detail))
            reasons.append(detail)
        for call in message.tool_calls:
            tool = server.tool(call.name)
            gates.append(
                GateResult(
                    gate="tool_exists",
                    call_id=call.id,
                    passed=tool is not None,
                    detail="" if tool else f"{call.name!r} is not a tool of {server.id}",
                )
            )
            if tool is None:
                reasons.append(f"unknown tool {call.name!r}")
                continue
            error = schema_error(tool.input_schema, call.arguments)
            gates.append(GateResult(gate="schema_valid", call_id=call.id, passed=error is None, detail=error or ""))
            if error:
                reasons.append(f"{call.name}: arguments invalid: {error}")
            written = frozenset(p for p in call.arguments if internal(tool, p))
            missing = ungrounded(call, tool.input_schema, Evidence(messages[:index]), written)
            detail = "; ".join(missing)
            gates.append(GateResult(gate="grounded", call_id=call.id, passed=not missing, detail=detail))
            if missing:
                reasons.append(f"{call.name}: values not said by the user or returned by a tool: {detail}")
    decided = problems(trajectory)
    gates += [
        GateResult(gate="decision", call_id=f"message:{i}", passed=False, detail=p) for i, p in enumerate(decided)
    ]
    reasons += decided
    passed = all(g.passed for g in gates) and bool(trajectory.calls or trajectory.decisions)
    return Review(
        trajectory_id=trajectory.id,
        gates=tuple(gates),
        step_labels=step_labels(messages),
        verdict="accept" if passed else "reject",
        confidence=1.0,
        reasons=tuple(reasons),
    )


_INPUT = re.compile(r"validation error|invalid|not found|no such|no \w+ with|unknown|missing|required|must be", re.I)


def error_label(text: str) -> Outcome:
    """The step label of a call whose result is an error: the call's input was wrong (a bad value, a path or id
    that does not exist), or the tool could not do it (everything else: a refusal, a crash, a timeout)."""
    return "input_error" if _INPUT.search(text) else "unable_to_accomplish"


def step_labels(messages: list[Message]) -> tuple[str, ...]:
    """One label per call, in call order: ``success`` unless its tool message says ``is_error``, whose
    label says which kind of error (a result recorded as an error is never labelled a success)."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    labels = []
    for message in messages:
        for call in message.tool_calls:
            result = results.get(call.id)
            labels.append(error_label(result.content or "") if result is not None and result.is_error else "success")
    return tuple(labels)


def failure(review: Review, item_id: str) -> StageFailure:
    """The StageFailure for a rejected review, named after the first gate that failed."""
    first = next((g for g in review.gates if not g.passed), None)
    reason = first.gate if first else "no_tool_calls"
    if first is not None and first.gate == "decision" and first.detail == "no tool calls":
        reason = "no_tool_calls"
    return StageFailure(stage="gate", item_id=item_id, reason=reason, detail=" | ".join(review.reasons))


def pointer(path: Any) -> str:
    """A JSON pointer (RFC 6901) from path parts; "" is the whole arguments object."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def call_flags(messages: list[Message], server: ServerSpec) -> list[list[dict[str, Any]]]:
    """What the three gates find on each call, in call order: [] for a clean call, else flags
    ``{"gate", "argument", "value", "why"}`` that say which argument is wrong and why. Unlike
    ``review`` nothing is decided here: the caller keeps or drops the call."""
    out: list[list[dict[str, Any]]] = []
    for index, message in enumerate(messages):
        for call in message.tool_calls:
            tool = server.tool(call.name)
            if tool is None:
                why = f"{call.name!r} is not one of the tools offered on this line"
                out.append([{"gate": "tool_exists", "argument": None, "value": call.name, "why": why}])
            else:
                out.append(_schema_flags(tool, call) + _grounding_flags(tool, call, messages[:index]))
    return out


def _schema_flags(tool: ToolSpec, call: ToolCall) -> list[dict[str, Any]]:
    """Each schema error of the call's arguments, at its pointer (or one flag for a schema that cannot check)."""
    try:
        errors = sorted(
            schema_validator(tool.input_schema).iter_errors(call.arguments), key=lambda e: list(e.absolute_path)
        )
    except (
        jsonschema.exceptions.SchemaError,
        jsonschema.exceptions.UnknownType,
        jsonschema.exceptions._WrappedReferencingError,  # type: ignore[attr-defined]
    ) as exc:
        why = f"the schema cannot be checked: {str(exc).splitlines()[0][:200]}"
        return [{"gate": "schema_valid", "argument": None, "pointer": "", "value": None, "why": why}]
    flags = []
    for error in errors:
        where = pointer(error.absolute_path)
        flags.append(
            {
                "gate": "schema_valid",
                "argument": where.lstrip("/") or None,
                "pointer": where,
                "value": error.instance if error.absolute_path else None,
                "why": error.message[:200],
            }
        )
    return flags


def _grounding_flags(tool: ToolSpec, call: ToolCall, before: list[Message]) -> list[dict[str, Any]]:
    """Each argument value that appears neither in what came before the call nor among the schema's own values."""
    evidence = Evidence(before)
    return [
        {
            "gate": "grounding",
            "argument": path.lstrip("/"),
            "value": value,
            "why": "not in the user's words or an earlier tool result, and not a default or enum value of the schema",
        }
        for path, value in leaves(call.arguments)
        if value not in _allowed(tool.input_schema, path)
        and not evidence.grounded(value)
        and not internal(tool, path.strip("/").split("/")[0])  # the model writes it: no source needed
    ]
