"""The shop's writes: functions of one SQLite connection, each run inside one transaction (synth.store.shop
opens it; a refusal rolls it back), each checking the shop's rules first.

Every refusal is a ``RuleError`` whose message says what rule was broken and what to do instead.
"""

from __future__ import annotations

import json
import sqlite3

from synth.store.models import Address, dollars
from synth.store.reads import ADDRESS, RuleError, order_row

PENDING = ("pending", "pending (item modified)")


def cancel_pending_order(db: sqlite3.Connection, order_id: str, reason: str) -> None:
    row = order_row(db, order_id)
    if row["status"] not in PENDING:
        raise RuleError(
            f"Order {order_id} is {row['status']!r}: only pending orders can be cancelled."
            + _after_shipping(row["status"])
        )
    net: dict[str, int] = {}
    for p in db.execute("SELECT * FROM payments WHERE order_id = ? ORDER BY seq", (order_id,)):
        sign = 1 if p["transaction_type"] == "payment" else -1
        net[p["payment_method_id"]] = net.get(p["payment_method_id"], 0) + sign * p["amount_cents"]
    for method_id in sorted(net):  # refund what each method paid, net of earlier refunds
        if net[method_id] > 0:
            _transaction(db, order_id, "refund", net[method_id], method_id)
            _credit_gift_card(db, method_id, net[method_id])
    db.execute("UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE order_id = ?", (reason, order_id))


def modify_pending_order_address(db: sqlite3.Connection, order_id: str, address: Address) -> None:
    row = order_row(db, order_id)
    if row["status"] not in PENDING:
        raise RuleError(
            f"Order {order_id} is {row['status']!r}: only a pending order's shipping address can "
            "be changed." + _after_shipping(row["status"])
        )
    db.execute(
        f"UPDATE orders SET {', '.join(f'{k} = ?' for k in ADDRESS)} WHERE order_id = ?",
        (*(getattr(address, k) for k in ADDRESS), order_id),
    )


