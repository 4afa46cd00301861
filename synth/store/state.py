"""The canonical state of a store database and its hash (stdlib only).

Exported ``verify.py`` files inline this module, so it must keep importing nothing but the
standard library. The schema (every table, view, trigger and index, with its SQL) is part of the state;
every table's rows become dicts (column -> value; money stays integer cents),
each table's rows are sorted by their canonical JSON, and the whole
``{table: [rows]}`` document is dumped with sorted keys and hashed with sha256. Row order in
the file (insertion order, ``iterdump``) therefore never matters: two databases holding the
same facts have the same hash.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3


def canonical_state(conn: sqlite3.Connection) -> dict[str, list[dict[str, object]]]:
    """Every user table as a list of row dicts, sorted by their canonical JSON, and the schema itself under
    "sqlite_master" (a name no user table can take): every table, view, trigger and index with its SQL, so
    an added table, view or trigger changes the hash even when no row of the store's tables does."""
    schema = [
        {"type": kind, "name": name, "table": table, "sql": sql}
        for kind, name, table, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    ]
    state: dict[str, list[dict[str, object]]] = {"sqlite_master": sorted(schema, key=lambda row: json.dumps(row))}
    # sqlite's own tables (sqlite_sequence...) by their name's prefix: LIKE 'sqlite_%' would also skip a table
    # named "sqlite2x" (in LIKE, "_" is any character), hiding its rows from the hash
    tables = sorted(r["name"] for r in schema if r["type"] == "table" and not str(r["name"]).startswith("sqlite_"))
    for table in tables:
        cursor = conn.execute(f'SELECT * FROM "{table}"')
        columns = [d[0] for d in cursor.description]
        rows = [dict(zip(columns, row)) for row in cursor]
        state[str(table)] = sorted(rows, key=lambda row: json.dumps(row, sort_keys=True))
    return state


def state_hash(conn: sqlite3.Connection) -> str:
    """sha256 of the canonical state: same facts, same hash."""
    text = json.dumps(canonical_state(conn), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_state_hash(path: str) -> str:
    """The hash of a database file, opened read-only (the way a verifier opens it)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return state_hash(conn)
    finally:
        conn.close()


if __name__ == "__main__":  # python -m synth.store.state store.db
    import sys

    print(file_state_hash(sys.argv[1]))
