"""What each reading tool of the store's pack says: its requests, value pools, result templates and answers
(the writing tools: ``synth.store.pack_writes``).

Written from a ``Shop`` (rows of the seed store, gathered by ``synth.store.pack``); the result
templates follow the shapes the real server returns.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

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
    "order_id": "{order_id}",
    "user_id": "{pick:USERS}",
    "status": "pending",
    "address": {
        "address1": "{int:10-9999} {pick:Oak|Maple|Cedar|Pine|Elm|Lake|Hill} {pick:St|Ave|Rd|Ln|Blvd}",
        "address2": "{pick:|Apt 4|Suite 210|Unit 12|Apt 7B}",
        "city": "{fake:city}",
        "state": "{pick:CA|NY|TX|OR|WA|IL|FL|MA}",
        "country": "USA",
        "zip": "{id:#####}",
    },
    "items": [
        {
            "$repeat": "1-3",
            "$item": {
                "name": "{pick:PRODUCTS}",
                "product_id": "{id:##########}",
                "item_id": "{id:##########}",
                "price": "{int:19-480}.{pick:00|49|99|25}",
                "options": {"color": "{pick:black|white|blue|red|green|grey}", "size": "{pick:S|M|L|XL}"},
            },
        }
    ],
    "fulfillments": [],
    "payment_history": [
        {
            "transaction_type": "payment",
            "amount": "{int:40-900}.{pick:00|49|99|25}",
            "payment_method_id": "{pick:credit_card|paypal|gift_card}_{id:#######}",
        }
    ],
    "cancel_reason": None,
    "return_request": None,
    "exchange_request": None,
}
REASONS = {
    "pool": ["no longer needed", "ordered by mistake"],
    "phrase": {"no longer needed": "I don't need it anymore", "ordered by mistake": "I ordered it by mistake"},
}


@dataclass
class Shop:
    """What the pack is written from: rows of the seed store, in the states each tool needs."""

    users: list[sqlite3.Row]
    products: list[sqlite3.Row]
    some_products: list[sqlite3.Row]  # a few, spread over the catalog
    people: list[dict[str, Any]]  # the customers of the world, as the server returns them
    orders: list[dict[str, Any]]  # all their orders, each marked with the changes it can take
    catalog: list[dict[str, Any]]  # the products asked about (some, and those in orders) as the server returns them

    @property
    def world(self) -> dict[str, Any]:
        """One customer per conversation (the person), their orders, and the products they ask about (a
        product's variants are the shop's: its options, prices and what is in stock)."""
        return {
            "person": "user",
            "entities": {
                "user": {"id": "user_id", "seed": self.people},
                "order": {"id": "order_id", "seed": self.orders},
                "product": {"id": "product_id", "seed": self.catalog},
            },
        }

    @property
    def user_ids(self) -> str:
        return "|".join(u["user_id"] for u in self.users)

    @property
    def product_names(self) -> str:
        return "|".join(p["name"] for p in self.products)

    @property
    def type_list(self) -> list[dict[str, Any]]:
        return [{"name": p["name"], "product_id": p["product_id"]} for p in self.products]

    def found(self, by: str) -> list[dict[str, Any]]:
        """A lookup's result: the account ``by`` (email, zip) belongs to, never a customer drawn at random."""
        rows = "|".join(f"{u[by]}={u['user_id']}" for u in self.users)
        return [{"user_id": f"{{table:{by}|{rows}}}"}]

    @property
    def user_result(self) -> dict[str, Any]:
        return {
            "user_id": "{user_id}",
            "name": {"first_name": "{fake:first_name}", "last_name": "{fake:last_name}"},
            "email": "{fake:user_name}@example.com",
            "address": ORDER["address"],
            "payment_methods": [
                {
                    "source": "credit_card",
                    "payment_method_id": "credit_card_{id:#######}",
                    "brand": "{pick:visa|mastercard|amex|discover}",
                    "last_four": "{id:####}",
                },
                {
                    "source": "gift_card",
                    "payment_method_id": "gift_card_{id:#######}",
                    "balance": "{int:0-300}.{pick:00|50|25|75}",
                },
            ],
            "orders": [{"$repeat": "1-4", "$item": "#W{id:#######}"}],
        }

    def order(self, **fields: Any) -> dict[str, Any]:
        """The Order shape with ``fields`` replaced, its user and product pools filled in."""
        text = json.dumps({**ORDER, **fields}).replace("USERS", self.user_ids).replace("PRODUCTS", self.product_names)
        return json.loads(text)


# what a customer asks of their own account, said from it (the person is thanked once they are found)
THANKED = "Thank you, {first:first_name}: that's account {first:r.user_id}. {items}"
GIFT_CARD = {
    "ask": "gift card",
    "when": "r.payment_methods has gift_card",
    "say": "Your gift card {each:r.payment_methods[source=gift_card]|$payment_method_id has $$balance left}.",
    "otherwise": "There's no gift card on your account; you pay with {each:r.payment_methods|$payment_method_id}.",
}
PAYMENT_IDS = "{each:r.payment_methods|$payment_method_id}"
ORDERS = {"ask": "orders", "say": "You have {count:r.orders} orders with us: {each:r.orders}."}


