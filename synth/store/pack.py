"""Write the store's server pack (``registry/packs/synth__store.pack.yaml``) from a seed database.

    python -m synth.store.pack registry/packs/synth__store.pack.yaml [--seed 0]

The value pools and cases are REAL rows of the seed-0 store: emails, names with ZIP codes, order
ids in the status each tool needs, item ids that are available variants of the same product,
payment methods that belong to the order's customer and cover what they must. A test replays
every case of a write tool on a fresh seed-0 store and expects it to succeed, so a change to the
seed that invalidates the pack fails loudly; rerun this module and review the diff.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from synth.store import reads, writes
from synth.store.pack_tools import Shop, read_tools
from synth.store.pack_writes import write_tools
from synth.store.seed import seed_database

N = 12  # values per pool
HEADER = """\
# The server pack of synth/store, the shop synth ships (`synth serve store`).
# Format: registry/packs/README.md. Check it with: synth pack check registry/
# Written by `python -m synth.store.pack registry/packs/synth__store.pack.yaml`: every email, name + ZIP,
# order id, item id and payment method below is a real row of the seed-0 store, in the state its
# tool needs (pending orders to cancel or change, delivered ones to return or exchange). Results are
# templates for the offline author; the real server answers with the same shapes.
"""


def _rows(conn: sqlite3.Connection, sql: str, *params: Any) -> list[sqlite3.Row]:
    return conn.execute(sql, params).fetchall()


def _spread(rows: list[Any], n: int = N) -> list[Any]:
    """``n`` rows spread over the whole list (not the first n), in a fixed order."""
    step = max(len(rows) // n, 1)
    return rows[::step][:n]


def _swaps(conn: sqlite3.Connection, status: str) -> list[dict[str, Any]]:
    """Orders in ``status`` with one item and an available other variant of its product, plus a payment
    method of the customer that can pay the difference (the original one, or a gift card that covers it)."""
    rows = _rows(
        conn,
        """
        SELECT o.order_id, i.item_id, v.item_id AS new_id, v.price_cents - i.price_cents AS diff,
               p.payment_method_id AS method, m.source, m.balance_cents
        FROM orders o JOIN order_items i ON i.order_id = o.order_id AND i.line = 0
        JOIN variants v ON v.product_id = i.product_id AND v.item_id != i.item_id AND v.available = 1
        JOIN payments p ON p.order_id = o.order_id AND p.seq = 0
        JOIN payment_methods m ON m.payment_method_id = p.payment_method_id
        WHERE o.status = ? ORDER BY o.order_id, v.item_id""",
        status,
    )
    out, seen = [], set()
    for r in rows:
        if r["order_id"] in seen or (r["source"] == "gift_card" and r["balance_cents"] < r["diff"]):
            continue
        seen.add(r["order_id"])
        out.append(
            {
                "order_id": r["order_id"],
                "item_ids": [r["item_id"]],
                "new_item_ids": [r["new_id"]],
                "payment_method_id": r["method"],
            }
        )
    return out


def build(db: Path) -> dict[str, Any]:
    """The pack of the store in ``db``: each tool's requests, values, results and answers, and the world of
    its customers and their orders."""
    shop = _shop(db)
    return {
        "pack": 1,
        "server": "synth/store",
        "declines": DECLINES,
        "tools": {**read_tools(shop), **write_tools(shop)},
        "world": shop.world,
    }


# what customers ask that no tool of the shop does: the assistant declines (synth.offline.decisions)
DECLINES = [
    {"text": "Can you give me a 20% discount code for my next order?", "cannot": "issue discount codes"},
    {"text": "Please change the email address on my account.", "cannot": "change account emails"},
    {"text": "Could you delete my account and all my data?", "cannot": "delete accounts"},
]


def _shop(db: Path) -> Shop:
    """The rows the pack is written from: customers (spread over those who can do everything the tools do:
    swap a pending order's item, pay it another way, return and exchange a delivered one) with all their
    orders, each order marked with the change it can take."""
    conn = _open(db)
    try:
        products = _rows(conn, "SELECT * FROM products ORDER BY name")
        changes = {
            "swap": _swaps(conn, "pending"),
            "repay": _payment_changes(conn),
            "return": _returns(conn),
            "exchange": _swaps(conn, "delivered"),
        }
        owner = {r["order_id"]: r["user_id"] for r in _rows(conn, "SELECT order_id, user_id FROM orders")}
        able = set.intersection(*({owner[c["order_id"]] for c in rows} for rows in changes.values()))
        users = _spread([u for u in _rows(conn, "SELECT * FROM users ORDER BY user_id") if u["user_id"] in able])
        people = [u["user_id"] for u in users]
        orders = []
        for order_id in sorted(o for o, u in owner.items() if u in people):
            record = reads.order(conn, order_id).model_dump(mode="json")
            for change, rows in changes.items():  # the values a change of this order takes, drawn together
                case = next((c for c in rows if c["order_id"] == order_id), None)
                if case is not None:
                    record[change] = True
                    record |= {f"{change}_{k}": v for k, v in case.items() if k != "order_id"}
                    record |= _after(conn, change, case)
            if record["status"] == "pending":
                record |= _after(conn, "cancel", {"order_id": order_id, "reason": "no longer needed"})
            orders.append(record)
        some = _spread(products)
        asked = {p["product_id"] for p in some} | {i["product_id"] for o in orders for i in o["items"]}
        return Shop(
            users=users,
            products=products,
            some_products=some,
            people=[_person(conn, u) for u in people],
            orders=orders,
            catalog=[reads.product(conn, p).model_dump(mode="json") for p in sorted(asked)],
        )
    finally:
        conn.close()


# what a change does to an order, as the shop's own writes do it: the fields it changes (beyond the status the
# pack's result says), kept by the order under "<change>_<field>" for the tool's world entry to write (becomes)
AFTER: dict[str, tuple[Any, tuple[str, ...]]] = {
    "cancel": (writes.cancel_pending_order, ("payment_history",)),
    "swap": (writes.modify_pending_order_items, ("items", "payment_history")),
    "repay": (writes.modify_pending_order_payment, ("payment_history",)),
    "return": (writes.return_delivered_order_items, ("return_request", "payment_history")),
    "exchange": (writes.exchange_delivered_order_items, ("exchange_request", "payment_history")),
}


def _after(conn: sqlite3.Connection, change: str, case: dict[str, Any]) -> dict[str, Any]:
    """The order's fields after ``change`` with ``case``'s values, from the shop's own write (undone after)."""
    write, fields = AFTER[change]
    conn.execute("SAVEPOINT change")
    try:
        write(conn, **case)
        after = reads.order(conn, case["order_id"]).model_dump(mode="json")
    finally:
        conn.execute("ROLLBACK TO change")
        conn.execute("RELEASE change")
    return {f"{change}_{f}_after": after[f] for f in fields}


def _person(conn: sqlite3.Connection, user_id: str) -> dict[str, Any]:
    """A customer as the world holds them: the account as the server returns it, and the name and ZIP code they
    give to be found."""
    record = reads.user(conn, user_id).model_dump(mode="json")
    return {
        **record,
        "first_name": record["name"]["first_name"],
        "last_name": record["name"]["last_name"],
        "zip": record["address"]["zip"],
    }


def _payment_changes(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Pending orders with another payment method of the customer that can pay them (one per order)."""
    changes: list[dict[str, Any]] = []
    for r in _rows(
        conn,
        """SELECT o.order_id, m.payment_method_id, m.source, m.balance_cents, p.amount_cents
                            FROM orders o JOIN payments p ON p.order_id = o.order_id AND p.seq = 0
                            JOIN payment_methods m ON m.user_id = o.user_id
                              AND m.payment_method_id != p.payment_method_id
                            WHERE o.status = 'pending' ORDER BY o.order_id, m.payment_method_id""",
    ):
        if (r["source"] != "gift_card" or r["balance_cents"] >= r["amount_cents"]) and r["order_id"] not in {
            c["order_id"] for c in changes
        }:
            changes.append({"order_id": r["order_id"], "payment_method_id": r["payment_method_id"]})
    return changes


def _returns(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Delivered orders' first items, refunded to the method that paid."""
    return [
        {"order_id": r["order_id"], "item_ids": [r["item_id"]], "payment_method_id": r["payment_method_id"]}
        for r in _rows(
            conn,
            """SELECT o.order_id, i.item_id, p.payment_method_id FROM orders o
                            JOIN order_items i ON i.order_id = o.order_id AND i.line = 0
                            JOIN payments p ON p.order_id = o.order_id AND p.seq = 0
                            WHERE o.status = 'delivered' ORDER BY o.order_id""",
        )
    ]


def _open(db: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    return conn


def pack_text(seed: int = 0) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "store.db"
        seed_database(db, seed)
        pack = build(db)
    return HEADER + yaml.dump(pack, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


class _Dumper(yaml.SafeDumper):
    """Block style, except short lists and mappings of plain values on one line; no anchors."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _flow(items: list[Any]) -> bool:
    return all(not isinstance(v, (dict, list)) for v in items) and len(json.dumps(items)) < 100


_Dumper.add_representer(list, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=_flow(v)))
_Dumper.add_representer(
    dict, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v.items(), flow_style=_flow(list(v.values())))
)


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(pack_text(int(sys.argv[2]) if len(sys.argv) > 2 else 0), encoding="utf-8")