def modify_pending_order_items(
    db: sqlite3.Connection, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> None:
    row = order_row(db, order_id)
    if row["status"] == "pending (item modified)":
        raise RuleError(
            f"The items of order {order_id} were already changed once; an order's items can be "
            "changed only once. The customer can cancel it (reason 'ordered by mistake' or "
            "'no longer needed') and order again."
        )
    if row["status"] != "pending":
        raise RuleError(
            f"Order {order_id} is {row['status']!r}: only pending orders can have their items "
            "changed." + _after_shipping(row["status"])
        )
    pairs = _swaps(db, order_id, item_ids, new_item_ids)
    diff = sum(new["price_cents"] - line["price_cents"] for line, new in pairs)
    _settle(db, order_id, row["user_id"], payment_method_id, diff)
    for line, new in pairs:
        db.execute(
            "UPDATE order_items SET item_id = ?, options = ?, price_cents = ? WHERE order_id = ? AND line = ?",
            (new["item_id"], new["options"], new["price_cents"], order_id, line["line"]),
        )
    db.execute("UPDATE orders SET status = 'pending (item modified)' WHERE order_id = ?", (order_id,))


def modify_pending_order_payment(db: sqlite3.Connection, order_id: str, payment_method_id: str) -> None:
    row = order_row(db, order_id)
    if row["status"] not in PENDING:
        raise RuleError(
            f"Order {order_id} is {row['status']!r}: only a pending order's payment method can be "
            "changed." + _after_shipping(row["status"])
        )
    payments = db.execute("SELECT * FROM payments WHERE order_id = ? ORDER BY seq", (order_id,)).fetchall()
    if len(payments) != 1 or payments[0]["transaction_type"] != "payment":
        raise RuleError(
            f"Order {order_id} has {len(payments)} transactions; the payment method can be changed "
            "only while the order has exactly one payment."
        )
    old, amount = payments[0]["payment_method_id"], payments[0]["amount_cents"]
    method = _method_row(db, row["user_id"], payment_method_id)
    if payment_method_id == old:
        raise RuleError(f"Order {order_id} is already paid with {old}; choose a different payment method.")
    if method["source"] == "gift_card" and method["balance_cents"] < amount:
        raise RuleError(
            f"Gift card {payment_method_id} has {dollars(method['balance_cents'])} left, less than "
            f"the order total of {dollars(amount)}; choose another payment method."
        )
    _transaction(db, order_id, "payment", amount, payment_method_id)
    _credit_gift_card(db, payment_method_id, -amount)
    _transaction(db, order_id, "refund", amount, old)
    _credit_gift_card(db, old, amount)


def return_delivered_order_items(
    db: sqlite3.Connection, order_id: str, item_ids: list[str], payment_method_id: str
) -> None:
    row = order_row(db, order_id)
    if row["status"] != "delivered":
        raise RuleError(
            f"Order {order_id} is {row['status']!r}: only delivered orders can be returned"
            + (
                ", and an order's return or exchange can be requested only once."
                if row["status"] in ("return requested", "exchange requested")
                else "."
            )
        )
    original = db.execute(
        "SELECT payment_method_id FROM payments WHERE order_id = ? AND seq = 0", (order_id,)
    ).fetchone()[0]
    method = _method_row(db, row["user_id"], payment_method_id)
    if method["source"] != "gift_card" and payment_method_id != original:
        raise RuleError(
            f"A refund goes to the original payment method ({original}) or to one of the "
            f"customer's gift cards, not to {payment_method_id}."
        )
    lines = _lines(db, order_id, item_ids)
    refund = sum(line["price_cents"] for line in lines)
    for line in lines:
        db.execute(
            "UPDATE order_items SET return_requested = 1 WHERE order_id = ? AND line = ?",
            (order_id, line["line"]),
        )
    _transaction(db, order_id, "refund", refund, payment_method_id)
    _credit_gift_card(db, payment_method_id, refund)
    db.execute(
        "UPDATE orders SET status = 'return requested', return_payment_method_id = ? WHERE order_id = ?",
        (payment_method_id, order_id),
    )


def exchange_delivered_order_items(
    db: sqlite3.Connection, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> None:
    row = order_row(db, order_id)
    if row["status"] != "delivered":
        raise RuleError(
            f"Order {order_id} is {row['status']!r}: only delivered orders can be exchanged"
            + (
                ", and an order's return or exchange can be requested only once."
                if row["status"] in ("return requested", "exchange requested")
                else "."
            )
        )
    pairs = _swaps(db, order_id, item_ids, new_item_ids)
    diff = sum(new["price_cents"] - line["price_cents"] for line, new in pairs)
    _settle(db, order_id, row["user_id"], payment_method_id, diff)
    for line, new in pairs:
        db.execute(
            "UPDATE order_items SET exchange_item_id = ? WHERE order_id = ? AND line = ?",
            (new["item_id"], order_id, line["line"]),
        )
    db.execute(
        "UPDATE orders SET status = 'exchange requested', exchange_payment_method_id = ?, "
        "exchange_price_difference_cents = ? WHERE order_id = ?",
        (payment_method_id, diff, order_id),
    )


def modify_user_address(db: sqlite3.Connection, user_id: str, address: Address) -> None:
    if db.execute("SELECT 1 FROM users WHERE user_id = ?", (user_id,)).fetchone() is None:
        raise RuleError(
            f"User {user_id!r} not found. Find the user id with find_user_id_by_email or find_user_id_by_name_zip."
        )
    db.execute(
        f"UPDATE users SET {', '.join(f'{k} = ?' for k in ADDRESS)} WHERE user_id = ?",
        (*(getattr(address, k) for k in ADDRESS), user_id),
    )


def _method_row(db: sqlite3.Connection, user_id: str, method_id: str) -> sqlite3.Row:
    row = db.execute(
        "SELECT * FROM payment_methods WHERE payment_method_id = ? AND user_id = ?", (method_id, user_id)
    ).fetchone()
    if row is None:
        raise RuleError(
            f"Payment method {method_id!r} is not one of this order's customer's payment methods "
            f"(see get_user_details for {user_id})."
        )
    return row


def _lines(db: sqlite3.Connection, order_id: str, item_ids: list[str]) -> list[sqlite3.Row]:
    """The order lines named by ``item_ids`` (a repeated id takes the next line with that item)."""
    lines = db.execute("SELECT * FROM order_items WHERE order_id = ? ORDER BY line", (order_id,)).fetchall()
    taken: list[sqlite3.Row] = []
    for item_id in item_ids:
        line = next((li for li in lines if li["item_id"] == item_id and li not in taken), None)
        if line is None:
            have = ", ".join(li["item_id"] for li in lines)
            raise RuleError(
                f"Order {order_id} has no {'more ' if any(t['item_id'] == item_id for t in taken) else ''}"
                f"item {item_id}; its items are {have}."
            )
        taken.append(line)
    return taken


def _swaps(
    db: sqlite3.Connection, order_id: str, item_ids: list[str], new_item_ids: list[str]
) -> list[tuple[sqlite3.Row, sqlite3.Row]]:
    if len(item_ids) != len(new_item_ids):
        raise RuleError(
            f"{len(item_ids)} item ids but {len(new_item_ids)} new item ids: give one new item for "
            "each item, in the same order."
        )
    pairs = []
    for line, new_id in zip(_lines(db, order_id, item_ids), new_item_ids):
        if new_id == line["item_id"]:
            raise RuleError(f"The new item {new_id} is the same as the old one; choose another variant.")
        new = db.execute("SELECT * FROM variants WHERE item_id = ?", (new_id,)).fetchone()
        if new is None or new["product_id"] != line["product_id"]:
            raise RuleError(
                f"Item {new_id} is not a variant of {line['name']} (product {line['product_id']}); "
                "an item can only be swapped for another variant of the same product "
                "(see get_product_details)."
            )
        if not new["available"]:
            raise RuleError(
                f"Item {new_id} ({_options_text(new['options'])}) is out of stock; choose an available variant."
            )
        pairs.append((line, new))
    return pairs


def _settle(db: sqlite3.Connection, order_id: str, user_id: str, method_id: str, diff: int) -> None:
    """Charge (diff > 0) or refund (diff < 0) a price difference to one of the customer's methods."""
    method = _method_row(db, user_id, method_id)
    if method["source"] == "gift_card" and method["balance_cents"] < diff:
        raise RuleError(
            f"Gift card {method_id} has {dollars(method['balance_cents'])} left, less than the price "
            f"difference of {dollars(diff)}; choose another payment method."
        )
    if diff:
        _transaction(db, order_id, "payment" if diff > 0 else "refund", abs(diff), method_id)
        _credit_gift_card(db, method_id, -diff)


def _transaction(db: sqlite3.Connection, order_id: str, kind: str, cents: int, method_id: str) -> None:
    seq = db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM payments WHERE order_id = ?", (order_id,)).fetchone()[0]
    db.execute("INSERT INTO payments VALUES (?, ?, ?, ?, ?)", (order_id, seq, kind, cents, method_id))


def _credit_gift_card(db: sqlite3.Connection, method_id: str, cents: int) -> None:
    """Gift cards move at once (other methods settle with the bank); a no-op for other methods."""
    db.execute(
        "UPDATE payment_methods SET balance_cents = balance_cents + ? "
        "WHERE payment_method_id = ? AND source = 'gift_card'",
        (cents, method_id),
    )


def _options_text(options: str) -> str:
    return ", ".join(f"{k} {v}" for k, v in json.loads(options).items())


def _after_shipping(status: str) -> str:
    if status in ("processed", "delivered"):
        return (
            " A delivered order's items can be returned or exchanged instead."
            if status == "delivered"
            else " It has shipped; once delivered, its items can be returned or exchanged."
        )
    return ""