def read_tools(shop: Shop) -> dict[str, Any]:
    """The tools that read: finding the customer, their account, orders and the catalog."""
    return {
        "find_user_id_by_email": _find_user_id_by_email(shop),
        "find_user_id_by_name_zip": _find_user_id_by_name_zip(shop),
        "get_user_details": _get_user_details(shop),
        "get_order_details": _get_order_details(shop),
        "get_product_details": _get_product_details(shop),
        "list_all_product_types": _list_all_product_types(shop),
    }


def _find_user_id_by_email(shop: Shop) -> dict[str, Any]:
    """The customer found by the email on their account (the usual first step)."""
    return {
        "world": {"op": "read", "entity": "user", "by": "email", "key": "email"},
        "goals": [
            "Hi, I need some help with an order. My email is {email}.",
            "I'd like to change something I bought last week. The account is under {email}.",
            "Can you pull up my account? I signed up with {email}.",
            "Hello! I have a question about a purchase; you can find me as {email}.",
            "I want to return something but I don't have my order number handy.",
        ],
        "values": {"email": {"entity": "user", "field": "email"}},
        "ask": {"email": "I can help with that. First, what's the email address on your account?"},
        "say": {"email": ["It's {value}.", "{value}", "Sure, {value}."]},
        "results": shop.found("email"),
        "answers": [
            "Thanks, I found your account ({r.user_id}). What would you like to do today?",
            "You're verified: your account is {r.user_id}. How can I help with your order?",
        ],
        "failures": [
            {
                "label": "unable_to_accomplish",
                "result": {
                    "error": "No customer has the email '{email}'. Check the spelling, or find the "
                    "customer by first name, last name and ZIP code."
                },
                "answer": "I couldn't find an account with {email}. Could you double-check it, or give me "
                "your full name and ZIP code instead?",
            }
        ],
        "feeds": [
            {
                "to": "get_user_details",
                "param": "user_id",
                "path": "user_id",
                "goals": [
                    "My email is {email}. Which cards do I have saved with you?",
                    "I'm {email}. What's the shipping address on my account right now?",
                ],
            },
            {
                "to": "modify_user_address",
                "param": "user_id",
                "path": "user_id",
                "goals": [
                    "My account email is {email}. I've moved: please make {address} my default address.",
                    "This is {email}. Could you update my address on file to {address}?",
                ],
            },
        ],
    }


def _find_user_id_by_name_zip(shop: Shop) -> dict[str, Any]:
    """The customer found by name and ZIP code, when they do not know their email."""
    return {
        "world": {"op": "read", "entity": "user", "by": "zip", "key": "zip"},
        "goals": [
            "I can't remember which email I used. I'm {first_name} {last_name} and my ZIP code is {zip}.",
            "This is {first_name} {last_name}, ZIP {zip}. I need help with an order.",
            "Hi, {first_name} {last_name} here. I lost access to my old email; my ZIP is {zip}.",
        ],
        "values": {f: {"entity": "user", "field": f} for f in ("first_name", "last_name", "zip")},
        "ask": {"zip": "Thanks. And what's the ZIP code of your default address?"},
        "say": {"zip": ["{value}.", "It's {value}."]},
        "results": shop.found("zip"),
        "answers": [
            "Thank you, {first_name}. I found your account ({r.user_id}). What can I do for you?",
            "Got it: you're verified as {r.user_id}. What do you need help with?",
        ],
        "feeds": [
            {
                "to": "get_user_details",
                "param": "user_id",
                "path": "user_id",
                "goals": [
                    {
                        "text": "I'm {first_name} {last_name}, ZIP {zip}. How much is left on my gift card?",
                        "answer": THANKED,
                        "items": [GIFT_CARD],
                    },
                    {
                        "text": "{first_name} {last_name} here, ZIP code {zip}. Which orders do I have with you?",
                        "answer": THANKED,
                        "items": [ORDERS],
                    },
                ],
            }
        ],
    }


def _get_user_details(shop: Shop) -> dict[str, Any]:
    """A customer's account: payment methods, default address and orders."""
    return {
        "world": {"op": "read", "entity": "user", "by": "user_id"},
        "goals": [
            {
                "text": "My user id is {user_id}. Which payment methods do I have on file?",
                "items": [{"ask": "payment methods", "say": "On file for {user_id}: " + PAYMENT_IDS + "."}],
            },
            {"text": "Can you check how much is left on my gift card? My account is {user_id}.", "items": [GIFT_CARD]},
            {
                "text": "What address do you have for me? The account id is {user_id}.",
                "items": [
                    {
                        "ask": "what address",
                        "say": "The address on account {user_id} is {r.address.address1}, {r.address.city}, "
                        "{r.address.state} {r.address.zip}.",
                    }
                ],
            },
            {"text": "I want to see all the orders on my account, {user_id}.", "items": [ORDERS]},
        ],
        "values": {"user_id": {"entity": "user"}},
        "results": [shop.user_result],
        "answers": [
            "Your account {user_id} has {count:r.payment_methods} saved payment methods; the gift card "
            "{r.payment_methods.1.payment_method_id} has {r.payment_methods.1.balance} dollars left. "
            "You have {count:r.orders} orders, starting with {r.orders.0}.",
            "On file: a {r.payment_methods.0.brand} card ending in {r.payment_methods.0.last_four} and a gift "
            "card with {r.payment_methods.1.balance} dollars. Your default address is "
            "{r.address.address1}, {r.address.city}, {r.address.state} {r.address.zip}.",
        ],
    }


