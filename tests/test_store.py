"""The store server: its rules, exact money, determinism, and the real server over stdio and HTTP.

Rule tests talk to the real ``MCPServer`` through the SDK's in-process client (``mode="legacy"``,
so calls go through JSON-RPC framing); two tests start ``synth serve store`` as a subprocess.
Test data is picked from the seeded database by SQL, so it follows the seed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import TextContent

from synth.live.store_entry import ENTRY_FILE, entry_text, registry_entry
from synth.registry import load_registry
from synth.store.seed import seed_database
from synth.store.server import INSTRUCTIONS, build_server
from synth.store.shop import Store
from synth.store.state import file_state_hash, state_hash

ROOT = Path(__file__).parents[1]
TOOLS = {
    "find_user_id_by_email",
    "find_user_id_by_name_zip",
    "get_user_details",
    "get_order_details",
    "get_product_details",
    "list_all_product_types",
    "cancel_pending_order",
    "modify_pending_order_address",
    "modify_pending_order_items",
    "modify_pending_order_payment",
    "return_delivered_order_items",
    "exchange_delivered_order_items",
    "modify_user_address",
}
NEW_ADDRESS = {
    "address1": "742 Evergreen Terrace",
    "address2": "Apt 2",
    "city": "Springfield",
    "state": "OR",
    "country": "USA",
    "zip": "97477",
}


@pytest.fixture(scope="session")
def seed0(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("seed") / "seed0.db"
    seed_database(path, 0)
    return path


@pytest.fixture()
def db(seed0: Path, tmp_path: Path) -> Path:
    """A fresh copy of the seed-0 store for one test."""
    path = tmp_path / "store.db"
    shutil.copy(seed0, path)
    return path


def text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def run_calls(db: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[bool, str, Any]]:
    """Each call's (is_error, text, structuredContent) on a server over ``db``."""

    async def go() -> list[tuple[bool, str, Any]]:
        store = Store.open(db)
        try:
            async with Client(build_server(store), mode="legacy", read_timeout_seconds=30) as client:
                out = []
                for name, args in calls:
                    r = await client.call_tool(name, args)
                    out.append((r.is_error, text(r), r.structured_content))
                return out
        finally:
            store.close()

    return anyio.run(go)


def one(db: Path, name: str, **args: Any) -> tuple[bool, str, Any]:
    return run_calls(db, [(name, args)])[0]


def query(db: Path, sql: str, *params: Any) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def balance(db: Path, method_id: str) -> int:
    return query(db, "SELECT balance_cents FROM payment_methods WHERE payment_method_id = ?", method_id)[0][0]


def cents(money: str) -> int:
    whole, _, frac = money.partition(".")
    sign = -1 if whole.startswith("-") else 1
    return sign * (abs(int(whole)) * 100 + int(frac))


def order_with(db: Path, status: str, source: str | None = None, *, gift_card_owner: bool = False) -> sqlite3.Row:
    """An order in ``status`` paid once with a method of ``source`` (whose user has a gift card, if asked)."""
    sql = (
        "SELECT o.order_id, o.user_id, p.payment_method_id, p.amount_cents FROM orders o "
        "JOIN payments p ON p.order_id = o.order_id AND p.seq = 0 JOIN payment_methods m "
        "ON m.payment_method_id = p.payment_method_id WHERE o.status = ? "
        "AND (SELECT COUNT(*) FROM payments q WHERE q.order_id = o.order_id) = 1"
    )
    params: list[Any] = [status]
    if source:
        sql += " AND m.source = ?"
        params.append(source)
    if gift_card_owner:
        sql += (
            " AND EXISTS (SELECT 1 FROM payment_methods g WHERE g.user_id = o.user_id AND g.source = 'gift_card' "
            "AND g.payment_method_id != p.payment_method_id)"
        )
    return query(db, sql + " ORDER BY o.order_id LIMIT 1", *params)[0]


