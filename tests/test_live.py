"""Live MCP servers, against real servers the tests start: the project's task tracker over stdio and
Streamable HTTP, and servers that hang, exit at start, write junk to stdout, or are not there."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.errors import ConfigError, LiveError
from synth.live.client import Limits, connect, result_text
from synth.live.pool import Pool
from synth.pipeline import generate
from synth.records import Connection
from synth.rundir import read_jsonl, stored

SERVERS = Path(__file__).parent / "servers"
TASKS = SERVERS / "tasks_server.py"
runner = CliRunner()


def stdio(script: str, **kw) -> Connection:
    return Connection(type="stdio", command=sys.executable, args=(str(SERVERS / script),), **kw)


async def _session_calls(connection: Connection, calls: list[tuple[str, dict]], cwd: str) -> list[dict]:
    async with connect(connection, "tasks", Limits(10, 10), cwd=cwd) as session:
        return [await session.call(name, args) for name, args in calls]


def test_stdio_round_trip_enum_nested_object_and_a_rule(tmp_path):
    calls = [
        ("list_tasks", {"status": "all"}),
        (
            "create_task",
            {"title": "Call the plumber", "priority": "high", "due": {"date": "2026-06-02", "time": "08:30"}},
        ),
        ("complete_task", {"task_id": "T-103"}),  # already done: refused by rule
        ("create_task", {"title": "x", "priority": "urgent", "due": {"date": "2026-06-02"}}),
    ]  # not in the enum
    listed, created, refused, invalid = anyio.run(_session_calls, stdio("tasks_server.py"), calls, str(tmp_path))
    assert json.loads(result_text(listed))["total"] == 4
    assert created["structuredContent"]["id"] == "T-105" and created["structuredContent"]["due"]["time"] == "08:30"
    assert refused["isError"] is True and "already done" in result_text(refused)
    assert invalid["isError"] is True and "priority" in result_text(invalid)
    assert (tmp_path / "tasks.json").exists()  # the state lives in the folder it was given


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(tmp_path):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(TASKS), "--http", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(timeout=10)


def test_http_import_with_a_token_from_the_environment(http_server, tmp_path, monkeypatch):
    monkeypatch.setenv("TASKS_TOKEN", "s3cret-value")
    out = tmp_path / "reg"
    result = runner.invoke(
        app,
        [
            "registry",
            "import",
            "--url",
            http_server,
            "--header",
            "Authorization:Bearer ${TASKS_TOKEN}",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    text = (out / "tasks.json").read_text()
    entry = json.loads(text)
    assert entry["connections"] == [
        {"type": "http", "deploymentUrl": http_server, "headers": {"Authorization": "Bearer ${TASKS_TOKEN}"}}
    ]
    assert "s3cret-value" not in text
    assert [t["name"] for t in entry["tools"]] == ["list_tasks", "get_task", "create_task", "complete_task"]
    # the entry generates over HTTP with one session for the run (the server is not marked stateful)
    # the imported server has no pack: the fallback writes it on purpose (issue 39)
    manifest = generate(
        Settings(servers=out, out=tmp_path / "run", n=4, seed=2, execute="live", allow_exec=True, allow_fallback=True)
    )
    assert manifest["counts"]["conversations"] == 4 and set(manifest["execute"]["results"]["tasks"]) == {"live"}
    # a literal credential is refused, not written
    result = runner.invoke(
        app,
        ["registry", "import", "--url", http_server, "--header", "Authorization:Bearer abc", "--out", str(out / "x")],
    )
    assert result.exit_code == 2 and "environment variable" in result.output and not (out / "x").exists()


@pytest.mark.parametrize(
    "connection, reason, words",
    [
        (stdio("hang.py"), "live_timeout", "no answer to connect within 1.5 s"),
        (stdio("exits.py"), "live_closed", "its last words: 'fatal: DEMO_TOKEN is not set'"),
        (stdio("junk.py"), "live_junk", "not JSON-RPC to stdout ('Starting demo server"),
        (Connection(type="stdio", command="synth-no-such-command"), "live_start", "command not found"),
        (Connection(type="http", url="http://127.0.0.1:9/mcp"), "live_refused", "connection refused"),
    ],
    ids=["hang", "exits", "junk", "missing", "refused"],
)
def test_connect_failures(connection, reason, words, capfd):
    async def attempt() -> None:
        async with connect(connection, "demo", Limits(connect=1.5, call=1.5)):
            pass

    started = time.monotonic()
    with pytest.raises(LiveError) as caught:
        anyio.run(attempt)
    assert time.monotonic() - started < 1.5 + 5  # the timeout, plus the SDK's grace for ending a process
    assert caught.value.reason == reason
    assert words in str(caught.value) and str(caught.value).startswith("demo: ")
    assert "Traceback" not in capfd.readouterr().err


def test_the_stdio_child_gets_no_keys_of_ours(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("DEMO_SETTING", "from-entry")
    connection = stdio("env_server.py", env={"DEMO": "${DEMO_SETTING}"})
    (listed,) = anyio.run(_session_calls, connection, [("environment", {})], str(tmp_path))
    names = json.loads(result_text(listed))
    assert "OPENAI_API_KEY" not in names["names"] and names["DEMO"] == "from-entry"
    assert set(names["names"]) <= {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "DEMO", "LC_CTYPE", "PWD"}


# --- import, then generate against the real server ------------------------------------------------


def _raw_tools_list(cwd: Path) -> list[dict]:
    """tools/list read by hand over the server's stdio: what it serves, with no SDK in between."""
    proc = subprocess.Popen(
        [sys.executable, str(TASKS)],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        send = lambda msg: (proc.stdin.write(json.dumps(msg) + "\n"), proc.stdin.flush())  # noqa: E731
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"},
                },
            }
        )
        json.loads(proc.stdout.readline())
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        return json.loads(proc.stdout.readline())["result"]["tools"]
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> Path:
    reg = tmp_path_factory.mktemp("reg")
    result = runner.invoke(
        app, ["registry", "import", "--stdio", f"{sys.executable} {TASKS}", "--stateful", "--out", str(reg)]
    )
    assert result.exit_code == 0, result.output
    return reg


