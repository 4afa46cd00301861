"""Gold calls replayed on a fresh copy of the store's seed database, and the state they leave, diffed.

A store task is scored by the store's final state, so the exporter (``synth.tasks.write``), ``synth tasks
check`` and ``synth eval --tasks`` all replay on a copy of the same seed database, made once per seed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from synth.records import Connection
from synth.store import state as state_module

# What each write of the store does, as the task's category: the first successful write names it.
WRITES = {
    "cancel_pending_order": "cancel_order",
    "modify_pending_order_address": "change_address",
    "modify_pending_order_items": "modify_items",
    "modify_pending_order_payment": "change_payment",
    "return_delivered_order_items": "return_items",
    "exchange_delivered_order_items": "exchange_items",
    "modify_user_address": "change_user_address",
}
READS = frozenset(
    {
        "find_user_id_by_email",
        "find_user_id_by_name_zip",
        "get_user_details",
        "get_order_details",
        "get_product_details",
        "list_all_product_types",
    }
)


def store_seed(connection: Connection | None) -> int | None:
    """The seed of the store a stateful connection starts (``synth serve store [--seed N]``), else None.

    Only a store that each scenario starts from its seed can be replayed: a task needs a stateful one.
    """
    if connection is None or not connection.stateful:
        return None
    from synth.live.stores import store_seed as live_store_seed  # the command line alone: no MCP SDK

    return live_store_seed(connection)


STORE = Connection(
    type="stdio", command="synth", args=("serve", "store"), stateful=True
)  # the store, as one session sees it


def replay(db: Path, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run ``calls`` in order on the store at ``db`` through its real MCP server (in process); the wire results.

    In process rather than a child process: the server, its tools and the SDK's result encoding are the
    ones ``synth serve store`` runs, and the exporter asserts the texts are the conversation's anyway.
    """
    from synth.live.client import connect  # loads the MCP SDK: only when a run has store tasks
    from synth.store.server import build_server
    from synth.store.shop import Store

    async def run() -> list[dict[str, Any]]:
        store = Store.open(db)
        try:
            async with connect(STORE, "synth/store", local=build_server(store)) as session:
                return [await session.call(c["name"], c["arguments"]) for c in calls]
        finally:
            store.close()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside an event loop: run beside it
        return pool.submit(asyncio.run, run()).result()


class SeedStores:
    """Seed databases made once per seed in a temporary folder; a task copies one (a copy is far cheaper
    than seeding) and diffs against its state, indexed once."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="synth-tasks-"))
        self._states: dict[int, dict[str, dict[tuple[Any, ...], dict[str, Any]]]] = {}
        self._hashes: dict[int, str] = {}

    def path(self, seed: int) -> Path:
        path = self.folder / f"seed-{seed}.db"
        if not path.exists():
            from synth.store.seed import seed_database

            seed_database(path, seed)
        return path

    def fresh(self, seed: int, name: str) -> Path:
        """A new copy of the seed database, to replay on or to verify as untouched."""
        target = self.folder / f"{name}.db"
        target.unlink(missing_ok=True)
        shutil.copyfile(self.path(seed), target)
        return target

    def state(self, seed: int) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
        if seed not in self._states:
            self._states[seed] = indexed_state(self.path(seed))
        return self._states[seed]

    def hash(self, seed: int) -> str:
        if seed not in self._hashes:
            self._hashes[seed] = state_module.file_state_hash(str(self.path(seed)))
        return self._hashes[seed]

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def indexed_state(db: Path) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Every table's rows by primary key (the canonical state, so values are what the hash sees)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        keys = primary_keys(conn)
        return {
            table: {tuple(row[k] for k in keys[table]): row for row in rows}
            for table, rows in state_module.canonical_state(conn).items()
            if table in keys  # the tables' rows; the schema (sqlite_master) is checked by the hash alone
        }
    finally:
        conn.close()


def primary_keys(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each table's primary-key columns, in key order (every store table has one)."""
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND substr(name, 1, 7) != 'sqlite_' ORDER BY name"
        )
    ]
    keys = {}
    for table in tables:
        info = sorted((r[5], r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")') if r[5])
        keys[table] = [name for _, name in info]
    return keys


def state_checks(
    before: dict[str, dict[tuple[Any, ...], dict[str, Any]]],
    after: dict[str, dict[tuple[Any, ...], dict[str, Any]]],
    keys: dict[str, list[str]],
) -> list[dict[str, Any]]:
    """What the task changes, as checks: a changed field's new value, a new row, a row that is gone."""
    checks: list[dict[str, Any]] = []
    for table in sorted(after):
        old, new = before.get(table, {}), after[table]
        for pk in sorted(set(old) | set(new), key=lambda k: json.dumps(k)):
            key = dict(zip(keys[table], pk))
            if pk not in new:
                checks.append({"table": table, "key": key, "absent": True})
            elif pk not in old:
                checks.append({"table": table, "key": key, "row": new[pk]})
            else:
                for column in new[pk]:
                    if new[pk][column] != old[pk][column]:
                        checks.append({"table": table, "key": key, "column": column, "expected": new[pk][column]})
    return checks


IDENTIFY = ("find_user_id_by_email", "find_user_id_by_name_zip")


def one_customer_problem(calls: list[dict[str, Any]], results: list[dict[str, Any]]) -> str | None:
    """Why the gold path breaks the policy's "one customer per conversation", or None.

    A task is graded by its final state, so a gold path that changes another customer's order than the
    one it identified (or several customers' orders) would teach, and reward, breaking the policy.
    """

    def owner(result: dict[str, Any]) -> str | None:
        content = result.get("structuredContent")
        return content.get("user_id") if isinstance(content, dict) else None

    identified = {owner(r) for c, r in zip(calls, results) if c["name"] in IDENTIFY and not r.get("isError")}
    acted = {owner(r) for c, r in zip(calls, results) if c["name"] in WRITES and not r.get("isError")}
    identified.discard(None)
    acted.discard(None)
    if len(acted) > 1:
        return f"the gold path changes the orders or accounts of {len(acted)} customers ({', '.join(sorted(acted))})"  # type: ignore[arg-type]
    if identified and acted - identified:
        return (
            f"the gold path identifies {', '.join(sorted(identified))} but changes the order or account of "  # type: ignore[arg-type]
            f"{', '.join(sorted(acted - identified))}"  # type: ignore[arg-type]
        )
    return None


def unidentified_writes(calls: list[dict[str, Any]], results: list[dict[str, Any]]) -> bool:
    """Whether a write comes before any successful lookup of the customer (the policy wants one first)."""
    for call, result in zip(calls, results):
        if call["name"] in IDENTIFY and not result.get("isError"):
            return False
        if call["name"] in WRITES:
            return True
    return False
