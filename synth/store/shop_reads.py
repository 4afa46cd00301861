"""The shop's connection and its reads: each builds a result model (``synth.store.shop`` adds the writes).

Every refusal is a ``RuleError`` whose message says what rule was broken and what to do instead.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from synth.store.models import (
    Address,
    CreditCard,
    ExchangeRequest,
    Fulfillment,
    GiftCard,
    Name,
    Order,
    OrderItem,
    PayPal,
    Product,
    ProductType,
    ProductTypes,
    ReturnRequest,
    Transaction,
    User,
    Variant,
    dollars,
)
from synth.store.seed import create_schema, seed_database

ADDRESS = ("address1", "address2", "city", "state", "country", "zip")


class RuleError(Exception):
    """A request the shop refuses; the message is meant for the assistant and the customer."""


class Reads:
    """One store database. ``open`` seeds it first when the file does not exist yet."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()

    @classmethod
    def open(cls, path: Path | str, seed: int = 0) -> Self:
        if str(path) != ":memory:" and not Path(path).exists():
            seed_database(path, seed)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        # No fsync per commit: a killed server still leaves every committed write (the OS has it), only a
        # power cut could lose one, and a test shop is recreated from its seed. fsync cost ~18 ms a write here.
        # The rollback journal (not WAL) keeps the store one file a verifier can open read-only or copy.
        conn.execute("PRAGMA synchronous = OFF")
        if str(path) == ":memory:":
            create_schema(conn)
        return cls(conn)

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            yield self.conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of a write happens, or none of it (a refusal rolls back)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def find_user_id_by_email(self, email: str) -> str:
        with self._read() as db:
            row = db.execute("SELECT user_id FROM users WHERE lower(email) = ?", (email.strip().lower(),)).fetchone()
        if row is None:
            raise RuleError(
                f"No customer has the email {email!r}. Check the spelling, or find the customer by "
                "first name, last name and ZIP code with find_user_id_by_name_zip."
            )
        return row["user_id"]

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        with self._read() as db:
            row = db.execute(
                "SELECT user_id FROM users WHERE lower(first_name) = ? AND lower(last_name) = ? AND zip = ? "
                "ORDER BY user_id LIMIT 1",
                (first_name.strip().lower(), last_name.strip().lower(), zip.strip()),
            ).fetchone()
        if row is None:
            raise RuleError(
                f"No customer named {first_name} {last_name} with ZIP code {zip}. Check the spelling and "
                "the ZIP code of the customer's default address, or ask for their email."
            )
        return row["user_id"]

    def user(self, user_id: str) -> User:
        with self._read() as db:
            row = _one(db, "users", "user_id", user_id)
            methods = db.execute(
                "SELECT * FROM payment_methods WHERE user_id = ? ORDER BY payment_method_id", (user_id,)
            ).fetchall()
            orders = [
                r[0] for r in db.execute("SELECT order_id FROM orders WHERE user_id = ? ORDER BY order_id", (user_id,))
            ]
        return User(
            user_id=user_id,
            name=Name(first_name=row["first_name"], last_name=row["last_name"]),
            email=row["email"],
            address=_address(row),
            payment_methods=[_method(m) for m in methods],
            orders=orders,
        )

    def order(self, order_id: str) -> Order:
        with self._read() as db:
            row = self._order_row(db, order_id)
            lines = db.execute("SELECT * FROM order_items WHERE order_id = ? ORDER BY line", (order_id,)).fetchall()
            payments = db.execute("SELECT * FROM payments WHERE order_id = ? ORDER BY seq", (order_id,)).fetchall()
            shipped = db.execute("SELECT * FROM fulfillments WHERE order_id = ? ORDER BY seq", (order_id,)).fetchall()
        returned = [line for line in lines if line["return_requested"]]
        exchanged = [line for line in lines if line["exchange_item_id"]]
        return Order(
            order_id=order_id,
            user_id=row["user_id"],
            status=row["status"],
            address=_address(row),
            items=[
                OrderItem(
                    name=li["name"],
                    product_id=li["product_id"],
                    item_id=li["item_id"],
                    price=dollars(li["price_cents"]),
                    options=json.loads(li["options"]),
                )
                for li in lines
            ],
            fulfillments=[
                Fulfillment(tracking_id=f["tracking_id"], item_ids=json.loads(f["item_ids"])) for f in shipped
            ],
            payment_history=[
                Transaction(
                    transaction_type=p["transaction_type"],
                    amount=dollars(p["amount_cents"]),
                    payment_method_id=p["payment_method_id"],
                )
                for p in payments
            ],
            cancel_reason=row["cancel_reason"],
            return_request=ReturnRequest(
                item_ids=sorted(li["item_id"] for li in returned),
                payment_method_id=row["return_payment_method_id"],
                refund_amount=dollars(sum(li["price_cents"] for li in returned)),
            )
            if returned
            else None,
            exchange_request=ExchangeRequest(
                item_ids=sorted(li["item_id"] for li in exchanged),
                new_item_ids=sorted(li["exchange_item_id"] for li in exchanged),
                payment_method_id=row["exchange_payment_method_id"],
                price_difference=dollars(row["exchange_price_difference_cents"] or 0),
            )
            if exchanged
            else None,
        )

    def product(self, product_id: str) -> Product:
        with self._read() as db:
            row = _one(db, "products", "product_id", product_id)
            variants = db.execute(
                "SELECT * FROM variants WHERE product_id = ? ORDER BY item_id", (product_id,)
            ).fetchall()
        return Product(
            product_id=product_id,
            name=row["name"],
            variants=[
                Variant(
                    item_id=v["item_id"],
                    options=json.loads(v["options"]),
                    price=dollars(v["price_cents"]),
                    available=bool(v["available"]),
                )
                for v in variants
            ],
        )

    def product_types(self) -> ProductTypes:
        with self._read() as db:
            rows = db.execute("SELECT name, product_id FROM products ORDER BY name").fetchall()
        return ProductTypes(product_types=[ProductType(name=r["name"], product_id=r["product_id"]) for r in rows])

    # --- helpers (called with the lock held) --------------------------------------------------

    def _order_row(self, db: sqlite3.Connection, order_id: str) -> sqlite3.Row:
        return _one(db, "orders", "order_id", order_id)