def test_import_keeps_the_schemas_byte_for_byte(imported, tmp_path):
    entry = json.loads((imported / "tasks.json").read_text())
    served = _raw_tools_list(tmp_path)
    for mine, theirs in zip(entry["tools"], served, strict=True):
        assert json.dumps(mine["inputSchema"]) == json.dumps(theirs["inputSchema"])
        assert json.dumps(mine.get("outputSchema")) == json.dumps(theirs.get("outputSchema"))
    assert entry["connections"] == [
        {"type": "stdio", "command": sys.executable, "args": [str(TASKS)], "stateful": True}
    ]
    assert entry["description"].startswith("A personal task tracker")
    assert not Path("tasks.json").exists()  # a stateful server is imported in a scratch folder


@pytest.fixture(scope="module")
def live_run(imported, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("live") / "run"
    # the imported server has no pack: the fallback writes it on purpose (issue 39)
    generate(Settings(servers=imported, out=out, n=8, seed=3, execute="live", allow_exec=True, allow_fallback=True))
    return out


def test_live_conversations_replay_exactly_on_a_fresh_server(live_run, tmp_path):
    convs = list(read_jsonl(live_run / "conversations.jsonl"))
    assert len(convs) == 8
    errors = 0
    for i, conv in enumerate(convs):
        calls = [(c["name"], c["arguments"]) for m in conv["messages"] for c in m.get("tool_calls", [])]
        tools = [m for m in conv["messages"] if m["role"] == "tool"]
        assert tools and all(m["source"] == "live" for m in tools)
        folder = tmp_path / str(i)
        folder.mkdir()
        replayed = anyio.run(_session_calls, stdio("tasks_server.py"), calls, str(folder))
        assert [result_text(r) for r in replayed] == [m["content"] for m in tools]
        errors += sum(bool(r.get("isError")) for r in replayed)
    manifest = json.loads((live_run / "manifest.json").read_text())
    assert manifest["execute"]["mode"] == "live"
    assert manifest["execute"]["results"]["tasks"] == {
        "live": sum(1 for c in convs for m in c["messages"] if m["role"] == "tool")
    }


def test_live_runs_are_deterministic(imported, live_run, tmp_path):
    again = tmp_path / "again"
    generate(Settings(servers=imported, out=again, n=8, seed=3, execute="live", allow_exec=True, allow_fallback=True))
    assert stored(again / "conversations.jsonl").read_bytes() == stored(live_run / "conversations.jsonl").read_bytes()


def test_without_allow_exec_nothing_is_started(tmp_path):
    marker = tmp_path / "started"
    reg = tmp_path / "reg"
    reg.mkdir()
    entry = {
        "qualifiedName": "touchy",
        "tools": [
            {
                "name": "ping",
                "description": "Ping the host.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"host": {"type": "string", "description": "Host name"}},
                    "required": ["host"],
                },
            }
        ],
        "connections": [{"type": "stdio", "command": "sh", "args": ["-c", f"touch {marker}"]}],
    }
    (reg / "touchy.json").write_text(json.dumps(entry))
    result = runner.invoke(
        app,  # --allow-fallback: the entry has no pack, and the refusal to start it is what is tested
        [
            "generate",
            "--servers",
            str(reg),
            "-n",
            "2",
            "--out",
            str(tmp_path / "run"),
            "--execute",
            "live",
            "--allow-fallback",
        ],
    )
    assert result.exit_code == 2
    assert "--allow-exec" in result.output and "nothing was started" in result.output
    assert not marker.exists() and not stored(tmp_path / "run" / "conversations.jsonl").exists()
    with pytest.raises(ConfigError):
        generate(Settings(servers=reg, out=tmp_path / "run2", n=2, execute="live", allow_fallback=True))
    assert not marker.exists()


