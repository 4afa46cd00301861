"""How a customer-service conversation on synth's store goes, whatever the request: the customer
is found in the seed database, proves who they are, names (or picks) the order, and the assistant
talks and calls the store in turns. Also how the assistant says money, items, options,
addresses and payment methods. The requests themselves are in ``synth.offline.shop``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synth.records import (
    Message,
    Plan,
    Query,
    Scenario,
    ServerSpec,
    ToolCall,
    Trajectory,
    content_hash,
)
from synth.runtime.base import ToolResult, ToolRuntime
from synth.scenarios.made import chained, made
from synth.scenarios.planner import rng_for
from synth.store.server import INSTRUCTIONS
from synth.store.shop import Store

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
P_EMAIL = 0.65  # customers who give their email (the others give name and ZIP)

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
class Customer:
    user: Any  # synth.store.models.User
    order: Any | None  # synth.store.models.Order


class Dialog:
    """The conversation's mechanics: who the customer is, the identity check and the order they mean,
    the turns, the calls on the store and the records they make. ``ShopAuthor`` (synth.offline.shop)
    holds one and writes its requests with it."""

    def __init__(self, scenario: Scenario, server: ServerSpec, facts: ShopFacts, seed: int, runtime: ToolRuntime):
        self.scenario, self.server, self.facts, self.runtime = scenario, server, facts, runtime
        self.rng = rng_for(seed, "shop", scenario.id)
        self.messages: list[Message] = [Message(role="system", content=INSTRUCTIONS.strip())]  # the shop's own
        self.steps: list[tuple[str, dict[str, Any]]] = []
        self.first = ""
        self.asked: list[str] = []

    # --- the conversation --------------------------------------------------------------

    def customer(self, kind: str, refuse: bool) -> Customer:
        if kind in ("user_address", "balance"):
            user_id = self.rng.choice(self.facts.users)
            return Customer(self.facts.store.user(user_id), None)
        statuses = WRONG_STATUS[kind] if refuse else STATUS_OF[kind]
        for _ in range(50):
            order_id, user_id = self.rng.choice(self.facts.by_status[self.rng.choice(statuses)])
            order = self.facts.store.order(order_id)
            if kind in ("swap", "exchange") and not self.swappable(order):
                continue
            if kind == "payment" and len(self.facts.store.user(user_id).payment_methods) < 2:
                continue
            return Customer(self.facts.store.user(user_id), order)
        raise LookupError(f"no order fits a {kind} request in the seed database")

    def swappable(self, order: Any) -> bool:
        return any(self.other_variant(item) is not None for item in order.items)

    def other_variant(self, item: Any) -> Any | None:
        product = self.facts.store.product(item.product_id)
        options = [v for v in product.variants if v.available and v.item_id != item.item_id]
        return options[0] if options else None

    def identify(self, customer: Customer, need: str, says_order: bool) -> dict[str, Any]:
        """The request, the identity check and the account: returns the user details the store gave."""
        order = customer.order
        mention = f" It's order {order.order_id}." if order is not None and says_order else ""
        self.user_says(need + mention)
        by_email = self.rng.random() < P_EMAIL
        self.assistant_says(
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
            self.user_says(self.rng.choice(("It's {e}.", "{e}", "Sure, {e}.", "My email is {e}.")).format(e=user.email))
            found = self.call("find_user_id_by_email", {"email": user.email})
        else:
            self.asked += [f"{len(self.steps)}.{p}" for p in ("first_name", "last_name", "zip")]
            self.user_says(
                self.rng.choice(
                    ("{f} {l}, ZIP {z}.", "I'm {f} {l} and my ZIP code is {z}.", "Name's {f} {l}, zip {z}.")
                ).format(f=user.name.first_name, l=user.name.last_name, z=user.address.zip)
            )
            found = self.call(
                "find_user_id_by_name_zip",
                {"first_name": user.name.first_name, "last_name": user.name.last_name, "zip": user.address.zip},
            )
        return self.call("get_user_details", {"user_id": found["user_id"]})

    def find_order(self, customer: Customer, details: dict[str, Any], says_order: bool) -> dict[str, Any]:
        """The order the request is about: named by the customer, or asked for from their order list."""
        order_id = customer.order.order_id  # type: ignore[union-attr]
        if not says_order:
            self.asked.append(f"{len(self.steps)}.order_id")
            listed = ", ".join(details["orders"][:6])
            self.assistant_says(
                f"Thanks, {details['name']['first_name']}, you're verified. Which order is it? "
                f"I see {len(details['orders'])} on your account: {listed}."
            )
            self.user_says(
                self.rng.choice(("It's {o}.", "{o}, please.", "The one I mean is {o}.", "{o}.")).format(o=order_id)
            )
        return self.call("get_order_details", {"order_id": order_id})

    # --- turns -------------------------------------------------------------------------

    def new_address(self) -> tuple[str, dict[str, str]]:
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

    def pick_method(self, methods: list[dict[str, Any]], difference: int) -> dict[str, Any]:
        """Usually a method that can pay; sometimes a gift card that cannot, which the store refuses."""
        short = [
            m for m in methods if m["source"] == "gift_card" and difference > 0 and cents(m["balance"]) < difference
        ]
        if short and self.rng.random() < 0.5:
            return self.rng.choice(short)
        fine = [m for m in methods if not (m["source"] == "gift_card" and cents(m["balance"]) < max(difference, 0))]
        return self.rng.choice(fine or methods)

    def not_allowed(self, order: dict[str, Any], verb: str, rule: str) -> str:
        return f"I'm sorry, order {order['order_id']} is {order['status']}, so it can't be {verb}. {rule}"

    def confirm(self, text: str) -> None:
        self.assistant_says(text)
        self.user_says(
            self.rng.choice(("Yes, please.", "Yes, go ahead.", "Yes.", "That's right, do it.", "Yes, thanks."))
        )

    def done(self, result: dict[str, Any] | ToolResult, say: Any) -> None:
        if isinstance(result, ToolResult):  # the store refused: say why, in its words
            why = result.content.split(": ", 1)[-1].strip().rstrip(".")
            return self.assistant_says(
                f"The store refused the change: {why}. Nothing was changed; tell me if you'd like to try another way."
            )
        self.assistant_says(say(result))

    def user_says(self, text: str) -> None:
        if not self.first:
            self.first = text
        self.messages.append(Message(role="user", content=text))

    def assistant_says(self, text: str) -> None:
        self.messages.append(Message(role="assistant", content=text))

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """One call on the store; a refusal comes back as the ToolResult itself."""
        spec = self.server.tool(tool)
        assert spec is not None, f"the store has no tool {tool}"
        call = ToolCall(
            id=f"call_{content_hash([self.scenario.id, len(self.steps)], 12)}", name=tool, arguments=arguments
        )
        self.steps.append((tool, arguments))
        self.messages.append(Message(role="assistant", tool_calls=(call,)))
        result = self.runtime.call(spec, arguments)
        self.messages.append(result.message(call.id))
        if result.is_error:
            return result
        return result.data

    def records(self) -> tuple[Query, Plan, Trajectory]:
        # the whole of what the customer said: a first message such as "Where is my order?" is common to many
        # customers, and dedup must not take two customers' conversations for one
        said = " ".join(m.content or "" for m in self.messages if m.role == "user")
        return made(self.scenario.id, said, chained(self.steps), self.messages, withheld=self.asked)


def cents(money: str) -> int:
    sign = -1 if money.startswith("-") else 1
    whole, _, frac = money.lstrip("-").partition(".")
    return sign * (int(whole) * 100 + int((frac + "00")[:2]))


def usd(amount: int) -> str:
    """Cents as the store writes dollars: ``$12.05``."""
    return f"${amount // 100}.{amount % 100:02d}"


def paid_total(order: dict[str, Any]) -> str:
    paid = sum(cents(t["amount"]) for t in order["payment_history"] if t["transaction_type"] == "payment")
    refunded = sum(cents(t["amount"]) for t in order["payment_history"] if t["transaction_type"] == "refund")
    return usd(paid - refunded)


def refund_note(order: dict[str, Any]) -> str:
    refunds = [t for t in order["payment_history"] if t["transaction_type"] == "refund"]
    if not refunds:
        return ""
    last = refunds[-1]
    card = "gift card" if last["payment_method_id"].startswith("gift_card") else "payment method"
    when = "credited at once" if card == "gift card" else "back in 5-7 business days"
    return f"The refund of ${last['amount']} to your {card} {last['payment_method_id']} is {when}."


def item_list(items: list[dict[str, Any]]) -> str:
    names = [f"{i['name'].lower()} (${i['price']})" for i in items]
    return f"{len(items)} item{'s' if len(items) > 1 else ''}: " + ", ".join(names)


def option_text(options: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in options.items())


def address_text(a: dict[str, Any]) -> str:
    return f"{a['address1']}{', ' + a['address2'] if a.get('address2') else ''}, {a['city']}, {a['state']} {a['zip']}"


def method_text(m: dict[str, Any]) -> str:
    if m["source"] == "credit_card":
        return f"{m['brand'].title()} card ending {m['last_four']}"
    if m["source"] == "gift_card":
        return f"gift card with ${m['balance']} left"
    return "PayPal"
