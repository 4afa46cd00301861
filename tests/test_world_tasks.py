"""MCPMark-style tasks of servers with a world: written by generate, checked by `synth tasks check`, solved by
`synth eval --tasks` with a model behind a loopback OpenAI server (one that replays the gold conversation,
and one that never calls a tool)."""

from __future__ import annotations

import json
import re
import runpy
import shutil
from pathlib import Path
from typing import Any

import pytest
from openai_server import OpenAIServer
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.pipeline import generate
from synth.rundir import read_jsonl
from synth.tasks.verify import task_folders
from synth.tasks.world import forms
from synth.tasks.world_verify import run_verify

runner = CliRunner()
FIXTURE = Path(__file__).parent / "fixtures" / "worlds"
ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    registry = tmp_path_factory.mktemp("wiki")
    shutil.copytree(FIXTURE, registry, dirs_exist_ok=True)
    out = tmp_path_factory.mktemp("run") / "wiki"
    generate(Settings(servers=registry, out=out, n=40, seed=3))
    return out


def metas(run: Path) -> list[tuple[Path, dict[str, Any]]]:
    return [(f, json.loads((f / "meta.json").read_text(encoding="utf-8"))) for f in task_folders(run)]


def test_every_world_conversation_is_a_task_or_a_counted_drop(run: Path) -> None:
    manifest = json.loads((run / "manifest.json").read_text())
    tasks = manifest["tasks"]
    found = metas(run)
    assert tasks["written"] == len(found) >= 20
    writes = {m["category_id"] for _, m in found if m["synth"]["changes_state"]}
    assert writes == {"create_doc", "rename_doc", "delete_doc"} and "lookup" in tasks["categories"]
    rejected = [json.loads(x) for x in (run / "rejected.jsonl").read_text().splitlines()]
    dropped = sum(1 for r in rejected if r["stage"] == "tasks")
    assert dropped == sum(tasks["dropped"].values())
    conversations = sum(1 for _ in read_jsonl(run / "conversations.jsonl"))
    assert tasks["written"] + dropped == conversations  # every tool of the wiki touches its world
    assert set(tasks["dropped"]) <= {"task_planned_failure", "task_no_facts", "task_no_calls"}
    declines = sum(
        1 for c in read_jsonl(run / "conversations.jsonl") if not any(m.get("tool_calls") for m in c["messages"])
    )
    assert tasks["dropped"].get("task_no_calls", 0) == declines  # a decline: doing nothing would pass it


def test_layout_meta_and_description(run: Path) -> None:
    for folder, meta in metas(run):
        assert folder.parts[-4] == "synth-tests__docs" and folder.parts[-3] in ("easy", "standard")
        assert {p.name for p in folder.iterdir()} == {"description.md", "meta.json", "verify.py", "world.json"}
        synth = meta["synth"]
        assert synth["gold_calls"] and synth["scenario"]["id"] and synth["seed"] == 3
        text = (folder / "description.md").read_text()
        assert "## 🎯 Task Objectives" in text
        for name in ("search_docs", "get_doc", "doc_id", "page_size", "rename_doc"):
            assert name not in text, (folder, name)
        world = json.loads((folder / "world.json").read_text())
        assert len(world["doc"]) == 12


def test_tasks_check_replays_and_verifies_every_task(run: Path) -> None:
    result = runner.invoke(app, ["tasks", "check", str(run), "-v"])
    assert result.exit_code == 0, result.output
    assert f"{len(metas(run))} tasks: {len(metas(run))} passed, 0 failed" in result.output


def test_a_write_task_checks_the_state_and_a_lookup_the_answer(run: Path) -> None:
    found = metas(run)
    rename = next((f, m) for f, m in found if m["category_id"] == "rename_doc")
    world = json.loads((rename[0] / "world.json").read_text())
    call = next(c for c in rename[1]["synth"]["gold_calls"] if c["name"] == "rename_doc")
    for doc in world["doc"]:
        if doc["id"] == call["arguments"]["doc_id"]:
            doc["title"] = call["arguments"]["title"]
    done = run_verify(rename[0], world, "")
    assert done.returncode == 0, done.stdout  # the rename alone, and nothing else changed
    world["doc"][-1]["title"] = "Something else"
    assert run_verify(rename[0], world, "").returncode == 1  # another doc changed too
    lookup = next((f, m) for f, m in found if m["category_id"] == "lookup")
    state = json.loads((lookup[0] / "world.json").read_text())
    assert run_verify(lookup[0], state, lookup[1]["synth"]["gold_answer"]).returncode == 0
    out = run_verify(lookup[0], state, "I looked it up for you, all good.")
    assert out.returncode == 1 and "❌ the answer says" in out.stdout