def test_a_dead_server_is_refused_once_and_the_rest_of_the_run_goes_on(tiny_registry, tmp_path):
    reg = tmp_path / "reg"
    reg.mkdir()
    for path in tiny_registry.glob("*.json"):
        (reg / path.name).write_text(path.read_text())
    (reg / "packs").mkdir()
    for path in (tiny_registry / "packs").glob("*"):
        (reg / "packs" / path.name).write_text(path.read_text())
    hang = {
        "qualifiedName": "hangs",
        "tools": [
            {
                "name": "lookup_word",
                "description": "Look up a word.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"word": {"type": "string", "description": "The word"}},
                    "required": ["word"],
                },
            }
        ],
        "connections": [{"type": "stdio", "command": sys.executable, "args": [str(SERVERS / "hang.py")]}],
    }
    (reg / "hangs.json").write_text(json.dumps(hang))
    started = time.monotonic()
    manifest = generate(  # the hanging server has no pack: allow_fallback plans its scenarios (issue 39)
        Settings(
            servers=reg,
            out=tmp_path / "run",
            n=12,
            seed=1,
            execute="live",
            allow_exec=True,
            connect_timeout=1.0,
            allow_fallback=True,
        )
    )
    assert time.monotonic() - started < 30  # one timeout for the server, not one per scenario
    dropped = manifest["funnel"]["dropped"]["execute"]
    assert dropped["live_timeout"] >= 1
    assert "hangs: no answer to connect within 1 s" in manifest["execute"]["unreachable"]["hangs"]
    rejected = [json.loads(x) for x in (tmp_path / "run" / "rejected.jsonl").read_text().splitlines()]
    assert any(r["reason"] == "live_timeout" and "hangs" in r["detail"] for r in rejected)
    results = manifest["execute"]["results"]
    assert manifest["counts"]["conversations"] == 12 and "hangs" not in results
    assert all("live" not in by for by in results.values())  # entries without a connection stay simulated


def test_the_pool_reuses_one_session_for_a_server_that_is_not_stateful(tmp_path):
    connection = stdio("tasks_server.py", cwd=str(tmp_path))
    with Pool(Limits(10, 10)) as pool:
        first = pool.open("tasks", connection)
        first.call("create_task", {"title": "a", "priority": "low", "due": {"date": "2026-01-01"}}).result()
        second = pool.open("tasks", connection)
        assert second is first
        listed = second.call("list_tasks", {}).result()
    assert json.loads(result_text(listed))["total"] == 4  # the write above is visible: same server


