"""``synth eval RUN --tasks``: a model as the store's agent, scored by each task's verify.py.

The model is a loopback OpenAI server started by the test. A model that replays the gold
conversation passes every task; a model that only talks fails every task that writes.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from openai_server import OpenAIServer
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.pipeline import generate
from synth.rundir import read_jsonl

runner = CliRunner()


@pytest.fixture(scope="module")
def run(store_registry, tmp_path_factory) -> Path:
    reg = store_registry
    out = tmp_path_factory.mktemp("run") / "store"
    generate(Settings(servers=reg, out=out, n=12, seed=8, execute="live", allow_exec=True))
    return out


def _replayer(run: Path):
    """A model that says and calls what the gold conversation's assistant did, turn by turn."""
    convs = list(read_jsonl(run / "conversations.jsonl"))

    def opening(messages: list[dict[str, Any]]) -> tuple[str, ...]:  # the request and who is asking
        return tuple(m["content"] for m in messages if m["role"] == "user")[:2]

    by_opening = {opening(c["messages"]): c for c in convs}
    assert len(by_opening) == len(convs)

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        if len(opening(messages)) < 2:  # the first turn: the gold assistant asks who the customer is
            conv = next(c for key, c in by_opening.items() if key[0] == opening(messages)[0])
        else:
            conv = by_opening[opening(messages)]
        turn = sum(m["role"] == "assistant" for m in messages)
        gold = [m for m in conv["messages"] if m["role"] == "assistant"][turn]
        if gold.get("tool_calls"):
            return {
                "tool_calls": [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                    }
                    for c in gold["tool_calls"]
                ]
            }
        return {"content": gold["content"]}

    return respond


def _eval(run: Path, server: OpenAIServer, out: Path) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(
        app,
        ["eval", str(run), "--tasks", "--model", "m", "--base-url", server.base_url, "--out", str(out)],
        env={"OPENAI_API_KEY": "sk-test"},
    )
    return result.exit_code, json.loads((out / "tasks_report.json").read_text())


def test_a_model_that_does_what_the_gold_path_did_passes_every_task(run, tmp_path):
    tasks = sorted((run / "tasks").glob("*/*/*/*/meta.json"))
    assert len(tasks) == 12
    with OpenAIServer(_replayer(run)) as server:
        code, report = _eval(run, server, tmp_path / "gold")
    assert code == 0, report
    assert report["tasks"] == 12 and report["errors"] == 0 and report["passed"] == 12 and report["pass_rate"] == 1.0
    episodes = [json.loads(x) for x in (tmp_path / "gold" / "episodes.jsonl").read_text().splitlines()]
    assert all(e["tool_calls"] == e["gold_calls"] for e in episodes)


def test_a_model_that_only_talks_fails_every_task(run, tmp_path):
    metas = [json.loads(p.read_text())["synth"] for p in (run / "tasks").glob("*/*/*/*/meta.json")]
    assert sum(m["changes_state"] for m in metas) >= 3 and sum(not m["changes_state"] for m in metas) >= 1
    with OpenAIServer(lambda request: {"content": "I'm sorry, I can't help with that."}) as server:
        code, report = _eval(run, server, tmp_path / "talk")
    assert code == 0 and report["errors"] == 0
    # a lookup or a refusal changes nothing, so its verify.py also wants the facts the store gave in the answer
    assert report["passed"] == 0
    episodes = [json.loads(x) for x in (tmp_path / "talk" / "episodes.jsonl").read_text().splitlines()]
    failed = [e for e in episodes if not e["passed"]]
    assert failed and all("❌" in e["verify"] for e in failed)


def test_a_dead_endpoint_fails_fast_with_the_reason_and_the_per_call_evals_exit_code(run, tmp_path):
    """Issue 31: it said "0 of 0 ... 12 could not be run" and exited 1, the reason only in episodes.jsonl."""
    with socket.socket() as s:  # a loopback port nobody listens on: every connection is refused
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    argv = ["--model", "m", "--base-url", dead, "--api-key-env", "SYNTH_TEST_KEY"]
    env = {"SYNTH_TEST_KEY": "sk-test", "COLUMNS": "200"}
    tasks = runner.invoke(app, ["eval", str(run), "--tasks", *argv, "--out", str(tmp_path / "t")], env=env)
    calls = runner.invoke(app, ["eval", str(run), *argv, "--out", str(tmp_path / "c")], env=env)
    assert tasks.exit_code == calls.exit_code == 4, tasks.output + calls.output
    assert "connection refused" in tasks.output and dead.removesuffix("/v1") in tasks.output
    assert not (tmp_path / "t" / "tasks_report.json").exists()  # no report that reads as a result
