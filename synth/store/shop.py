"""The shop: one SQLite database behind one lock, its reads (synth.store.reads) and its writes
(synth.store.writes, each one transaction), as the methods the store's MCP tools call.

Every refusal is a ``RuleError`` whose message says what rule was broken and what to do instead;
the server turns it into an MCP ``ToolError`` (``isError: true``, text visible to the model).
The connection is shared by the SDK's worker threads (sync tools run off the event loop), so it
is opened with ``check_same_thread=False`` and every use holds one lock.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from synth.store import reads, writes
from synth.store.models import Address, Order, Product, ProductTypes, User
from synth.store.seed import create_schema, seed_database


class Store:
    """One store database. ``open`` seeds it first when the file does not exist yet."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.conn.row_factory = sqlite3.Row
        self.lock = threading.RLock()

    @classmethod
    def open(cls, path: Path | str, seed: int = 0) -> Self:
        if str(path) != ":memory:" and not Path(path).exists():
            seed_database(path, seed)
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        # No fsync per commit: a killed server still leaves every committed write (the OS has it), only a
        # power cut could lose one, and a test shop is recreated from its seed. fsync cost ~18 ms a write here.
        # The rollback journal (not WAL) keeps the store one file a verifier can open read-only or copy.
        conn.execute("PRAGMA synchronous = OFF")
        if str(path) == ":memory:":
            create_schema(conn)
        return cls(conn)

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self.lock:
            yield self.conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of a write happens, or none of it (a refusal rolls back)."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    # --- reads ---------------------------------------------------------------------------------

    def find_user_id_by_email(self, email: str) -> str:
        with self._read() as db:
            return reads.find_user_id_by_email(db, email)

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        with self._read() as db:
            return reads.find_user_id_by_name_zip(db, first_name, last_name, zip)

    def user(self, user_id: str) -> User:
        with self._read() as db:
            return reads.user(db, user_id)

    def order(self, order_id: str) -> Order:
        with self._read() as db:
            return reads.order(db, order_id)

    def product(self, product_id: str) -> Product:
        with self._read() as db:
            return reads.product(db, product_id)

    def product_types(self) -> ProductTypes:
        with self._read() as db:
            return reads.product_types(db)

    # --- writes: each one transaction -------------------------------------------------------------

    def cancel_pending_order(self, order_id: str, reason: str) -> Order:
        with self._write() as db:
            writes.cancel_pending_order(db, order_id, reason)
        return self.order(order_id)

    def modify_pending_order_address(self, order_id: str, address: Address) -> Order:
        with self._write() as db:
            writes.modify_pending_order_address(db, order_id, address)
        return self.order(order_id)

    def modify_pending_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Order:
        with self._write() as db:
            writes.modify_pending_order_items(db, order_id, item_ids, new_item_ids, payment_method_id)
        return self.order(order_id)

    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Order:
        with self._write() as db:
            writes.modify_pending_order_payment(db, order_id, payment_method_id)
        return self.order(order_id)

    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> Order:
        with self._write() as db:
            writes.return_delivered_order_items(db, order_id, item_ids, payment_method_id)
        return self.order(order_id)

    def exchange_delivered_order_items(
        self, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
    ) -> Order:
        with self._write() as db:
            writes.exchange_delivered_order_items(db, order_id, item_ids, new_item_ids, payment_method_id)
        return self.order(order_id)

    def modify_user_address(self, user_id: str, address: Address) -> User:
        with self._write() as db:
            writes.modify_user_address(db, user_id, address)
        return self.user(user_id)
