"""The store's SQLite schema and its deterministic seed data (Faker + one random.Random per seed).

Same seed (and Faker version) => the same rows, so the same canonical state hash. Modelled on
tau-bench retail: ~500 customers, 50 product types with variants, ~1000 ``#W`` orders.
Money is integer cents everywhere in the database.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path

from faker import Faker

from synth.store.catalog import PRODUCTS

USERS, ORDERS = 500, 1000
SCHEMA = """
CREATE TABLE users (
  user_id TEXT PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
  address1 TEXT NOT NULL, address2 TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL,
  country TEXT NOT NULL, zip TEXT NOT NULL);
CREATE TABLE payment_methods (
  payment_method_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(user_id),
  source TEXT NOT NULL CHECK (source IN ('credit_card', 'paypal', 'gift_card')),
  brand TEXT, last_four TEXT, balance_cents INTEGER);
CREATE TABLE products (product_id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE variants (
  item_id TEXT PRIMARY KEY, product_id TEXT NOT NULL REFERENCES products(product_id),
  options TEXT NOT NULL, price_cents INTEGER NOT NULL, available INTEGER NOT NULL);
CREATE TABLE orders (
  order_id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(user_id), status TEXT NOT NULL,
  address1 TEXT NOT NULL, address2 TEXT NOT NULL, city TEXT NOT NULL, state TEXT NOT NULL,
  country TEXT NOT NULL, zip TEXT NOT NULL, cancel_reason TEXT,
  return_payment_method_id TEXT, exchange_payment_method_id TEXT, exchange_price_difference_cents INTEGER);
CREATE TABLE order_items (
  order_id TEXT NOT NULL REFERENCES orders(order_id), line INTEGER NOT NULL, item_id TEXT NOT NULL,
  product_id TEXT NOT NULL, name TEXT NOT NULL, options TEXT NOT NULL, price_cents INTEGER NOT NULL,
  return_requested INTEGER NOT NULL DEFAULT 0, exchange_item_id TEXT, PRIMARY KEY (order_id, line));
CREATE TABLE payments (
  order_id TEXT NOT NULL REFERENCES orders(order_id), seq INTEGER NOT NULL,
  transaction_type TEXT NOT NULL CHECK (transaction_type IN ('payment', 'refund')),
  amount_cents INTEGER NOT NULL, payment_method_id TEXT NOT NULL, PRIMARY KEY (order_id, seq));
CREATE TABLE fulfillments (
  order_id TEXT NOT NULL REFERENCES orders(order_id), seq INTEGER NOT NULL, tracking_id TEXT NOT NULL,
  item_ids TEXT NOT NULL, PRIMARY KEY (order_id, seq));
CREATE INDEX users_email ON users(email);
CREATE INDEX users_name_zip ON users(last_name, first_name, zip);
CREATE INDEX orders_user ON orders(user_id);
CREATE INDEX payment_methods_user ON payment_methods(user_id);
CREATE INDEX variants_product ON variants(product_id);
"""
# tau-bench retail's mix (pending 423, delivered 373, processed 102, cancelled 102 of 1000), plus a few
# orders whose return or exchange is already requested.
STATUS_WEIGHTS = {
    "pending": 40,
    "processed": 10,
    "delivered": 36,
    "cancelled": 10,
    "return requested": 2,
    "exchange requested": 2,
}
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]


def options_json(options: dict[str, str]) -> str:
    """The one spelling of a variant's options in the database (sorted keys), so hashes agree."""
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(SCHEMA)


def seed_database(path: Path | str, seed: int = 0) -> None:
    """Create the database at ``path`` (which must not exist) with the data of ``seed``, atomically."""
    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    conn = sqlite3.connect(partial)
    try:
        create_schema(conn)
        with conn:
            fill(conn, seed)
    finally:
        conn.close()
    partial.replace(target)  # a half-written seed never passes for a store


Products = list[
    tuple[str, str, list[tuple[str, dict[str, str], int, bool]]]
]  # (name, product id, [(item id, options, price in cents, available)])
Users = list[tuple[str, tuple[str, ...], list[tuple[str, str]]]]  # (user id, address, [(payment method id, kind)])


def fill(conn: sqlite3.Connection, seed: int) -> None:
    """Insert the seed rows: every random choice comes from ``seed``, in a fixed order."""
    draw = _Draws(seed)
    products = _products(conn, draw)
    users = _users(conn, draw)
    _orders(conn, draw, products, users)


class _Draws:
    """The seed's random source and Faker (drawn from in one fixed order), and ids unique across every kind."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed)
        self.used: set[str] = set()

    def fresh(self, make) -> str:
        while True:
            value = make()
            if value not in self.used:
                self.used.add(value)
                return value

    def digits(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789") for _ in range(n))


def _products(conn: sqlite3.Connection, draw: _Draws) -> Products:
    """Every product of the catalog with its variants (options, price, availability)."""
    rng, fresh = draw.rng, draw.fresh
    products: Products = []
    for name in sorted(PRODUCTS):
        dims, (low, high) = PRODUCTS[name]
        product_id = fresh(lambda: str(rng.randint(10**9, 10**10 - 1)))
        variants, seen = [], set()
        for _ in range(rng.randint(4, 14)):
            options = {k: rng.choice(v) for k, v in dims.items()}
            key = options_json(options)
            if key in seen:
                continue
            seen.add(key)
            item_id = fresh(lambda: str(rng.randint(10**9, 10**10 - 1)))
            variants.append((item_id, options, rng.randint(low * 100, high * 100), rng.random() < 0.75))
        products.append((name, product_id, variants))
        conn.execute("INSERT INTO products VALUES (?, ?)", (product_id, name))
        conn.executemany(
            "INSERT INTO variants VALUES (?, ?, ?, ?, ?)",
            [(i, product_id, options_json(o), p, int(a)) for i, o, p, a in variants],
        )
    return products


def _users(conn: sqlite3.Connection, draw: _Draws) -> Users:
    """Customers with an address and one to three payment methods."""
    rng, fake, fresh, digits = draw.rng, draw.fake, draw.fresh, draw.digits
    users: Users = []
    emails: set[str] = set()
    for _ in range(USERS):
        first, last = fake.first_name(), fake.last_name()
        slug = lambda s: re.sub(r"[^a-z]", "", s.lower())  # noqa: E731
        user_id = fresh(
            lambda slug=slug, first=first, last=last: f"{slug(first)}_{slug(last)}_{rng.randint(1000, 9999)}"
        )
        email = f"{slug(first)}.{slug(last)}{rng.randint(1, 9999)}@example.com"
        while email in emails:
            email = f"{slug(first)}.{slug(last)}{rng.randint(1, 9999)}@example.com"
        emails.add(email)
        address = (
            f"{fake.building_number()} {fake.street_name()}",
            fake.secondary_address() if rng.random() < 0.5 else "",
            fake.city(),
            fake.state_abbr(include_territories=False),
            "USA",
            fake.zipcode(),
        )
        conn.execute("INSERT INTO users VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (user_id, first, last, email, *address))
        methods: list[tuple[str, str]] = []
        kinds = rng.sample(["credit_card", "credit_card", "paypal", "gift_card"], rng.randint(1, 3))
        for kind in kinds:
            method_id = fresh(lambda kind=kind: f"{kind}_{digits(7)}")
            brand = rng.choice(CARD_BRANDS) if kind == "credit_card" else None
            last_four = digits(4) if kind == "credit_card" else None
            balance = (
                rng.randint(0, 300) * 100 + rng.choice([0, 0, rng.randint(0, 99)]) if kind == "gift_card" else None
            )
            conn.execute(
                "INSERT INTO payment_methods VALUES (?, ?, ?, ?, ?, ?)",
                (method_id, user_id, kind, brand, last_four, balance),
            )
            methods.append((method_id, kind))
        users.append((user_id, address, methods))
    return users


def _orders(conn: sqlite3.Connection, draw: _Draws, products: Products, users: Users) -> None:
    """Orders of every status, with their items, payments, refunds and fulfillments."""
    rng, fresh, digits = draw.rng, draw.fresh, draw.digits
    statuses, weights = list(STATUS_WEIGHTS), list(STATUS_WEIGHTS.values())
    for _ in range(ORDERS):
        order_id = fresh(lambda: f"#W{digits(7)}")
        user_id, address, methods = rng.choice(users)
        status = rng.choices(statuses, weights)[0]
        lines = []
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 5])):
            name, product_id, variants = rng.choice(products)
            item_id, options, price, _ = rng.choice(variants)
            lines.append([item_id, product_id, name, options_json(options), price, 0, None])
        method_id = rng.choice(methods)[0]
        total = sum(line[4] for line in lines)  # type: ignore[misc]
        payments = [("payment", total, method_id)]
        cancel_reason = return_method = exchange_method = exchange_diff = None
        if status == "cancelled":
            cancel_reason = rng.choice(["no longer needed", "ordered by mistake"])
            payments.append(("refund", total, method_id))
        elif status == "return requested":
            lines[0][5] = 1
            return_method = method_id
            payments.append(("refund", lines[0][4], method_id))  # type: ignore[arg-type]
        elif status == "exchange requested":
            name, product_id = lines[0][2], lines[0][1]  # type: ignore[assignment]
            variants = next(v for n, _, v in products if n == name)
            other = [v for v in variants if v[0] != lines[0][0] and v[3]]
            if other:
                new_id, _, new_price, _ = rng.choice(other)
                lines[0][6] = new_id
                exchange_method, exchange_diff = method_id, new_price - lines[0][4]  # type: ignore[operator]
                if exchange_diff:
                    payments.append(("payment" if exchange_diff > 0 else "refund", abs(exchange_diff), method_id))
            else:
                status = "delivered"
        conn.execute(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (order_id, user_id, status, *address, cancel_reason, return_method, exchange_method, exchange_diff),
        )
        conn.executemany(
            "INSERT INTO order_items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(order_id, i, *line) for i, line in enumerate(lines)],
        )
        conn.executemany(
            "INSERT INTO payments VALUES (?, ?, ?, ?, ?)", [(order_id, i, *p) for i, p in enumerate(payments)]
        )
        if status in ("processed", "delivered", "return requested", "exchange requested"):
            conn.execute(
                "INSERT INTO fulfillments VALUES (?, 0, ?, ?)",
                (order_id, digits(12), json.dumps([line[0] for line in lines])),
            )
