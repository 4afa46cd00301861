"""MCPMark-style tasks from a live store run: layout, meta, verify.py on replayed, seed and tampered stores.

One small run (the real store over stdio, one fresh server per scenario) is made per module and
shared; every test reads it or works on copies. Nothing here touches the internet.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.pipeline import generate
from synth.records import Connection, Conversation
from synth.registry import load_registry
from synth.rundir import TASKS, read_jsonl
from synth.tasks.replay import READS, WRITES, SeedStores, replay, store_seed
from synth.tasks.text import leaked_names
from synth.tasks.verify import task_folders
from synth.tasks.write import TaskWriter

ROOT = Path(__file__).resolve().parents[1]
MCPMARK_KEYS = [
    "task_id",
    "task_name",
    "category_id",
    "category_name",
    "description",
    "author",
    "created_at",
    "difficulty",
    "tags",
    "mcp",
    "meta_data",
]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped store entry and pack, started as `python -m synth.cli.app serve store` (no `synth` on PATH)."""
    folder = tmp_path_factory.mktemp("registry")
    entry = json.loads((ROOT / "registry" / "synth__store.json").read_text(encoding="utf-8"))
    entry["connections"] = [
        {
            "type": "stdio",
            "command": sys.executable,
            "args": ["-m", "synth.cli.app", "serve", "store"],
            "stateful": True,
        }
    ]
    (folder / "synth__store.json").write_text(json.dumps(entry), encoding="utf-8")
    (folder / "packs").mkdir()
    shutil.copy(ROOT / "registry" / "packs" / "synth__store.pack.yaml", folder / "packs")
    return folder


@pytest.fixture(scope="module")
def run(servers: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run")
    generate(Settings(servers=servers, out=out, n=8, seed=0, execute="live", allow_exec=True))
    return out


def metas(run: Path) -> list[tuple[Path, dict[str, Any]]]:
    return [(f, json.loads((f / "meta.json").read_text(encoding="utf-8"))) for f in task_folders(run)]


def conversations(run: Path) -> list[Conversation]:
    return [Conversation.model_validate(c) for c in read_jsonl(run / "conversations.jsonl")]


def verify(folder: Path, db: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *flags, str(folder / "verify.py"), str(db)], capture_output=True, text=True, timeout=60
    )


def replayed(folder: Path, meta: dict[str, Any], tmp_path: Path, stores: SeedStores) -> Path:
    db = tmp_path / f"{folder.name}.db"
    shutil.copy(stores.path(meta["synth"]["seed"]), db)
    replay(db, meta["synth"]["gold_calls"])
    return db


@pytest.fixture(scope="module")
def stores() -> Any:
    made = SeedStores()
    yield made
    made.close()


def test_every_store_conversation_is_a_task_or_a_counted_drop(run: Path) -> None:
    manifest = json.loads((run / "manifest.json").read_text())
    tasks = manifest["tasks"]
    dropped = [
        json.loads(line)
        for line in (run / "rejected.jsonl").read_text().splitlines()
        if json.loads(line)["stage"] == "tasks"
    ]
    assert tasks["written"] == len(list(task_folders(run))) > 0
    assert tasks["written"] + len(dropped) == manifest["counts"]["conversations"]
    assert sum(tasks["dropped"].values()) == len(dropped)
    assert sum(tasks["categories"].values()) == sum(tasks["difficulty"].values()) == tasks["written"]


def test_layout_and_meta_follow_mcpmark(run: Path) -> None:
    seen = set()
    for folder, meta in metas(run):
        server, suite, category, task_id = folder.relative_to(run / TASKS).parts
        assert server == "synth__store" and suite in ("easy", "standard")
        assert {p.name for p in folder.iterdir()} == {"description.md", "meta.json", "verify.py"}
        assert list(meta) == [*MCPMARK_KEYS, "synth"]
        assert (meta["task_id"], meta["category_id"]) == (task_id, category)
        assert meta["difficulty"] == {"easy": "L1", "standard": "L3"}[suite]
        assert meta["created_at"] == "2026-01-01" and meta["mcp"] == ["store"]
        assert set(meta["meta_data"]) == {"stateType", "stateContent", "stateUrl", "stateOriginalUrl"}
        synth = meta["synth"]
        assert synth["server"] == "synth/store" and synth["seed"] == 0
        assert all(set(c) == {"name", "arguments"} and c["name"] in READS | set(WRITES) for c in synth["gold_calls"])
        assert len(synth["expected_state_hash"]) == 64
        writes = [
            c for i, c in enumerate(synth["gold_calls"]) if c["name"] in WRITES and i not in synth["failed_calls"]
        ]
        refused = any(c["name"] in WRITES for c in synth["gold_calls"]) or "refusal" in meta["tags"]
        assert category == (WRITES[writes[0]["name"]] if writes else "refused" if refused else "lookup")
        seen.add(synth["changes_state"])
    assert True in seen  # the run has tasks that write


