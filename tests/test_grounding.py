"""One definition of grounded (synth.facts.Evidence), read the same way by the gates, the grader's
label reasons, derive and audit: the tricky spellings of a value the user or a tool gave."""

import json

import pytest

from synth.facts import Evidence
from synth.records import Message, ServerSpec, ToolCall, ToolSpec
from synth.stages import gates
from synth.stages.candidates import Ctx, nodes_of, tool_info
from synth.stages.scalars import Scalars

RESULT = {
    "orders": [
        {"id": 42, "city": "Zürich", "total": 3.0, "placed": "2024-03-05", "note": json.dumps({"tracking": "TRK-7781"})}
    ]
}
HISTORY = [
    Message(
        role="user", content="Ship 1,000 units of ticket #4521 to PORTO on March 9, 2024, in 3 boxes; priority two."
    ),
    Message(role="assistant", tool_calls=(ToolCall(id="c1", name="list_orders", arguments={}),)),
    Message(role="tool", tool_call_id="c1", content=json.dumps(RESULT)),  # ensure_ascii: "Z\u00fcrich"
]


@pytest.mark.parametrize(
    "value, source",
    [
        (1000, "user"),
        ("1000", "user"),
        (1000.0, "user"),
        ("1,000", "user"),  # thousands separators
        (3, "user"),
        (3.0, "user"),
        ("3", "user"),
        ("3.0", "user"),  # one number, however written
        (2, "user"),  # spelled out
        (4521, "user"),
        ("4521", "user"),
        ("#4521", "user"),  # ids with and without "#"
        ("porto", "user"),
        ("Porto", "user"),  # case
        ("2024-03-09", "user"),  # a date the user wrote in English
        (42, "list_orders"),
        ("zürich", "list_orders"),
        ("ZÜRICH", "list_orders"),  # inside a JSON result (escaped)
        ("2024-03-05", "list_orders"),
        ("TRK-7781", "list_orders"),  # JSON text inside a result's string
        ([42, 3], "list_orders"),  # a list: the first source that holds every item
    ],
)
def test_grounded_spellings(value, source):
    ev = Evidence(HISTORY)
    assert ev.source(value) == source and ev.grounded(value)


@pytest.mark.parametrize(
    "value",
    [
        4520,
        452,
        45,
        100,
        10000,  # not the digits of a longer number
        9,
        24,
        2023,  # the date's parts: "03" is no 3, "2024" is the only number there ... but 9 and 2023 were not said
        "#452",
        "port",
        "o",
        "2024-03-10",
        "zurich",
        "TRK-77810",
        7781.5,
        [42, 43],
    ],
)
def test_not_grounded(value):
    ev = Evidence(HISTORY)
    if value == 9:  # "March 9" does say 9: the day is a number the user gave
        assert ev.grounded(9)
        return
    assert not ev.grounded(value), value


def test_a_list_from_several_sources_is_grounded_leaf_by_leaf():
    ev = Evidence(HISTORY)
    assert ev.source([42, 1000]) == "" and ev.grounded([42, 1000]) and ev.grounded({"a": [42], "b": "porto"})
    assert not ev.grounded([42, 43]) and ev.grounded([])


def test_date_parts_are_not_numbers():
    ev = Evidence([Message(role="user", content="from 2024-03-05 please")])
    assert ev.grounded("2024-03-05") and ev.grounded(2024)
    assert not ev.grounded(3) and not ev.grounded(5) and not ev.grounded("2024-05-03")


def test_booleans_and_nulls_are_a_closed_domain_but_never_said():
    ev = Evidence([Message(role="user", content="true")])
    assert ev.grounded(True) and ev.grounded(None)
    assert not ev.said(True) and ev.source(False) == ""


def test_strings_are_whole_words():
    ev = Evidence([Message(role="user", content="grade b, category x-ray, 東京に行きたい, v2.1-beta")])
    assert ev.grounded("b") and ev.grounded("X") and not ev.grounded("g") and not ev.grounded("ray-")
    assert ev.grounded("東京") and ev.grounded("v2.1-") and ev.grounded("category x") and not ev.grounded("categor")
    assert Evidence([Message(role="user", content="trials for adults")]).grounded("ADULT")  # a plural says it


def test_long_ids_keep_every_digit():
    ev = Evidence(
        [Message(role="tool", content='{"listings": [{"id": "1215799479040526045"}, {"id": 98765432109876543}]}')]
    )
    assert ev.grounded("1215799479040526045") and ev.grounded(1215799479040526045) and ev.grounded(98765432109876543)
    assert not ev.grounded("1215799479040526044") and not ev.grounded(98765432109876544)


def _server() -> ServerSpec:
    schema = {
        "type": "object",
        "properties": {"id": {"type": "integer"}, "city": {"type": "string"}, "units": {"type": "integer"}},
        "required": ["id"],
    }
    tools = (
        ToolSpec(server="shop", name="ship", description="Ship an order.", input_schema=schema, schema_hash="s1"),
        ToolSpec(
            server="shop",
            name="list_orders",
            description="List orders.",
            input_schema={"type": "object", "properties": {}},
            schema_hash="s2",
        ),
    )
    return ServerSpec(id="shop", name="Shop", source="shop.json", tools=tools)


def test_gates_grader_and_audit_read_one_definition():
    """The gates (review and call_flags, which derive and audit report) flag exactly the values the
    grader's label reasons cannot attribute to the user or a result."""
    good = ToolCall(id="c2", name="ship", arguments={"id": 42, "city": "Zürich", "units": 1000})
    bad = ToolCall(id="c2", name="ship", arguments={"id": 43, "city": "Zürich", "units": 1000})
    server = _server()
    for call, wrong in ((good, []), (bad, ["id"])):
        messages = [*HISTORY, Message(role="assistant", tool_calls=(call,))]
        flags = gates.call_flags(messages, server)[-1]
        assert [f["argument"] for f in flags if f["gate"] == "grounding"] == wrong
        assert gates.ungrounded(call, server.tool("ship").input_schema, Evidence(HISTORY)) == [
            f"{k}={v}" for k, v in call.arguments.items() if k in wrong
        ]
        info = tool_info(server.tool("ship"))
        ctx = Ctx(info, (), call, Evidence(HISTORY), nodes_of(info, call.arguments), Scalars(HISTORY))
        reasons = {n.label: ctx.wanted(n) for n in ctx.nodes}
        assert reasons["units"] == "the user asked for 1000 units"
        assert reasons["id"] == ("the request calls for 43" if wrong else "the list_orders result gave 42")
