"""What a store task says in words: its ``description.md`` and its title, with no tool or parameter names.

The description is the only thing an agent is given, so it says what the customer says and knows and
what they ask for, never how the store's tools spell it (``leaked_names`` finds a name that slipped in).
"""

from __future__ import annotations

import re
from typing import Any

from synth.records import Conversation, ServerSpec
from synth.tasks.replay import WRITES

CATEGORY_NAMES = {
    "cancel_order": "Cancel Order",
    "change_address": "Change Order Address",
    "modify_items": "Modify Order Items",
    "change_payment": "Change Payment Method",
    "return_items": "Return Items",
    "exchange_items": "Exchange Items",
    "change_user_address": "Change Customer Address",
    "lookup": "Lookup",
    "refused": "Refused Request",
}
LABELS = {
    "email": "Email",
    "first_name": "First name",
    "last_name": "Last name",
    "zip": "ZIP code",
    "user_id": "Account id",
    "order_id": "Order",
    "item_ids": "Items",
    "new_item_ids": "Wanted items",
    "payment_method_id": "Payment method",
    "reason": "Reason",
    "address": "New address",
    "product_id": "Product",
}
ORDER_ID = re.compile(r"#W\d{7}")
LOOKUPS = {
    "get_order_details": "Look up order {order_id}",
    "get_user_details": "Look up the customer's account",
    "get_product_details": "Look up product variants",
    "list_all_product_types": "Look up the product catalog",
}


def address_text(address: dict[str, Any]) -> str:
    street = ", ".join(p for p in (address.get("address1"), address.get("address2")) if p)
    return f"{street}, {address.get('city')}, {address.get('state')} {address.get('zip')}"


def plain_words(text: str) -> str:
    """A user message without the field names some requests spell an address with ("address1 ..., city ...")."""
    if "address1 " not in text:
        return text
    text = re.sub(r"\baddress[12] ", "", text)
    text = re.sub(r",? city ", ", ", text)
    text = re.sub(r",? state ([A-Z]{2})", r", \1", text)
    return re.sub(r",? zip (\d{5})", r" \1", text)


def objective(call: dict[str, Any], said: str = "") -> str:
    """What the customer asks the write to do, in words (no tool or parameter names).

    An id the customer did not say (a payment method or item id the gold path read from the store) is
    described, not given: the agent has to find it, as the gold path did.
    """
    a, lowered = call["arguments"], said.lower()

    def ids(key: str, what: str) -> str:
        values = a.get(key) if isinstance(a.get(key), list) else [a.get(key)]
        values = [str(v) for v in values if v]
        return ", ".join(values) if values and all(v.lower() in lowered for v in values) else what

    order = ids("order_id", "their order")
    items, wanted = ids("item_ids", "the item they name"), ids("new_item_ids", "the variant they want")
    method = ids("payment_method_id", "the payment method they choose")
    return {
        "cancel_pending_order": lambda: f"Cancel order {order} (reason: {a.get('reason')}).",
        "modify_pending_order_address": lambda: f"Ship order {order} to {address_text(a.get('address') or {})}.",
        "modify_pending_order_items": lambda: (
            f"In order {order}, replace {items} with {wanted}, settling any price difference with {method}."
        ),
        "modify_pending_order_payment": lambda: f"Pay order {order} with {method} instead.",
        "return_delivered_order_items": lambda: f"Return {items} of order {order}, with the refund going to {method}.",
        "exchange_delivered_order_items": lambda: (
            f"Exchange {items} of order {order} for {wanted}, settling any price difference with {method}."
        ),
        "modify_user_address": lambda: f"Make {address_text(a.get('address') or {})} the customer's default address.",
    }[call["name"]]().replace("order their order", "their order")


