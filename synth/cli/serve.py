"""``synth serve``: run the MCP servers synth ships (``synth serve store``)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from synth.cli.common import group

serve_app = group("serve", "Run the MCP servers synth ships.")


def _open_store(db: Path, seed: int):
    """The store in ``db``; one error line (exit 2) for a file that is not a SQLite database or holds no store."""
    import sqlite3

    from synth.store.shop import Store

    why = ""
    try:
        store = Store.open(db, seed)
        tables = {row[0] for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        why = f"is not a SQLite database ({exc})"
    else:
        missing = sorted({"users", "products", "orders"} - tables)
        if not missing:
            return store
        store.close()
        why = f"is a SQLite database but not a store (no {', '.join(missing)} table)"
    typer.echo(
        f"error: --db {db} {why}; give a store database synth made, or a path that does not exist yet "
        "to create one from --seed",
        err=True,
    )
    raise typer.Exit(2)


@serve_app.command("store")
def serve_store(
    db: Path = typer.Option(Path("store.db"), "--db", help="The shop's SQLite file; created from --seed when absent."),
    seed: int = typer.Option(0, "--seed", help="Seed of a new database: the same seed gives identical data."),
    http: int | None = typer.Option(
        None, "--http", min=1, max=65535, help="Serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio."
    ),
    entry: Path | None = typer.Option(
        None,
        "--entry",
        help="Write the server's registry entry (Smithery JSON, "
        "tools as tools/list serves them) to this file and exit.",
    ),
) -> None:
    """An online shop on SQLite as a stateful MCP server: customers, products, orders and the shop's rules.

    Logs go to stderr; on stdio, stdout carries only the protocol.
    """
    if entry is not None:
        from synth.live.store_entry import write_entry

        write_entry(entry)
        typer.echo(f"wrote {entry}", err=True)
        return
    from synth.store.server import build_server

    if not db.parent.is_dir():
        typer.echo(f"error: --db {db}: folder {db.parent} does not exist; create it or choose another path", err=True)
        raise typer.Exit(2)
    created = not db.exists()
    store = _open_store(db, seed)
    where = f"http://127.0.0.1:{http}/mcp" if http else "stdio"
    print(
        f"synth store: {db} ({f'created from seed {seed}' if created else 'existing'}), serving on {where}",
        file=sys.stderr,
        flush=True,
    )
    server = build_server(store)
    try:
        if http:
            server.run("streamable-http", host="127.0.0.1", port=http)
        else:
            server.run()
    finally:
        store.close()
