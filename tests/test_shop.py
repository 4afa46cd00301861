"""Customer-service conversations on synth's store, executed for real (issue: the store's tasks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from synth.config import Settings
from synth.live.client import Limits, connect, result_text
from synth.pipeline import generate
from synth.records import Connection
from synth.rundir import read_jsonl, stored
from synth.tasks.replay import WRITES  # the store's writes (tests/test_store.py checks the tool list)


@pytest.fixture(scope="module")
def store_run(store_registry, tmp_path_factory) -> Path:
    reg = store_registry
    out = tmp_path_factory.mktemp("run") / "store"
    generate(Settings(servers=reg, out=out, n=60, seed=5, execute="live", allow_exec=True))
    return out


def _conversations(run: Path) -> list[dict]:
    return list(read_jsonl(run / "conversations.jsonl"))


def _outcomes(conv: dict) -> tuple[bool, bool]:
    """(a write went through, the request was refused by the store or by policy)."""
    results = {m["tool_call_id"]: m for m in conv["messages"] if m["role"] == "tool"}
    writes = [c for m in conv["messages"] for c in m.get("tool_calls", []) if c["name"] in WRITES]
    ok = any(not results[c["id"]]["content"].startswith("Error") for c in writes)
    refused = (
        any(results[c["id"]]["content"].startswith("Error") for c in writes)
        or "can't be" in conv["messages"][-1]["content"]
    )
    return ok, refused


def test_store_conversations_follow_the_policy(store_run):
    convs = _conversations(store_run)
    assert len(convs) == 60
    outcomes = [_outcomes(c) for c in convs]
    assert sum(ok for ok, _ in outcomes) >= len(convs) / 3  # at least a third make a successful write
    assert any(refused for _, refused in outcomes)
    for conv in convs:
        calls = [c for m in conv["messages"] for c in m.get("tool_calls", [])]
        # identity first, one customer: every later user id is the one the lookup returned
        assert calls[0]["name"] in ("find_user_id_by_email", "find_user_id_by_name_zip")
        found = json.loads(next(m for m in conv["messages"] if m["role"] == "tool")["content"])["user_id"]
        assert all(c["arguments"].get("user_id", found) == found for c in calls)
        # a write comes right after the customer's "yes" to a summary of the change
        for i, m in enumerate(conv["messages"]):
            if any(c["name"] in WRITES for c in m.get("tool_calls", [])):
                assert conv["messages"][i - 1]["role"] == "user" and conv["messages"][i - 1]["content"].startswith(
                    ("Yes", "That's right")
                )
                assert conv["messages"][i - 2]["content"].endswith("Shall I go ahead?")
        assert all(m.get("source") == "live" for m in conv["messages"] if m["role"] == "tool")
        assert conv["review"]["verdict"] == "accept"


async def _replay(calls: list[tuple[str, dict]], folder: Path) -> list[str]:
    """The calls on a real ``synth serve store`` process over stdio, in a fresh folder (a fresh seed-0 store)."""
    connection = Connection(type="stdio", command=sys.executable, args=("-m", "synth.cli.app", "serve", "store"))
    async with connect(connection, "store", Limits(30, 30), cwd=str(folder)) as session:
        return [result_text(await session.call(name, args)) for name, args in calls]


def test_store_conversations_replay_exactly_on_a_fresh_server_process(store_run, tmp_path):
    convs = _conversations(store_run)
    chosen = [c for c in convs if _outcomes(c)[0]][:2] + [c for c in convs if _outcomes(c)[1]][:1]
    for i, conv in enumerate(chosen):
        calls = [(c["name"], c["arguments"]) for m in conv["messages"] for c in m.get("tool_calls", [])]
        folder = tmp_path / str(i)
        folder.mkdir()
        replayed = anyio.run(_replay, calls, folder)
        assert replayed == [m["content"] for m in conv["messages"] if m["role"] == "tool"]


def test_store_runs_are_deterministic(store_run, tmp_path):
    reg = Path(json.loads((store_run / "manifest.json").read_text())["config"]["servers"])
    again = tmp_path / "again"
    generate(Settings(servers=reg, out=again, n=60, seed=5, execute="live", allow_exec=True))
    assert stored(again / "conversations.jsonl").read_bytes() == stored(store_run / "conversations.jsonl").read_bytes()
