"""Files in each format synth reads (written here, by the tests) give the same records and items."""

from __future__ import annotations

import json
from pathlib import Path

from synth.derive import derive
from synth.ingest.formats import read

ORDER = {
    "name": "get_order_details",
    "description": "Get an order",
    "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
}
REQUEST = "Where is my order #W0032109?"


def write(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def items(out: Path) -> list[dict]:
    return [json.loads(x)["item"] for x in (out / "eval.jsonl").read_text(encoding="utf-8").splitlines()]


def calls(sample) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for m in sample.messages for c in m.tool_calls]


def test_legacy_functions_keep_the_users_call_and_messages(tmp_path):
    call = '{"name":"get_order_details","arguments":"{\\"order_id\\":\\"#W0032109\\"}"}'
    line = (
        '{"functions":[' + json.dumps(ORDER) + '],"messages":[{"role":"user","content":"' + REQUEST + '"},'
        '{"role":"assistant","content":null,"function_call":' + call + "},"
        '{"role":"function","name":"get_order_details","content":"{\\"order_id\\": \\"#W1\\"}"},'
        '{"role":"assistant","function_call":{"name":"get_order_details","arguments":"{\\"order_id\\":\\"#W1\\"}"}},'
        '{"role":"assistant","function_call":{"name":"get_order_details","arguments":"{\\"order_id\\":\\"#W2\\"}"}}]}'
    )
    source = write(tmp_path / "legacy.jsonl", [line])
    [sample] = list(read(source, "shop"))
    assert sample.format == "openai-functions"
    assert sample.messages[2].role == "tool" and sample.messages[2].tool_call_id == sample.messages[1].tool_calls[0].id
    report = derive(source, tmp_path / "d")
    got = items(tmp_path / "d")
    assert report["formats"] == {"OpenAI chat JSONL with functions (legacy)": 1}
    assert got[0]["expected_output"]["tool_calls"][0]["function"] == json.loads(call)
    assert call in (tmp_path / "d" / "eval.jsonl").read_text().splitlines()[0]
    assert got[0]["tools"] == [{"type": "function", "function": ORDER}]
    assert got[1]["messages"] == json.loads(line)["messages"][:3]
    assert [[f["value"] for f in i["flags"]] for i in got] == [[], [], ["#W2"]]  # #W1 came back from the tool


def hermes_row() -> dict:
    tools = "<tools>\n" + json.dumps([{"type": "function", "function": ORDER}]) + "\n</tools>"
    return {
        "conversations": [
            {"from": "system", "value": "You are a function calling AI model. " + tools},
            {"from": "human", "value": REQUEST},
            {
                "from": "gpt",
                "value": 'Let me look.\n<tool_call>\n{"name": "get_order_details", "arguments": {"order_id":"#W0032109"}}\n</tool_call>',  # noqa: E501
            },
            {
                "from": "tool",
                "value": '<tool_response>\n{"name": "get_order_details", "content": {"status": "pending"}}\n</tool_response>',  # noqa: E501
            },
            {
                "from": "gpt",
                "value": "<tool_call>\n{'name': 'get_order_details', 'arguments': {'order_id': '#W7'}}\n</tool_call>",
            },
            {"from": "gpt", "value": "It is pending."},
        ]
    }


def test_sharegpt_with_hermes_tags(tmp_path):
    source = write(tmp_path / "hermes.jsonl", [hermes_row()])
    [sample] = list(read(source, "shop"))
    assert sample.format == "sharegpt" and [t.name for t in sample.tools] == ["get_order_details"]
    assert calls(sample) == [
        ("get_order_details", {"order_id": "#W0032109"}),
        ("get_order_details", {"order_id": "#W7"}),
    ]
    assert sample.messages[3].role == "tool" and sample.messages[3].tool_call_id == sample.messages[2].tool_calls[0].id
    report = derive(source, tmp_path / "d")
    got = items(tmp_path / "d")
    assert report["formats"] == {"ShareGPT conversations (Hermes <tool_call> tags)": 1}
    first = got[0]["expected_output"]["tool_calls"][0]["function"]
    assert first == {"name": "get_order_details", "arguments": '{"order_id":"#W0032109"}'}  # as written in the tag
    assert got[0]["messages"][1] == {"role": "user", "content": REQUEST}
    assert got[0]["tools"] == [{"type": "function", "function": ORDER}]
    assert (
        got[1]["messages"][2]["tool_calls"][0]["function"] == first
        and got[1]["messages"][2]["content"] == "Let me look."
    )
    assert [[f["value"] for f in i["flags"]] for i in got] == [[], ["#W7"]]