def test_descriptions_name_no_tool_or_parameter(run: Path) -> None:
    registry = load_registry(Path(json.loads((run / "manifest.json").read_text())["config"]["servers"]))
    store = registry.servers[0]
    for folder, meta in metas(run):
        text = (folder / "description.md").read_text(encoding="utf-8")
        assert text.startswith(f"# {meta['task_name']}\n") and "## 🎯 Task Objectives" in text
        assert leaked_names(text, store) == [], folder.name
        assert not any(t.name in text for t in store.tools)


def test_synth_tasks_check_passes(run: Path) -> None:
    result = CliRunner().invoke(app, ["tasks", "check", str(run)])
    assert result.exit_code == 0, result.output
    n = len(list(task_folders(run)))
    assert f"{n} tasks: {n} passed, 0 failed" in result.output


def test_verify_passes_after_the_gold_calls_and_fails_on_the_seed(
    run: Path, tmp_path: Path, stores: SeedStores
) -> None:
    folder, meta = next((f, m) for f, m in metas(run) if m["synth"]["changes_state"])
    after = verify(folder, replayed(folder, meta, tmp_path, stores))
    assert after.returncode == 0 and "❌" not in after.stdout and after.stdout.count("✅") == meta["synth"]["checks"]
    seed = tmp_path / "seed.db"
    shutil.copy(stores.path(0), seed)
    before = verify(folder, seed)
    assert before.returncode == 1 and "❌ nothing else changed" in before.stdout


def test_a_tampered_store_fails_with_a_cross(run: Path, tmp_path: Path, stores: SeedStores) -> None:
    """The task's own fields are right, but one more order is cancelled: only the state hash can tell."""
    folder, meta = next((f, m) for f, m in metas(run) if m["synth"]["changes_state"])
    db = replayed(folder, meta, tmp_path, stores)
    touched = {c["arguments"].get("order_id") for c in meta["synth"]["gold_calls"]}
    conn = sqlite3.connect(db)
    with conn:
        order = next(
            r[0]
            for r in conn.execute("SELECT order_id FROM orders WHERE status = 'pending' ORDER BY order_id")
            if r[0] not in touched
        )
        conn.execute(
            "UPDATE orders SET status = 'cancelled', cancel_reason = 'no longer needed' WHERE order_id = ?", (order,)
        )
    conn.close()
    done = verify(folder, db)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert any(line.startswith("❌ nothing else changed") for line in lines)
    assert sum(line.startswith("✅") for line in lines) == meta["synth"]["checks"] - 1


@pytest.mark.parametrize(
    "tamper",
    [
        # a table LIKE 'sqlite_%' matched ("_" is any character in LIKE): its rows were never hashed
        "CREATE TABLE sqlite2notes (note TEXT); INSERT INTO sqlite2notes VALUES ('refund me later')",
        "CREATE TABLE audit_copy (order_id TEXT)",  # an extra table, even an empty one
        "CREATE VIEW pending AS SELECT order_id FROM orders WHERE status = 'pending'; "
        "CREATE TRIGGER keep_pending INSTEAD OF DELETE ON pending BEGIN SELECT 1; END",
    ],
)
def test_verify_fails_on_a_store_with_something_added(run: Path, tmp_path: Path, stores: SeedStores, tamper) -> None:
    """Every row the task wants is right, but the database holds more than the store: the hash covers the
    schema (tables, views, triggers, indexes) and every table's rows."""
    folder, meta = next((f, m) for f, m in metas(run) if m["synth"]["changes_state"])
    db = replayed(folder, meta, tmp_path, stores)
    assert verify(folder, db).returncode == 0
    conn = sqlite3.connect(db)
    conn.executescript(tamper)
    conn.close()
    done = verify(folder, db)
    assert done.returncode == 1 and "❌ nothing else changed" in done.stdout


