"""Error injection (synth.stages.inject) and argument grading (synth.grade) on real server schemas.

The label of every negative is re-derived here by an independent, BFCL-style checker that shares
no code with synth.grade, so a bug in the grader cannot hide a mislabelled record.
"""

from __future__ import annotations

import json
import logging
import os
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from synth.grade import canonical, classify, facts, same_value
from synth.records import Message, ScoredCall, StageFailure, ToolCall, ToolSpec, content_hash
from synth.rundir import read_jsonl
from synth.stages import inject
from synth.stages.inject import inject_call

TOOLS_DIR = Path(__file__).parent / "fixtures" / "tools"
LABELS = {"correct", "incorrect_tool", "incorrect_parameter_names", "incorrect_parameter_values"}
NAMES_SUBTYPES = {
    "missing_required",
    "sibling_param",
    "plural_renamed",
    "case_renamed",
    "synonym_renamed",
    "unexpected_extra",
}
VALUES_SUBTYPES = {
    "wrong_type",
    "out_of_enum",
    "out_of_range",
    "wrong_format",
    "contradicts_request",
    "sibling_result",
    "context_value",
    "swapped_arguments",
    "unit_mixup",
    "partial_value",
}
CONTEXT_SUBTYPES = {"sibling_result", "context_value", "swapped_arguments"}
POSITIVE_SUBTYPES = {"default_explicit", "default_omitted"}
BOUNDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
)


def load(stem: str) -> list[ToolSpec]:
    """A real server file's tools, as ToolSpecs built straight from each inputSchema."""
    data = json.loads((TOOLS_DIR / f"{stem}.json").read_text())
    return [
        ToolSpec(
            server=data["qualifiedName"],
            name=t["name"],
            description=t.get("description") or "",
            input_schema=t["inputSchema"],
            schema_hash=content_hash(t["inputSchema"]),
        )
        for t in data["tools"]
    ]


SERVERS = {p.stem: load(p.stem) for p in sorted(TOOLS_DIR.glob("*.json"))}
SERVER_OF = {id(t): tools for tools in SERVERS.values() for t in tools}


def tool(server: str, name: str) -> ToolSpec:
    return next(t for t in SERVERS[server] if t.name == name)


def siblings(t: ToolSpec) -> list[ToolSpec]:
    return [s for s in SERVER_OF[id(t)] if s is not t]


# --- an independent checker (BFCL ast_checker style) --------------------------------------------


def _std(text: str) -> str:
    for ch in " ,./-_*^":
        text = text.replace(ch, "")
    return text.lower().replace("'", '"')


def _norm(value: Any) -> Any:
    """Tagged normal form, so True and 1 never meet."""
    if isinstance(value, bool) or value is None:
        return ("literal", value)
    if isinstance(value, (int, float)):
        return ("number", float(value))
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(("{", "[")):
            try:
                return _norm(json.loads(text))
            except ValueError:
                pass
        if re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?", text):
            return ("number", float(text))
        return ("string", _std(value))
    if isinstance(value, list):
        return ("list", tuple(_norm(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _norm(v)) for k, v in value.items())))
    return ("other", repr(value))


def bfcl_label(spec: ToolSpec, gold: ToolCall, call: ToolCall) -> str:
    """Possible answers from the gold call; "" marks a parameter that may be left out."""
    if call.name != gold.name:
        return "incorrect_tool"
    props = spec.input_schema.get("properties") or {}
    required = spec.input_schema.get("required") or []
    possible: dict[str, list[Any]] = {}
    for key, value in gold.arguments.items():
        default = (props.get(key) or {}).get("default", object())
        optional = key not in required and _norm(default) == _norm(value)
        possible[key] = [value] + [""] * optional
    for key, prop in props.items():
        if key not in possible and isinstance(prop, dict) and "default" in prop:
            possible[key] = [prop["default"], ""]
    if any(r in gold.arguments and r not in call.arguments for r in required):
        return "incorrect_parameter_names"  # missing_required
    if any(k not in possible for k in call.arguments):
        return "incorrect_parameter_names"  # unexpected_param
    if any(k not in call.arguments and "" not in answers for k, answers in possible.items()):
        return "incorrect_parameter_names"  # missing_optional
    for key, value in call.arguments.items():
        if all(a == "" or _norm(a) != _norm(value) for a in possible[key]):
            return "incorrect_parameter_values"
    return "correct"


def validates(spec: ToolSpec, arguments: dict[str, Any]) -> bool:
    schema = spec.input_schema
    return validator_for(schema)(schema).is_valid(arguments)


