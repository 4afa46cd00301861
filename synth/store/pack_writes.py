"""What each writing tool of the store's pack says: orders cancelled, changed, returned and exchanged, and the
account's address changed (``synth.store.pack_tools`` has the shapes and the reading tools)."""

from __future__ import annotations

from typing import Any

from synth.store.pack_tools import ADDRESSES, REASONS, Shop

# one of the customer's pending orders (the world's person is the customer the conversation is with)
PENDING = {"entity": "order", "of": "user_id", "where": {"status": "pending"}}


def _change(change: str, status: str, *params: str) -> dict[str, Any]:
    """The values of a change to one of the customer's orders that can take it, drawn from that one order:
    its id and the items, new items and payment method the change was written for."""
    where = {"status": status, change: True}
    order = {"entity": "order", "of": "user_id", "where": where}
    return {"order_id": order, **{p: {**order, "field": f"{change}_{p}"} for p in params}}


def _change_world(change: str, said: list[str], *fields: str) -> dict[str, Any]:
    """A change's world entry: the status (and reason) as the result says them, the other fields as the shop's own
    write made them (written ahead by synth.store.pack._after), so later reads see the change."""
    becomes = {f: f"{change}_{f}_after" for f in fields}
    return {"op": "update", "entity": "order", "by": "order_id", "changes": said, "becomes": becomes}


def write_tools(shop: Shop) -> dict[str, Any]:
    """The tools that change an order or the account, in the order the pack lists them."""
    return {
        "cancel_pending_order": _cancel_pending_order(shop),
        "modify_pending_order_address": _modify_pending_order_address(shop),
        "modify_pending_order_items": _modify_pending_order_items(shop),
        "modify_pending_order_payment": _modify_pending_order_payment(shop),
        "return_delivered_order_items": _return_delivered_order_items(shop),
        "exchange_delivered_order_items": _exchange_delivered_order_items(shop),
        "modify_user_address": _modify_user_address(shop),
    }


def _cancel_pending_order(shop: Shop) -> dict[str, Any]:
    """A pending order cancelled, for one of the two reasons the store accepts."""
    return {
        "world": _change_world("cancel", ["status", "cancel_reason"], "payment_history"),
        "goals": [
            "Please cancel order {order_id}. {reason}.",
            "I need to cancel {order_id}: {reason}.",
            "Can you cancel my order {order_id}? {reason}, sorry.",
            "I'd like to cancel an order I placed yesterday; {reason}.",
        ],
        "values": {"order_id": PENDING, "reason": REASONS},
        "ask": {
            "order_id": "I can help cancel it. What's the order number (it starts with #W)?",
            "reason": "May I ask why: is it no longer needed, or was it ordered by mistake?",
        },
        "say": {"order_id": ["It's {value}.", "{value}"], "reason": ["{value}.", "Honestly, {value}."]},
        "results": [
            shop.order(
                status="cancelled",
                cancel_reason="{reason}",
                payment_history=[
                    {
                        "transaction_type": "payment",
                        "amount": "{int:40-900}.99",
                        "payment_method_id": "credit_card_{id:#######}",
                    },
                    {
                        "transaction_type": "refund",
                        "amount": "{int:40-900}.99",
                        "payment_method_id": "credit_card_{id:#######}",
                    },
                ],
            )
        ],
        "answers": [
            "Order {order_id} is now {r.status}. The refund of {r.payment_history.1.amount} dollars goes back to "
            "{r.payment_history.1.payment_method_id}; card refunds take 5-7 business days.",
            "Done: {order_id} is cancelled (reason: {r.cancel_reason}), and {r.payment_history.1.amount} "
            "dollars will be refunded to {r.payment_history.1.payment_method_id}.",
        ],
    }


def _modify_pending_order_address(shop: Shop) -> dict[str, Any]:
    """A pending order's shipping address changed."""
    return {
        "world": {"op": "update", "entity": "order", "by": "order_id", "set": {"address": "address"}},
        "goals": [
            "I just moved. Could you ship order {order_id} to my new address instead?",
            "Order {order_id} is going to my old place. Please change the shipping address to {address}.",
            "Can you update where {order_id} is delivered? New address: {address}.",
        ],
        "values": {"order_id": PENDING, "address": ADDRESSES},
        "ask": {"address": "Sure. What's the full new address, with the ZIP code?"},
        "say": {"address": ["{value}.", "Please use {value}."]},
        "results": [shop.order(address="{address}")],
        "answers": [
            "Order {order_id} will now ship to {r.address.address1}, {r.address.city}, {r.address.state} "
            "{r.address.zip}. It's still {r.status}.",
            "Updated: {order_id} goes to {r.address.address1} in {r.address.city} ({r.address.zip}).",
        ],
    }


def _modify_pending_order_items(shop: Shop) -> dict[str, Any]:
    """A pending order's items swapped for other variants (possible once)."""
    return {
        "world": _change_world("swap", ["status"], "items", "payment_history"),
        "goals": [
            "In order {order_id}, please swap item {item_ids} for item {new_item_ids}, and use "
            "{payment_method_id} for any difference.",
            "I picked the wrong option in {order_id}. Can you change {item_ids} to {new_item_ids}? "
            "Charge or refund {payment_method_id}.",
            "Before order {order_id} ships, I'd like {new_item_ids} instead of {item_ids}; settle the price "
            "difference with {payment_method_id}.",
        ],
        "values": _change("swap", "pending", "item_ids", "new_item_ids", "payment_method_id"),
        "results": [
            shop.order(
                status="pending (item modified)",
                items=[
                    {
                        "name": "{pick:" + shop.product_names + "}",
                        "product_id": "{id:##########}",
                        "item_id": "{id:##########}",
                        "price": "{int:19-480}.{pick:00|49|99}",
                        "options": {"color": "{pick:black|white|blue|red}", "size": "{pick:S|M|L|XL}"},
                    }
                ],
            )
        ],
        "answers": [
            "Done: order {order_id} now has item {new_item_ids} instead of {item_ids}, and its status "
            "is {r.status}. Any price difference was settled with {payment_method_id}.",
            "Your order {order_id} is updated to item {new_item_ids}. Note that its items can't be changed again.",
        ],
    }


