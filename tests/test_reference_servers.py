"""The five reference MCP servers (examples/servers, installed by examples/servers/install.sh; skipped when
absent), each run live from its world as a user runs it: a few conversations, read back and replayed."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.facts.evidence import Evidence
from synth.live.pool import Pool
from synth.live.sandbox import clocked, leaks
from synth.records import Message
from synth.registry import load_registry
from synth.rundir import read_jsonl
from synth.runtime.live import LiveRuntime
from synth.stages.gates import leaves

EXAMPLES = Path(__file__).parents[1] / "examples" / "servers"
COMMANDS = {"git": "mcp-server-git", "filesystem": "mcp-server-filesystem", "memory": "mcp-server-memory"}
runner = CliRunner()


def run(name: str, tmp_path: Path, n: int = 3) -> tuple[Path, list[dict], tuple[float, float]]:
    if shutil.which(COMMANDS[name]) is None:
        pytest.skip(f"{COMMANDS[name]} is not installed (bash examples/servers/install.sh, then put it on PATH)")
    folder = tmp_path / "servers"
    (folder / "packs").mkdir(parents=True)
    shutil.copy(EXAMPLES / f"{name}.json", folder)
    shutil.copy(EXAMPLES / "packs" / f"{name}.pack.yaml", folder / "packs")
    out = tmp_path / "run"
    args = ["generate", "--servers", str(folder), "--out", str(out), "-n", str(n), "--execute", "live", "--allow-exec"]
    since = time.time()
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return folder, list(read_jsonl(out / "conversations.jsonl")), (since, time.time())


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_stateful_reference_server_starts_from_its_world(name, tmp_path):
    folder, convs, window = run(name, tmp_path, n=6)
    assert convs
    tools = [m for c in convs for m in c["messages"] if m["role"] == "tool"]
    assert all(m["source"] == "live" and isinstance(m["is_error"], bool) for m in tools)
    assert sum(m["is_error"] for m in tools) <= len(tools) // 3, [m["content"][:80] for m in tools if m["is_error"]]
    texts = [json.dumps(c, ensure_ascii=False) for c in convs]
    assert leaks(texts) is None and tempfile.gettempdir() + "/synth-" not in "".join(texts)
    assert "/workspace" in "".join(texts) or name == "memory"
    server = load_registry(folder).servers[0]
    since = time.time()  # the pool prepares a spare sandbox before it is asked: the replay's window opens here
    with Pool() as pool:  # every conversation replays on a fresh server in a fresh sandbox
        for conv in convs:  # byte for byte, once the times the clock stamped during each run are marked
            runtime = LiveRuntime(pool, server)
            try:
                for message in conv["messages"]:
                    for call in message.get("tool_calls") or []:
                        got = runtime.call(server.tool(call["name"]), call["arguments"])
                        want = next(m for m in conv["messages"] if m.get("tool_call_id") == call["id"])
                        assert clocked(got.content, since, time.time()) == clocked(want["content"], *window), call
            finally:
                runtime.close()


def test_values_come_from_earlier_real_results(tmp_path):
    """git: log, then show the commit it listed; the revision is read from the real log, never invented."""
    _, convs, _ = run("git", tmp_path, n=8)
    fed = 0
    for conv in convs:
        messages = [Message.model_validate(m) for m in conv["messages"]]
        for index, message in enumerate(messages):
            for call in message.tool_calls:
                evidence = Evidence(messages[:index])
                fed += sum(any(r.holds(v) for r in evidence.results) for _, v in leaves(call.arguments))
    assert fed > 0