def check_records(spec: ToolSpec, sibs: list[ToolSpec], gold: ToolCall, records: list[ScoredCall]) -> None:
    """Everything a negative must satisfy, whatever the tool and the gold arguments."""
    first = records[0]
    assert (first.score, first.subtype, first.tool_call, first.failure_reason) == ("correct", "gold", gold, "")
    negatives = [r for r in records if r.score != "correct"]
    positives = [r for r in records[1:] if r.score == "correct"]
    assert len({r.score for r in negatives}) == len(negatives)  # at most one per label
    assert len(positives) <= 1 and records[1 : len(positives) + 1] == positives
    props = spec.properties
    for r in positives:  # a hard positive: another call that is still right, for BFCL too
        args = r.tool_call.arguments
        assert r.subtype in POSITIVE_SUBTYPES and r.failure_reason == ""
        assert bfcl_label(spec, gold, r.tool_call) == "correct", (r.subtype, args, gold.arguments)
        assert classify(spec, gold, r.tool_call) == "correct" and validates(spec, args)
        (key,) = set(args) ^ set(gold.arguments)
        assert "default" in props[key] and _norm(props[key]["default"]) == _norm(args.get(key, gold.arguments.get(key)))
        assert (key in args) == (r.subtype == "default_explicit") and key not in spec.required
    for r in negatives:
        args = r.tool_call.arguments
        assert bfcl_label(spec, gold, r.tool_call) == r.score, (r.subtype, args, gold.arguments)
        assert classify(spec, gold, r.tool_call) == r.score
        assert r.tool_call.id == gold.id and r.gold_call == gold
        assert r.failure_reason and r.failure_reason[-1] == "."
        if r.score == "incorrect_tool":
            names = {s.name for s in sibs}
            if r.subtype == "sibling_tool":
                assert r.tool_call.name in names
            else:
                assert r.subtype == "hallucinated_tool"
                assert r.tool_call.name not in names | {spec.name}
            assert gold.name in r.failure_reason
        elif r.score == "incorrect_parameter_names":
            assert r.subtype in NAMES_SUBTYPES
            added = set(args) - set(gold.arguments)
            assert not added & set(props), "a renamed or added name must not be a parameter"
            if r.subtype == "missing_required":
                assert not added and set(gold.arguments) - set(args) <= set(spec.required)
                assert len(set(gold.arguments) - set(args)) == 1 and args  # one, never all
            if r.subtype == "sibling_param":
                (new,) = added
                assert any(new in s.properties for s in sibs)
            assert any(f"'{k}'" in r.failure_reason for k in set(args) ^ set(gold.arguments))
        else:
            assert r.subtype in VALUES_SUBTYPES and set(args) == set(gold.arguments)
            changed = [k for k in args if _norm(args[k]) != _norm(gold.arguments[k])]
            if r.subtype == "swapped_arguments":
                a, b = changed
                assert _norm(args[a]) == _norm(gold.arguments[b]) and validates(spec, args)
                assert _norm(args[b]) == _norm(gold.arguments[a])
                assert f"'{a}'" in r.failure_reason and f"'{b}'" in r.failure_reason
                continue
            assert len(changed) == 1, (r.subtype, args, gold.arguments)
            assert f"'{changed[0]}" in r.failure_reason
            if r.subtype == "wrong_type":
                assert not validates(spec, args)
            if r.subtype in (
                "contradicts_request",
                "wrong_format",
                "sibling_result",
                "context_value",
                "unit_mixup",
                "partial_value",
            ):
                assert validates(spec, args)
            prop = props.get(changed[0]) or {}
            if r.subtype == "out_of_enum" and "enum" in prop:
                assert args[changed[0]] not in prop["enum"] and not validates(spec, args)
            if r.subtype == "out_of_range" and any(k in prop for k in BOUNDS):
                assert not validates(spec, args)


