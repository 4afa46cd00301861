"""Discover, then act, on live servers without a pack (issue 39, item 3): two stateful stdio servers synth has
never seen, imported with ``registry import --stateful`` and run live with --allow-fallback (no pack): a SQL
ledger (tests/servers/ledger_server.py: list, describe-free, SELECT, INSERT/UPDATE/DELETE and CREATE TABLE tools)
and a chore list (tests/servers/chores_server.py: ids a create says only in text). Each conversation looks at
what the server holds before it acts, takes ids, tables and columns from real results or the person's words,
sends each tool the SQL its purpose takes, and reads back what it created."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.facts import sql
from synth.facts.evidence import Evidence
from synth.records import Message
from synth.rundir import read_jsonl

SERVERS = Path(__file__).parent / "servers"
runner = CliRunner()
KIND = {"read_query": ("select",), "write_query": ("insert", "update", "delete"), "create_table": ("create",)}


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))
    return folder


def live_run(tmp_path: Path, server: str, n: int = 12) -> list[list[Message]]:
    """``server`` imported and run live without a pack: the accepted conversations' messages."""
    reg = tmp_path / "servers"
    command = f"{sys.executable} {SERVERS / server}"
    result = runner.invoke(app, ["registry", "import", "--stdio", command, "--stateful", "--out", str(reg)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "run"
    args = ["generate", "--servers", str(reg), "--out", str(out), "-n", str(n), "--seed", "3", "--execute", "live"]
    result = runner.invoke(app, [*args, "--allow-exec", "--allow-fallback"])  # no pack: the fallback on purpose
    assert result.exit_code == 0, result.output
    return [[Message.model_validate(m) for m in c["messages"]] for c in read_jsonl(out / "conversations.jsonl")]


def calls(messages: list[Message]) -> list[tuple[int, str, dict, Message]]:
    """(position, tool, arguments, result message) of every call."""
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    return [(i, c.name, c.arguments, results[c.id]) for i, m in enumerate(messages) for c in m.tool_calls]


def test_sql_is_built_from_the_real_schema_by_each_tools_purpose_and_read_back(tmp_path, home):
    convs = live_run(tmp_path, "ledger_server.py")
    discovered = [m for m in convs if calls(m) and calls(m)[0][1] == "list_tables"]
    assert len(discovered) >= 6
    created = 0
    for messages in discovered:
        made = calls(messages)
        assert not any(r.is_error for *_, r in made), [r.content for *_, r in made]
        for i, tool, args, _ in made:
            statement = args.get("query", "")
            if tool in KIND:  # each tool gets the statement its purpose takes (never a SELECT to write_query)
                assert statement.split()[0].lower() in KIND[tool], (tool, statement)
                names, literals = sql.parts(statement) or ([], [])
                before = Evidence(messages[:i])  # every table, column and value: a result's or the person's
                assert all(before.source(x) for x in [*names, *literals]), statement
        for i, tool, args, _ in made:
            if tool == "create_table":  # a create is followed by a read that shows it (its table or its columns)
                names = (sql.parts(args["query"]) or ([], []))[0]
                shown = next((r.content or "" for j, _, _, r in made if j > i), "")
                assert any(name in shown for name in names), (args, shown)
                created += 1
    assert created >= 4
    assert list(home.rglob("*")) == []  # the server kept its database in each scenario's sandbox


def test_ids_come_from_what_the_server_listed_or_returned_never_made_up(tmp_path, home):
    convs = live_run(tmp_path, "chores_server.py")
    by_id = 0
    for messages in convs:
        made = calls(messages)
        assert not any("not found" in (r.content or "").lower() for *_, r in made)
        for i, tool, args, _ in made:
            if "id" in args:  # an id a list or a create returned before this call
                held = Evidence(messages[:i]).results
                assert any(r.holds(args["id"]) for r in held), (tool, args)
                by_id += 1
        updates = [i for i, tool, *_ in made if tool == "chore_update"]
        for i in updates:  # a change is read back
            assert any(j > i and tool in ("chore_get", "chore_list") for j, tool, *_ in made)
    assert by_id >= 8
    assert list(home.rglob("*")) == []
