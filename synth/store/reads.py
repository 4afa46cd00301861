"""The shop's reads: functions of one SQLite connection, each building a result model (synth.store.shop
holds the connection and runs each in its lock; synth.store.writes holds the writes).

Every refusal is a ``RuleError`` whose message says what rule was broken and what to do instead.
"""

from __future__ import annotations

import json
import sqlite3

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

ADDRESS = ("address1", "address2", "city", "state", "country", "zip")


class RuleError(Exception):
    """A request the shop refuses; the message is meant for the assistant and the customer."""


def find_user_id_by_email(db: sqlite3.Connection, email: str) -> str:
    row = db.execute("SELECT user_id FROM users WHERE lower(email) = ?", (email.strip().lower(),)).fetchone()
    if row is None:
        raise RuleError(
            f"No customer has the email {email!r}. Check the spelling, or find the customer by "
            "first name, last name and ZIP code with find_user_id_by_name_zip."
        )
    return row["user_id"]


def find_user_id_by_name_zip(db: sqlite3.Connection, first_name: str, last_name: str, zip: str) -> str:
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


def user(db: sqlite3.Connection, user_id: str) -> User:
    row = _one(db, "users", "user_id", user_id)
    methods = db.execute(
        "SELECT * FROM payment_methods WHERE user_id = ? ORDER BY payment_method_id", (user_id,)
    ).fetchall()
    orders = [r[0] for r in db.execute("SELECT order_id FROM orders WHERE user_id = ? ORDER BY order_id", (user_id,))]
    return User(
        user_id=user_id,
        name=Name(first_name=row["first_name"], last_name=row["last_name"]),
        email=row["email"],
        address=_address(row),
        payment_methods=[_method(m) for m in methods],
        orders=orders,
    )


def order(db: sqlite3.Connection, order_id: str) -> Order:
    row = order_row(db, order_id)
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
        fulfillments=[Fulfillment(tracking_id=f["tracking_id"], item_ids=json.loads(f["item_ids"])) for f in shipped],
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


def product(db: sqlite3.Connection, product_id: str) -> Product:
    row = _one(db, "products", "product_id", product_id)
    variants = db.execute("SELECT * FROM variants WHERE product_id = ? ORDER BY item_id", (product_id,)).fetchall()
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


def product_types(db: sqlite3.Connection) -> ProductTypes:
    rows = db.execute("SELECT name, product_id FROM products ORDER BY name").fetchall()
    return ProductTypes(product_types=[ProductType(name=r["name"], product_id=r["product_id"]) for r in rows])


def order_row(db: sqlite3.Connection, order_id: str) -> sqlite3.Row:
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