def test_the_llm_path_calls_the_real_server_too(imported, tmp_path):
    """--backend openai with --execute live: the agents plan and talk, the executor's calls reach the server."""
    from fake_agents import respond
    from openai_server import OpenAIServer

    with OpenAIServer(respond) as server:
        manifest = generate(
            Settings(
                servers=imported,
                out=tmp_path / "llm",
                n=4,
                seed=1,
                backend="openai",
                base_url=server.base_url,
                model="synth-test",
                api_key_env="SYNTH_LIVE_KEY",
                concurrency=4,
                execute="live",
                allow_exec=True,
            ),
            backends=_backends(server, tmp_path / "llm"),
        )
    convs = list(read_jsonl(tmp_path / "llm" / "conversations.jsonl"))
    assert convs and manifest["execute"]["results"]["tasks"].keys() == {"live"}
    for conv in convs:  # every tool message is the server's own answer to that call
        tools = [m for m in conv["messages"] if m["role"] == "tool"]
        assert tools and all(m["source"] == "live" for m in tools)
        calls = [(c["name"], c["arguments"]) for m in conv["messages"] for c in m.get("tool_calls", [])]
        folder = tmp_path / conv["id"]
        folder.mkdir()
        replayed = anyio.run(_session_calls, stdio("tasks_server.py"), calls, str(folder))
        assert [result_text(r) for r in replayed] == [m["content"] for m in tools]


def test_a_run_whose_calls_all_fail_accepts_none_and_the_reviewer_sees_the_errors(tmp_path):
    """A real server whose upstream is down: every call comes back isError. The reviewer is told which
    results were errors; a conversation whose calls all failed is not accepted as a success."""
    from fake_agents import respond
    from openai_server import OpenAIServer

    registry = tmp_path / "reg"
    result = runner.invoke(
        app,
        ["registry", "import", "--stdio", f"{sys.executable} {SERVERS / 'outage_server.py'}", "--out", str(registry)],
    )
    assert result.exit_code == 0, result.output
    out = tmp_path / "llm"
    with OpenAIServer(respond) as server:
        settings = Settings(
            servers=registry,
            out=out,
            n=3,
            seed=2,
            backend="openai",
            base_url=server.base_url,
            model="synth-test",
            api_key_env="SYNTH_LIVE_KEY",
            concurrency=3,
            execute="live",
            allow_exec=True,
        )
        manifest = generate(settings, backends=_backends(server, out))
        reviews = [r.json for r in server.requests if "synth's reviewer" in r.json["messages"][0]["content"]]
    assert manifest["funnel"]["accepted"] == 0
    assert manifest["funnel"]["dropped"]["review"]["all_calls_failed"] >= 1
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert any(r["reason"] == "all_calls_failed" and r["detail"].startswith("get_") for r in rejected)
    assert not reviews  # nothing to review: no model is asked to bless a conversation where nothing worked


def _backends(server, out: Path) -> dict:
    import os

    from synth.llm.factory import open_backends

    os.environ["SYNTH_LIVE_KEY"] = "sk-live-test"
    return open_backends(
        Settings(
            servers=out,
            out=out,
            backend="openai",
            base_url=server.base_url,  # cache in out
            model="synth-test",
            api_key_env="SYNTH_LIVE_KEY",
            concurrency=4,
        )
    )


def test_many_scenarios_at_once_never_wait_on_each_other(tmp_path):
    """Fresh servers are capped; a scenario holds one and never waits for a second (its spare)."""
    import threading

    connection = stdio("tasks_server.py", stateful=True)
    done: list[int] = []

    def scenario(pool: Pool) -> None:
        server = pool.open("tasks", connection)
        server.call("list_tasks", {}).result()
        pool.release(server)
        done.append(1)

    with Pool(Limits(20, 20), fresh_at_once=2) as pool:
        threads = [threading.Thread(target=scenario, args=(pool,), daemon=True) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not any(t.is_alive() for t in threads), "scenarios deadlocked on fresh-server slots"
    assert len(done) == 5
