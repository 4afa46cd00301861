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
# Addresses leave out country (always USA) and an empty address2: both have defaults, and the user says what is sent.
ADDRESSES = [
    {"address1": "742 Evergreen Terrace", "city": "Springfield", "state": "OR", "zip": "97477"},
    {"address1": "1600 Pennsylvania Ave", "address2": "Suite 200", "city": "Washington", "state": "DC", "zip": "20500"},
    {"address1": "350 Fifth Avenue", "address2": "Apt 12B", "city": "New York", "state": "NY", "zip": "10118"},
    {"address1": "221 Baker Street", "city": "Austin", "state": "TX", "zip": "78701"},
    {"address1": "88 Colin P Kelly Jr St", "city": "San Francisco", "state": "CA", "zip": "94107"},
    {"address1": "4059 Mt Lee Dr", "city": "Los Angeles", "state": "CA", "zip": "90068"},
    {"address1": "1 Infinite Loop", "address2": "Building 3", "city": "Cupertino", "state": "CA", "zip": "95014"},
    {"address1": "500 S Buena Vista St", "city": "Burbank", "state": "CA", "zip": "91521"},
    {"address1": "233 S Wacker Dr", "address2": "Floor 40", "city": "Chicago", "state": "IL", "zip": "60606"},
    {"address1": "1 Main St", "address2": "Unit 4", "city": "Burlington", "state": "VT", "zip": "05401"},
]
ORDER = {  # the Order shape, as the server returns it
    "order_id": "{order_id}", "user_id": "{pick:USERS}", "status": "pending",
    "address": {"address1": "{int:10-9999} {pick:Oak|Maple|Cedar|Pine|Elm|Lake|Hill} {pick:St|Ave|Rd|Ln|Blvd}",
                "address2": "{pick:|Apt 4|Suite 210|Unit 12|Apt 7B}", "city": "{fake:city}",
                "state": "{pick:CA|NY|TX|OR|WA|IL|FL|MA}", "country": "USA", "zip": "{id:#####}"},
    "items": [{"$repeat": "1-3", "$item": {
        "name": "{pick:PRODUCTS}", "product_id": "{id:##########}", "item_id": "{id:##########}",
        "price": "{int:19-480}.{pick:00|49|99|25}", "options": {"color": "{pick:black|white|blue|red|green|grey}",
                                                                 "size": "{pick:S|M|L|XL}"}}}],
    "fulfillments": [],
    "payment_history": [{"transaction_type": "payment", "amount": "{int:40-900}.{pick:00|49|99|25}",
                         "payment_method_id": "{pick:credit_card|paypal|gift_card}_{id:#######}"}],
    "cancel_reason": None, "return_request": None, "exchange_request": None,
}


def _rows(conn: sqlite3.Connection, sql: str, *params: Any) -> list[sqlite3.Row]:
    return conn.execute(sql, params).fetchall()


