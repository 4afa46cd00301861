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

from dataclasses import dataclass
from typing import Any

from synth.offline.scenario import rng_for
from synth.records import (
    Message,
    Plan,
    PlanStep,
    Query,
    Scenario,
    ServerSpec,
    ToolCall,
    Trajectory,
    content_hash,
    make_id,
)
from synth.runtime.base import ToolResult, ToolRuntime, run_sync
from synth.store.server import INSTRUCTIONS
from synth.store.shop import Store
from synth.templates import render

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
STATUS_OF = {
    "cancel": ("pending",),
    "order_address": ("pending",),
    "swap": ("pending",),
    "payment": ("pending",),
    "return": ("delivered",),
    "exchange": ("delivered",),
    "status": ("processed", "delivered", "pending"),
    "variants": ("pending", "delivered", "processed"),
}
WRONG_STATUS = {
    "cancel": ("delivered", "processed"),
    "order_address": ("processed", "delivered"),
    "return": ("pending", "processed"),
    "exchange": ("pending",),
    "swap": ("processed",),
}
P_POLICY_REFUSAL = 0.25  # the request breaks a rule the assistant must see from the order's status
P_EMAIL = 0.65  # customers who give their email (the others give name and ZIP)
P_ORDER_KNOWN = 0.5  # customers who say the order id up front
NEW_ADDRESSES = (
    ("4059 Mt Lee Dr", "", "Los Angeles", "CA", "90068"),
    ("350 Fifth Avenue", "Apt 12B", "New York", "NY", "10118"),
    ("500 S Buena Vista St", "", "Burbank", "CA", "91521"),
    ("1600 Amphitheatre Pkwy", "", "Mountain View", "CA", "94043"),
    ("233 S Wacker Dr", "Suite 400", "Chicago", "IL", "60606"),
    ("700 Pike St", "", "Seattle", "WA", "98101"),
    ("1 Dr Carlton B Goodlett Pl", "", "San Francisco", "CA", "94102"),
    ("100 Congress Ave", "Unit 5", "Austin", "TX", "78701"),
    ("2 Seaport Ln", "", "Boston", "MA", "02210"),
    ("55 Water St", "Apt 3C", "Brooklyn", "NY", "11201"),
)


class ShopFacts:
    """The seed database, read as the customers know it: which orders they have and in what state."""

    def __init__(self, store: Store):
        self.store = store
        rows = self.store.conn.execute("SELECT order_id, user_id, status FROM orders ORDER BY order_id").fetchall()
        self.by_status: dict[str, list[tuple[str, str]]] = {}
        for order_id, user_id, status in rows:
            self.by_status.setdefault(status, []).append((order_id, user_id))
        self.users = [r[0] for r in self.store.conn.execute("SELECT user_id FROM users ORDER BY user_id")]

    def close(self) -> None:
        self.store.close()


@dataclass
class _Customer:
    user: Any  # synth.store.models.User
    order: Any | None  # synth.store.models.Order