def swap_for(db: Path, order_id: str, *, cheaper: bool | None = None) -> tuple[str, str, int]:
    """(item id in the order, an available other variant of its product, new price - old price)."""
    rows = query(
        db,
        "SELECT i.item_id, v.item_id AS new_id, v.price_cents - i.price_cents AS diff "
        "FROM order_items i JOIN variants v ON v.product_id = i.product_id AND v.item_id != i.item_id "
        "AND v.available = 1 WHERE i.order_id = ? ORDER BY i.line, v.item_id",
        order_id,
    )
    if cheaper is not None:
        rows = [r for r in rows if (r["diff"] < 0) == cheaper and r["diff"] != 0]
    return rows[0]["item_id"], rows[0]["new_id"], rows[0]["diff"]


# --- the server's surface ---------------------------------------------------------------


def test_tools_list_is_typed_and_described(db: Path) -> None:
    entry = anyio.run(registry_entry)
    tools = {t["name"]: t for t in entry["tools"]}
    assert set(tools) == TOOLS
    for t in tools.values():
        assert len(t["description"]) > 60 and t["outputSchema"]["type"] == "object"
        for name, prop in t["inputSchema"]["properties"].items():
            assert prop.get("description") or "$ref" in prop, (t["name"], name)
    assert tools["cancel_pending_order"]["inputSchema"]["properties"]["reason"]["enum"] == [
        "no longer needed",
        "ordered by mistake",
    ]
    address = tools["modify_pending_order_address"]["inputSchema"]["$defs"]["Address"]
    assert address["type"] == "object" and address["properties"]["zip"]["pattern"] == r"^\d{5}$"
    assert tools["get_order_details"]["annotations"]["readOnlyHint"] is True
    assert "Authenticate" in INSTRUCTIONS and "explicit" in INSTRUCTIONS


def test_shipped_registry_entry_is_what_the_server_serves() -> None:
    shipped = (ROOT / "registry" / ENTRY_FILE).read_text(encoding="utf-8")
    assert shipped == entry_text(anyio.run(registry_entry)), (
        "registry/synth__store.json drifted: run synth serve store --entry registry/synth__store.json"
    )
    spec = load_registry(ROOT / "registry").server("synth/store")
    assert len(spec.tools) == len(TOOLS) and spec.connection is not None
    assert spec.connection.stateful and spec.connection.command == "synth"
    assert list(spec.connection.args) == ["serve", "store"]