def _spread(rows: list[Any], n: int = N) -> list[Any]:
    """``n`` rows spread over the whole list (not the first n), in a fixed order."""
    step = max(len(rows) // n, 1)
    return rows[::step][:n]


def _swaps(conn: sqlite3.Connection, status: str) -> list[dict[str, Any]]:
    """Orders in ``status`` with one item and an available other variant of its product, plus a payment
    method of the customer that can pay the difference (the original one, or a gift card that covers it)."""
    rows = _rows(conn, """
        SELECT o.order_id, i.item_id, v.item_id AS new_id, v.price_cents - i.price_cents AS diff,
               p.payment_method_id AS method, m.source, m.balance_cents
        FROM orders o JOIN order_items i ON i.order_id = o.order_id AND i.line = 0
        JOIN variants v ON v.product_id = i.product_id AND v.item_id != i.item_id AND v.available = 1
        JOIN payments p ON p.order_id = o.order_id AND p.seq = 0
        JOIN payment_methods m ON m.payment_method_id = p.payment_method_id
        WHERE o.status = ? ORDER BY o.order_id, v.item_id""", status)
    out, seen = [], set()
    for r in rows:
        if r["order_id"] in seen or (r["source"] == "gift_card" and r["balance_cents"] < r["diff"]):
            continue
        seen.add(r["order_id"])
        out.append({"order_id": r["order_id"], "item_ids": [r["item_id"]], "new_item_ids": [r["new_id"]],
                    "payment_method_id": r["method"]})
    return _spread(out)


def build(db: Path) -> dict[str, Any]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    users = _spread(_rows(conn, "SELECT * FROM users ORDER BY user_id"))
    user_ids = "|".join(u["user_id"] for u in users)
    products = _rows(conn, "SELECT * FROM products ORDER BY name")
    product_names = "|".join(p["name"] for p in products)
    pending = _spread([r[0] for r in _rows(conn, "SELECT order_id FROM orders WHERE status = 'pending' ORDER BY order_id")])
    by_status = [r[0] for s in ("pending", "processed", "delivered", "cancelled") for r in _spread(
        _rows(conn, "SELECT order_id FROM orders WHERE status = ? ORDER BY order_id", s), 3)]
    payment_changes = []
    for r in _rows(conn, """SELECT o.order_id, m.payment_method_id, m.source, m.balance_cents, p.amount_cents
                            FROM orders o JOIN payments p ON p.order_id = o.order_id AND p.seq = 0
                            JOIN payment_methods m ON m.user_id = o.user_id AND m.payment_method_id != p.payment_method_id
                            WHERE o.status = 'pending' ORDER BY o.order_id, m.payment_method_id"""):
        if (r["source"] != "gift_card" or r["balance_cents"] >= r["amount_cents"]) and \
                r["order_id"] not in {c["order_id"] for c in payment_changes}:
            payment_changes.append({"order_id": r["order_id"], "payment_method_id": r["payment_method_id"]})
    returns = []
    for r in _rows(conn, """SELECT o.order_id, i.item_id, p.payment_method_id FROM orders o
                            JOIN order_items i ON i.order_id = o.order_id AND i.line = 0
                            JOIN payments p ON p.order_id = o.order_id AND p.seq = 0
                            WHERE o.status = 'delivered' ORDER BY o.order_id"""):
        returns.append({"order_id": r["order_id"], "item_ids": [r["item_id"]], "payment_method_id": r["payment_method_id"]})
    type_list = [{"name": p["name"], "product_id": p["product_id"]} for p in products]
    conn.close()

    def order(**fields: Any) -> dict[str, Any]:
        text = json.dumps({**ORDER, **fields}).replace("USERS", user_ids).replace("PRODUCTS", product_names)
        return json.loads(text)

    reasons = {"pool": ["no longer needed", "ordered by mistake"],
               "phrase": {"no longer needed": "I don't need it anymore", "ordered by mistake": "I ordered it by mistake"}}
    user_result = {"user_id": "{user_id}", "name": {"first_name": "{fake:first_name}", "last_name": "{fake:last_name}"},
                   "email": "{fake:user_name}@example.com", "address": ORDER["address"],
                   "payment_methods": [{"source": "credit_card", "payment_method_id": "credit_card_{id:#######}",
                                        "brand": "{pick:visa|mastercard|amex|discover}", "last_four": "{id:####}"},
                                       {"source": "gift_card", "payment_method_id": "gift_card_{id:#######}",
                                        "balance": "{int:0-300}.{pick:00|50|25|75}"}],
                   "orders": [{"$repeat": "1-4", "$item": "#W{id:#######}"}]}
    found = [{"user_id": f"{{pick:{user_ids}}}"}]
    tools: dict[str, Any] = {
        "find_user_id_by_email": {
            "goals": ["Hi, I need some help with an order. My email is {email}.",
                      "I'd like to change something I bought last week. The account is under {email}.",
                      "Can you pull up my account? I signed up with {email}.",
                      "Hello! I have a question about a purchase; you can find me as {email}.",
                      "I want to return something but I don't have my order number handy."],
            "values": {"email": [u["email"] for u in users]},
            "ask": {"email": "I can help with that. First, what's the email address on your account?"},
            "say": {"email": ["It's {value}.", "{value}", "Sure, {value}."]},
            "results": found,
            "answers": ["Thanks, I found your account ({r.user_id}). What would you like to do today?",
                        "You're verified: your account is {r.user_id}. How can I help with your order?"],
            "failures": [{"label": "unable_to_accomplish",
                          "result": {"error": "No customer has the email '{email}'. Check the spelling, or find the "
                                              "customer by first name, last name and ZIP code."},
                          "answer": "I couldn't find an account with {email}. Could you double-check it, or give me "
                                    "your full name and ZIP code instead?"}],
            "feeds": [{"to": "get_user_details", "param": "user_id", "path": "user_id",
                       "goals": ["My email is {email}. Which cards do I have saved with you?",
                                 "I'm {email}. What's the shipping address on my account right now?"]},
                      {"to": "modify_user_address", "param": "user_id", "path": "user_id",
                       "goals": ["My account email is {email}. I've moved: please make {address} my default address.",
                                 "This is {email}. Could you update my address on file to {address}?"]}],
        },
        "find_user_id_by_name_zip": {
            "goals": ["I can't remember which email I used. I'm {first_name} {last_name} and my ZIP code is {zip}.",
                      "This is {first_name} {last_name}, ZIP {zip}. I need help with an order.",
                      "Hi, {first_name} {last_name} here. I lost access to my old email; my ZIP is {zip}."],
            "cases": [{"first_name": u["first_name"], "last_name": u["last_name"], "zip": u["zip"]} for u in users],
            "ask": {"zip": "Thanks. And what's the ZIP code of your default address?"},
            "say": {"zip": ["{value}.", "It's {value}."]},
            "results": found,
            "answers": ["Thank you, {first_name}. I found your account ({r.user_id}). What can I do for you?",
                        "Got it: you're verified as {r.user_id}. What do you need help with?"],
            "feeds": [{"to": "get_user_details", "param": "user_id", "path": "user_id",
                       "goals": ["I'm {first_name} {last_name}, ZIP {zip}. How much is left on my gift card?",
                                 "{first_name} {last_name} here, ZIP code {zip}. Which orders do I have with you?"]}],
        },
        "get_user_details": {
            "goals": ["My user id is {user_id}. Which payment methods do I have on file?",
                      "Can you check how much is left on my gift card? My account is {user_id}.",
                      "What address do you have for me? The account id is {user_id}.",
                      "I want to see all the orders on my account, {user_id}."],
            "values": {"user_id": [u["user_id"] for u in users]},
            "results": [user_result],
            "answers": ["Your account {user_id} has {count:r.payment_methods} saved payment methods; the gift card "
                        "{r.payment_methods.1.payment_method_id} has {r.payment_methods.1.balance} dollars left. "
                        "You have {count:r.orders} orders, starting with {r.orders.0}.",
                        "On file: a {r.payment_methods.0.brand} card ending in {r.payment_methods.0.last_four} and a gift "
                        "card with {r.payment_methods.1.balance} dollars. Your default address is "
                        "{r.address.address1}, {r.address.city}, {r.address.state} {r.address.zip}."],
        },
        "get_order_details": {
            "goals": ["Where is my order {order_id}? It's been over a week.",
                      "Can you check the status of order {order_id} for me?",
                      "What exactly did I buy in order {order_id}, and how much did I pay?",
                      "Has order {order_id} shipped yet? I need it before the weekend.",
                      "I'd like to know which card I paid order {order_id} with."],
            "values": {"order_id": by_status},
            "ask": {"order_id": "Sure. What's the order number? It starts with #W."},
            "say": {"order_id": ["It's {value}.", "{value}", "The order number is {value}."]},
            "results": [order(status="{pick:pending|processed|delivered}")],
            "answers": ["Order {order_id} is {r.status}. It has {count:r.items} item(s), starting with the "
                        "{r.items.0.name} ({r.items.0.price} dollars), and was paid with {r.payment_history.0.payment_method_id}.",
                        "Here's {order_id}: status {r.status}, shipping to {r.address.address1}, {r.address.city}. "
                        "The first item is a {r.items.0.name} at {r.items.0.price} dollars."],
            "feeds": [{"to": "get_product_details", "param": "product_id", "path": "items.0.product_id",
                       "goals": ["I have order {order_id} coming. Which other versions of the first item do you have?",
                                 "In order {order_id}, is the first item also sold in other colors or sizes?"]}],
        },
        "get_product_details": {
            "goals": ["Which variants of product {product_id} are in stock?",
                      "What colors and sizes does product {product_id} come in, and at what prices?",
                      "Is product {product_id} available in another option? I'd like to swap mine."],
            "values": {"product_id": [p["product_id"] for p in _spread(products)]},
            "results": [{"product_id": "{product_id}", "name": "{pick:" + product_names + "}",
                         "variants": [{"$repeat": "2-5", "$item": {
                             "item_id": "{id:##########}", "options": {"color": "{pick:black|white|blue|red|green}",
                                                                       "size": "{pick:S|M|L|XL}"},
                             "price": "{int:19-480}.{pick:00|49|99}", "available": True}}]}],
            "answers": ["The {r.name} comes in {count:r.variants} variants. For example item {r.variants.0.item_id} "
                        "({r.variants.0.options.color}, size {r.variants.0.options.size}) costs {r.variants.0.price} dollars.",
                        "Product {product_id} is the {r.name}: {count:r.variants} versions, such as "
                        "{r.variants.1.options.color} in {r.variants.1.options.size} for {r.variants.1.price} dollars."],
        },
        "list_all_product_types": {
            "goals": ["What kinds of products do you sell?", "Do you carry anything for the kitchen? What's in the catalog?",
                      "I'm shopping for a gift. Which product types do you have?"],
            "results": [{"product_types": type_list}],
            "answers": ["We carry {count:r.product_types} product types, from {r.product_types.0.name} and "
                        "{r.product_types.1.name} to {r.product_types.49.name}.",
                        "The catalog has {count:r.product_types} kinds of products, including {r.product_types.10.name}, "
                        "{r.product_types.20.name} and {r.product_types.30.name}."],
            "feeds": [{"to": "get_product_details", "param": "product_id", "path": "product_types.0.product_id",
                       "goals": ["Show me what you sell, then tell me the options for the first product on the list."]}],
        },
        "cancel_pending_order": {
            "goals": ["Please cancel order {order_id}. {reason}.", "I need to cancel {order_id}: {reason}.",
                      "Can you cancel my order {order_id}? {reason}, sorry.",
                      "I'd like to cancel an order I placed yesterday; {reason}."],
            "values": {"order_id": pending, "reason": reasons},
            "ask": {"order_id": "I can help cancel it. What's the order number (it starts with #W)?",
                    "reason": "May I ask why: is it no longer needed, or was it ordered by mistake?"},
            "say": {"order_id": ["It's {value}.", "{value}"], "reason": ["{value}.", "Honestly, {value}."]},
            "results": [order(status="cancelled", cancel_reason="{reason}", payment_history=[
                {"transaction_type": "payment", "amount": "{int:40-900}.99", "payment_method_id": "credit_card_{id:#######}"},
                {"transaction_type": "refund", "amount": "{int:40-900}.99", "payment_method_id": "credit_card_{id:#######}"}])],
            "answers": ["Order {order_id} is now {r.status}. The refund of {r.payment_history.1.amount} dollars goes back to "
                        "{r.payment_history.1.payment_method_id}; card refunds take 5-7 business days.",
                        "Done: {order_id} is cancelled (reason: {r.cancel_reason}), and {r.payment_history.1.amount} "
                        "dollars will be refunded to {r.payment_history.1.payment_method_id}."],
        },
        "modify_pending_order_address": {
            "goals": ["I just moved. Could you ship order {order_id} to my new address instead?",
                      "Order {order_id} is going to my old place. Please change the shipping address to {address}.",
                      "Can you update where {order_id} is delivered? New address: {address}."],
            "values": {"order_id": pending, "address": ADDRESSES},
            "ask": {"address": "Sure. What's the full new address, with the ZIP code?"},
            "say": {"address": ["{value}.", "Please use {value}."]},
            "results": [order(address="{address}")],
            "answers": ["Order {order_id} will now ship to {r.address.address1}, {r.address.city}, {r.address.state} "
                        "{r.address.zip}. It's still {r.status}.",
                        "Updated: {order_id} goes to {r.address.address1} in {r.address.city} ({r.address.zip})."],
        },
        "modify_pending_order_items": {
            "goals": ["In order {order_id}, please swap item {item_ids} for item {new_item_ids}, and use "
                      "{payment_method_id} for any difference.",
                      "I picked the wrong option in {order_id}. Can you change {item_ids} to {new_item_ids}? "
                      "Charge or refund {payment_method_id}.",
                      "Before order {order_id} ships, I'd like {new_item_ids} instead of {item_ids}; settle the price "
                      "difference with {payment_method_id}."],
            "cases": _swaps(_open(db), "pending"),
            "results": [order(status="pending (item modified)", items=[{
                "name": "{pick:" + product_names + "}", "product_id": "{id:##########}", "item_id": "{id:##########}",
                "price": "{int:19-480}.{pick:00|49|99}", "options": {"color": "{pick:black|white|blue|red}",
                                                                    "size": "{pick:S|M|L|XL}"}}])],
            "answers": ["Done: order {order_id} now has item {new_item_ids} instead of {item_ids}, and its status "
                        "is {r.status}. Any price difference was settled with {payment_method_id}.",
                        "Your order {order_id} is updated to item {new_item_ids}. Note that its items can't be "
                        "changed again."],
        },
        "modify_pending_order_payment": {
            "goals": ["Can I pay for order {order_id} with {payment_method_id} instead?",
                      "Please switch the payment on {order_id} to {payment_method_id}.",
                      "I'd rather use {payment_method_id} for order {order_id}. Can you change it?"],
            "cases": _spread(payment_changes),
            "results": [order(payment_history=[
                {"transaction_type": "payment", "amount": "{int:40-900}.49", "payment_method_id": "credit_card_{id:#######}"},
                {"transaction_type": "payment", "amount": "{int:40-900}.49", "payment_method_id": "{payment_method_id}"},
                {"transaction_type": "refund", "amount": "{int:40-900}.49", "payment_method_id": "credit_card_{id:#######}"}])],
            "answers": ["Order {order_id} is now paid with {payment_method_id} ({r.payment_history.1.amount} dollars); "
                        "the original payment is refunded.",
                        "Switched: {payment_method_id} was charged {r.payment_history.1.amount} dollars for {order_id}, "
                        "and {r.payment_history.2.payment_method_id} gets a refund."],
        },
        "return_delivered_order_items": {
            "goals": ["I'd like to return item {item_ids} from order {order_id}; refund it to {payment_method_id}.",
                      "The item {item_ids} in {order_id} doesn't fit. Can I send it back? Refund to {payment_method_id}, please.",
                      "Please start a return for {item_ids} from my order {order_id}, money back to {payment_method_id}."],
            "cases": _spread(returns),
            "results": [order(status="return requested", return_request={
                "item_ids": "{item_ids}", "payment_method_id": "{payment_method_id}",
                "refund_amount": "{int:19-480}.{pick:00|49|99}"})],
            "answers": ["Your return for order {order_id} is requested. {r.return_request.refund_amount} dollars go back "
                        "to {r.return_request.payment_method_id}, and you'll get an email on how to send the item back.",
                        "Done: order {order_id} is now '{r.status}', with a refund of {r.return_request.refund_amount} "
                        "dollars to {payment_method_id}."],
        },
        "exchange_delivered_order_items": {
            "goals": ["Can I exchange item {item_ids} from order {order_id} for item {new_item_ids}? Use "
                      "{payment_method_id} for any difference.",
                      "The {item_ids} I got in {order_id} is the wrong option; I'd like {new_item_ids} instead, "
                      "difference on {payment_method_id}.",
                      "Please exchange {item_ids} in my delivered order {order_id} for {new_item_ids}, settling with "
                      "{payment_method_id}."],
            "cases": _swaps(_open(db), "delivered"),
            "results": [order(status="exchange requested", exchange_request={
                "item_ids": "{item_ids}", "new_item_ids": "{new_item_ids}", "payment_method_id": "{payment_method_id}",
                "price_difference": "{int:-40-60}.{pick:00|50}"})],
            "answers": ["Your exchange for order {order_id} is requested: {item_ids} for {new_item_ids}. The price "
                        "difference of {r.exchange_request.price_difference} dollars is settled with {payment_method_id}.",
                        "Done: order {order_id} is now '{r.status}'. You'll get an email with return instructions "
                        "for {item_ids}."],
        },
        "modify_user_address": {
            "goals": ["I've moved. Please update the default address on my account {user_id} to {address}.",
                      "Can you change my account address? My user id is {user_id} and the new address is {address}.",
                      "My account {user_id} still has my old address. Could you update it?"],
            "values": {"user_id": [u["user_id"] for u in users], "address": ADDRESSES},
            "ask": {"address": "Of course. What's the new address, including the ZIP code?"},
            "say": {"address": ["{value}.", "It's {value}."]},
            "results": [{**user_result, "address": "{address}"}],
            "answers": ["Your default address is now {r.address.address1}, {r.address.city}, {r.address.state} "
                        "{r.address.zip}. Orders already placed keep their address.",
                        "Updated: account {user_id} now lives at {r.address.address1} in {r.address.city} ({r.address.zip})."],
        },
    }
    return {"pack": 1, "server": "synth/store", "tools": tools}


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
_Dumper.add_representer(dict, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v.items(),
                                                                flow_style=_flow(list(v.values()))))


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(pack_text(int(sys.argv[2]) if len(sys.argv) > 2 else 0), encoding="utf-8")