class _Crashes(logging.Handler):
    """The injector survives a crashing mutation (it costs one subtype); a test must not."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


CRASHES = _Crashes()
logging.getLogger("synth.stages.inject").addHandler(CRASHES)


def run(
    spec: ToolSpec, gold: ToolCall, history: list[Message], seed: int = 7, sibs: list[ToolSpec] | None = None
) -> tuple[list[ScoredCall], list[StageFailure]]:
    """inject_call plus every check a record must pass."""
    sibs = siblings(spec) if sibs is None else sibs
    CRASHES.seen.clear()
    records, failures = inject_call(spec, sibs, gold, history, conversation_id="conv_test", call_index=0, seed=seed)
    assert not CRASHES.seen, CRASHES.seen
    check_records(spec, sibs, gold, records)
    assert all(f.stage == "inject" and f.item_id == gold.id and f.detail for f in failures)
    assert {r.score for r in records} | {f.reason.removeprefix("no_") for f in failures} == LABELS
    assert not {r.score for r in records} & {f.reason.removeprefix("no_") for f in failures}
    return records, failures


def label_of(records: list[ScoredCall], label: str = "incorrect_parameter_values") -> ScoredCall:
    return next(r for r in records if r.score == label)


def user(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


# --- the example from reference/examples.md ------------------------------------------------------

FORECAST = tool("HarunGuclu__weather_mcp", "get_weather_forecast_tool")
WEATHER_NAMES = {t.name for t in SERVERS["HarunGuclu__weather_mcp"]}
PORTO_HISTORY = [
    Message(
        role="user",
        content="I'm driving to Porto this weekend. Can you find which Porto "
        "you have, and then tell me the weather there?",
    ),
    Message(
        role="assistant",
        tool_calls=(ToolCall(id="call_1", name="search_locations_tool", arguments={"query": "Porto"}),),
    ),
    Message(
        role="tool",
        tool_call_id="call_1",
        content=json.dumps(
            {
                "locations": [
                    {"name": "Porto", "country": "Portugal", "lat": 41.15, "lon": -8.61},
                    {"name": "Porto Alegre", "country": "Brazil", "lat": -30.03, "lon": -51.23},
                ]
            }
        ),
    ),
    Message(
        role="assistant",
        content="I found Porto, Portugal and Porto Alegre, Brazil. I'll "
        "assume Porto, Portugal. How many days of forecast do you "
        "want (1 to 10)?",
    ),
    Message(role="user", content="Four days, please."),
]
PORTO_GOLD = ToolCall(id="call_2", name="get_weather_forecast_tool", arguments={"city": "Porto", "days": 4})


def test_examples_md_forecast_gives_all_four_labels() -> None:
    records, failures = run(FORECAST, PORTO_GOLD, PORTO_HISTORY)
    assert not failures
    assert [r.score for r in records] == [
        "correct",
        "incorrect_tool",
        "incorrect_parameter_names",
        "incorrect_parameter_values",
    ]
    assert all(r.history == tuple(PORTO_HISTORY) and r.call_index == 0 for r in records)
    assert len({r.id for r in records}) == 4


def test_examples_md_reasons_across_seeds() -> None:
    """Over many seeds every applicable subtype shows up, with reasons as in examples.md."""
    by_subtype: dict[str, list[ScoredCall]] = {}
    for seed in range(60):
        for r in run(FORECAST, PORTO_GOLD, PORTO_HISTORY, seed=seed)[0][1:]:
            by_subtype.setdefault(r.subtype, []).append(r)
    expected = {
        "sibling_tool",
        "hallucinated_tool",
        "missing_required",
        "sibling_param",
        "plural_renamed",
        "synonym_renamed",
        "unexpected_extra",
        "sibling_result",
        "context_value",
        "wrong_type",
        "out_of_range",
        "contradicts_request",
    }  # no camelCase, enum, format, swap, units, partial
    # an invented value comes last, when the conversation offers nothing: rare here
    assert expected - {"contradicts_request", "out_of_range"} <= set(by_subtype) <= expected

    for r in by_subtype["sibling_result"]:  # the second search hit for the first
        assert r.tool_call.arguments == {"city": "Porto Alegre", "days": 4}
        assert r.failure_reason == (
            "'city' is 'Porto Alegre', the name of the second location in "
            "the search_locations_tool result; the user asked for 'Porto', "
            "the first."
        )
    for r in by_subtype["sibling_param"]:
        assert r.tool_call.arguments == {"query": "Porto", "days": 4}
        assert r.failure_reason == (
            "Required parameter 'city' is missing; 'query' is a parameter of "
            "search_locations_tool, not of get_weather_forecast_tool."
        )

    for r in by_subtype.get("out_of_range", []):
        days = r.tool_call.arguments["days"]
        assert isinstance(days, int) and not 1 <= days <= 10
        assert r.failure_reason == (f"'days' is {days}, but the user asked for 4 days and the tool accepts 1 to 10.")
    for r in by_subtype.get("contradicts_request", []):
        city, days = r.tool_call.arguments["city"], r.tool_call.arguments["days"]
        if city != "Porto":
            assert r.failure_reason == f"'city' is '{city}', but the user asked for 'Porto'."
            assert "porto" not in city.lower()  # a value the user did not say
        else:
            assert days != 4 and 1 <= days <= 10  # schema-valid and inside the stated range
    for r in by_subtype["synonym_renamed"]:
        new = (set(r.tool_call.arguments) - {"city", "days"}).pop()
        if "city" not in r.tool_call.arguments:
            assert r.failure_reason == (
                f"Required parameter 'city' is missing; '{new}' is not a parameter of get_weather_forecast_tool."
            )
        else:
            assert r.failure_reason == (
                f"'{new}' is not a parameter of get_weather_forecast_tool; the value belongs in 'days'."
            )
    for r in by_subtype["wrong_type"]:
        days = r.tool_call.arguments["days"]
        if days is not PORTO_GOLD.arguments["days"]:
            assert not isinstance(days, (int, float)) and days not in ("4", "4.0")  # "4" == 4
            assert r.failure_reason.endswith(
                "but get_weather_forecast_tool expects an integer; the user asked for 4 days."
            )
    for r in by_subtype["sibling_tool"]:
        assert r.tool_call.name in {"get_current_weather_tool", "get_live_temp"}
        assert r.tool_call.arguments == {"city": "Porto"}  # mapped onto the sibling's schema
        assert r.failure_reason.startswith(
            f"The user wants to get weather forecast for a specific city; {r.tool_call.name} is meant to get current "
        )
        assert r.failure_reason.endswith(". get_weather_forecast_tool was needed.")
    for r in by_subtype["hallucinated_tool"]:
        assert r.tool_call.name not in WEATHER_NAMES
        assert r.tool_call.arguments == PORTO_GOLD.arguments
        assert r.failure_reason == (
            f"'{r.tool_call.name}' is not one of the available tools; "
            "get_weather_forecast_tool was needed to get weather forecast "
            "for a specific city."
        )
    for r in by_subtype["missing_required"]:
        assert r.failure_reason == ("Required parameter 'city' is missing; the user asked for 'Porto'.")


def test_a_value_from_a_tool_result_is_attributed_to_that_tool() -> None:
    spec = tool("HarunGuclu__weather_mcp", "get_current_weather_tool")
    gold = ToolCall(id="call_3", name=spec.name, arguments={"city": "Porto Alegre"})
    history = PORTO_HISTORY[:3] + user("Actually the Brazilian one.")
    made = [r for seed in range(30) for r in run(spec, gold, history, seed=seed)[0]]
    values = [r for r in made if r.score == "incorrect_parameter_values"]
    tail = "the search_locations_tool result gave 'Porto Alegre'."
    assert values and all(r.failure_reason.endswith(tail) for r in values if r.subtype != "sibling_result")
    assert {r.failure_reason for r in values if r.subtype == "sibling_result"} == {
        "'city' is 'Porto', the name of the first location in the search_locations_tool result; "
        "the call needed the second, 'Porto Alegre'."
    }


# --- determinism ---------------------------------------------------------------------------------


def test_same_inputs_same_outputs_whatever_ran_before() -> None:
    def once(conversation: str, index: int, seed: int, sibs: list[ToolSpec]) -> list[Any]:
        made = inject_call(
            FORECAST, sibs, PORTO_GOLD, PORTO_HISTORY, conversation_id=conversation, call_index=index, seed=seed
        )
        return [r.to_json() for r in made[0]]

    first = once("c", 1, 3, siblings(FORECAST))
    once("other", 0, 9, siblings(FORECAST))  # no shared random stream to disturb
    assert once("c", 1, 3, list(reversed(siblings(FORECAST)))) == first
    drawn = {tuple(r["subtype"] for r in once("c", 1, s, siblings(FORECAST))) for s in range(20)}
    assert len(drawn) > 3  # while the seed does matter


_DIGEST = """
import hashlib, json, sys
sys.path.insert(0, "tests")
import test_inject as t
out = []
for spec in t.ALL_TOOLS:
    args = {k: t._plain(k, v) for k, v in spec.properties.items()}
    gold = t.ToolCall(id="g", name=spec.name, arguments=args)
    for seed in range(6):
        made, failed = t.inject_call(spec, t.siblings(spec), gold, t.user(json.dumps(args)),
                                     conversation_id="c", call_index=0, seed=seed)
        out += [r.to_json() for r in made] + [f.model_dump() for f in failed]