# What a missing row means, and where the assistant finds a right key.
_MISSING = {
    "users": "User {key!r} not found. A user id looks like 'noah_brown_6181'; find it with "
    "find_user_id_by_email or find_user_id_by_name_zip.",
    "products": "Product {key!r} not found. Product ids come from list_all_product_types "
    "or from an order's items (product_id, not item_id).",
    "orders": "Order {key!r} not found. Order ids look like '#W0000000' (with the '#'); the "
    "customer's orders are listed by get_user_details.",
}


def _one(db: sqlite3.Connection, table: str, column: str, key: str) -> sqlite3.Row:
    """The row of ``table`` whose ``column`` is ``key``, or a RuleError saying it was not found."""
    row = db.execute(f"SELECT * FROM {table} WHERE {column} = ?", (key,)).fetchone()
    if row is None:
        raise RuleError(_MISSING[table].format(key=key))
    return row


def _address(row: sqlite3.Row) -> Address:
    return Address(**{k: row[k] for k in ADDRESS})


def _method(row: sqlite3.Row) -> CreditCard | PayPal | GiftCard:
    if row["source"] == "credit_card":
        return CreditCard(
            source="credit_card",
            payment_method_id=row["payment_method_id"],
            brand=row["brand"],
            last_four=row["last_four"],
        )
    if row["source"] == "paypal":
        return PayPal(source="paypal", payment_method_id=row["payment_method_id"])
    return GiftCard(
        source="gift_card", payment_method_id=row["payment_method_id"], balance=dollars(row["balance_cents"])
    )