def test_the_entry_flag_rewrites_the_shipped_entry(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from synth.cli.app import app

    done = CliRunner().invoke(app, ["serve", "store", "--entry", str(tmp_path / "entry.json")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "entry.json").read_bytes() == (ROOT / "registry" / ENTRY_FILE).read_bytes()


@pytest.mark.parametrize("kind", ["text", "other database"])
def test_serve_store_on_a_file_that_is_no_store_says_so(tmp_path: Path, kind: str) -> None:
    from typer.testing import CliRunner

    from synth.cli.app import app

    path = tmp_path / "shop.db"
    if kind == "text":
        path.write_text("these are my notes, not a database\n" * 40)
    else:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE notes (text TEXT)")
    done = CliRunner().invoke(app, ["serve", "store", "--db", str(path)])
    assert done.exit_code == 2, done.output
    said = " ".join(done.output.split())
    expected = "is not a SQLite database" if kind == "text" else "not a store (no orders, products, users table)"
    assert f"--db {path} " in said and expected in said and "path that does not exist yet" in said
    assert "Traceback" not in done.output


def test_reads_find_a_customer_and_their_order(db: Path) -> None:
    user = query(db, "SELECT * FROM users ORDER BY user_id LIMIT 1")[0]
    order_id = query(db, "SELECT order_id FROM orders WHERE user_id = ? ORDER BY order_id", user["user_id"])[0][0]
    results = run_calls(
        db,
        [
            ("find_user_id_by_email", {"email": user["email"].upper()}),
            (
                "find_user_id_by_name_zip",
                {"first_name": user["first_name"], "last_name": user["last_name"], "zip": user["zip"]},
            ),
            ("get_user_details", {"user_id": user["user_id"]}),
            ("get_order_details", {"order_id": order_id}),
            ("list_all_product_types", {}),
        ],
    )
    assert [r[0] for r in results] == [False] * 5
    assert results[0][2] == results[1][2] == {"user_id": user["user_id"]}
    details = results[2][2]
    assert details["email"] == user["email"] and order_id in details["orders"]
    assert json.loads(results[2][1]) == details  # the text is the same JSON
    order = results[3][2]
    total = sum(cents(i["price"]) for i in order["items"])
    assert cents(order["payment_history"][0]["amount"]) == total
    assert len(results[4][2]["product_types"]) == 50
    product_id = order["items"][0]["product_id"]
    is_error, _, product = one(db, "get_product_details", product_id=product_id)
    assert not is_error and order["items"][0]["item_id"] in {v["item_id"] for v in product["variants"]}


def test_unknown_ids_are_refused_with_a_hint(db: Path) -> None:
    for name, args, words in [
        ("find_user_id_by_email", {"email": "nobody@example.com"}, "find_user_id_by_name_zip"),
        ("get_user_details", {"user_id": "nobody_0000"}, "not found"),
        ("get_order_details", {"order_id": "#W0000000"}, "'#W0000000' not found"),
        ("get_product_details", {"product_id": "0000000000"}, "list_all_product_types"),
    ]:
        is_error, message, _ = one(db, name, **args)
        assert is_error and words in message, message


# --- rules --------------------------------------------------------------------------------


def test_cancel_refunds_exactly_and_only_pending_orders(db: Path) -> None:
    paid = order_with(db, "pending", "gift_card")
    before = balance(db, paid["payment_method_id"])
    is_error, _, order = one(db, "cancel_pending_order", order_id=paid["order_id"], reason="no longer needed")
    assert not is_error and order["status"] == "cancelled" and order["cancel_reason"] == "no longer needed"
    assert order["payment_history"][-1] == {
        "transaction_type": "refund",
        "payment_method_id": paid["payment_method_id"],
        "amount": order["payment_history"][0]["amount"],
    }
    assert balance(db, paid["payment_method_id"]) == before + paid["amount_cents"]
    again = one(db, "cancel_pending_order", order_id=paid["order_id"], reason="no longer needed")
    assert again[0] and "only pending orders can be cancelled" in again[1]
    delivered = order_with(db, "delivered")
    refused = one(db, "cancel_pending_order", order_id=delivered["order_id"], reason="ordered by mistake")
    assert refused[0] and "'delivered'" in refused[1] and "returned or exchanged" in refused[1]
    bad_reason = one(db, "cancel_pending_order", order_id=order_with(db, "pending")["order_id"], reason="too slow")
    assert bad_reason[0] and "reason" in bad_reason[1]


def test_refusals_change_nothing(db: Path) -> None:
    before = file_state_hash(str(db))
    delivered, pending = order_with(db, "delivered"), order_with(db, "pending", "credit_card", gift_card_owner=True)
    other_user_method = query(
        db, "SELECT payment_method_id FROM payment_methods WHERE user_id != ? LIMIT 1", pending["user_id"]
    )[0][0]
    item, new_item, _ = swap_for(db, pending["order_id"])
    foreign = query(
        db,
        "SELECT v.item_id FROM variants v JOIN order_items i ON i.order_id = ? AND i.item_id = ? "
        "WHERE v.product_id != i.product_id AND v.available = 1 LIMIT 1",
        pending["order_id"],
        item,
    )[0][0]
    sold_out = query(
        db,
        "SELECT v.item_id FROM variants v JOIN order_items i ON v.product_id = i.product_id "
        "WHERE i.order_id = ? AND v.available = 0 AND v.item_id != i.item_id LIMIT 1",
        pending["order_id"],
    )
    calls = [
        ("modify_pending_order_address", {"order_id": delivered["order_id"], "address": NEW_ADDRESS}, "pending"),
        (
            "modify_pending_order_items",
            {
                "order_id": pending["order_id"],
                "item_ids": [item],
                "new_item_ids": [foreign],
                "payment_method_id": pending["payment_method_id"],
            },
            "same product",
        ),
        (
            "modify_pending_order_items",
            {
                "order_id": pending["order_id"],
                "item_ids": [item],
                "new_item_ids": [item],
                "payment_method_id": pending["payment_method_id"],
            },
            "same as the old one",
        ),
        (
            "modify_pending_order_items",
            {
                "order_id": pending["order_id"],
                "item_ids": ["0000000001"],
                "new_item_ids": [new_item],
                "payment_method_id": pending["payment_method_id"],
            },
            "has no item 0000000001",
        ),
        (
            "modify_pending_order_items",
            {
                "order_id": pending["order_id"],
                "item_ids": [item],
                "new_item_ids": [new_item],
                "payment_method_id": other_user_method,
            },
            "not one of this order's customer's",
        ),
        (
            "modify_pending_order_payment",
            {"order_id": pending["order_id"], "payment_method_id": pending["payment_method_id"]},
            "already paid with",
        ),
        (
            "return_delivered_order_items",
            {"order_id": pending["order_id"], "item_ids": [item], "payment_method_id": pending["payment_method_id"]},
            "only delivered orders",
        ),
        (
            "modify_pending_order_address",
            {"order_id": pending["order_id"], "address": {**NEW_ADDRESS, "zip": "9747"}},
            "zip",
        ),
    ]
    assert sold_out, "the seed has an out-of-stock variant of this order's product"
    calls.append(
        (
            "modify_pending_order_items",
            {
                "order_id": pending["order_id"],
                "item_ids": [item],
                "new_item_ids": [sold_out[0][0]],
                "payment_method_id": pending["payment_method_id"],
            },
            "out of stock",
        )
    )
    results = run_calls(db, [(name, args) for name, args, _ in calls])
    for (name, _, words), (is_error, message, _) in zip(calls, results):
        assert is_error and words in message, (name, message)
    assert file_state_hash(str(db)) == before


def test_items_change_once_and_the_difference_is_exact(db: Path) -> None:
    pending = order_with(db, "pending", "credit_card")
    item, new_item, diff = swap_for(db, pending["order_id"])
    args = {
        "order_id": pending["order_id"],
        "item_ids": [item],
        "new_item_ids": [new_item],
        "payment_method_id": pending["payment_method_id"],
    }
    is_error, _, order = one(db, "modify_pending_order_items", **args)
    assert not is_error and order["status"] == "pending (item modified)"
    assert new_item in [i["item_id"] for i in order["items"]]
    kind = "payment" if diff > 0 else "refund"
    assert order["payment_history"][-1] == {
        "transaction_type": kind,
        "amount": f"{abs(diff) // 100}.{abs(diff) % 100:02d}",
        "payment_method_id": pending["payment_method_id"],
    }
    paid = sum(cents(t["amount"]) * (1 if t["transaction_type"] == "payment" else -1) for t in order["payment_history"])
    assert paid == sum(cents(i["price"]) for i in order["items"])
    twice = one(db, "modify_pending_order_items", **{**args, "item_ids": [new_item], "new_item_ids": [item]})
    assert twice[0] and "only once" in twice[1]


def test_a_gift_card_must_cover_the_difference(db: Path) -> None:
    pending = order_with(db, "pending", "credit_card", gift_card_owner=True)
    card = query(
        db,
        "SELECT payment_method_id, balance_cents FROM payment_methods WHERE user_id = ? AND source = 'gift_card'",
        pending["user_id"],
    )[0]
    item, new_item, diff = swap_for(db, pending["order_id"], cheaper=False)
    conn = sqlite3.connect(db)
    with conn:  # leave the card a cent short
        conn.execute(
            "UPDATE payment_methods SET balance_cents = ? WHERE payment_method_id = ?",
            (diff - 1, card["payment_method_id"]),
        )
    conn.close()
    args = {
        "order_id": pending["order_id"],
        "item_ids": [item],
        "new_item_ids": [new_item],
        "payment_method_id": card["payment_method_id"],
    }
    short = one(db, "modify_pending_order_items", **args)
    assert short[0] and "less than the price difference" in short[1]
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "UPDATE payment_methods SET balance_cents = ? WHERE payment_method_id = ?",
            (diff, card["payment_method_id"]),
        )
    conn.close()
    assert not one(db, "modify_pending_order_items", **args)[0]
    assert balance(db, card["payment_method_id"]) == 0


def test_payment_change_moves_money_exactly(db: Path) -> None:
    by_card = order_with(db, "pending", "gift_card")
    card_before = balance(db, by_card["payment_method_id"])
    other = query(
        db,
        "SELECT payment_method_id FROM payment_methods WHERE user_id = ? AND source != 'gift_card' "
        "ORDER BY payment_method_id",
        by_card["user_id"],
    )[0][0]
    is_error, _, order = one(db, "modify_pending_order_payment", order_id=by_card["order_id"], payment_method_id=other)
    assert not is_error and [t["transaction_type"] for t in order["payment_history"]] == [
        "payment",
        "payment",
        "refund",
    ]
    assert balance(db, by_card["payment_method_id"]) == card_before + by_card["amount_cents"]
    twice = one(
        db, "modify_pending_order_payment", order_id=by_card["order_id"], payment_method_id=by_card["payment_method_id"]
    )
    assert twice[0] and "exactly one payment" in twice[1]

    by_credit = order_with(db, "pending", "credit_card", gift_card_owner=True)
    card = query(
        db,
        "SELECT payment_method_id FROM payment_methods WHERE user_id = ? AND source = 'gift_card'",
        by_credit["user_id"],
    )[0][0]
    for short_by in (1, 0):  # a cent short is refused; the exact total empties the card
        conn = sqlite3.connect(db)
        with conn:
            conn.execute(
                "UPDATE payment_methods SET balance_cents = ? WHERE payment_method_id = ?",
                (by_credit["amount_cents"] - short_by, card),
            )
        conn.close()
        is_error, message, _ = one(
            db, "modify_pending_order_payment", order_id=by_credit["order_id"], payment_method_id=card
        )
        assert is_error == bool(short_by), message
    assert balance(db, card) == 0


def test_return_refunds_to_the_original_method_or_a_gift_card(db: Path) -> None:
    delivered = order_with(db, "delivered", "credit_card", gift_card_owner=True)
    lines = query(
        db, "SELECT item_id, price_cents FROM order_items WHERE order_id = ? ORDER BY line", delivered["order_id"]
    )
    other_card = query(
        db,
        "SELECT payment_method_id FROM payment_methods WHERE user_id = ? AND source != 'gift_card' "
        "AND payment_method_id != ?",
        delivered["user_id"],
        delivered["payment_method_id"],
    )
    assert other_card, "the seed has a delivered order whose customer has a second card"
    refused = one(
        db,
        "return_delivered_order_items",
        order_id=delivered["order_id"],
        item_ids=[lines[0][0]],
        payment_method_id=other_card[0][0],
    )
    assert refused[0] and "original payment method" in refused[1]
    card = query(
        db,
        "SELECT payment_method_id FROM payment_methods WHERE user_id = ? AND source = 'gift_card'",
        delivered["user_id"],
    )[0][0]
    before = balance(db, card)
    is_error, _, order = one(
        db,
        "return_delivered_order_items",
        order_id=delivered["order_id"],
        item_ids=[lines[0][0]],
        payment_method_id=card,
    )
    assert not is_error and order["status"] == "return requested"
    assert cents(order["return_request"]["refund_amount"]) == lines[0][1]
    assert balance(db, card) == before + lines[0][1]
    again = one(
        db,
        "exchange_delivered_order_items",
        order_id=delivered["order_id"],
        item_ids=[lines[0][0]],
        new_item_ids=[lines[0][0]],
        payment_method_id=card,
    )
    assert again[0] and "only once" in again[1]


def test_exchange_settles_the_difference(db: Path) -> None:
    delivered = order_with(db, "delivered", "gift_card")
    item, new_item, diff = swap_for(db, delivered["order_id"], cheaper=True)
    before = balance(db, delivered["payment_method_id"])
    is_error, _, order = one(
        db,
        "exchange_delivered_order_items",
        order_id=delivered["order_id"],
        item_ids=[item],
        new_item_ids=[new_item],
        payment_method_id=delivered["payment_method_id"],
    )
    assert not is_error and order["status"] == "exchange requested"
    assert (
        order["exchange_request"]["new_item_ids"] == [new_item]
        and cents(order["exchange_request"]["price_difference"]) == diff
    )
    assert balance(db, delivered["payment_method_id"]) == before - diff  # a cheaper item: the card gets the change


def test_concurrent_cancels_refund_once(db: Path) -> None:
    """Sync tools run on worker threads: the lock and the transaction let exactly one cancel through."""
    paid = order_with(db, "pending", "gift_card")
    before = balance(db, paid["payment_method_id"])

    async def go() -> list[bool]:
        store = Store.open(db)
        try:
            async with Client(build_server(store), mode="legacy", read_timeout_seconds=30) as client:
                results: list[bool] = []

                async def cancel() -> None:
                    r = await client.call_tool(
                        "cancel_pending_order", {"order_id": paid["order_id"], "reason": "ordered by mistake"}
                    )
                    results.append(r.is_error)

                async with anyio.create_task_group() as tg:
                    for _ in range(8):
                        tg.start_soon(cancel)
                return results
        finally:
            store.close()

    assert sorted(anyio.run(go)) == [False] + [True] * 7
    assert balance(db, paid["payment_method_id"]) == before + paid["amount_cents"]


def test_addresses_change_on_pending_orders_and_users(db: Path) -> None:
    pending = order_with(db, "pending")
    results = run_calls(
        db,
        [
            (
                "modify_pending_order_address",
                {"order_id": pending["order_id"], "address": {k: v for k, v in NEW_ADDRESS.items() if k != "country"}},
            ),
            ("modify_user_address", {"user_id": pending["user_id"], "address": NEW_ADDRESS}),
        ],
    )
    assert results[0][2]["address"] == NEW_ADDRESS and results[1][2]["address"] == NEW_ADDRESS


# --- determinism ----------------------------------------------------------------------------


def test_same_seed_same_hash_other_seed_differs(seed0: Path, tmp_path: Path) -> None:
    seed_database(tmp_path / "a.db", 0)
    seed_database(tmp_path / "b.db", 1)
    assert file_state_hash(str(tmp_path / "a.db")) == file_state_hash(str(seed0))
    assert file_state_hash(str(tmp_path / "b.db")) != file_state_hash(str(seed0))
    conn = sqlite3.connect(tmp_path / "b.db")
    assert conn.execute("SELECT COUNT(*) FROM users").fetchone()[0] == 500
    assert conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == 1000
    assert conn.execute("SELECT COUNT(*) FROM products").fetchone()[0] == 50
    ids = [r[0] for r in conn.execute("SELECT order_id FROM orders")]
    assert all(len(i) == 9 and i.startswith("#W") and i[2:].isdigit() for i in ids)
    conn.close()


def test_the_hash_ignores_row_order(seed0: Path, tmp_path: Path) -> None:
    src = sqlite3.connect(seed0)
    dst = sqlite3.connect(tmp_path / "reversed.db")
    # the same schema (the hash covers it: tables first, then indexes, views, triggers), rows in reverse order
    schema = "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type != 'table'"
    for (sql,) in src.execute(schema):
        dst.execute(sql)
    for (table,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        rows = src.execute(f"SELECT * FROM {table}").fetchall()[::-1]
        if rows:
            dst.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)
    dst.commit()
    assert state_hash(dst) == state_hash(src)
    dst.execute(
        "UPDATE payment_methods SET balance_cents = balance_cents + 1 WHERE source = 'gift_card' "
        "AND payment_method_id = (SELECT MIN(payment_method_id) FROM payment_methods WHERE source = 'gift_card')"
    )
    assert state_hash(dst) != state_hash(src)


def test_replaying_the_same_calls_gives_identical_texts_and_state(tmp_path: Path, seed0: Path) -> None:
    pending = order_with(seed0, "pending", "credit_card")
    delivered = order_with(seed0, "delivered")
    item, new_item, _ = swap_for(seed0, pending["order_id"])
    back = query(seed0, "SELECT item_id FROM order_items WHERE order_id = ? ORDER BY line", delivered["order_id"])[0][0]
    email = query(seed0, "SELECT email FROM users WHERE user_id = ?", pending["user_id"])[0][0]
    calls = [
        ("find_user_id_by_email", {"email": email}),
        ("get_user_details", {"user_id": pending["user_id"]}),
        (
            "modify_pending_order_items",
            {
                "order_id": pending["order_id"],
                "item_ids": [item],
                "new_item_ids": [new_item],
                "payment_method_id": pending["payment_method_id"],
            },
        ),
        ("modify_pending_order_address", {"order_id": pending["order_id"], "address": NEW_ADDRESS}),
        ("cancel_pending_order", {"order_id": pending["order_id"], "reason": "ordered by mistake"}),
        ("cancel_pending_order", {"order_id": pending["order_id"], "reason": "ordered by mistake"}),
        (
            "return_delivered_order_items",
            {
                "order_id": delivered["order_id"],
                "item_ids": [back],
                "payment_method_id": delivered["payment_method_id"],
            },
        ),
        ("get_order_details", {"order_id": delivered["order_id"]}),
    ]
    runs = []
    for name in ("one", "two"):
        seed_database(tmp_path / f"{name}.db", 0)  # fresh stores, made from the seed each time
        runs.append((run_calls(tmp_path / f"{name}.db", calls), file_state_hash(str(tmp_path / f"{name}.db"))))
    (first, hash1), (second, hash2) = runs
    assert [t for _, t, _ in first] == [t for _, t, _ in second]
    assert hash1 == hash2 != file_state_hash(str(seed0))
    assert [e for e, _, _ in first] == [False, False, False, False, False, True, False, False]


# --- the real server: stdio and Streamable HTTP ---------------------------------------------------


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT")}


async def _session_checks(client: Client, email: str) -> None:
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    found = await client.call_tool("find_user_id_by_email", {"email": email}, read_timeout_seconds=30)
    user_id = found.structured_content["user_id"]
    user = (await client.call_tool("get_user_details", {"user_id": user_id})).structured_content
    assert user["email"] == email
    changed = await client.call_tool("modify_user_address", {"user_id": user_id, "address": NEW_ADDRESS})
    assert not changed.is_error and changed.structured_content["address"] == NEW_ADDRESS
    again = await client.call_tool("get_user_details", {"user_id": user_id})
    assert again.structured_content["address"] == NEW_ADDRESS  # the write stuck
    refused = await client.call_tool("get_order_details", {"order_id": "#W0000000"})
    assert refused.is_error and "not found" in text(refused)
    invalid = await client.call_tool("get_order_details", {"order_id": "W123"})
    assert invalid.is_error and "order_id" in text(invalid)


def test_stdio_server_subprocess(seed0: Path, tmp_path: Path) -> None:
    from mcp import StdioServerParameters

    shutil.copy(seed0, tmp_path / "store.db")
    email = query(seed0, "SELECT email FROM users ORDER BY user_id LIMIT 1")[0][0]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "synth.cli.app", "serve", "store", "--db", "store.db"],
        env=_env(),
        cwd=str(tmp_path),
    )

    async def go() -> None:
        with anyio.fail_after(60):
            async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
                assert "Authenticate" in (client.instructions or "")
                await _session_checks(client, email)

    anyio.run(go)
    assert file_state_hash(str(tmp_path / "store.db")) != file_state_hash(str(seed0))


