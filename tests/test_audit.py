"""``synth audit``: what is wrong with a tool-use file, from the CLI, as a person or CI uses it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from synth.config import Settings
from synth.export.card.build import render
from synth.ingest.audit import audit
from synth.pipeline import generate

ROOT = Path(__file__).parents[1]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": n,
            "description": d,
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
        },
    }
    for n, d in (("get_order_details", "Get an order"), ("cancel_pending_order", "Cancel an order"))
]
ASK = "Please check the status of my order number #W0032109 for me today"


def call(i: int, name: str, args: str) -> dict:
    return {
        "role": "assistant",
        "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": args}}],
    }


def conversation(request: str, *rest: dict) -> dict:
    return {
        "messages": [
            {"role": "system", "content": "You are a retail agent."},
            {"role": "user", "content": request},
            *rest,
        ],
        "tools": TOOLS,
    }


def retail_file(path: Path) -> Path:
    good = (
        call(1, "get_order_details", '{"order_id":"#W0032109"}'),
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "pending"}'},
        {"role": "assistant", "content": "It is pending."},
    )
    bad = (
        call(1, "track_parcel", '{"order_id":"#W0032109"}'),
        {"role": "tool", "tool_call_id": "c1", "content": '{"error": "unknown tool"}'},
        call(2, "get_order_details", '{"order_id": 32109}'),
        {"role": "tool", "tool_call_id": "c2", "content": '{"error": "order_id must be a string"}'},
        call(3, "cancel_pending_order", '{"order_id":"#W7777777"}'),
        {"role": "tool", "tool_call_id": "c3", "content": '{"error": "not found"}'},
        {"role": "assistant", "content": "Sorry, I could not find it."},
    )
    rows = [
        conversation(ASK, *good),
        conversation(ASK, *good),
        conversation(ASK + " please", *good),
        conversation("Cancel my order, it is #W0032109.", *bad),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + "{oops\n", encoding="utf-8")
    return path


def test_audit_counts_what_is_wrong_and_points_at_the_worst_lines(tmp_path):
    report = audit(retail_file(tmp_path / "retail.jsonl"))
    assert report["formats"] == {"OpenAI chat JSONL with tools": 4}
    assert (report["lines"], report["conversations"], report["tool_calls"]) == (5, 4, 6)
    assert report["unreadable"] == {"not_json": 1}
    assert report["messages_per_conversation"] == {"mean": 6.0, "min": 5, "max": 9}
    assert report["tool_calls_per_conversation"] == {"mean": 1.5, "min": 1, "max": 3}
    assert report["tools"]["offered"] == 2 and report["tools"]["unused"] == []
    assert report["counts"] == {
        "unknown_tool": 1,
        "schema": 1,
        "grounding": 2,
        "ungrounded_values": 2,
        "duplicates": 1,
        "near_duplicates": 1,
        "answer_after_error": 1,
    }
    assert report["rates"]["grounding"] == round(2 / 6, 4) and report["rates"]["duplicates"] == 0.25
    assert report["examples"]["unknown_tool"] == [{"line": 4, "call_index": 0, "tool": "track_parcel"}]
    [schema] = report["examples"]["schema"]
    assert (schema["line"], schema["pointer"]) == (4, "/order_id") and "string" in schema["why"]
    assert report["examples"]["grounding"][-1]["values"] == {"order_id": "#W7777777"}
    assert report["examples"]["duplicates"][0]["same_as_line"] == 1
    assert report["examples"]["near_duplicates"][0]["line"] == 3
    assert [w["line"] for w in report["worst"]] == [4, 2, 3] and not report["clean"]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "synth.cli.app", "audit", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_audit_cli_table_json_and_thresholds(tmp_path):
    source = str(retail_file(tmp_path / "retail.jsonl"))
    table = run_cli(source)
    assert table.returncode == 0, table.stderr
    assert "worst lines" in table.stdout and "ungrounded" in table.stdout and "not clean" in table.stdout
    machine = run_cli(source, "--json")
    assert json.loads(machine.stdout)["counts"]["grounding"] == 2
    failing = run_cli(source, "--json", "--fail-on", "grounding>0.1")
    assert failing.returncode == 1 and "grounding is 0.3333" in failing.stderr
    assert run_cli(source, "--fail-on", "grounding>0.5,schema>=0.5").returncode == 0
    wrong = run_cli(source, "--fail-on", "groundedness>0.1")
    assert wrong.returncode == 2 and "grounding" in wrong.stderr


def test_audit_of_synths_own_train_file_is_clean_and_the_card_says_so(tmp_path):
    run = tmp_path / "run"
    generate(Settings(servers=ROOT / "registry", out=run, n=40, seed=11))
    strict = "unreadable>0,unknown_tool>0,schema>0,grounding>0,duplicates>0"
    done = run_cli(str(run / "train.jsonl"), "--json", "--fail-on", strict)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["clean"] and report["conversations"] > 20 and report["tool_calls"] > report["conversations"]
    card = render(run)
    assert "## Audit" in card and "clean." in card
    assert (
        f"{report['lines']} lines, {report['conversations']} conversations, {report['tool_calls']} tool calls" in card
    )