def test_verify_uses_only_the_standard_library(run: Path, tmp_path: Path, stores: SeedStores) -> None:
    for folder, _ in metas(run):
        tree = ast.parse((folder / "verify.py").read_text(encoding="utf-8"))
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    folder, meta = metas(run)[0]
    isolated = verify(folder, replayed(folder, meta, tmp_path, stores), "-I", "-S")  # no site-packages at all
    assert isolated.returncode == 0, isolated.stdout + isolated.stderr


def test_verify_reads_store_db_path_and_opens_read_only(run: Path, tmp_path: Path, stores: SeedStores) -> None:
    folder, meta = metas(run)[0]
    db = replayed(folder, meta, tmp_path, stores)
    db.chmod(0o444)
    done = subprocess.run(
        [sys.executable, str(folder / "verify.py")],
        env={"STORE_DB_PATH": str(db)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    missing = subprocess.run(
        [sys.executable, str(folder / "verify.py")], env={}, capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 1 and missing.stdout.startswith("❌ no database")


def test_a_conversation_that_does_not_replay_is_dropped_not_written(run: Path, tmp_path: Path) -> None:
    registry = load_registry(Path(json.loads((run / "manifest.json").read_text())["config"]["servers"]))
    conv = conversations(run)[0]
    messages = [m.model_copy(update={"content": m.content + " "}) if m.role == "tool" else m for m in conv.messages]
    wrong = conv.model_copy(update={"messages": tuple(messages)})
    rejected: list[dict[str, Any]] = []
    writer = TaskWriter(tmp_path, rejected.append)
    writer.add(wrong, registry.servers[0])
    counts = writer.close()
    assert counts["written"] == 0 and counts["dropped"] == {"task_replay_differs": 1}
    assert rejected[0]["stage"] == "tasks" and rejected[0]["item_id"] == conv.id
    assert "call 0" in rejected[0]["detail"] and not list((tmp_path / TASKS).rglob("verify.py"))


def test_a_wrong_verify_makes_the_check_fail(run: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    folder = next(f for f, m in metas(copy) if m["synth"]["changes_state"])
    text = (folder / "verify.py").read_text(encoding="utf-8")
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "verify.py").write_text(
        text.replace(meta["synth"]["expected_state_hash"], meta["synth"]["seed_state_hash"]), encoding="utf-8"
    )
    result = CliRunner().invoke(app, ["tasks", "check", str(copy)])
    assert result.exit_code == 1
    assert f"FAIL {folder.relative_to(copy / TASKS).as_posix()}: verify.py fails after the gold calls" in result.output
    assert "1 failed" in result.output


def test_the_card_and_the_hub_export_carry_the_tasks(run: Path, tmp_path: Path) -> None:
    from synth.export.card.build import render
    from synth.export.repo import copy_tasks, hub_files

    card = render(run)
    assert "## Tasks with verify.py" in card and "synth tasks check RUN" in card
    copy_tasks(run, tmp_path)
    (tmp_path / "README.md").write_text(card)
    files = hub_files(tmp_path)
    assert sum(f.startswith("tasks/") for f in files) == 3 * len(list(task_folders(run)))


def test_only_stores_started_from_their_seed_make_tasks() -> None:
    store = lambda *args, **kw: Connection(  # noqa: E731
        type="stdio",
        command="synth",
        args=("serve", "store", *args),  # noqa: E731
        stateful=kw.get("stateful", True),
    )
    assert store_seed(store()) == 0
    assert store_seed(store("--seed", "7")) == 7 and store_seed(store("--seed=3")) == 3
    assert (
        store_seed(
            Connection(
                type="stdio", command=sys.executable, args=("-m", "synth.cli.app", "serve", "store"), stateful=True
            )
        )
        == 0
    )
    assert store_seed(store(stateful=False)) is None
    assert store_seed(store("--db", "/srv/shop.db")) is None  # an existing database is not a fresh seed
    assert store_seed(Connection(type="stdio", command="npx", args=("some-server",), stateful=True)) is None
    assert store_seed(None) is None


def _conversation(
    base: Conversation, user: str, calls: list[dict[str, Any]], db: Path, answer: str = "Done."
) -> Conversation:
    """``base`` with new messages: the user's request, then each call with what the real store returns
    (``answer``: the final words; ``{result}`` is the last result's text)."""
    from synth.live.client import result_text
    from synth.records import Message, ToolCall

    results = replay(db, calls)
    messages = [base.messages[0], Message(role="user", content=user)]
    for i, (call, result) in enumerate(zip(calls, results)):
        messages.append(Message(role="assistant", tool_calls=(ToolCall(id=f"call_{i}", **call),)))
        messages.append(Message(role="tool", tool_call_id=f"call_{i}", content=result_text(result), source="live"))
    messages.append(Message(role="assistant", content=answer.replace("{result}", result_text(results[-1]))))
    return base.model_copy(update={"messages": tuple(messages), "id": "conv_handmade0001"})


def test_a_refused_write_is_a_task_that_changes_nothing(run: Path, tmp_path: Path, stores: SeedStores) -> None:
    registry = load_registry(Path(json.loads((run / "manifest.json").read_text())["config"]["servers"]))
    conn = sqlite3.connect(stores.path(0))
    order = conn.execute("SELECT order_id FROM orders WHERE status = 'delivered' ORDER BY order_id").fetchone()[0]
    conn.close()
    calls = [{"name": "cancel_pending_order", "arguments": {"order_id": order, "reason": "no longer needed"}}]
    db = tmp_path / "made.db"
    shutil.copy(stores.path(0), db)
    said = f"Please cancel order {order}, I no longer need it."
    conv = _conversation(conversations(run)[0], said, calls, db, "I could not cancel it. The store says: {result}")
    rejected: list[dict[str, Any]] = []
    writer = TaskWriter(tmp_path / "out", rejected.append)
    writer.add(conv, registry.servers[0])
    assert writer.close()["categories"] == {"refused": 1} and not rejected
    (folder,) = task_folders(tmp_path / "out")
    meta = json.loads((folder / "meta.json").read_text())
    assert folder.parts[-4:-1] == ("synth__store", "easy", "refused") and meta["difficulty"] == "L1"
    assert meta["synth"]["failed_calls"] == [0] and meta["synth"]["changes_state"] is False
    assert meta["synth"]["expected_state_hash"] == meta["synth"]["seed_state_hash"]
    assert "refusal" in meta["tags"] and f"Cancel order {order}" in (folder / "description.md").read_text()
    seed = tmp_path / "seed.db"
    shutil.copy(stores.path(0), seed)
    assert verify(folder, seed).returncode == 1  # saying nothing fails: a do-nothing agent must not pass a refusal
    answer = tmp_path / "answer.txt"
    answer.write_text(meta["synth"]["gold_answer"], encoding="utf-8")
    env = {**os.environ, "ANSWER_PATH": str(answer)}
    done = subprocess.run(
        [sys.executable, str(folder / "verify.py"), str(seed)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout  # the untouched store and the reason said: the refusal is right


def test_the_same_conversation_gives_the_same_task_bytes(run: Path, tmp_path: Path) -> None:
    registry = load_registry(Path(json.loads((run / "manifest.json").read_text())["config"]["servers"]))
    writer = TaskWriter(tmp_path, lambda line: None)
    for conv in conversations(run):
        writer.add(conv, registry.servers[0])
    counts = writer.close()
    assert counts["sha256"] == json.loads((run / "manifest.json").read_text())["tasks"]["sha256"]


def test_a_gold_path_acting_for_two_customers_is_dropped(run: Path, tmp_path: Path, stores: SeedStores) -> None:
    """The policy serves one customer per conversation: such a gold path must not become a task that rewards it."""
    registry = load_registry(Path(json.loads((run / "manifest.json").read_text())["config"]["servers"]))
    conn = sqlite3.connect(stores.path(0))
    orders = conn.execute("SELECT order_id, user_id FROM orders WHERE status = 'pending' ORDER BY order_id").fetchall()
    conn.close()
    first = orders[0]
    second = next(o for o in orders if o[1] != first[1])
    calls = [
        {"name": "cancel_pending_order", "arguments": {"order_id": o[0], "reason": "no longer needed"}}
        for o in (first, second)
    ]
    db = tmp_path / "made.db"
    shutil.copy(stores.path(0), db)
    conv = _conversation(conversations(run)[0], f"Cancel {first[0]} and {second[0]}, please.", calls, db)
    rejected: list[dict[str, Any]] = []
    writer = TaskWriter(tmp_path / "out", rejected.append)
    writer.add(conv, registry.servers[0])
    assert writer.close()["dropped"] == {"task_other_customer": 1}
    assert "2 customers" in rejected[0]["detail"] and not list(task_folders(tmp_path / "out"))


def test_tasks_check_on_a_run_without_tasks_says_where_they_come_from(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["tasks", "check", str(tmp_path)])
    assert result.exit_code == 2 and "synth serve store" in result.output