def _replayer(run: Path):
    """A model that says and calls what the gold conversation's assistant did, turn by turn. The conversation is
    the one whose person said what the request holds so far: two may open with the same request (a decline's),
    so the first message alone does not tell them apart."""
    convs = list(read_jsonl(run / "conversations.jsonl"))

    def said(messages: list[dict[str, Any]]) -> list[str]:
        return [m["content"] for m in messages if m["role"] == "user"]

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        asked = said(messages)
        conv = next(c for c in convs if said(c["messages"])[: len(asked)] == asked)
        turn = sum(m["role"] == "assistant" for m in messages)
        gold = [m for m in conv["messages"] if m["role"] == "assistant"][turn]
        if gold.get("tool_calls"):
            calls = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                }
                for c in gold["tool_calls"]
            ]
            return {"tool_calls": calls}
        return {"content": gold["content"]}

    return respond


def _eval(run: Path, server: OpenAIServer, out: Path) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(
        app,
        ["eval", str(run), "--tasks", "--model", "m", "--base-url", server.base_url, "--out", str(out)],
        env={"OPENAI_API_KEY": "sk-test"},
    )
    assert (out / "tasks_report.json").exists(), result.output
    return result.exit_code, json.loads((out / "tasks_report.json").read_text())


def test_an_agent_doing_the_gold_path_passes_and_one_doing_nothing_fails(run: Path, tmp_path: Path) -> None:
    total = len(metas(run))
    with OpenAIServer(_replayer(run)) as server:
        code, report = _eval(run, server, tmp_path / "gold")
    assert code == 0 and report["errors"] == 0 and report["passed"] == total, report
    with OpenAIServer(lambda request: {"content": "I'm sorry, I can't help with that."}) as server:
        code, report = _eval(run, server, tmp_path / "talk")
    assert code == 0 and report["errors"] == 0 and report["passed"] == 0, report


def test_the_shipped_registry_gives_tasks_on_ten_servers_and_doing_nothing_fails_them(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    out = tmp_path_factory.mktemp("shipped-tasks")
    generate(Settings(servers=ROOT / "registry", out=out, n=500, seed=0))
    servers = {m["synth"]["server"] for _, m in metas(out)}
    assert len(servers - {"synth/store"}) >= 10, sorted(servers)
    result = runner.invoke(app, ["tasks", "check", str(out)])
    assert result.exit_code == 0, result.output
    with OpenAIServer(lambda request: {"content": "I'm sorry, I can't help with that."}) as server:
        code, report = _eval(out, server, tmp_path / "talk")
    assert code == 0 and report["errors"] == 0 and report["passed"] <= 0.1 * report["tasks"], report


def test_a_lookup_checks_whole_values_a_good_answer_says_in_its_own_words(run: Path) -> None:
    """Each fact a read-only task checks is a whole value of at most 80 characters (a title, a name, a number, a
    date; never a doc's body sentence, which a right answer in its own words does not repeat), and a date is
    accepted as people write it; the gold answer passes and an answer that says nothing fails (issue 38)."""
    lookups = [(f, m) for f, m in metas(run) if not m["synth"]["changes_state"]]
    assert len(lookups) >= 5
    checked = 0
    for folder, meta in lookups:
        state = json.loads((folder / "world.json").read_text())
        facts = runpy.run_path(str(folder / "verify.py"), run_name="facts")["FACTS"]
        assert facts, folder
        for fact in facts:
            value = fact["forms"][0]
            assert len(value) <= 80 and len(value.split()) <= 10 and not value.endswith("."), (folder, value)
        gold = meta["synth"]["gold_answer"]
        assert run_verify(folder, state, gold).returncode == 0, (folder, gold)
        assert run_verify(folder, state, "").returncode == 1
        if re.search(r"\b2026-03-02\b", gold):  # the same answer with the date in words
            worded = gold.replace("2026-03-02", "March 2, 2026")
            assert run_verify(folder, state, worded).returncode == 0, worded
            checked += 1
    assert forms("2026-03-02") == ["2026-03-02", "March 2, 2026", "2 March 2026", "March 2", "2 March"]
    assert forms("151.234") == ["151.234", "151.2", "151"]
