import json

from synth.facts import Evidence
from synth.records import Message, ServerSpec, ToolCall, ToolSpec, Trajectory, content_hash
from synth.stages.gates import review

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
        "units": {"type": "string", "enum": ["metric", "imperial"]},
        "alerts": {"type": "boolean"},
    },
    "required": ["city"],
}
TOOL = ToolSpec(server="wx", name="forecast", input_schema=SCHEMA, schema_hash=content_hash(SCHEMA))
SERVER = ServerSpec(id="wx", name="Weather", source="wx.json", tools=(TOOL,))


def run(user: str, args: dict, name: str = "forecast", tool_result: dict | None = None):
    messages = [Message(role="user", content=user)]
    if tool_result is not None:
        messages += [
            Message(role="assistant", tool_calls=(ToolCall(id="c0", name="lookup", arguments={}),)),
            Message(role="tool", tool_call_id="c0", content=json.dumps(tool_result)),
        ]
    messages.append(Message(role="assistant", tool_calls=(ToolCall(id="c1", name=name, arguments=args),)))
    return review(Trajectory(id="t", scenario_id="s", messages=tuple(messages)), SERVER)


def test_grounded_values_from_user_words_defaults_enums_and_booleans_pass():
    r = run("Forecast for porto over 4 days please", {"city": "Porto", "days": 4, "units": "metric", "alerts": True})
    # the unknown tool "lookup" is never called here, so only the forecast call is gated
    assert r.verdict == "accept", r.reasons
    assert run("Forecast for Porto", {"city": "Porto", "days": 3}).verdict == "accept"  # 3 is the default


def test_invented_value_is_rejected_and_named():
    r = run("Forecast for Porto over 4 days", {"city": "Lisbon", "days": 4})
    assert r.verdict == "reject"
    assert any('city="Lisbon"' in reason for reason in r.reasons)


def test_number_must_appear_as_a_whole_number():
    assert run("Forecast for Porto over 14 days", {"city": "Porto", "days": 4}).verdict == "reject"
    assert run("Forecast for Porto, 4.5 stars", {"city": "Porto", "days": 4}).verdict == "reject"


def test_value_from_an_earlier_tool_result_is_grounded():
    result = {"locations": [{"name": "Porto Alegre", "country": "Brazil"}]}
    r = run("Find Porto and get the forecast", {"city": "Porto Alegre"}, tool_result=result)
    gates = {g.gate: g.passed for g in r.gates if g.call_id == "c1"}
    assert gates["grounded"] is True


def test_schema_invalid_and_unknown_tool_are_rejected():
    r = run("Forecast for Porto over 40 days", {"city": "Porto", "days": 40})
    assert r.verdict == "reject" and any("arguments invalid" in x for x in r.reasons)
    r = run("Forecast for Porto", {"city": "Porto"}, name="nowcast")
    assert r.verdict == "reject" and any("unknown tool" in x for x in r.reasons)


def test_evidence_ignores_substrings_inside_other_words():
    ev = Evidence([Message(role="user", content="order 12345 please")])
    assert ev.grounded(12345) and not ev.grounded(1234) and not ev.grounded(2345)
