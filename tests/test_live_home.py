"""Your own servers, honestly and safely (issue 39): a stateful server synth has never seen, that keeps its
database under HOME and says its errors in plain text (tests/servers/ledger_server.py), imported with
``registry import --stateful`` and run live. Its errors are errors everywhere, and it lives in each scenario's
sandbox: nothing reaches the user's home, and no scenario sees another's writes."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.live.pool import Pool
from synth.registry import load_registry
from synth.rundir import read_jsonl
from synth.runtime.live import LiveRuntime

LEDGER = Path(__file__).parent / "servers" / "ledger_server.py"
runner = CliRunner()


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """The user's home folder for the test: whatever lands here reached the user's files."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))  # the card's plots: synth's, not the server's
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    return folder


def imported(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "servers"
    command = " ".join([sys.executable, str(LEDGER), *args])
    result = runner.invoke(app, ["registry", "import", "--stdio", command, "--stateful", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_import_takes_the_sandbox_mark_and_writes_nothing_in_home(tmp_path, home):
    out = imported(tmp_path, "--data", "${SANDBOX}/books")
    entry = json.loads((out / "ledger.json").read_text())
    args = [str(LEDGER), "--data", "${SANDBOX}/books"]
    assert entry["connections"] == [{"type": "stdio", "command": sys.executable, "args": args, "stateful": True}]
    imported(tmp_path / "plain")  # its database under HOME: the import's own sandbox is its home
    assert list(home.rglob("*")) == []


def test_a_stateful_server_keeps_its_home_in_the_scenario_sandbox(tmp_path, home):
    server = load_registry(imported(tmp_path)).servers[0]

    def scenario(todo: list[tuple[str, dict]]) -> list[str]:
        runtime = LiveRuntime(pool, server)
        try:
            return [runtime.call(server.tool(name), args).content for name, args in todo]  # type: ignore[arg-type]
        finally:
            runtime.close()

    with Pool() as pool:
        wrote = scenario(
            [
                ("create_table", {"query": "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)"}),
                ("write_query", {"query": "INSERT INTO invoices VALUES (7, 120.5)"}),
                ("list_tables", {}),
            ]
        )
        later = scenario([("list_tables", {}), ("get_invoice", {"invoice_id": 7})])
    assert wrote == ["Table created", "1 rows affected", "invoices"]
    assert later == ["The ledger has no tables yet.", "Error: no such table: invoices"]  # a fresh server, empty
    assert list(home.rglob("*")) == []  # nothing it wrote reached the user's home


def test_errors_said_in_text_are_errors_everywhere(tmp_path, home):
    out = tmp_path / "run"
    # the month is closed: its writes fail, said in text (each conversation looks, then its create is refused)
    servers = imported(tmp_path, "--month-closed")
    args = ["generate", "--servers", str(servers), "--out", str(out), "-n", "12", "--seed", "4"]
    # the ledger has no pack: --allow-fallback lets the fallback write it (issue 39)
    result = runner.invoke(app, [*args, "--execute", "live", "--allow-exec", "--allow-fallback"])
    convs = list(read_jsonl(out / "conversations.jsonl"))
    tools = [m for c in convs for m in c["messages"] if m["role"] == "tool"]
    errors = [m for m in tools if m["is_error"]]
    said = ("Error", "no such table", "Database error")
    assert errors and all(m["content"].startswith(said) or "not found" in m["content"] for m in errors)
    assert not [m for m in tools if not m["is_error"] and m["content"].startswith(said)]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["execute"]["errors"]["ledger"]["live"] == len(errors)
    assert f"live results that are errors: {len(errors)} of {len(tools)}" in result.output
    review = json.loads(gzip.open(out / "teval" / "review_str.json.gz").read()) if errors else {}
    for conv in convs:
        results = {m["tool_call_id"]: m for m in conv["messages"] if m["role"] == "tool"}
        calls = [call for m in conv["messages"] for call in m.get("tool_calls") or []]
        for index, (call, label) in enumerate(zip(calls, conv["review"]["step_labels"], strict=True)):
            if results[call["id"]]["is_error"]:
                assert label != "success"
                assert f"{conv['id']}:{index}:success" not in review
        for before, after in zip(conv["messages"], conv["messages"][1:]):
            if before["role"] == "tool" and before["is_error"] and after["role"] == "assistant":
                assert not (after.get("content") or "").startswith(("All set", "Done", "Here's what"))
    if 2 * len(errors) > len(tools):  # a run of mostly errors is not usable: exit 1 with the reason
        assert result.exit_code == 1, result.output
        assert f"{len(errors)} of {len(tools)} live tool results are errors" in result.output
    assert list(home.rglob("*")) == []
