"""What the store's tools take and return: pydantic models, so the SDK serves typed schemas and
sends ``structuredContent`` plus the same JSON as text. Money is a string of dollars with exactly
two decimals ("49.99"), made from integer cents, so it is exact and prints the same every time.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Money = Annotated[
    str, Field(pattern=r"^-?\d+\.\d{2}$", description="US dollars with exactly two decimals, e.g. '49.99'")
]
OrderId = Annotated[
    str,
    Field(
        pattern=r"^#W\d{7}$",
        description="The order id: '#W' and 7 digits, e.g. '#W2890441' (mind the '#' at the start).",
    ),
]
UserId = Annotated[
    str,
    Field(
        min_length=1,
        description="The customer's user id, e.g. 'noah_brown_6181', "
        "from find_user_id_by_email or find_user_id_by_name_zip.",
    ),
]
ItemId = Annotated[
    str,
    Field(
        pattern=r"^\d{10}$",
        description="An item id (one variant of a product), 10 digits, e.g. '1008292230'; not a product id.",
    ),
]
ProductId = Annotated[
    str,
    Field(
        pattern=r"^\d{10}$", description="A product id (a product type), 10 digits, e.g. '6086499569'; not an item id."
    ),
]
PaymentMethodId = Annotated[
    str,
    Field(
        pattern=r"^(credit_card|paypal|gift_card)_\d{7}$",
        description="A payment method id of the order's customer, e.g. 'credit_card_9513926', 'paypal_3024827' or "
        "'gift_card_7245904'; listed by get_user_details.",
    ),
]
OrderStatus = Literal[
    "pending",
    "pending (item modified)",
    "processed",
    "delivered",
    "cancelled",
    "return requested",
    "exchange requested",
]
CancelReason = Literal["no longer needed", "ordered by mistake"]


def dollars(cents: int) -> str:
    """Integer cents -> '12.34' (exact; no float on the way)."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Address(Model):
    """A US postal address."""

    address1: Annotated[str, Field(min_length=1, description="Street and number, e.g. '123 Main St'.")]
    address2: Annotated[str, Field(description="Apartment, suite or unit, e.g. 'Apt 1'; '' when there is none.")] = ""
    city: Annotated[str, Field(min_length=1, description="City, e.g. 'San Francisco'.")]
    state: Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="Two-letter state code, e.g. 'CA'.")]
    country: Annotated[Literal["USA"], Field(description="Country; the store ships within the USA only.")] = "USA"
    zip: Annotated[str, Field(pattern=r"^\d{5}$", description="Five-digit ZIP code, e.g. '94103'.")]


class Name(Model):
    first_name: str
    last_name: str


class CreditCard(Model):
    source: Literal["credit_card"]
    payment_method_id: str
    brand: str
    last_four: str


class PayPal(Model):
    source: Literal["paypal"]
    payment_method_id: str


class GiftCard(Model):
    source: Literal["gift_card"]
    payment_method_id: str
    balance: Money


PaymentMethod = Annotated[CreditCard | PayPal | GiftCard, Field(discriminator="source")]


class User(Model):
    """A customer: profile, default address, saved payment methods and order ids."""

    user_id: str
    name: Name
    email: str
    address: Address
    payment_methods: Annotated[
        list[PaymentMethod], Field(description="Saved payment methods; gift cards show their balance.")
    ]
    orders: Annotated[list[str], Field(description="The customer's order ids, sorted.")]


class FoundUser(Model):
    user_id: str


class OrderItem(Model):
    name: str
    product_id: str
    item_id: str
    price: Money
    options: dict[str, str]


class Fulfillment(Model):
    tracking_id: str
    item_ids: list[str]


class Transaction(Model):
    transaction_type: Literal["payment", "refund"]
    amount: Money
    payment_method_id: str


class ReturnRequest(Model):
    item_ids: list[str]
    payment_method_id: str
    refund_amount: Money


class ExchangeRequest(Model):
    item_ids: list[str]
    new_item_ids: list[str]
    payment_method_id: str
    price_difference: Annotated[
        Money, Field(description="New items minus old items: paid when positive, refunded when negative.")
    ]


class Order(Model):
    """An order with its items, shipping address, payments and refunds, tracking and requests."""

    order_id: str
    user_id: Annotated[str, Field(description="The customer who placed the order.")]
    status: Annotated[
        OrderStatus,
        Field(
            description="'pending' orders can be cancelled or changed ('pending (item "
            "modified)': items already changed once); 'delivered' ones "
            "returned or exchanged, once."
        ),
    ]
    address: Annotated[Address, Field(description="Where the order ships.")]
    items: list[OrderItem]
    fulfillments: Annotated[
        list[Fulfillment], Field(description="Shipments with their tracking ids; empty until the order ships.")
    ]
    payment_history: Annotated[
        list[Transaction],
        Field(description="Payments and refunds, oldest first; the first payment's method is the original one."),
    ]
    cancel_reason: CancelReason | None = None
    return_request: ReturnRequest | None = None
    exchange_request: ExchangeRequest | None = None


class Variant(Model):
    item_id: str
    options: Annotated[
        dict[str, str], Field(description="What makes this variant, e.g. {'color': 'blue', 'size': 'M'}.")
    ]
    price: Money
    available: Annotated[bool, Field(description="In stock: only available variants can be ordered or swapped to.")]


class Product(Model):
    product_id: str
    name: str
    variants: list[Variant]


class ProductType(Model):
    name: str
    product_id: str


class ProductTypes(Model):
    product_types: list[ProductType]
