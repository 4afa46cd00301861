"""``synth derive``: someone else's chat file through the same gates, eval export and injection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from synth.rundir import read_jsonl, stored
from synth.config import Settings
from synth.export.chat import ToolNames, chat_line
from synth.pipeline import generate
from synth.records import Conversation
from synth.registry import load_registry

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
                schema = next(t["function"]["parameters"] for t in line["tools"] if t["function"]["name"] == c["function"]["name"])
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
    done = subprocess.run([sys.executable, "-m", "synth.cli", "derive", str(source), "--out", str(tmp_path / "d"),
                           "--seed", "5"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    derived = lines(tmp_path / "d" / "eval.jsonl")
    expected = lines(run / "eval.jsonl")
    assert len(derived) == len(expected) > 10
    renamed = json.loads((run / "manifest.json").read_text())["tool_names"]
    for mine, theirs in zip(derived, expected):
        a, b = mine["item"], theirs["item"]
        assert (a["messages"], a["tools"], a["expected_output"]) == (b["messages"], b["tools"], b["expected_output"])
        assert a["metadata"]["call_index"] == b["metadata"]["call_index"] and a["metadata"]["split"] == "test"
        if b["metadata"]["server"] not in renamed:  # a chat file only knows exported names; ids follow them
            assert a["metadata"]["id"] == b["metadata"]["id"] and a["metadata"]["tool"] == b["metadata"]["tool"]
    report = json.loads((tmp_path / "d" / "derive_report.json").read_text())
    assert report["accepted"] == len(test) and report["conversations_with_ungrounded_values"] == 1
    assert report["rejected"] == {"grounded": 1, "unreadable_line": 1}
    rejected = lines(tmp_path / "d" / "rejected.jsonl")
    assert any("ORD-99999-INVENTED" in r["detail"] for r in rejected)
    assert any(r["reason"] == "unreadable_line" and "logs.jsonl:" in r["detail"] for r in rejected)
    scored = lines(tmp_path / "d" / "scored.jsonl")
    assert {r["score"] for r in scored} == {"correct", "incorrect_tool", "incorrect_parameter_names", "incorrect_parameter_values"}
    assert (tmp_path / "d" / "teval" / "plan_json.json").exists()