def test_sharegpt_function_call_and_observation_turns(tmp_path):
    row = {
        "conversations": [
            {"from": "human", "value": REQUEST},
            {"from": "function_call", "value": '{"name": "get_order_details", "arguments": {"order_id": "#W0032109"}}'},
            {"from": "observation", "value": '{"status": "pending"}'},
            {"from": "gpt", "value": "It is pending."},
        ],
        "tools": json.dumps([ORDER]),
    }
    [sample] = list(read(write(tmp_path / "lf.jsonl", [row]), "shop"))
    assert sample.format == "sharegpt" and calls(sample) == [("get_order_details", {"order_id": "#W0032109"})]
    assert [m.role for m in sample.messages] == ["user", "assistant", "tool", "assistant"]


def apigen_row() -> dict:
    tools = [
        {
            "name": "get_order_details",
            "description": "Get an order",
            "parameters": {
                "order_id": {"description": "The order", "type": "str"},
                "verbose": {"description": "More detail", "type": "bool, optional", "default": False},
            },
        }
    ]
    answers = (
        '[{"name": "get_order_details", "arguments": {"order_id": "#W0032109"}}, '
        '{"name": "get_order_details", "arguments": {"order_id": "#W8", "verbose": "yes"}}]'
    )
    return {"id": 7, "query": REQUEST, "tools": json.dumps(tools), "answers": answers}


def test_apigen_rows(tmp_path):
    source = write(tmp_path / "xlam.jsonl", [apigen_row()])
    [sample] = list(read(source, "shop"))
    assert sample.format == "apigen"
    assert sample.tools[0].input_schema["required"] == ["order_id"]
    assert sample.tools[0].input_schema["properties"]["verbose"]["type"] == "boolean"
    report = derive(source, tmp_path / "d")
    got = items(tmp_path / "d")
    assert report["formats"] == {"APIGen {query, tools, answers} rows": 1} and len(got) == 2
    assert got[0]["messages"] == [{"role": "user", "content": REQUEST}] == got[1]["messages"]
    assert got[0]["expected_output"]["tool_calls"][0]["function"]["arguments"] == '{"order_id": "#W0032109"}'
    assert got[0]["flags"] == []
    assert {(f["gate"], f["argument"]) for f in got[1]["flags"]} == {
        ("schema_valid", "verbose"),
        ("grounding", "order_id"),
        ("grounding", "verbose"),
    }


def test_one_file_may_mix_formats_and_bad_lines_are_counted(tmp_path):
    source = write(
        tmp_path / "mixed.jsonl",
        [apigen_row(), hermes_row(), "{not json", {"text": "hello"}, {"messages": [{"role": "robot", "content": "x"}]}],
    )
    source.write_bytes(b"\xef\xbb\xbf" + source.read_bytes().replace(b"\n", b"\r\n"))  # a BOM, Windows line ends
    report = derive(source, tmp_path / "d")
    assert report["formats"] == {
        "APIGen {query, tools, answers} rows": 1,
        "ShareGPT conversations (Hermes <tool_call> tags)": 1,
    }
    assert report["unreadable"] == {"bad_shape": 1, "not_json": 1, "unknown_format": 1}
    rejected = [json.loads(x) for x in (tmp_path / "d" / "rejected.jsonl").read_text().splitlines()]
    assert {r["raw"]["line"] for r in rejected if r["stage"] == "read"} == {3, 4, 5}
    assert any("robot" in r["detail"] for r in rejected)


def test_an_unusable_tool_definition_is_reported_not_fatal(tmp_path):
    from synth.ingest.audit import audit

    row = {
        "messages": [
            {"role": "user", "content": REQUEST},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_order_details", "arguments": '{"order_id": "#W0032109"}'},
                    }
                ],
            },
        ],
        "tools": [
            {"type": "function", "function": {"name": "get_order_details", "parameters": 42}},
            {"type": "function"},
        ],
    }
    source = write(tmp_path / "odd.jsonl", [row])
    report = audit(source)
    assert report["conversations"] == 1 and report["unusable_tool_definitions"] == 2
    assert {e["line"] for e in report["examples"]["unusable_tool_definitions"]} == {1}
    assert derive(source, tmp_path / "d")["eval_items"] == 1