def known_facts(calls: list[dict[str, Any]], said: str) -> list[tuple[str, str]]:
    """What the customer knows: each gold-call value they said themselves, labelled, plus the orders they name."""
    facts: list[tuple[str, str]] = []

    def add(label: str, value: str) -> None:
        if (label, value) not in facts:
            facts.append((label, value))

    lowered = said.lower()
    for call in calls:
        for param, value in call["arguments"].items():
            label = LABELS.get(param, param.replace("_", " ").capitalize())
            if isinstance(value, dict) and str(value.get("address1", "")).lower() in lowered and value.get("address1"):
                add(label, address_text(value))
            elif isinstance(value, list):
                shown = [str(v) for v in value if str(v).lower() in lowered]
                if shown:
                    add(label, ", ".join(shown))
            elif isinstance(value, (str, int)) and str(value) and str(value).lower() in lowered:
                add(label, str(value))
    for order in ORDER_ID.findall(said):
        add("Order", order)
    return facts


def description_md(
    title: str, said: list[str], facts: list[tuple[str, str]], objectives: list[str], questions: bool, verified: bool
) -> str:
    """MCPMark's description layout: the task, what the customer knows, the objectives.

    ``verified`` says the gold path acts without looking the customer up first (the store's policy asks
    for it): the instruction then says so, so the task stays solvable by an agent that keeps the policy.
    """
    lines = [
        f"# {title}",
        "",
        "## 📋 Task Description",
        "",
        "You are the customer service agent of the Synth Store online shop. Follow the shop's policy (the "
        "store server's instructions). A customer writes to you; here is everything they say, in order:",
        "",
    ]
    lines += [f"> {plain_words(text).strip()}" + ("\n>" if i < len(said) - 1 else "") for i, text in enumerate(said)]
    lines += ["", "## 🧾 What the Customer Knows", ""]
    lines += [f"- {label}: {value}" for label, value in facts] or ["- Nothing beyond what they say above."]
    if verified:
        lines += [
            "- Their identity is already confirmed: act on the orders and account they name without "
            "looking them up by email or by name and ZIP code first."
        ]
    lines += ["", "## 🎯 Task Objectives", ""]
    steps = [*objectives]
    if questions:
        steps.append("Answer the customer's questions with facts from the store.")
    steps.append(
        "Make only the changes the customer asks for and the shop's rules allow; when a request cannot be "
        "done, say why and leave it undone. The store's final state is checked."
    )
    lines += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    return "\n".join(lines) + "\n"


def leaked_names(text: str, server: ServerSpec) -> list[str]:
    """Tool and parameter names (the ones no customer would say: snake_case or with digits) found in ``text``."""
    names = {t.name for t in server.tools}
    for tool in server.tools:
        names |= _schema_names(tool.input_schema)
    wanted = sorted(n for n in names if "_" in n or any(ch.isdigit() for ch in n))
    return [n for n in wanted if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)]


def _schema_names(schema: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(schema, dict):
        if isinstance(schema.get("properties"), dict):
            out |= set(schema["properties"])
        for value in schema.values():
            out |= _schema_names(value)
    elif isinstance(schema, list):
        for value in schema:
            out |= _schema_names(value)
    return out


def asks_questions(conv: Conversation) -> bool:
    """Whether some user turn asks something ("?") that the assistant answers without a write."""
    turns: list[tuple[str, list[str]]] = []
    for m in conv.messages:
        if m.role == "user":
            turns.append((m.content or "", []))
        elif turns:
            turns[-1][1].extend(c.name for c in m.tool_calls)
    return any("?" in text and not any(name in WRITES for name in names) for text, names in turns)


def task_title(writes: list[dict[str, Any]], calls: list[dict[str, Any]]) -> str:
    """A short name: what the customer asks first and the order it is about, or the first thing looked up.
    A refused request keeps its name (the title must not give the outcome away)."""
    if writes:
        a = writes[0]["arguments"]
        what = a.get("order_id") or ""  # an order id the customer gives; never the account id a lookup finds
        name = CATEGORY_NAMES[WRITES[writes[0]["name"]]]
        more = f" (+{len(writes) - 1} more request{'s' if len(writes) > 2 else ''})" if len(writes) > 1 else ""
        return f"{name} {what}".strip() + more
    lookup = next((c for c in calls if c["name"] in LOOKUPS), None)
    if lookup is None:
        return "Identify the customer"
    return LOOKUPS[lookup["name"]].format(order_id=lookup["arguments"].get("order_id", ""))