def test_http_server_subprocess_creates_its_database(seed0: Path, tmp_path: Path) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "synth.cli.app", "serve", "store", "--db", "new.db", "--seed", "0", "--http", str(port)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)
        assert file_state_hash(str(tmp_path / "new.db")) == file_state_hash(str(seed0))  # same seed, other process
        email = query(tmp_path / "new.db", "SELECT email FROM users ORDER BY user_id LIMIT 1")[0][0]

        async def go() -> None:
            with anyio.fail_after(60):
                async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=60)) as http:
                    transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
                    async with Client(transport, mode="legacy", read_timeout_seconds=30) as client:
                        await _session_checks(client, email)

        anyio.run(go)
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert out == b""  # logs go to stderr only


# --- the shipped pack holds real values of the seed-0 store ------------------------------------


def _pack_calls(entry: dict[str, Any], world: dict[str, Any]) -> list[dict[str, Any]]:
    """Argument sets covering every value the pack can draw for ``tool``: each world entity its draws can take
    (all of a call's draws from one entity), else the i-th value of every pool in call i (so no order is
    changed twice)."""
    values = entry.get("values") or {}
    draws = {k: v for k, v in values.items() if isinstance(v, dict) and "entity" in v}
    pools = {k: (v["pool"] if isinstance(v, dict) else v) for k, v in values.items() if k not in draws}
    if draws:
        kind = next(iter(draws.values()))["entity"]
        spec = world["entities"][kind]
        where = next(iter(draws.values())).get("where") or {}
        fits = [e for e in spec["seed"] if all(e.get(k) == v for k, v in where.items())]
        extra = {k: v[0] for k, v in pools.items()}
        return [{**extra, **{k: e[d.get("field") or spec["id"]] for k, d in draws.items()}} for e in fits]
    if not pools:
        return [{}]
    return [{k: v[i % len(v)] for k, v in pools.items()} for i in range(max(map(len, pools.values())))]