def _modify_pending_order_payment(shop: Shop) -> dict[str, Any]:
    """A pending order paid with another of the customer's methods."""
    return {
        "world": _change_world("repay", [], "payment_history"),
        "goals": [
            "Can I pay for order {order_id} with {payment_method_id} instead?",
            "Please switch the payment on {order_id} to {payment_method_id}.",
            "I'd rather use {payment_method_id} for order {order_id}. Can you change it?",
        ],
        "values": _change("repay", "pending", "payment_method_id"),
        "results": [
            shop.order(
                payment_history=[
                    {
                        "transaction_type": "payment",
                        "amount": "{int:40-900}.49",
                        "payment_method_id": "credit_card_{id:#######}",
                    },
                    {
                        "transaction_type": "payment",
                        "amount": "{int:40-900}.49",
                        "payment_method_id": "{payment_method_id}",
                    },
                    {
                        "transaction_type": "refund",
                        "amount": "{int:40-900}.49",
                        "payment_method_id": "credit_card_{id:#######}",
                    },
                ]
            )
        ],
        "answers": [
            "Order {order_id} is now paid with {payment_method_id} ({r.payment_history.1.amount} dollars); "
            "the original payment is refunded.",
            "Switched: {payment_method_id} was charged {r.payment_history.1.amount} dollars for {order_id}, "
            "and {r.payment_history.2.payment_method_id} gets a refund.",
        ],
    }


def _return_delivered_order_items(shop: Shop) -> dict[str, Any]:
    """Items of a delivered order returned, refunded to a method of the customer."""
    return {
        "world": _change_world("return", ["status"], "return_request", "payment_history"),
        "goals": [
            "I'd like to return item {item_ids} from order {order_id}; refund it to {payment_method_id}.",
            "The item {item_ids} in {order_id} doesn't fit. Can I send it back? Refund to {payment_method_id}, please.",  # noqa: E501
            "Please start a return for {item_ids} from my order {order_id}, money back to {payment_method_id}.",
        ],
        "values": _change("return", "delivered", "item_ids", "payment_method_id"),
        "results": [
            shop.order(
                status="return requested",
                return_request={
                    "item_ids": "{item_ids}",
                    "payment_method_id": "{payment_method_id}",
                    "refund_amount": "{int:19-480}.{pick:00|49|99}",
                },
            )
        ],
        "answers": [
            "Your return for order {order_id} is requested. {r.return_request.refund_amount} dollars go back "
            "to {r.return_request.payment_method_id}, and you'll get an email on how to send the item back.",
            "Done: order {order_id} is now '{r.status}', with a refund of {r.return_request.refund_amount} "
            "dollars to {payment_method_id}.",
        ],
    }


def _exchange_delivered_order_items(shop: Shop) -> dict[str, Any]:
    """Items of a delivered order exchanged for other variants."""
    return {
        "world": _change_world("exchange", ["status"], "exchange_request", "payment_history"),
        "goals": [
            "Can I exchange item {item_ids} from order {order_id} for item {new_item_ids}? Use "
            "{payment_method_id} for any difference.",
            "The {item_ids} I got in {order_id} is the wrong option; I'd like {new_item_ids} instead, "
            "difference on {payment_method_id}.",
            "Please exchange {item_ids} in my delivered order {order_id} for {new_item_ids}, settling with "
            "{payment_method_id}.",
        ],
        "values": _change("exchange", "delivered", "item_ids", "new_item_ids", "payment_method_id"),
        "results": [
            shop.order(
                status="exchange requested",
                exchange_request={
                    "item_ids": "{item_ids}",
                    "new_item_ids": "{new_item_ids}",
                    "payment_method_id": "{payment_method_id}",
                    "price_difference": "{int:-40-60}.{pick:00|50}",
                },
            )
        ],
        "answers": [
            "Your exchange for order {order_id} is requested: {item_ids} for {new_item_ids}. The price "
            "difference of {r.exchange_request.price_difference} dollars is settled with {payment_method_id}.",
            "Done: order {order_id} is now '{r.status}'. You'll get an email with return instructions for {item_ids}.",
        ],
    }


def _modify_user_address(shop: Shop) -> dict[str, Any]:
    """The account's default address changed (orders keep theirs)."""
    return {
        "world": {"op": "update", "entity": "user", "by": "user_id", "set": {"address": "address"}},
        "goals": [
            "I've moved. Please update the default address on my account {user_id} to {address}.",
            "Can you change my account address? My user id is {user_id} and the new address is {address}.",
            "My account {user_id} still has my old address. Could you update it?",
        ],
        "values": {"user_id": {"entity": "user"}, "address": ADDRESSES},
        "ask": {"address": "Of course. What's the new address, including the ZIP code?"},
        "say": {"address": ["{value}.", "It's {value}."]},
        "results": [{**shop.user_result, "address": "{address}"}],
        "answers": [
            "Your default address is now {r.address.address1}, {r.address.city}, {r.address.state} "
            "{r.address.zip}. Orders already placed keep their address.",
            "Updated: account {user_id} now lives at {r.address.address1} in {r.address.city} ({r.address.zip}).",
        ],
    }