print(hashlib.sha256(json.dumps(out, sort_keys=True).encode()).hexdigest())
"""


def test_same_output_in_another_process() -> None:
    """Set and dict orders change with PYTHONHASHSEED; the records must not."""
    root = Path(__file__).parent.parent
    digests = {
        subprocess.run(
            [sys.executable, "-c", _DIGEST],
            cwd=root,
            check=True,
            text=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert len(digests) == 1, digests


# --- edge cases ----------------------------------------------------------------------------------


def test_zero_argument_tool() -> None:
    spec = tool("zeyynepkaraduman__memory-palace-mcp", "get_statistics")
    gold = ToolCall(id="call_9", name="get_statistics", arguments={})
    for seed in range(15):
        records, failures = run(spec, gold, user("How many palaces do I have?"), seed=seed)
        assert [r.score for r in records] == ["correct", "incorrect_tool", "incorrect_parameter_names"]
        assert records[2].subtype == "unexpected_extra"
        assert records[2].failure_reason.startswith("get_statistics takes no parameters, but the call passes '")
        assert [(f.stage, f.item_id, f.reason) for f in failures] == [
            ("inject", "call_9", "no_incorrect_parameter_values")
        ]
        assert "called without arguments" in failures[0].detail


def test_server_with_one_tool_can_only_hallucinate() -> None:
    spec = tool("smithery-ai__fetch", "fetch")
    url = "https://docs.python.org/3/library/asyncio.html"
    gold = ToolCall(id="c", name="fetch", arguments={"url": url, "maxLength": 5000})
    for seed in range(10):
        records, _ = run(spec, gold, user(f"Read {url}, first 5000 characters"), seed=seed, sibs=[])
        wrong = label_of(records, "incorrect_tool")
        assert wrong.subtype == "hallucinated_tool" and wrong.tool_call.name != "fetch"


def test_enum_parameters() -> None:
    """A typed enum (audience) and an enum-only parameter with no type (theme, type removed)."""
    spec = tool("NvkAnirudh__linkedin-post-generator", "summarize_transcript")
    gold = ToolCall(id="c", name=spec.name, arguments={"transcript": "We shipped onboarding.", "audience": "technical"})
    palace = tool("zeyynepkaraduman__memory-palace-mcp", "create_palace")
    schema = json.loads(json.dumps(palace.input_schema))
    del schema["properties"]["theme"]["type"]
    untyped = palace.model_copy(update={"input_schema": schema})
    gold_theme = ToolCall(id="c", name="create_palace", arguments={"name": "Roman villa", "theme": "ancient"})
    cases = (
        (spec, gold, "audience", ("general", "technical", "business", "academic"), None),
        (untyped, gold_theme, "theme", tuple(schema["properties"]["theme"]["enum"]), siblings(palace)),
    )
    for spec_, gold_, key, allowed, sibs in cases:
        seen = set()
        for seed in range(60):
            history = user(json.dumps(gold_.arguments))
            with pytest.MonkeyPatch.context() as mp:  # every kind of wrong value, not only the context's
                mp.setattr(inject, "P_ABSENT", 1.0)
                values = label_of(run(spec_, gold_, history, seed=seed, sibs=sibs)[0])
            new = values.tool_call.arguments[key]
            if new == gold_.arguments[key]:
                continue  # another parameter was changed
            seen.add(values.subtype)
            if values.subtype == "out_of_enum":
                assert isinstance(new, str) and new not in allowed
                assert "is not one of the allowed values ('" in values.failure_reason
            if values.subtype == "contradicts_request":
                assert new in allowed  # another allowed value, never an invented one
        assert {"out_of_enum", "contradicts_request"} <= seen, seen


def test_boolean_parameter() -> None:
    spec = tool("NvkAnirudh__linkedin-post-generator", "generate_linkedin_post")
    gold = ToolCall(
        id="c",
        name=spec.name,
        arguments={"summary": "AI agents in production", "videoTitle": "Agents 101", "includeCallToAction": False},
    )
    flips = types = 0
    for seed in range(80):
        history = user("Post about 'Agents 101': AI agents in production, no call to action.")
        values = label_of(run(spec, gold, history, seed=seed)[0])
        new = values.tool_call.arguments["includeCallToAction"]
        if new is True:
            flips += 1
            assert values.subtype == "contradicts_request"
            assert values.failure_reason == ("'includeCallToAction' is true, but the request calls for false.")
        elif new is not False:
            types += 1
            assert values.subtype == "wrong_type" and isinstance(new, str)
            assert new.lower() not in ("false", "0", "")
    assert flips and types


def test_formats_and_ranges_stated_in_words() -> None:
    spec = tool("other-blowsnow__mcp-server-chinarailway", "search")
    gold = ToolCall(id="c", name="search", arguments={"date": "2026-05-02", "fromCity": "北京", "toCity": "上海"})
    made = [r for seed in range(60) for r in run(spec, gold, user("5月2日 北京到上海"), seed=seed)[0]]
    formats = [r for r in made if r.subtype == "wrong_format"]
    assert formats
    for r in formats:
        assert r.tool_call.arguments["date"] in ("05/02/2026", "May 2, 2026", "02/05/2026")
        assert "expects an ISO date (YYYY-MM-DD)" in r.failure_reason
    cities = [
        r.tool_call.arguments
        for r in made
        if r.subtype == "contradicts_request" and r.tool_call.arguments["date"] == "2026-05-02"
    ]
    assert cities  # Chinese cities stay Chinese
    assert all(re.fullmatch(r"[\u4e00-\u9fff]+", a["fromCity"] + a["toCity"]) for a in cities)

    f = facts("days", {"type": "integer"}, "Number of days to forecast (1-10, default: 3)", 4)
    assert (f.lo, f.hi, f.bounds_from) == (1, 10, "description")
    assert facts("limit", {"type": "number"}, "Max documents (default: 20, max: 100)", 5).hi == 100
    assert facts("n", {"type": "integer"}, "between 1 and 100", 5).range_text() == "1 to 100"
    when = facts("when", {"type": "string"}, "The date in YYYY-MM-DD format.", "2026-01-31")
    assert when.fmt == "date"


def test_choices_stated_in_words() -> None:
    """'Valid periods: "1d", "5d", ...' is an enum the schema does not declare."""
    spec = tool("maxscheijen__mcp-yahoo-finance", "get_historical_stock_prices")
    gold = ToolCall(id="c", name=spec.name, arguments={"symbol": "AAPL", "period": "1mo"})
    valid = {"1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"}
    seen = set()
    for seed in range(80):
        values = label_of(run(spec, gold, user("Apple, last month"), seed=seed)[0])
        period = values.tool_call.arguments["period"]
        if period != "1mo":
            seen.add(values.subtype)
            if values.subtype == "out_of_enum":
                assert period not in valid and "'1d', '5d', '1mo'" in values.failure_reason
            if values.subtype == "contradicts_request":
                assert period in valid
    assert {"out_of_enum", "contradicts_request"} <= seen


# --- grading -------------------------------------------------------------------------------------


def test_canonical_and_same_value() -> None:
    assert same_value(4, "4") and same_value(1, 1.0) and same_value("4.0", 4)
    assert not same_value(True, 1) and not same_value(False, 0) and not same_value("true", True)
    assert same_value("April 1, 2024", "april 1 2024") and same_value("Porto", "porto")
    assert same_value({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1})
    assert same_value('{"x": [1]}', {"x": [1]})
    assert not same_value([1, 2], [2, 1]) and not same_value("00123", 123)
    assert not same_value(4, "four")
    assert canonical({"b": "New York", "a": "2"}) == {"a": 2, "b": "newyork"}


def test_classify_rules() -> None:
    def label(name: str, args: dict[str, Any], gold: ToolCall = PORTO_GOLD) -> str:
        return classify(FORECAST, gold, ToolCall(id="x", name=name, arguments=args))

    forecast = "get_weather_forecast_tool"
    assert label(forecast, {"days": "4", "city": "porto"}) == "correct"
    assert label("get_live_temp", {"city": "Porto"}) == "incorrect_tool"
    assert label(forecast, {"location": "Porto", "days": 4}) == "incorrect_parameter_names"
    assert label(forecast, {"city": "Porto"}) == "incorrect_parameter_names"  # 4 days, not 3
    assert label(forecast, {"city": "Porto", "days": 4, "unit": "C"}) == "incorrect_parameter_names"
    assert label(forecast, {"city": "Porto", "days": 14}) == "incorrect_parameter_values"
    three = ToolCall(id="g", name=forecast, arguments={"city": "Porto", "days": 3})
    assert label(forecast, {"city": "Porto"}, three) == "correct"  # 3 is the default


# --- properties over real schemas ----------------------------------------------------------------

ALL_TOOLS = [t for tools in SERVERS.values() for t in tools]
_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " -'", min_size=1, max_size=24)


def value_strategy(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid for a simple schema: enums, bounded numbers, formatted strings, lists, dicts."""
    if "enum" in schema:
        return st.sampled_from([v for v in schema["enum"] if v is not None])
    kind = schema.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "number"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum", -1000))
        hi = schema.get("maximum", schema.get("exclusiveMaximum", 100000))
        lo, hi = lo + ("exclusiveMinimum" in schema), hi - ("exclusiveMaximum" in schema)
        ints = st.integers(int(lo), int(hi))
        if kind == "integer":
            return ints
        floats = st.floats(lo, hi, allow_nan=False).map(lambda x: round(x, 2))
        return ints | floats.filter(lambda x: lo <= x <= hi)
    if kind == "array":
        items = schema.get("items") or {"type": "string"}
        return st.lists(
            value_strategy(name, items), min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 3), 3)
        )
    if kind == "object":
        return arguments_strategy(schema)
    lowered = name.lower()
    if schema.get("format") == "date" or lowered.endswith("date"):
        return st.dates().map(lambda d: d.isoformat())
    if schema.get("format") == "uri" or "url" in lowered:
        return st.from_regex(r"https://[a-z]{3,10}\.(com|org)/[a-z0-9]{1,12}", fullmatch=True)
    if "email" in lowered and "verified" not in lowered:
        return st.from_regex(r"[a-z]{2,8}@[a-z]{3,8}\.(com|io)", fullmatch=True)
    return _TEXT.filter(lambda s: s.strip() and len(s) >= schema.get("minLength", 0))