def test_every_pack_value_works_on_the_seed_store(seed0: Path, tmp_path: Path) -> None:
    import yaml

    from synth.store.pack import pack_text

    text_ = (ROOT / "registry" / "packs" / "synth__store.pack.yaml").read_text(encoding="utf-8")
    assert text_ == pack_text(0), (
        "the pack drifted from the seed: python -m synth.store.pack registry/packs/synth__store.pack.yaml"
    )
    pack = yaml.safe_load(text_)
    assert set(pack["tools"]) == TOOLS
    for tool, entry in pack["tools"].items():
        db = tmp_path / f"{tool}.db"
        shutil.copy(seed0, db)  # a fresh store per tool; its cases touch different orders
        calls = _pack_calls(entry, pack["world"])
        assert len(calls) >= 3 or tool == "list_all_product_types", tool
        for args, (is_error, message, _) in zip(calls, run_calls(db, [(tool, a) for a in calls])):
            assert not is_error, (tool, args, message)
    # the world's products are the shop's: a product read in a conversation is what the server returns for it
    products = pack["world"]["entities"]["product"]["seed"]
    asked = [("get_product_details", {"product_id": p["product_id"]}) for p in products]
    answers = run_calls(seed0, asked)
    assert len(products) >= 12 and all(json.loads(t) == p for p, (_, t, _) in zip(products, answers, strict=True))
