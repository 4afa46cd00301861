"""The offline author for synth's store: customer-service conversations on real state.

What the customer knows (their email, or name and ZIP, their order, what they want) comes from the
store's seed database, as a tau-bench task's instructions do; what the assistant knows comes only from
tool results. The assistant follows the store's policy: it authenticates the customer first, reads the
account and the order, lists what will change and waits for a "yes" before a write, and writes once.
Some requests break the rules: the assistant refuses by policy (cancel a delivered order: no write) or
the store refuses the write (a gift card that cannot cover the difference) and the assistant explains.
Every call goes through a ``ToolRuntime`` on a fresh store, so the gold path chains real values: the user
id from the lookup, the order id from the account, item ids from the order, variants from the product.
"""

from __future__ import annotations

from typing import Any

from synth.offline.shop_turns import (
    WRONG_STATUS,
    Customer,
    Dialog,
    ShopFacts,
    address_text,
    cents,
    item_list,
    method_text,
    option_text,
    paid_total,
    refund_note,
    usd,
)
from synth.records import (
    Plan,
    Query,
    Scenario,
    ServerSpec,
    Trajectory,
)
from synth.runtime.base import ToolRuntime

WRITES = {
    "cancel_pending_order": "cancel",
    "modify_pending_order_address": "order_address",
    "modify_pending_order_items": "swap",
    "modify_pending_order_payment": "payment",
    "return_delivered_order_items": "return",
    "exchange_delivered_order_items": "exchange",
    "modify_user_address": "user_address",
}
READS = {
    "get_order_details": "status",
    "find_user_id_by_email": "status",
    "find_user_id_by_name_zip": "balance",
    "get_user_details": "balance",
    "get_product_details": "variants",
    "list_all_product_types": "variants",
}
P_POLICY_REFUSAL = 0.25  # the request breaks a rule the assistant must see from the order's status
P_ORDER_KNOWN = 0.5  # customers who say the order id up front