def _get_order_details(shop: Shop) -> dict[str, Any]:
    """One order in any status: its items, address and payments."""
    return {
        "world": {"op": "read", "entity": "order", "by": "order_id"},
        "goals": [
            "Where is my order {order_id}? It's been over a week.",
            "Can you check the status of order {order_id} for me?",
            "What exactly did I buy in order {order_id}, and how much did I pay?",
            "Has order {order_id} shipped yet? I need it before the weekend.",
            "I'd like to know which card I paid order {order_id} with.",
        ],
        "values": {"order_id": {"entity": "order", "of": "user_id"}},
        "ask": {"order_id": "Sure. What's the order number? It starts with #W."},
        "say": {"order_id": ["It's {value}.", "{value}", "The order number is {value}."]},
        "results": [shop.order(status="{pick:pending|processed|delivered}")],
        "answers": [
            "Order {order_id} is {r.status}. It has {count:r.items} item(s), starting with the "
            "{r.items.0.name} ({r.items.0.price} dollars), and was paid with {r.payment_history.0.payment_method_id}.",  # noqa: E501
            "Here's {order_id}: status {r.status}, shipping to {r.address.address1}, {r.address.city}. "
            "The first item is a {r.items.0.name} at {r.items.0.price} dollars.",
        ],
        "feeds": [
            {
                "to": "get_product_details",
                "param": "product_id",
                "path": "items.0.product_id",
                "goals": [
                    "I have order {order_id} coming. Which other versions of the first item do you have?",
                    "In order {order_id}, is the first item also sold in other colors or sizes?",
                ],
            }
        ],
    }


# a product's variants as the answer says them: item 1234567890 (color black, size M) at 49.99 dollars (in stock: yes)
VARIANTS = "{each:r.variants|item $item_id ($options) at $price dollars (in stock: $available)}"


def _get_product_details(shop: Shop) -> dict[str, Any]:
    """A product's variants, the options an exchange or a swap chooses from."""
    return {
        "world": {"op": "read", "entity": "product", "by": "product_id"},
        "goals": [
            {
                "text": "Which variants of product {product_id} are in stock?",
                "answer": "The {r.name} comes in {count:r.variants} versions: {items}.",
                "items": [{"ask": "which are in stock", "say": VARIANTS}],
            },
            {
                "text": "What options does product {product_id} come in, and at what prices?",
                "answer": "The {r.name} comes in {count:r.variants} versions: {items}.",
                "items": [{"ask": "options and prices", "say": VARIANTS}],
            },
            {
                "text": "Is product {product_id} available in another option? I'd like to swap mine.",
                "answer": "The {r.name} comes in {count:r.variants} versions: {items}. Any of those in stock can be "
                "swapped in: tell me which you'd like and the order it's for.",
                "items": [{"ask": "the other options", "say": VARIANTS}],
            },
        ],
        "values": {"product_id": [p["product_id"] for p in shop.some_products]},
        "results": [
            {
                "product_id": "{product_id}",
                "name": "{pick:" + shop.product_names + "}",
                "variants": [
                    {
                        "$repeat": "2-5",
                        "$item": {
                            "item_id": "{id:##########}",
                            "options": {"color": "{pick:black|white|blue|red|green}", "size": "{pick:S|M|L|XL}"},
                            "price": "{int:19-480}.{pick:00|49|99}",
                            "available": True,
                        },
                    }
                ],
            }
        ],
        "answers": [
            "Product {product_id} is the {r.name}, in {count:r.variants} versions: " + VARIANTS + ".",
            "The {r.name} ({product_id}) has {count:r.variants} versions: " + VARIANTS + ".",
        ],
    }


def _list_all_product_types(shop: Shop) -> dict[str, Any]:
    """The whole catalog, one product id per type."""
    return {
        "goals": [
            "What kinds of products do you sell?",
            "Do you carry anything for the kitchen? What's in the catalog?",
            "I'm shopping for a gift. Which product types do you have?",
        ],
        "results": [{"product_types": shop.type_list}],
        "answers": [
            "We carry {count:r.product_types} product types, from {r.product_types.0.name} and "
            "{r.product_types.1.name} to {r.product_types.49.name}.",
            "The catalog has {count:r.product_types} kinds of products, including {r.product_types.10.name}, "
            "{r.product_types.20.name} and {r.product_types.30.name}.",
        ],
        "feeds": [
            {
                "to": "get_product_details",
                "param": "product_id",
                "path": "product_types.0.product_id",
                "goals": ["Show me what you sell, then tell me the options for the first product on the list."],
            }
        ],
    }
