"""``synth derive``: someone else's chat file through the same gates, eval export and injection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from synth.config import Settings
from synth.export.chat import ToolNames, chat_line
from synth.pipeline import generate
from synth.records import Conversation
from synth.registry import load_registry
from synth.rundir import read_jsonl

ROOT = Path(__file__).parents[1]


def lines(path: Path) -> list[dict]:
    """The rows of a run file as published, whatever its storage (synth.rundir reads it)."""
    return list(read_jsonl(path))


def test_derive_gives_the_generators_own_eval_items_and_reports_invented_values(tmp_path):
    run = tmp_path / "run"
    generate(Settings(servers=ROOT / "registry", out=run, n=200, seed=5))
    registry = load_registry(ROOT / "registry")
    servers, names = {s.id: s for s in registry.servers}, ToolNames(registry.servers)
    test = [Conversation.model_validate(c) for c in lines(run / "conversations.jsonl") if c["split"] == "test"]
    chat = [chat_line(c, servers[c.server], names) for c in test]

    # a production log line whose assistant invents an order id nobody said or returned
    def free_text(line):  # (call, argument) of the first plain string argument: inventing it breaks no schema
        for m in line["messages"]:
            for c in m.get("tool_calls", []):
                schema = next(
                    t["function"]["parameters"] for t in line["tools"] if t["function"]["name"] == c["function"]["name"]
                )
                for name, value in json.loads(c["function"]["arguments"]).items():
                    prop = schema.get("properties", {}).get(name, {})
                    if isinstance(value, str) and not ({"enum", "pattern", "format", "const"} & set(prop)):
                        return c, name
        return None

    bad = json.loads(json.dumps(next(x for x in chat if free_text(x))))
    call, name = free_text(bad)
    args = json.loads(call["function"]["arguments"])
    args[name] = "ORD-99999-INVENTED"
    call["function"]["arguments"] = json.dumps(args)
    source = tmp_path / "logs.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in [*chat, bad]) + "not json\n")
    done = subprocess.run(
        [sys.executable, "-m", "synth.cli.app", "derive", str(source), "--out", str(tmp_path / "d"), "--seed", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    derived = lines(tmp_path / "d" / "eval.jsonl")
    # derive makes one item per call; the generator adds items for its decisions (ask, decline, answer)
    expected = [e for e in lines(run / "eval.jsonl") if "decision" not in e["item"]["metadata"]]
    bad_calls = sum(len(m.get("tool_calls", [])) for m in bad["messages"])
    assert len(derived) == len(expected) + bad_calls and len(expected) > 10  # every call kept, the bad one's too
    renamed = json.loads((run / "manifest.json").read_text())["tool_names"]
    for mine, theirs in zip(derived, expected):
        a, b = mine["item"], theirs["item"]
        assert (a["messages"], a["tools"], a["expected_output"]) == (b["messages"], b["tools"], b["expected_output"])
        assert a["metadata"]["call_index"] == b["metadata"]["call_index"] and a["metadata"]["split"] == "test"
        assert a["flags"] == []
        if b["metadata"]["server"] not in renamed:  # a chat file only knows exported names; ids follow them
            assert a["metadata"]["id"] == b["metadata"]["id"] and a["metadata"]["tool"] == b["metadata"]["tool"]
    flagged = [d["item"] for d in derived if d["item"]["flags"]]
    assert [(f["gate"], f["argument"], f["value"]) for i in flagged for f in i["flags"]] == [
        ("grounding", name, "ORD-99999-INVENTED")
    ]
    assert flagged[0]["expected_output"]["tool_calls"] == [call]  # the user's call, not a rewritten one
    report = json.loads((tmp_path / "d" / "derive_report.json").read_text())
    assert report["conversations"] == len(test) + 1 and report["flagged_calls"] == 1
    assert report["flags_by_gate"] == {"grounding": 1} and report["unreadable"] == {"not_json": 1}
    rejected = lines(tmp_path / "d" / "rejected.jsonl")
    assert any(r["reason"] == "not_json" and "logs.jsonl:" in r["detail"] for r in rejected)
    scored = lines(tmp_path / "d" / "scored.jsonl")
    assert {r["score"] for r in scored} == {
        "correct",
        "incorrect_tool",
        "incorrect_parameter_names",
        "incorrect_parameter_values",
    }
    meta = flagged[0]["metadata"]  # negatives come only from calls that pass the gates
    assert not [
        r for r in scored if (r["conversation_id"], r["call_index"]) == (meta["conversation_id"], meta["call_index"])
    ]
    assert report["scored_from_calls"] == report["tool_calls"] - 1 and "pass the gates" in report["scored_note"]
    assert (tmp_path / "d" / "teval" / "plan_json.json").exists()
    strict = subprocess.run(
        [sys.executable, "-m", "synth.cli.app", "derive", str(source), "--out", str(tmp_path / "s"), "--strict"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert strict.returncode == 0, strict.stderr
    assert "dropped 1 flagged items" in strict.stdout
    assert len(lines(tmp_path / "s" / "eval.jsonl")) == len(derived) - 1


# A Foundry-style retail line written by hand: compact JSON, keys in the user's order, a \u escape,
# parallel calls, and one order id (#W9999999) that no earlier message holds.
TOOLS = (
    '[{"type":"function","function":{"name":"find_user_id_by_email","description":"Find a user",'
    '"parameters":{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}}},'
    '{"type":"function","function":{"name":"get_order_details","description":"Get an order",'
    '"parameters":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}}}]'
)
MESSAGES = [
    '{"content":"You are a retail agent.","role":"system"}',
    '{"role":"user","content":"Hi, I am x@shop.example (Ren\\u00e9e) and want to check order #W0032109"}',
    (
        '{"role":"assistant","content":null,"tool_calls":[{"type":"function","id":"c1","function":'
        '{"arguments":"{\\"email\\":\\"x@shop.example\\"}","name":"find_user_id_by_email"}}]}'
    ),
    '{"role":"tool","tool_call_id":"c1","content":"{\\"user_id\\": \\"u_42\\"}"}',
    (
        '{"role":"assistant","tool_calls":[{"id":"c2","type":"function","function":{"name":"get_order_details",'
        '"arguments":"{\\"order_id\\":\\"#W0032109\\"}"}},{"id":"c3","type":"function","function":'
        '{"name":"get_order_details","arguments":"{ \\"order_id\\" : \\"#W9999999\\" }"}}]}'
    ),
    '{"role":"tool","tool_call_id":"c2","content":"{\\"status\\": \\"pending\\"}"}',
    '{"role":"tool","tool_call_id":"c3","content":"{\\"status\\": \\"delivered\\"}"}',
    '{"role":"assistant","content":"One is pending, one delivered."}',
]
FOUNDRY_LINE = '{"messages":[' + ",".join(MESSAGES) + '],"tools":' + TOOLS + "}"


def foundry_expansion(line: str) -> list[dict]:
    """Foundry's documented per-call expansion, written independently of synth."""
    data = json.loads(line)
    return [
        {
            "messages": data["messages"][:i],
            "tools": data["tools"],
            "expected_output": {"role": "assistant", "tool_calls": [call]},
        }
        for i, m in enumerate(data["messages"])
        for call in m.get("tool_calls") or []
    ]