class ShopAuthor:
    """Writes one scenario's conversation on a fresh store reached through ``runtime``: one method a request,
    each saying its turns through the ``Dialog`` (synth.offline.shop_turns)."""

    def __init__(self, scenario: Scenario, server: ServerSpec, facts: ShopFacts, seed: int, runtime: ToolRuntime):
        self.scenario = scenario
        self.dialog = Dialog(scenario, server, facts, seed, runtime)
        self.rng = self.dialog.rng  # one stream for the dialog and the requests, drawn in conversation order

    # --- the conversation --------------------------------------------------------------

    def write(self) -> tuple[Query, Plan, Trajectory]:
        primary = self.scenario.tools[0]
        kind = WRITES.get(primary) or READS.get(primary) or "status"
        refuse = kind in WRONG_STATUS and self.rng.random() < P_POLICY_REFUSAL
        customer = self.dialog.customer(kind, refuse)
        getattr(self, f"_{kind}")(customer, refuse)
        return self.dialog.records()

    # --- one kind of request each ----------------------------------------------------------

    def _cancel(self, customer: Customer, refuse: bool) -> None:
        reason = self.rng.choice(("no longer needed", "ordered by mistake"))
        why = {
            "no longer needed": ("I don't need it anymore", "I found it cheaper elsewhere and don't need it now"),
            "ordered by mistake": ("I ordered it by mistake", "I placed it by accident"),
        }[reason]
        says = self.rng.random() < P_ORDER_KNOWN
        need = self.rng.choice(
            (
                "I'd like to cancel an order; {w}.",
                "Please cancel my order, {w}.",
                "Can you cancel an order for me? {W}.",
            )
        ).format(w=self.rng.choice(why), W=self.rng.choice(why).capitalize())
        details = self.dialog.identify(customer, need, says)
        order = self.dialog.find_order(customer, details, says)
        if order["status"] not in ("pending", "pending (item modified)"):
            return self.dialog.assistant_says(
                self.dialog.not_allowed(order, "cancelled", "Only pending orders can be cancelled.")
            )
        total = paid_total(order)
        self.dialog.confirm(
            f"Order {order['order_id']} is pending with {item_list(order['items'])}. I'll cancel it with the "
            f'reason "{reason}"; the {total} you paid goes back to the original payment method. Shall I go ahead?'
        )
        result = self.dialog.call("cancel_pending_order", {"order_id": order["order_id"], "reason": reason})
        self.dialog.done(result, lambda r: f"Done: order {r['order_id']} is cancelled. " + refund_note(r))

    def _order_address(self, customer: Customer, refuse: bool) -> None:
        said, address = self.dialog.new_address()
        says = self.rng.random() < P_ORDER_KNOWN
        need = self.rng.choice(
            (
                "I gave the wrong shipping address for an order. It should go to {a}.",
                "Can you send my order to {a} instead?",
                "I've moved: please ship my order to {a}.",
            )
        ).format(a=said)
        details = self.dialog.identify(customer, need, says)
        order = self.dialog.find_order(customer, details, says)
        if order["status"] not in ("pending", "pending (item modified)"):
            return self.dialog.assistant_says(
                self.dialog.not_allowed(order, "re-addressed", "Only pending orders can change their address.")
            )
        self.dialog.confirm(
            f"Order {order['order_id']} is pending. I'll change its shipping address from "
            f"{address_text(order['address'])} to {said}. Shall I go ahead?"
        )
        result = self.dialog.call("modify_pending_order_address", {"order_id": order["order_id"], "address": address})
        self.dialog.done(
            result, lambda r: f"Done: order {r['order_id']} will now ship to {address_text(r['address'])}."
        )

    def _user_address(self, customer: Customer, refuse: bool) -> None:
        said, address = self.dialog.new_address()
        need = self.rng.choice(
            ("I moved. Please update the address on my account to {a}.", "Can you change my default address to {a}?")
        ).format(a=said)
        details = self.dialog.identify(customer, need, False)
        self.dialog.confirm(
            f"Thanks, {details['name']['first_name']}. I'll change your account's address from "
            f"{address_text(details['address'])} to {said}; orders already placed keep theirs. Shall I go ahead?"
        )
        result = self.dialog.call("modify_user_address", {"user_id": details["user_id"], "address": address})
        self.dialog.done(result, lambda r: f"Done: your account's address is now {address_text(r['address'])}.")

    def _payment(self, customer: Customer, refuse: bool) -> None:
        says = self.rng.random() < P_ORDER_KNOWN
        details = self.dialog.identify(
            customer,
            self.rng.choice(
                (
                    "I want to pay for an order with a different payment method.",
                    "Can I switch the card I used on an order?",
                )
            ),
            says,
        )
        order = self.dialog.find_order(customer, details, says)
        paid = order["payment_history"][0]["payment_method_id"] if order["payment_history"] else None
        others = [m for m in details["payment_methods"] if m["payment_method_id"] != paid]
        if order["status"] not in ("pending", "pending (item modified)") or not others:
            return self.dialog.assistant_says(
                self.dialog.not_allowed(order, "changed", "Only pending orders can change their payment method.")
            )
        self.dialog.assistant_says(
            f"Order {order['order_id']} is {order['status']} and was paid with {paid} "
            f"({paid_total(order)}). Which payment method should it use instead: "
            + "; ".join(f"{method_text(m)} ({m['payment_method_id']})" for m in others)
            + "?"
        )
        choice = self.rng.choice(others)
        self.dialog.user_says(
            self.rng.choice(("Please use my {m} instead.", "The {m}, please.", "Switch it to my {m}.")).format(
                m=method_text(choice)
            )
        )
        self.dialog.confirm(
            f"Order {order['order_id']} was paid with {paid}. I'll charge {paid_total(order)} to your "
            f"{method_text(choice)} ({choice['payment_method_id']}) and refund the original payment. Shall I go ahead?"
        )
        result = self.dialog.call(
            "modify_pending_order_payment",
            {"order_id": order["order_id"], "payment_method_id": choice["payment_method_id"]},
        )
        self.dialog.done(
            result,
            lambda r: f"Done: order {r['order_id']} is now paid with {choice['payment_method_id']}. " + refund_note(r),
        )

    def _swap(self, customer: Customer, refuse: bool) -> None:
        self._variant_change(customer, refuse, "modify_pending_order_items", ("pending",), "changed")

    def _exchange(self, customer: Customer, refuse: bool) -> None:
        self._variant_change(customer, refuse, "exchange_delivered_order_items", ("delivered",), "exchanged")

    def _variant_change(
        self, customer: Customer, refuse: bool, tool: str, statuses: tuple[str, ...], verb: str
    ) -> None:
        known = customer.order
        item = next((i for i in known.items if self.dialog.other_variant(i) is not None), known.items[0])  # type: ignore[union-attr]
        target = self.dialog.other_variant(item)
        wanted = ", ".join(f"{k} {v}" for k, v in (target.options if target else {}).items()) or "another version"
        says = self.rng.random() < P_ORDER_KNOWN
        need = self.rng.choice(
            (
                "I'd like to swap the {n} in my order for the one with {w}.",
                "Can I get the {n} I ordered in {w} instead?",
                "The {n} I ordered isn't right; I want the {w} version.",
            )
        ).format(n=item.name.lower(), w=wanted)
        details = self.dialog.identify(customer, need, says)
        order = self.dialog.find_order(customer, details, says)
        if order["status"] not in statuses and not (verb == "changed" and order["status"] == "pending (item modified)"):
            rule = (
                "Only pending orders can have their items changed."
                if verb == "changed"
                else "Only delivered orders can be exchanged."
            )
            return self.dialog.assistant_says(self.dialog.not_allowed(order, verb, rule))
        line = next(i for i in order["items"] if i["item_id"] == item.item_id)
        product = self.dialog.call("get_product_details", {"product_id": line["product_id"]})
        variant = next(
            (v for v in product["variants"] if v["available"] and v["options"] == (target.options if target else None)),
            None,
        )
        if variant is None:
            return self.dialog.assistant_says(
                f"I'm sorry: the {line['name'].lower()} with {wanted} is not available right now, "
                "so I can't make that change."
            )
        self._settle_swap(order, details["payment_methods"], line, variant, tool, verb)

    def _settle_swap(
        self,
        order: dict[str, Any],
        methods: list[dict[str, Any]],
        line: dict[str, Any],
        variant: dict[str, Any],
        tool: str,
        verb: str,
    ) -> None:
        """The price difference, the payment method that settles it, the customer's yes, and the change."""
        difference = cents(variant["price"]) - cents(line["price"])
        money = (
            "no price difference"
            if difference == 0
            else f"{usd(abs(difference))} " + ("to pay" if difference > 0 else "back to you")
        )
        self.dialog.assistant_says(
            f"The {line['name'].lower()} with {option_text(variant['options'])} is in stock at "
            f"${variant['price']} (yours was ${line['price']}), so that's {money}. Which payment method "
            "should settle the difference: " + "; ".join(method_text(m) for m in methods) + "?"
        )
        method = self.dialog.pick_method(methods, difference)
        self.dialog.user_says(
            self.rng.choice(("Use my {m}.", "The {m}, please.", "Put it on my {m}.")).format(m=method_text(method))
        )
        self.dialog.confirm(
            f"In order {order['order_id']} I'll swap the {line['name'].lower()} ({option_text(line['options'])}, "
            f"${line['price']}) for {option_text(variant['options'])} at ${variant['price']}: {money}, settled with "
            f"your {method_text(method)}. Shall I go ahead?"
        )
        result = self.dialog.call(
            tool,
            {
                "order_id": order["order_id"],
                "item_ids": [line["item_id"]],
                "new_item_ids": [variant["item_id"]],
                "payment_method_id": method["payment_method_id"],
            },
        )
        self.dialog.done(
            result,
            lambda r: (
                f"Done: order {r['order_id']} is now '{r['status']}'; the "
                f"{line['name'].lower()} becomes {option_text(variant['options'])}"
                + ("." if verb == "changed" else ", and you'll get instructions for sending the old one back.")
            ),
        )

    def _return(self, customer: Customer, refuse: bool) -> None:
        known = customer.order
        item = self.rng.choice(known.items)  # type: ignore[union-attr]
        says = self.rng.random() < P_ORDER_KNOWN
        details = self.dialog.identify(
            customer,
            self.rng.choice(
                (
                    "I'd like to return the {n} I bought.",
                    "The {n} I got doesn't work for me; I want to return it.",
                    "How do I send back the {n} from my order?",
                )
            ).format(n=item.name.lower()),
            says,
        )
        order = self.dialog.find_order(customer, details, says)
        if order["status"] != "delivered":
            return self.dialog.assistant_says(
                self.dialog.not_allowed(order, "returned", "Only delivered orders can be returned.")
            )
        line = next(i for i in order["items"] if i["item_id"] == item.item_id)
        paid = order["payment_history"][0]["payment_method_id"]
        self.dialog.confirm(
            f"Order {order['order_id']} was delivered. I'll request a return of the {line['name'].lower()} "
            f"({option_text(line['options'])}); ${line['price']} goes back to the original payment method ({paid}). "
            "Shall I go ahead?"
        )
        result = self.dialog.call(
            "return_delivered_order_items",
            {"order_id": order["order_id"], "item_ids": [line["item_id"]], "payment_method_id": paid},
        )
        self.dialog.done(
            result,
            lambda r: (
                f"Done: the return for order {r['order_id']} is requested; you'll get an email "
                f"with instructions, and ${line['price']} is refunded to {paid} once it arrives."
            ),
        )

    def _status(self, customer: Customer, refuse: bool) -> None:
        says = self.rng.random() < P_ORDER_KNOWN
        details = self.dialog.identify(
            customer,
            self.rng.choice(
                (
                    "My order hasn't arrived yet. Where is it?",
                    "Can you check on the status of my order?",
                    "I'm waiting on an order; what's happening with it?",
                )
            ),
            says,
        )
        order = self.dialog.find_order(customer, details, says)
        status = order["status"]
        tracking = [t for f in order["fulfillments"] for t in [f["tracking_id"]]]
        if status == "delivered":
            text = (
                f"Order {order['order_id']} shows as delivered"
                + (f" (tracking {tracking[0]})" if tracking else "")
                + ". If it isn't with you, check with neighbours or the building's mailroom; I can also help with a return."  # noqa: E501
            )
        elif status == "processed":
            text = f"Order {order['order_id']} has been processed and shipped" + (
                f"; the tracking number is {tracking[0]}." if tracking else "."
            )
        else:
            text = f"Order {order['order_id']} is {status}: it hasn't shipped yet, so it can still be changed or cancelled."  # noqa: E501
        self.dialog.assistant_says(text)

    def _balance(self, customer: Customer, refuse: bool) -> None:
        question = self.rng.choice(
            (
                "How much is left on my gift card?",
                "What payment methods do I have saved with you?",
                "Which payment methods are on my account?",
            )
        )
        details = self.dialog.identify(customer, question, False)
        cards = [m for m in details["payment_methods"] if m["source"] == "gift_card"]
        listed = "; ".join(f"{method_text(m)} ({m['payment_method_id']})" for m in details["payment_methods"])
        count = len(details["payment_methods"])
        text = f"You have {count} saved payment method{'s' if count != 1 else ''}: {listed}."
        if "gift card" in question:
            text = (
                " ".join(f"Your gift card {m['payment_method_id']} has ${m['balance']} left." for m in cards)
                if cards
                else f"There is no gift card on your account. {text}"
            )
        self.dialog.assistant_says(text)

    def _variants(self, customer: Customer, refuse: bool) -> None:
        item = self.rng.choice(customer.order.items)  # type: ignore[union-attr]
        says = True
        details = self.dialog.identify(
            customer, f"Does the {item.name.lower()} in my order come in other versions?", says
        )
        order = self.dialog.find_order(customer, details, says)
        line = next(i for i in order["items"] if i["item_id"] == item.item_id)
        product = self.dialog.call("get_product_details", {"product_id": line["product_id"]})
        available = [v for v in product["variants"] if v["available"] and v["item_id"] != line["item_id"]]
        shown = "; ".join(f"{option_text(v['options'])} at ${v['price']}" for v in available[:4])
        self.dialog.assistant_says(
            f"Yes: besides yours ({option_text(line['options'])}), the {product['name'].lower()} is in stock as "
            f"{shown}."
            if available
            else f"Right now no other version of the {product['name'].lower()} is in stock."
        )


def write_shop(
    scenario: Scenario, server: ServerSpec, facts: ShopFacts, seed: int, runtime: ToolRuntime
) -> tuple[Query, Plan, Trajectory]:
    return ShopAuthor(scenario, server, facts, seed, runtime).write()