def arguments_strategy(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    props, required = schema.get("properties") or {}, set(schema.get("required") or [])
    return st.fixed_dictionaries(
        {k: value_strategy(k, v) for k, v in props.items() if k in required},
        optional={k: value_strategy(k, v) for k, v in props.items() if k not in required},
    )


@st.composite
def cases(draw: st.DrawFn) -> tuple[ToolSpec, ToolCall, list[Message], int]:
    spec = draw(st.sampled_from(ALL_TOOLS))
    args = draw(arguments_strategy(spec.input_schema))
    said = ", ".join(f"{k} {json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    history = [Message(role="system", content="You help with tools.")] + user(f"Please, {said}.")
    gold = ToolCall(id="call_h", name=spec.name, arguments=args)
    return spec, gold, history, draw(st.integers(0, 2**31))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_every_negative_holds_under_the_independent_checker(
    case: tuple[ToolSpec, ToolCall, list[Message], int],
) -> None:
    spec, gold, history, seed = case
    assert validates(spec, gold.arguments)  # the strategy makes valid gold calls
    with pytest.MonkeyPatch.context() as mp:  # every kind of wrong value, not only those the context offers
        mp.setattr(inject, "P_ABSENT", 1.0)
        records, failures = run(spec, gold, history, seed=seed)  # run() holds the label checks
        again = inject_call(spec, siblings(spec), gold, history, conversation_id="conv_test", call_index=0, seed=seed)
    if gold.arguments:
        assert "no_incorrect_parameter_values" not in {f.reason for f in failures}
    assert [r.to_json() for r in records] == [r.to_json() for r in again[0]]
    assert [f.model_dump() for f in failures] == [f.model_dump() for f in again[1]]


@pytest.mark.parametrize("server", sorted(SERVERS))
def test_every_fixture_tool_gets_its_labels(server: str) -> None:
    """Every tool of every fixture server, with plain required values, for several seeds."""
    for spec in SERVERS[server]:
        args = {k: _plain(k, v) for k, v in spec.properties.items() if k in spec.required}
        gold = ToolCall(id="g", name=spec.name, arguments=args)
        for seed in range(8):
            with pytest.MonkeyPatch.context() as mp:  # every kind of wrong value, not only the context's
                mp.setattr(inject, "P_ABSENT", 1.0)
                records, failures = run(spec, gold, user(json.dumps(args)), seed=seed)
            if args:
                assert len([r for r in records if r.score != "correct"]) == 3, [f.detail for f in failures]


def _plain(name: str, schema: dict[str, Any]) -> Any:
    """One plain valid value for a parameter."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        return min(max(2, schema.get("minimum", 2)), schema.get("maximum", 2))
    if kind == "object":
        required = schema.get("required") or []
        props = schema.get("properties") or {}
        return {k: _plain(k, v) for k, v in props.items() if k in required}
    if kind in ("boolean", "array"):
        return True if kind == "boolean" else ["alpha"]
    if name.lower().endswith("date"):
        return "2026-05-02"
    return "https://example.com/a" if "url" in name.lower() else "Quarterly sales review"


# --- a real run: wrong values come from the conversation ----------------------------------------


def _appears(value: Any, text: str) -> bool:
    """The value, as the call writes it, is in the conversation (a list or object never is)."""
    if isinstance(value, bool) or value is None:
        return True  # a flipped boolean is not an invented value
    if isinstance(value, (int, float)):
        n = int(value) if float(value).is_integer() else value
        return re.search(rf"(?<![\w.]){re.escape(str(n))}(?![\w]|\.\d)", text) is not None
    return isinstance(value, str) and value.strip().casefold() in text


def absent_share(run: Path) -> tuple[float, int]:
    """Share of wrong-value negatives whose new value appears nowhere in the conversation before it."""
    absent = total = 0
    for line in (json.dumps(r) for r in read_jsonl(run / "scored.jsonl")):
        r = json.loads(line)
        if r["score"] != "incorrect_parameter_values":
            continue
        gold = json.loads(r["gold_call"]["function"]["arguments"])
        args = json.loads(r["tool_call"]["function"]["arguments"])
        text = "\n".join(
            [m.get("content") or "" for m in r["message_history"]]
            + [c["function"]["arguments"] for m in r["message_history"] for c in m.get("tool_calls") or []]
        ).casefold()
        changed = [args[k] for k in args if _norm(args[k]) != _norm(gold.get(k))]
        total += 1
        absent += not all(_appears(v, text) for v in changed)
    return absent / max(total, 1), total


def test_wrong_values_in_a_real_run_mostly_come_from_the_conversation(tmp_path: Path) -> None:
    from synth.config import Settings
    from synth.pipeline import generate

    out = tmp_path / "run"
    generate(Settings(servers=Path(__file__).parent.parent / "registry", out=out, n=240, seed=3))
    share, total = absent_share(out)
    assert total > 100 and share <= 0.5, (share, total)
    records = list(read_jsonl(out / "scored.jsonl"))
    subtypes = {r["subtype"] for r in records}
    assert {
        "sibling_result",
        "context_value",
        "swapped_arguments",
        "partial_value",
        "sibling_param",
        "default_explicit",
    } <= subtypes, subtypes
    for r in records:
        if r["subtype"] == "missing_required":
            assert json.loads(r["tool_call"]["function"]["arguments"])  # never every argument


# --- the new kinds on hand-made tools ------------------------------------------------------------


def _spec(name: str, props: dict[str, Any], required: list[str], description: str = "") -> ToolSpec:
    schema = {"type": "object", "properties": props, "required": required}
    return ToolSpec(
        server="test/hand",
        name=name,
        description=description or f"{name}.",
        input_schema=schema,
        schema_hash=content_hash(schema),
    )


def test_unit_mixup_swapped_arguments_and_hard_positives() -> None:
    thermo = _spec(
        "set_thermostat",
        {
            "room": {"type": "string"},
            "temperature": {"type": "number", "description": "Target in Celsius"},
            "mode": {"type": "string", "enum": ["heat", "cool"], "default": "heat"},
        },
        ["room", "temperature"],
        "Set the thermostat of a room.",
    )
    gold = ToolCall(id="t", name=thermo.name, arguments={"room": "Kitchen", "temperature": 20})
    made = [
        r
        for seed in range(60)
        for r in run(thermo, gold, user("Set the kitchen to 20 degrees."), seed=seed, sibs=[])[0]
    ]
    mixups = {r.failure_reason for r in made if r.subtype == "unit_mixup"}
    assert mixups == {
        "'temperature' is 68, 20 Celsius converted to Fahrenheit, but set_thermostat "
        "takes Celsius; the user asked for 20."
    }
    explicit = [r for r in made if r.subtype == "default_explicit"]
    assert explicit and all(r.tool_call.arguments == {**gold.arguments, "mode": "heat"} for r in explicit)

    trip = _spec(
        "book_train",
        {"from_city": {"type": "string"}, "to_city": {"type": "string"}, "seats": {"type": "integer", "default": 1}},
        ["from_city", "to_city"],
    )
    gold = ToolCall(id="b", name=trip.name, arguments={"from_city": "Porto", "to_city": "Lisbon", "seats": 1})
    made = [
        r for seed in range(60) for r in run(trip, gold, user("A seat from Porto to Lisbon."), seed=seed, sibs=[])[0]
    ]
    swaps = [r for r in made if r.subtype == "swapped_arguments"]
    assert swaps and all(
        r.tool_call.arguments == {"from_city": "Lisbon", "to_city": "Porto", "seats": 1} for r in swaps
    )
    omitted = [r for r in made if r.subtype == "default_omitted"]
    assert omitted and all(r.tool_call.arguments == {"from_city": "Porto", "to_city": "Lisbon"} for r in omitted)


def test_no_hard_positive_when_bfcl_would_reject_the_default() -> None:
    """A string default of an integer parameter fails BFCL's type check: no default_explicit."""
    spec = _spec(
        "list_items",
        {
            "query": {"type": "string"},
            "limit": {"type": "integer", "default": "10"},
            "flag": {"type": "boolean", "default": None},
        },
        ["query"],
    )
    gold = ToolCall(id="l", name=spec.name, arguments={"query": "lamps"})
    for seed in range(20):
        records, _ = run(spec, gold, user("Find lamps."), seed=seed, sibs=[])
        assert not [r for r in records if r.subtype.startswith("default_")]


def test_values_kept_by_identity_are_found_only_for_the_same_objects():
    """The memo behind validators, tool infos and similar tools: an equal but other object, a longer or
    shorter tuple of objects, is a miss; a full memo starts over instead of growing."""
    from synth.memo import ByIdentity

    memo: ByIdentity[str] = ByIdentity(size=2)
    a, same_as_a, b = {"type": "string"}, {"type": "string"}, {"type": "integer"}
    assert memo.put((a, b), "ab") == "ab" and memo.get(a, b) == "ab"
    assert memo.get(same_as_a, b) is None and memo.get(a) is None and memo.get(a, b, a) is None
    memo.put((b,), "b")
    memo.put((a,), "a")  # the third entry: the memo was full, so it starts over
    assert memo.get(a) == "a" and memo.get(a, b) is None and memo.get(b) is None


# --- a negative is never a call its turn still needs (issue 38) ----------------------------------

_PRICE = {"asset": {"type": "string", "description": "Coin name or symbol"}}
_CURRENT = _spec("get_current_price", _PRICE, ["asset"], "Get current cryptocurrency prices.")
_HISTORY = _spec(
    "get_historical_price",
    {**_PRICE, "start_date": {"type": "string", "format": "date"}, "end_date": {"type": "string", "format": "date"}},
    ["asset", "start_date", "end_date"],
    "Get historical price data.",
)
_COIN_ASK = [
    Message(
        role="user",
        content="Can you check a coin's price for me? Also: can you pull a coin's price history "
        "from 2026-01-15 to 2026-02-15?",
    ),
    Message(role="assistant", content="Which coin?"),
    Message(role="user", content="It's Monero."),
]
_NOW = ToolCall(id="c1", name="get_current_price", arguments={"asset": "Monero"})
_THEN = ToolCall(
    id="c2",
    name="get_historical_price",
    arguments={"asset": "Monero", "start_date": "2026-01-15", "end_date": "2026-02-15"},
)


@pytest.mark.parametrize("parallel", [True, False])
def test_no_negative_is_a_call_the_turn_still_needs(parallel: bool) -> None:
    """The person asked for the current price and its history in one request: get_current_price("Monero")
    is no wrong tool for the history call, made beside it or after it; BFCL's checker agrees with the
    labels against every call of the turn, and a later request's calls are not the turn's."""
    if parallel:
        turn = [Message(role="assistant", tool_calls=(_THEN, _NOW))]
    else:
        turn = [
            Message(role="assistant", tool_calls=(_THEN,)),
            Message(role="tool", tool_call_id="c2", content='{"prices": [{"date": "2026-01-15", "usd": 151.2}]}'),
            Message(role="assistant", tool_calls=(_NOW,)),
        ]
    messages = [*_COIN_ASK, *turn, Message(role="tool", tool_call_id="c1", content='{"usd": 162.4}')]
    assert inject.still_needed(messages, 3, _THEN) == [_NOW]
    assert inject.still_needed([*messages, Message(role="user", content="And Zcash?"), *turn], 3, _THEN) == [_NOW]
    assert inject.still_needed(messages, len(messages) - 2, _NOW) == ([_THEN] if parallel else [])
    tools = {t.name: t for t in (_CURRENT, _HISTORY)}
    made = 0
    for seed in range(40):
        records, _ = inject_call(
            _HISTORY,
            [_CURRENT],
            _THEN,
            _COIN_ASK,
            conversation_id="conv_coin",
            call_index=0,
            seed=seed,
            needed=[(_CURRENT, _NOW)],
        )
        check_records(_HISTORY, [_CURRENT], _THEN, records)
        for r in records[1:]:
            assert r.tool_call.name != "get_current_price", (seed, r.score, r.tool_call)
            for other in (_NOW,):
                assert bfcl_label(tools[other.name], other, r.tool_call) != "correct"
            made += r.score == "incorrect_tool"
    assert made == 40  # a hallucinated tool takes the sibling's place