class ShopAuthor:
    """Writes one scenario's conversation on a fresh store reached through ``runtime``."""

    def __init__(self, scenario: Scenario, server: ServerSpec, facts: ShopFacts, seed: int, runtime: ToolRuntime):
        self.scenario, self.server, self.facts, self.runtime = scenario, server, facts, runtime
        self.rng = rng_for(seed, "shop", scenario.id)
        self.messages: list[Message] = [
            Message(
                role="system", content=render("conversation.system.j2", server=server) + "\n\n" + INSTRUCTIONS.strip()
            )
        ]
        self.steps: list[tuple[str, dict[str, Any]]] = []
        self.first = ""
        self.asked: list[str] = []

    # --- the conversation --------------------------------------------------------------

    def write(self) -> tuple[Query, Plan, Trajectory]:
        primary = self.scenario.tools[0]
        kind = WRITES.get(primary) or READS.get(primary) or "status"
        refuse = kind in WRONG_STATUS and self.rng.random() < P_POLICY_REFUSAL
        customer = self._customer(kind, refuse)
        getattr(self, f"_{kind}")(customer, refuse)
        return self._records()

    def _customer(self, kind: str, refuse: bool) -> _Customer:
        if kind in ("user_address", "balance"):
            user_id = self.rng.choice(self.facts.users)
            return _Customer(self.facts.store.user(user_id), None)
        statuses = WRONG_STATUS[kind] if refuse else STATUS_OF[kind]
        for _ in range(50):
            order_id, user_id = self.rng.choice(self.facts.by_status[self.rng.choice(statuses)])
            order = self.facts.store.order(order_id)
            if kind in ("swap", "exchange") and not self._swappable(order):
                continue
            if kind == "payment" and len(self.facts.store.user(user_id).payment_methods) < 2:
                continue
            return _Customer(self.facts.store.user(user_id), order)
        raise LookupError(f"no order fits a {kind} request in the seed database")

    def _swappable(self, order: Any) -> bool:
        return any(self._other_variant(item) is not None for item in order.items)

    def _other_variant(self, item: Any) -> Any | None:
        product = self.facts.store.product(item.product_id)
        options = [v for v in product.variants if v.available and v.item_id != item.item_id]
        return options[0] if options else None

    def _open(self, customer: _Customer, need: str, says_order: bool) -> dict[str, Any]:
        """The request, the identity check and the account: returns the user details the store gave."""
        order = customer.order
        mention = f" It's order {order.order_id}." if order is not None and says_order else ""
        self._user(need + mention)
        by_email = self.rng.random() < P_EMAIL
        self._assistant(
            self.rng.choice(
                (
                    "I can help with that. First I need to verify your identity: what's the email address on your account?"  # noqa: E501
                    if by_email
                    else "I can help with that. First I need to verify your identity: what are your full name "
                    "and ZIP code?",
                    "Happy to help. Could you give me the email on your account so I can look you up? If you don't have it, "  # noqa: E501
                    "your full name and ZIP code work too.",
                    "Sure. To find your account, please tell me your email address, or your name and ZIP code.",
                )
            )
        )
        user = customer.user
        if by_email:
            self.asked.append(f"{len(self.steps)}.email")
            self._user(self.rng.choice(("It's {e}.", "{e}", "Sure, {e}.", "My email is {e}.")).format(e=user.email))
            found = self._call("find_user_id_by_email", {"email": user.email})
        else:
            self.asked += [f"{len(self.steps)}.{p}" for p in ("first_name", "last_name", "zip")]
            self._user(
                self.rng.choice(
                    ("{f} {l}, ZIP {z}.", "I'm {f} {l} and my ZIP code is {z}.", "Name's {f} {l}, zip {z}.")
                ).format(f=user.name.first_name, l=user.name.last_name, z=user.address.zip)
            )
            found = self._call(
                "find_user_id_by_name_zip",
                {"first_name": user.name.first_name, "last_name": user.name.last_name, "zip": user.address.zip},
            )
        return self._call("get_user_details", {"user_id": found["user_id"]})

    def _order(self, customer: _Customer, details: dict[str, Any], says_order: bool) -> dict[str, Any]:
        """The order the request is about: named by the customer, or asked for from their order list."""
        order_id = customer.order.order_id  # type: ignore[union-attr]
        if not says_order:
            self.asked.append(f"{len(self.steps)}.order_id")
            listed = ", ".join(details["orders"][:6])
            self._assistant(
                f"Thanks, {details['name']['first_name']}, you're verified. Which order is it? "
                f"I see {len(details['orders'])} on your account: {listed}."
            )
            self._user(
                self.rng.choice(("It's {o}.", "{o}, please.", "The one I mean is {o}.", "{o}.")).format(o=order_id)
            )
        return self._call("get_order_details", {"order_id": order_id})

    # --- one kind of request each ----------------------------------------------------------

    def _cancel(self, customer: _Customer, refuse: bool) -> None:
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
        details = self._open(customer, need, says)
        order = self._order(customer, details, says)
        if order["status"] not in ("pending", "pending (item modified)"):
            return self._assistant(self._not_allowed(order, "cancelled", "Only pending orders can be cancelled."))
        total = _payments(order)
        self._confirm(
            f"Order {order['order_id']} is pending with {_items(order['items'])}. I'll cancel it with the "
            f'reason "{reason}"; the {total} you paid goes back to the original payment method. Shall I go ahead?'
        )
        result = self._call("cancel_pending_order", {"order_id": order["order_id"], "reason": reason})
        self._done(result, lambda r: f"Done: order {r['order_id']} is cancelled. " + _refunds(r))

    def _order_address(self, customer: _Customer, refuse: bool) -> None:
        said, address = self._new_address()
        says = self.rng.random() < P_ORDER_KNOWN
        need = self.rng.choice(
            (
                "I gave the wrong shipping address for an order. It should go to {a}.",
                "Can you send my order to {a} instead?",
                "I've moved: please ship my order to {a}.",
            )
        ).format(a=said)
        details = self._open(customer, need, says)
        order = self._order(customer, details, says)
        if order["status"] not in ("pending", "pending (item modified)"):
            return self._assistant(
                self._not_allowed(order, "re-addressed", "Only pending orders can change their address.")
            )
        self._confirm(
            f"Order {order['order_id']} is pending. I'll change its shipping address from "
            f"{_address(order['address'])} to {said}. Shall I go ahead?"
        )
        result = self._call("modify_pending_order_address", {"order_id": order["order_id"], "address": address})
        self._done(result, lambda r: f"Done: order {r['order_id']} will now ship to {_address(r['address'])}.")

    def _new_address(self) -> tuple[str, dict[str, str]]:
        """An address the customer moves to: as they say it, and as the store takes it."""
        street, street2, city, state, zip_ = self.rng.choice(NEW_ADDRESSES)
        said = f"{street}{', ' + street2 if street2 else ''}, {city}, {state} {zip_}"
        return said, {
            "address1": street,
            "address2": street2,
            "city": city,
            "state": state,
            "country": "USA",
            "zip": zip_,
        }

    def _user_address(self, customer: _Customer, refuse: bool) -> None:
        said, address = self._new_address()
        need = self.rng.choice(
            ("I moved. Please update the address on my account to {a}.", "Can you change my default address to {a}?")
        ).format(a=said)
        details = self._open(customer, need, False)
        self._confirm(
            f"Thanks, {details['name']['first_name']}. I'll change your account's address from "
            f"{_address(details['address'])} to {said}; orders already placed keep theirs. Shall I go ahead?"
        )
        result = self._call("modify_user_address", {"user_id": details["user_id"], "address": address})
        self._done(result, lambda r: f"Done: your account's address is now {_address(r['address'])}.")

    def _payment(self, customer: _Customer, refuse: bool) -> None:
        says = self.rng.random() < P_ORDER_KNOWN
        details = self._open(
            customer,
            self.rng.choice(
                (
                    "I want to pay for an order with a different payment method.",
                    "Can I switch the card I used on an order?",
                )
            ),
            says,
        )
        order = self._order(customer, details, says)
        paid = order["payment_history"][0]["payment_method_id"] if order["payment_history"] else None
        others = [m for m in details["payment_methods"] if m["payment_method_id"] != paid]
        if order["status"] not in ("pending", "pending (item modified)") or not others:
            return self._assistant(
                self._not_allowed(order, "changed", "Only pending orders can change their payment method.")
            )
        self._assistant(
            f"Order {order['order_id']} is {order['status']} and was paid with {paid} "
            f"({_payments(order)}). Which payment method should it use instead: "
            + "; ".join(f"{_method(m)} ({m['payment_method_id']})" for m in others)
            + "?"
        )
        choice = self.rng.choice(others)
        self._user(
            self.rng.choice(("Please use my {m} instead.", "The {m}, please.", "Switch it to my {m}.")).format(
                m=_method(choice)
            )
        )
        self._confirm(
            f"Order {order['order_id']} was paid with {paid}. I'll charge {_payments(order)} to your "
            f"{_method(choice)} ({choice['payment_method_id']}) and refund the original payment. Shall I go ahead?"
        )
        result = self._call(
            "modify_pending_order_payment",
            {"order_id": order["order_id"], "payment_method_id": choice["payment_method_id"]},
        )
        self._done(
            result,
            lambda r: f"Done: order {r['order_id']} is now paid with {choice['payment_method_id']}. " + _refunds(r),
        )

    def _swap(self, customer: _Customer, refuse: bool) -> None:
        self._variant_change(customer, refuse, "modify_pending_order_items", ("pending",), "changed")

    def _exchange(self, customer: _Customer, refuse: bool) -> None:
        self._variant_change(customer, refuse, "exchange_delivered_order_items", ("delivered",), "exchanged")

    def _variant_change(
        self, customer: _Customer, refuse: bool, tool: str, statuses: tuple[str, ...], verb: str
    ) -> None:
        known = customer.order
        item = next((i for i in known.items if self._other_variant(i) is not None), known.items[0])  # type: ignore[union-attr]
        target = self._other_variant(item)
        wanted = ", ".join(f"{k} {v}" for k, v in (target.options if target else {}).items()) or "another version"
        says = self.rng.random() < P_ORDER_KNOWN
        need = self.rng.choice(
            (
                "I'd like to swap the {n} in my order for the one with {w}.",
                "Can I get the {n} I ordered in {w} instead?",
                "The {n} I ordered isn't right; I want the {w} version.",
            )
        ).format(n=item.name.lower(), w=wanted)
        details = self._open(customer, need, says)
        order = self._order(customer, details, says)
        if order["status"] not in statuses and not (verb == "changed" and order["status"] == "pending (item modified)"):
            rule = (
                "Only pending orders can have their items changed."
                if verb == "changed"
                else "Only delivered orders can be exchanged."
            )
            return self._assistant(self._not_allowed(order, verb, rule))
        line = next(i for i in order["items"] if i["item_id"] == item.item_id)
        product = self._call("get_product_details", {"product_id": line["product_id"]})
        variant = next(
            (v for v in product["variants"] if v["available"] and v["options"] == (target.options if target else None)),
            None,
        )
        if variant is None:
            return self._assistant(
                f"I'm sorry: the {line['name'].lower()} with {wanted} is not available right now, "
                "so I can't make that change."
            )
        difference = _cents(variant["price"]) - _cents(line["price"])
        methods = details["payment_methods"]
        money = (
            "no price difference"
            if difference == 0
            else f"{_usd(abs(difference))} " + ("to pay" if difference > 0 else "back to you")
        )
        self._assistant(
            f"The {line['name'].lower()} with {_options(variant['options'])} is in stock at "
            f"${variant['price']} (yours was ${line['price']}), so that's {money}. Which payment method "
            "should settle the difference: " + "; ".join(_method(m) for m in methods) + "?"
        )
        method = self._pick_method(methods, difference)
        self._user(self.rng.choice(("Use my {m}.", "The {m}, please.", "Put it on my {m}.")).format(m=_method(method)))
        self._confirm(
            f"In order {order['order_id']} I'll swap the {line['name'].lower()} ({_options(line['options'])}, "
            f"${line['price']}) for {_options(variant['options'])} at ${variant['price']}: {money}, settled with your "
            f"{_method(method)}. Shall I go ahead?"
        )
        result = self._call(
            tool,
            {
                "order_id": order["order_id"],
                "item_ids": [line["item_id"]],
                "new_item_ids": [variant["item_id"]],
                "payment_method_id": method["payment_method_id"],
            },
        )
        self._done(
            result,
            lambda r: (
                f"Done: order {r['order_id']} is now '{r['status']}'; the "
                f"{line['name'].lower()} becomes {_options(variant['options'])}"
                + ("." if verb == "changed" else ", and you'll get instructions for sending the old one back.")
            ),
        )

    def _pick_method(self, methods: list[dict[str, Any]], difference: int) -> dict[str, Any]:
        """Usually a method that can pay; sometimes a gift card that cannot, which the store refuses."""
        short = [
            m for m in methods if m["source"] == "gift_card" and difference > 0 and _cents(m["balance"]) < difference
        ]
        if short and self.rng.random() < 0.5:
            return self.rng.choice(short)
        fine = [m for m in methods if not (m["source"] == "gift_card" and _cents(m["balance"]) < max(difference, 0))]
        return self.rng.choice(fine or methods)

    def _return(self, customer: _Customer, refuse: bool) -> None:
        known = customer.order
        item = self.rng.choice(known.items)  # type: ignore[union-attr]
        says = self.rng.random() < P_ORDER_KNOWN
        details = self._open(
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
        order = self._order(customer, details, says)
        if order["status"] != "delivered":
            return self._assistant(self._not_allowed(order, "returned", "Only delivered orders can be returned."))
        line = next(i for i in order["items"] if i["item_id"] == item.item_id)
        paid = order["payment_history"][0]["payment_method_id"]
        self._confirm(
            f"Order {order['order_id']} was delivered. I'll request a return of the {line['name'].lower()} "
            f"({_options(line['options'])}); ${line['price']} goes back to the original payment method ({paid}). "
            "Shall I go ahead?"
        )
        result = self._call(
            "return_delivered_order_items",
            {"order_id": order["order_id"], "item_ids": [line["item_id"]], "payment_method_id": paid},
        )
        self._done(
            result,
            lambda r: (
                f"Done: the return for order {r['order_id']} is requested; you'll get an email "
                f"with instructions, and ${line['price']} is refunded to {paid} once it arrives."
            ),
        )

    def _status(self, customer: _Customer, refuse: bool) -> None:
        says = self.rng.random() < P_ORDER_KNOWN
        details = self._open(
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
        order = self._order(customer, details, says)
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
        self._assistant(text)

    def _balance(self, customer: _Customer, refuse: bool) -> None:
        question = self.rng.choice(
            (
                "How much is left on my gift card?",
                "What payment methods do I have saved with you?",
                "Which payment methods are on my account?",
            )
        )
        details = self._open(customer, question, False)
        cards = [m for m in details["payment_methods"] if m["source"] == "gift_card"]
        listed = "; ".join(f"{_method(m)} ({m['payment_method_id']})" for m in details["payment_methods"])
        count = len(details["payment_methods"])
        text = f"You have {count} saved payment method{'s' if count != 1 else ''}: {listed}."
        if "gift card" in question:
            text = (
                " ".join(f"Your gift card {m['payment_method_id']} has ${m['balance']} left." for m in cards)
                if cards
                else f"There is no gift card on your account. {text}"
            )
        self._assistant(text)

    def _variants(self, customer: _Customer, refuse: bool) -> None:
        item = self.rng.choice(customer.order.items)  # type: ignore[union-attr]
        says = True
        details = self._open(customer, f"Does the {item.name.lower()} in my order come in other versions?", says)
        order = self._order(customer, details, says)
        line = next(i for i in order["items"] if i["item_id"] == item.item_id)
        product = self._call("get_product_details", {"product_id": line["product_id"]})
        available = [v for v in product["variants"] if v["available"] and v["item_id"] != line["item_id"]]
        shown = "; ".join(f"{_options(v['options'])} at ${v['price']}" for v in available[:4])
        self._assistant(
            f"Yes: besides yours ({_options(line['options'])}), the {product['name'].lower()} is in stock as {shown}."
            if available
            else f"Right now no other version of the {product['name'].lower()} is in stock."
        )

    # --- turns -------------------------------------------------------------------------

    def _not_allowed(self, order: dict[str, Any], verb: str, rule: str) -> str:
        return f"I'm sorry, order {order['order_id']} is {order['status']}, so it can't be {verb}. {rule}"

    def _confirm(self, text: str) -> None:
        self._assistant(text)
        self._user(self.rng.choice(("Yes, please.", "Yes, go ahead.", "Yes.", "That's right, do it.", "Yes, thanks.")))

    def _done(self, result: dict[str, Any] | ToolResult, say: Any) -> None:
        if isinstance(result, ToolResult):  # the store refused: say why, in its words
            why = result.content.split(": ", 1)[-1].strip().rstrip(".")
            return self._assistant(
                f"The store refused the change: {why}. Nothing was changed; tell me if you'd like to try another way."
            )
        self._assistant(say(result))

    def _user(self, text: str) -> None:
        if not self.first:
            self.first = text
        self.messages.append(Message(role="user", content=text))

    def _assistant(self, text: str) -> None:
        self.messages.append(Message(role="assistant", content=text))

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """One call on the store; a refusal comes back as the ToolResult itself."""
        spec = self.server.tool(tool)
        assert spec is not None, f"the store has no tool {tool}"
        call = ToolCall(
            id=f"call_{content_hash([self.scenario.id, len(self.steps)], 12)}", name=tool, arguments=arguments
        )
        self.steps.append((tool, arguments))
        self.messages.append(Message(role="assistant", tool_calls=(call,)))
        result = run_sync(self.runtime.call(spec, arguments))
        self.messages.append(Message(role="tool", tool_call_id=call.id, content=result.content, source=result.source))
        if result.is_error:
            return result
        return result.data

    def _records(self) -> tuple[Query, Plan, Trajectory]:
        sid = self.scenario.id
        # the whole of what the customer said: a first message such as "Where is my order?" is common to many
        # customers, and dedup must not take two customers' conversations for one
        said = " ".join(m.content or "" for m in self.messages if m.role == "user")
        query = Query(id=make_id("query", sid, said), scenario_id=sid, text=said, withheld=tuple(self.asked))
        plan = Plan(
            id=make_id("plan", sid, self.steps),
            scenario_id=sid,
            steps=tuple(
                PlanStep(step=i, tool=t, arguments=a, depends_on=(i - 1,) if i else ())
                for i, (t, a) in enumerate(self.steps)
            ),
        )
        trajectory = Trajectory(
            id=make_id("traj", sid, [m.to_json() for m in self.messages]),
            scenario_id=sid,
            messages=tuple(self.messages),
        )
        return query, plan, trajectory


def _cents(money: str) -> int:
    sign = -1 if money.startswith("-") else 1
    whole, _, frac = money.lstrip("-").partition(".")
    return sign * (int(whole) * 100 + int((frac + "00")[:2]))


def _usd(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def _payments(order: dict[str, Any]) -> str:
    paid = sum(_cents(t["amount"]) for t in order["payment_history"] if t["transaction_type"] == "payment")
    refunded = sum(_cents(t["amount"]) for t in order["payment_history"] if t["transaction_type"] == "refund")
    return _usd(paid - refunded)


def _refunds(order: dict[str, Any]) -> str:
    refunds = [t for t in order["payment_history"] if t["transaction_type"] == "refund"]
    if not refunds:
        return ""
    last = refunds[-1]
    card = "gift card" if last["payment_method_id"].startswith("gift_card") else "payment method"
    when = "credited at once" if card == "gift card" else "back in 5-7 business days"
    return f"The refund of ${last['amount']} to your {card} {last['payment_method_id']} is {when}."


def _items(items: list[dict[str, Any]]) -> str:
    names = [f"{i['name'].lower()} (${i['price']})" for i in items]
    return f"{len(items)} item{'s' if len(items) > 1 else ''}: " + ", ".join(names)


def _options(options: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in options.items())


def _address(a: dict[str, Any]) -> str:
    return f"{a['address1']}{', ' + a['address2'] if a.get('address2') else ''}, {a['city']}, {a['state']} {a['zip']}"


def _method(m: dict[str, Any]) -> str:
    if m["source"] == "credit_card":
        return f"{m['brand'].title()} card ending {m['last_four']}"
    if m["source"] == "gift_card":
        return f"gift card with ${m['balance']} left"
    return "PayPal"


def write_shop(
    scenario: Scenario, server: ServerSpec, facts: ShopFacts, seed: int, runtime: ToolRuntime
) -> tuple[Query, Plan, Trajectory]:
    return ShopAuthor(scenario, server, facts, seed, runtime).write()