def test_derive_gives_foundrys_items_byte_for_byte_with_ungrounded_calls_flagged(tmp_path):
    from synth.derive import derive

    source = tmp_path / "retail.jsonl"
    source.write_text(FOUNDRY_LINE + "\n\n[1, 2]\n", encoding="utf-8")
    report = derive(source, tmp_path / "d")
    raw = (tmp_path / "d" / "eval.jsonl").read_text(encoding="utf-8").splitlines()
    items = [json.loads(x)["item"] for x in raw]
    assert [{k: i[k] for k in ("messages", "tools", "expected_output")} for i in items] == foundry_expansion(
        FOUNDRY_LINE
    )
    # re-serialise nothing: every earlier message, the tools and the call are the user's text
    for text, position in zip(raw, (2, 4, 4)):
        assert all(m in text for m in MESSAGES[:position]) and TOOLS in text
    assert '"arguments":"{ \\"order_id\\" : \\"#W9999999\\" }"' in raw[2] and "Ren\\u00e9e" in raw[0]
    assert [i["flags"] for i in items[:2]] == [[], []]
    assert [(f["gate"], f["argument"], f["value"]) for f in items[2]["flags"]] == [
        ("grounding", "order_id", "#W9999999")
    ]
    assert [i["metadata"]["call_index"] for i in items] == [0, 1, 2] and items[0]["metadata"]["line"] == 1
    assert report["formats"] == {"OpenAI chat JSONL with tools": 1} and report["unreadable"] == {"unknown_format": 1}
    assert report["eval_items"] == 3 and report["flagged_calls"] == 1 and report["scored_from_calls"] == 2
    strict = derive(source, tmp_path / "s", strict=True)
    kept = [json.loads(x)["item"] for x in (tmp_path / "s" / "eval.jsonl").read_text().splitlines()]
    assert strict["dropped_flagged"] == 1 and [i["expected_output"] for i in kept] == [
        e["expected_output"] for e in foundry_expansion(FOUNDRY_LINE)[:2]
    ]
