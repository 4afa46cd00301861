"""The store as an MCP server (the SDK's ``MCPServer``): tools, typed schemas and the shop policy.

``build_server(store)`` wires one ``Store`` to a server; ``synth serve store`` runs it over stdio
or Streamable HTTP. The policy an assistant must follow is the server's ``instructions``; the
rules a shop enforces itself live in ``synth.store.shop`` and come back as ``ToolError``s.
Nothing here writes to stdout: on stdio that is the protocol stream.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from functools import wraps
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from synth.store.models import (
    Address,
    CancelReason,
    FoundUser,
    ItemId,
    Order,
    OrderId,
    PaymentMethodId,
    Product,
    ProductId,
    ProductTypes,
    User,
    UserId,
)
from synth.store.reads import RuleError
from synth.store.shop import Store

NAME = "synth-store"
INSTRUCTIONS = """\
You are a customer service agent of an online shop. Help one customer per conversation to look up, \
cancel or change their orders, return or exchange delivered items, and update their address.

Policy:
- Authenticate first: before anything that touches the customer's account, find their user id by \
email (find_user_id_by_email) or, if they cannot give it, by first name, last name and ZIP code \
(find_user_id_by_name_zip). Do this even when they give you a user id.
- One customer per conversation: help only the authenticated customer; refuse requests about \
another customer's orders or account.
- Before any write (cancel, modify, return, exchange, address change), list what will change \
(items, prices, refund or charge, payment method) and get an explicit "yes" from the customer. \
Make one write per confirmation.
- Give only facts that come from the tools or from the customer; never make up ids, prices or policies.
- Only pending orders can be cancelled or changed (address, payment, items). Items of a pending \
order can be changed only once, to other variants of the same product; collect every item to \
change before calling modify_pending_order_items.
- Only delivered orders can be returned or exchanged, once per order; collect every item first. \
Refunds go to the original payment method or to one of the customer's gift cards.
- A gift card must cover any amount charged to it; a price difference is charged or refunded to \
the payment method the customer chooses.
- Cancellation reasons are only "no longer needed" or "ordered by mistake".
- Gift card refunds are credited at once; other refunds take 5-7 business days.
- If a request cannot be handled with these tools and this policy, say so plainly.
"""

T = TypeVar("T", bound=Callable[..., Any])
READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False)

ItemIds = Annotated[
    list[ItemId],
    Field(
        min_length=1,
        description="Item ids in the order, each like '1008292230'. Repeat an id to name two units of the same item.",
    ),
]
NewItemIds = Annotated[
    list[ItemId],
    Field(
        min_length=1,
        description="The replacement item ids, one per entry of "
        "item_ids and in the same order; each must be an "
        "available variant of the same product.",
    ),
]
DifferencePayer = Annotated[
    PaymentMethodId,
    Field(
        description="The customer's payment method that pays or receives the "
        "price difference; a gift card must cover an amount to pay."
    ),
]


CURRENT: ContextVar[Store] = ContextVar("synth_store_current")


def _refusals(fn: T) -> T:
    """A broken shop rule becomes a ToolError, whose text the model sees (a bare exception's is hidden)."""

    @wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RuleError as exc:
            raise ToolError(str(exc)) from None

    return call  # type: ignore[return-value]


def build_server(store: Store | None = None) -> MCPServer:
    """An MCP server whose tools read and change ``store``; sync tools, so they run on worker threads.

    Without ``store``, each call uses the store in ``CURRENT`` (a context variable, which follows a
    session's tasks and worker threads): one server, built once (that takes ~0.2 s), serves many fresh
    stores at once, one per session.
    """

    def shop() -> Store:
        return store if store is not None else CURRENT.get()

    server = MCPServer(
        NAME,
        title="Synth Store",
        version="1.0.0",
        instructions=INSTRUCTIONS,
        description="A stateful online shop (customers, products, orders) for tool-use data and evals.",
        log_level="WARNING",
    )

    def tool(annotations: ToolAnnotations) -> Callable[[T], T]:
        def register(fn: T) -> T:  # the docstring, on one line, is the description
            server.tool(annotations=annotations, description=" ".join((fn.__doc__ or "").split()))(_refusals(fn))
            return fn

        return register

    _read_tools(tool, shop)  # registered in this order, which is the order of tools/list
    _pending_order_tools(tool, shop)
    _delivered_order_tools(tool, shop)
    return server


Register = Callable[..., Callable[[T], T]]  # build_server's ``tool``: registers a function as a tool


def _read_tools(tool: Register, shop: Callable[[], Store]) -> None:
    """Finding a customer, and reading accounts, orders, products and the catalog."""

    @tool(annotations=READ)
    def find_user_id_by_email(
        email: Annotated[
            str, Field(min_length=3, description="The customer's email, e.g. 'noah.brown7922@example.com'.")
        ],
    ) -> FoundUser:
        """Find a customer's user id by their email (case-insensitive). This is the first way to authenticate a
        customer; if they cannot give an email, use find_user_id_by_name_zip."""
        return FoundUser(user_id=shop().find_user_id_by_email(email))

    @tool(annotations=READ)
    def find_user_id_by_name_zip(
        first_name: Annotated[str, Field(min_length=1, description="The customer's first name, e.g. 'Noah'.")],
        last_name: Annotated[str, Field(min_length=1, description="The customer's last name, e.g. 'Brown'.")],
        zip: Annotated[
            str,
            Field(
                pattern=r"^\d{5}$", description="The 5-digit ZIP code of the customer's default address, e.g. '90013'."
            ),
        ],
    ) -> FoundUser:
        """Find a customer's user id by first name, last name and ZIP code. Use it to authenticate a customer
        who cannot give or remember their email."""
        return FoundUser(user_id=shop().find_user_id_by_name_zip(first_name, last_name, zip))

    @tool(annotations=READ)
    def get_user_details(user_id: UserId) -> User:
        """Get a customer's details: name, email, default address, saved payment methods (with gift card
        balances) and the ids of their orders."""
        return shop().user(user_id)

    @tool(annotations=READ)
    def get_order_details(order_id: OrderId) -> Order:
        """Get the status and details of an order: items with item ids and prices, shipping address, payments
        and refunds, tracking ids of shipped items, and any cancellation, return or exchange."""
        return shop().order(order_id)

    @tool(annotations=READ)
    def get_product_details(product_id: ProductId) -> Product:
        """Get a product type and all its variants: item id, options (such as color and size), price and
        whether it is available. Use it to find the variant a customer wants to switch to."""
        return shop().product(product_id)

    @tool(annotations=READ)
    def list_all_product_types() -> ProductTypes:
        """List the name and product id of every product type in the store (50), sorted by name. Each type has
        several variants with their own item ids; get them with get_product_details."""
        return shop().product_types()


def _pending_order_tools(tool: Register, shop: Callable[[], Store]) -> None:
    """Changes to a pending order: cancel it, or change its address, items or payment."""

    @tool(annotations=WRITE)
    def cancel_pending_order(
        order_id: OrderId,
        reason: Annotated[
            CancelReason, Field(description="Why the customer cancels: 'no longer needed' or 'ordered by mistake'.")
        ],
    ) -> Order:
        """Cancel a pending order (not one that is processed, delivered or already cancelled). Every payment is
        refunded to the method that paid it: at once for gift cards, in 5-7 business days otherwise. Explain
        the details and get the customer's explicit confirmation first. Returns the cancelled order."""
        return shop().cancel_pending_order(order_id, reason)

    @tool(annotations=WRITE)
    def modify_pending_order_address(
        order_id: OrderId,
        address: Annotated[Address, Field(description="The new shipping address of the order.")],
    ) -> Order:
        """Change the shipping address of a pending order. Confirm the full new address with the customer
        first. Returns the updated order."""
        return shop().modify_pending_order_address(order_id, address)

    @tool(annotations=WRITE)
    def modify_pending_order_items(
        order_id: OrderId,
        item_ids: ItemIds,
        new_item_ids: NewItemIds,
        payment_method_id: DifferencePayer,
    ) -> Order:
        """Swap items of a pending order for other available variants of the same products (another color or
        size, say). The price difference is charged to or refunded to the given payment method. An order's
        items can be changed only once, so collect every change first and confirm it with the customer.
        The order's status becomes 'pending (item modified)'. Returns the updated order."""
        return shop().modify_pending_order_items(order_id, item_ids, new_item_ids, payment_method_id)

    @tool(annotations=WRITE)
    def modify_pending_order_payment(
        order_id: OrderId,
        payment_method_id: Annotated[
            PaymentMethodId,
            Field(
                description="The new payment method; it must differ from "
                "the current one, and a gift card must cover "
                "the order total."
            ),
        ],
    ) -> Order:
        """Pay a pending order with another of the customer's payment methods: the new method is charged the
        order total and the old one refunded. Only for an order with a single payment so far. Confirm with
        the customer first. Returns the updated order."""
        return shop().modify_pending_order_payment(order_id, payment_method_id)


def _delivered_order_tools(tool: Register, shop: Callable[[], Store]) -> None:
    """Returns and exchanges of a delivered order, and the customer's default address."""

    @tool(annotations=WRITE)
    def return_delivered_order_items(
        order_id: OrderId,
        item_ids: ItemIds,
        payment_method_id: Annotated[
            PaymentMethodId,
            Field(
                description="Where the refund goes: the order's original "
                "payment method or one of the customer's gift "
                "cards."
            ),
        ],
    ) -> Order:
        """Request the return of items of a delivered order and refund their price (a gift card is credited at
        once). An order can be returned or exchanged only once, so collect every item first and confirm with
        the customer. The status becomes 'return requested'; the customer gets an email on how to send the
        items back. Returns the updated order."""
        return shop().return_delivered_order_items(order_id, item_ids, payment_method_id)

    @tool(annotations=WRITE)
    def exchange_delivered_order_items(
        order_id: OrderId,
        item_ids: ItemIds,
        new_item_ids: NewItemIds,
        payment_method_id: DifferencePayer,
    ) -> Order:
        """Exchange items of a delivered order for other available variants of the same products. The price
        difference is charged or refunded to the given payment method. An order can be returned or exchanged
        only once, so collect every item first and confirm with the customer. The status becomes 'exchange
        requested'. Returns the updated order."""
        return shop().exchange_delivered_order_items(order_id, item_ids, new_item_ids, payment_method_id)

    @tool(annotations=WRITE)
    def modify_user_address(
        user_id: UserId,
        address: Annotated[Address, Field(description="The customer's new default address.")],
    ) -> User:
        """Change a customer's default address (orders keep theirs; use modify_pending_order_address for a
        pending order). Confirm the full new address first. Returns the updated customer."""
        return shop().modify_user_address(user_id, address)
