"""A test server as many on PyPI and npm are written: stateful, its SQLite database under the user's home
(``~/.local/share/ledger/ledger.db``, or ``--data DIR``), read and write SQL tools, and every failure returned
as plain text with ``isError`` unset ("Error: SELECT queries are not allowed for write_query", "no such table:
invoices", "Invoice 7 not found"). ``--month-closed``: every write is refused, in text as well ("Error: the ledger
is closed for the month end")."""

import sqlite3
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

data = Path(sys.argv[sys.argv.index("--data") + 1]) if "--data" in sys.argv else Path("~/.local/share/ledger")
data = data.expanduser()
data.mkdir(parents=True, exist_ok=True)
CLOSED = "Error: the ledger is closed for the month end; no writes until it reopens"
closed = "--month-closed" in sys.argv
db = sqlite3.connect(data / "ledger.db", check_same_thread=False)
mcp = MCPServer("ledger", instructions="A small bookkeeping ledger kept in SQLite: tables of invoices and payments.")


@mcp.tool()
def list_tables() -> str:
    """The ledger's tables, one per line."""
    rows = db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").fetchall()
    return "\n".join(r[0] for r in rows) or "The ledger has no tables yet."


@mcp.tool()
def read_query(query: str) -> str:
    """Run a SELECT query on the ledger and return its rows."""
    if not query.strip().upper().startswith("SELECT"):
        return "Error: only SELECT queries are allowed for read_query"
    try:
        return str(db.execute(query).fetchall())
    except sqlite3.Error as exc:
        return str(exc)  # "no such table: invoices", as many servers say it


@mcp.tool()
def write_query(query: str) -> str:
    """Run an INSERT, UPDATE or DELETE query on the ledger."""
    if closed:
        return CLOSED
    if query.strip().upper().startswith("SELECT"):
        return "Error: SELECT queries are not allowed for write_query"
    try:
        count = db.execute(query).rowcount
    except sqlite3.Error as exc:
        return f"Database error: {exc}"
    db.commit()
    return f"{count} rows affected"


@mcp.tool()
def create_table(query: str) -> str:
    """Create a table with a CREATE TABLE statement."""
    if closed:
        return CLOSED
    if not query.strip().upper().startswith("CREATE TABLE"):
        return "Error: only CREATE TABLE statements are allowed"
    try:
        db.execute(query)
    except sqlite3.Error as exc:
        return f"Database error: {exc}"
    db.commit()
    return "Table created"


@mcp.tool()
def get_invoice(invoice_id: int) -> str:
    """One invoice by its id."""
    try:
        row = db.execute("SELECT * FROM invoices WHERE id = ?", (invoice_id,)).fetchone()
    except sqlite3.Error as exc:
        return f"Error: {exc}"
    return str(row) if row else f"Invoice {invoice_id} not found"


if __name__ == "__main__":
    mcp.run()
