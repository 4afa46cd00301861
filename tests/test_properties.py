"""Property tests (hypothesis): schema normalisation never crashes and keeps a valid schema usable, every
offline value passes the gates' schema check, and every injected negative is wrong the way its label says.
Bounded examples, no deadline: the suite stays fast.

Instances come from ``instances`` below, not hypothesis-jsonschema: its 0.23.1 (the last release) draws
objects through a hypothesis internal (``cu.many(...).more``) that current hypothesis no longer has, so
every object schema fails inside it. The schemas drawn here use the keywords ``instances`` knows."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from synth.grade import classify, same_value, schema_validator
from synth.records import Message, ToolCall, ToolSpec
from synth.registry.normalize import normalize_schema
from synth.simulator.values.values import Context, make_value
from synth.stages.gates import schema_error
from synth.stages.inject import inject_call

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
NAMES = (
    "city",
    "limit",
    "days",
    "query",
    "id",
    "email",
    "date",
    "url",
    "price",
    "tags",
    "page",
    "latitude",
    "year",
    "note",
    "status",
    "user_id",
    "start_time",
    "zip",
    "currency",
    "options",
)


# --- schemas a server might write -------------------------------------------------------------


@st.composite
def _string(draw: st.DrawFn) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "string"}
    kind = draw(st.sampled_from(["plain", "enum", "format", "pattern", "length"]))
    if kind == "enum":
        s["enum"] = draw(st.lists(st.text("abcdefgh-_ ", min_size=1, max_size=8), min_size=1, max_size=4, unique=True))
    elif kind == "format":
        s["format"] = draw(st.sampled_from(["date", "date-time", "email", "uri", "uuid", "ipv4"]))
    elif kind == "pattern":
        s["pattern"] = draw(st.sampled_from([r"^\d{5}$", r"^[A-Z]{3}$", r"^[a-z0-9-]+$", r"^\d+$", r"^#[0-9a-f]{6}$"]))
    elif kind == "length":
        lo = draw(st.integers(0, 6))
        s.update({"minLength": lo, "maxLength": lo + draw(st.integers(0, 30))})
    if draw(st.booleans()):
        s["description"] = draw(
            st.sampled_from(
                ["The city name", "Max results (1-50, default: 10)", "ISO date", "Three-letter currency code", ""]
            )
        )
    return s


@st.composite
def _number(draw: st.DrawFn) -> dict[str, Any]:
    s: dict[str, Any] = {"type": draw(st.sampled_from(["integer", "number"]))}
    lo = draw(st.none() | st.integers(-100, 100))
    hi = draw(st.none() | st.integers(0, 200))
    if lo is not None:
        s["minimum"] = lo
    if hi is not None and (lo is None or hi >= lo):
        s["maximum"] = hi
    if draw(st.integers(0, 4)) == 0:
        s["default"] = s.get("minimum", 0)
    return s


SCALARS = st.one_of(_string(), _number(), st.just({"type": "boolean"}))


def _containers(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(
            lambda items, lo: {"type": "array", "items": items, "minItems": lo, "maxItems": lo + 3},
            inner,
            st.integers(0, 2),
        ),
        _object(inner),
        st.builds(lambda x: {"anyOf": [x, {"type": "null"}]}, inner),  # pydantic's Optional
        st.builds(lambda x: {**x, "type": [x["type"], "null"]} if isinstance(x.get("type"), str) else x, inner),
    )


@st.composite
def _object_of(draw: st.DrawFn, inner: st.SearchStrategy[dict[str, Any]], min_size: int = 0) -> dict[str, Any]:
    props = draw(st.dictionaries(st.sampled_from(NAMES), inner, min_size=min_size, max_size=4))
    required = [k for k in props if draw(st.booleans())]
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


def _object(inner: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return _object_of(inner)


PROPERTY = st.recursive(SCALARS, _containers, max_leaves=6)
VALID_TOOL_SCHEMA = _object_of(PROPERTY, min_size=1)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda x: st.lists(x, max_size=3) | st.dictionaries(st.text(max_size=6), x, max_size=3),
    max_leaves=8,
)
MESSY = st.recursive(  # what a registry really holds, and worse: aliases, refs, wrong shapes, garbage
    st.one_of(
        JSON,
        SCALARS,
        st.sampled_from(
            [
                {"type": "str"},
                {"type": "int"},
                {"$ref": "#/$defs/X"},
                {"$ref": "#/definitions/missing"},
                {"type": "object"},
                True,
                False,
                {"type": ["string", "null"]},
                {"enum": []},
                {"minimum": 5, "maximum": 1},
                {"type": "string", "pattern": "("},
                {"type": "array", "items": [1]},
            ]
        ),
    ),
    lambda inner: st.one_of(
        st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "properties",
                    "items",
                    "anyOf",
                    "oneOf",
                    "allOf",
                    "required",
                    "$defs",
                    "additionalProperties",
                    "enum",
                    "default",
                    "inputSchema",
                ]
            ),
            inner,
            max_size=4,
        ),
        st.builds(
            lambda p, d: {"type": "object", "properties": p, "$defs": {"X": d}},
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
            inner,
        ),
    ),
    max_leaves=10,
)


_FORMATS = {
    "date": st.dates().map(str),
    "date-time": st.datetimes().map(lambda d: d.isoformat() + "Z"),
    "email": st.emails(),
    "uri": st.just("https://example.com/a"),
    "uuid": st.uuids().map(str),
    "ipv4": st.ip_addresses(v=4).map(str),
}


def instances(schema: Any) -> st.SearchStrategy[Any]:
    """Values valid under a normalised schema of the kinds drawn above (enum, format, pattern, bounds,
    arrays, objects with required keys); only draws that the schema accepts are kept."""
    return _instances(schema).filter(lambda v: schema_validator(schema).is_valid(v))


def _instances(schema: Any) -> st.SearchStrategy[Any]:
    if not isinstance(schema, dict) or not schema:
        return JSON
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "anyOf" in schema:
        return st.one_of([_instances(s) for s in schema["anyOf"]])
    t = schema.get("type")
    if isinstance(t, list):
        return st.one_of([_instances({**schema, "type": x}) for x in t])
    if t == "string":
        if schema.get("format") in _FORMATS:
            return _FORMATS[schema["format"]]
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(min_size=schema.get("minLength", 0), max_size=schema.get("maxLength", 12))
    if t in ("integer", "number"):
        ints = st.integers(schema.get("minimum"), schema.get("maximum"))
        return (
            ints
            if t == "integer"
            else ints | st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=False, allow_infinity=False)
        )
    if t == "boolean":
        return st.booleans()
    if t == "null":
        return st.none()
    if t == "array":
        return st.lists(
            _instances(schema.get("items", {})), min_size=schema.get("minItems", 0), max_size=schema.get("maxItems", 3)
        )
    if t == "object":
        props = schema.get("properties") or {}
        required = [k for k in schema.get("required", []) if k in props]
        return st.fixed_dictionaries(
            {k: _instances(props[k]) for k in required},
            optional={k: _instances(v) for k, v in props.items() if k not in required},
        )
    return JSON


# --- normalisation ----------------------------------------------------------------------------


@FAST
@given(MESSY)
def test_normalisation_never_crashes_and_gives_a_clean_schema_or_a_reason(schema: Any):
    clean, problems = normalize_schema(schema, file="t.json", server="s", tool="t")
    if clean is None:
        assert any(p.severity == "error" for p in problems)  # a skipped tool always says why
        return
    Draft202012Validator.check_schema(clean)
    assert clean["type"] == "object" and isinstance(clean["properties"], dict)
    assert not _refs(clean) and "$defs" not in clean


def _refs(node: Any) -> list[str]:
    """The $ref keywords of a schema (in schema positions: a default or enum value may hold anything)."""
    if not isinstance(node, dict):
        return []
    found = [node["$ref"]] if "$ref" in node else []
    subs = [
        node.get(k) for k in ("items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames")
    ]
    for k in ("properties", "patternProperties", "dependentSchemas"):
        subs += list((node.get(k) or {}).values()) if isinstance(node.get(k), dict) else []
    for k in ("anyOf", "oneOf", "allOf", "prefixItems"):
        subs += list(node[k]) if isinstance(node.get(k), list) else []
    return found + [r for sub in subs for r in _refs(sub)]


@SLOW
@given(VALID_TOOL_SCHEMA, st.data())
def test_a_valid_schema_stays_usable_and_only_narrows(schema: dict[str, Any], data: st.DataObject):
    Draft202012Validator.check_schema(schema)
    clean, problems = normalize_schema(schema, file="t.json")
    assert clean is not None and not [p for p in problems if p.severity == "error"], problems
    instance = data.draw(instances(clean), label="instance of the normalised schema")
    assert schema_validator(schema).is_valid(instance)  # normalising never admits what the original refused


# --- offline values ---------------------------------------------------------------------------


@FAST
@given(VALID_TOOL_SCHEMA, st.integers(0, 2**16))
def test_every_offline_value_passes_the_schema_gate(schema: dict[str, Any], seed: int):
    clean, _ = normalize_schema(schema, file="t.json")
    assert clean is not None
    ctx = Context(rng=random.Random(seed), city="Porto")
    for name, prop in clean["properties"].items():
        value, kind = make_value(name, prop, ctx)
        assert schema_error(prop, value) is None, (name, prop, value, kind)


# --- injected negatives -----------------------------------------------------------------------


def _tool(name: str, schema: dict[str, Any]) -> ToolSpec:
    clean, _ = normalize_schema(schema, file="t.json")
    assert clean is not None
    return ToolSpec(
        server="s", name=name, description=f"{name.replace('_', ' ')} for a place", input_schema=clean, schema_hash="h"
    )


@SLOW
@given(VALID_TOOL_SCHEMA, VALID_TOOL_SCHEMA, st.data(), st.integers(0, 2**16))
def test_every_injected_negative_is_wrong_by_its_label(
    schema: dict[str, Any], other: dict[str, Any], data: st.DataObject, seed: int
):
    tool, sibling = _tool("get_weather", schema), _tool("get_forecast", other)
    arguments = data.draw(instances(tool.input_schema).filter(bool), label="gold")
    assume(schema_error(tool.input_schema, arguments) is None)
    gold = ToolCall(id="call_1", name=tool.name, arguments=arguments)
    history = [Message(role="user", content="Please use " + json.dumps(arguments, ensure_ascii=False))]
    scored, _ = inject_call(tool, [tool, sibling], gold, history, conversation_id="conv_1", call_index=0, seed=seed)
    assert scored and scored[0].score == "correct" and scored[0].tool_call == gold
    for row in scored:
        call = row.tool_call
        assert classify(tool if call.name == tool.name else None, gold, call) == row.score, row
        if row.score == "incorrect_tool":
            assert call.name != gold.name
        elif row.score == "incorrect_parameter_names":
            assert call.name == gold.name and set(call.arguments) != set(gold.arguments)
        elif row.score == "incorrect_parameter_values":
            assert call.name == gold.name and set(call.arguments) == set(gold.arguments)
            assert any(not same_value(gold.arguments[k], call.arguments[k]) for k in gold.arguments), row
        else:  # correct: the gold call, or one an evaluator must accept for it
            assert call.name == gold.name
            assert all(same_value(v, call.arguments[k]) for k, v in gold.arguments.items() if k in call.arguments)
        assert row.score == "correct" or row.failure_reason  # a label without its reason is useless
