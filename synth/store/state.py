"""The canonical state of a store database and its hash (stdlib only).

Exported ``verify.py`` files inline this module, so it must keep importing nothing but the
standard library. Every table's rows become dicts (column -> value; money stays integer cents),
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
    """Every user table as a list of row dicts, sorted by their canonical JSON."""
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
    ]
    state: dict[str, list[dict[str, object]]] = {}
    for table in tables:
        cursor = conn.execute(f'SELECT * FROM "{table}"')
        columns = [d[0] for d in cursor.description]
        rows = [dict(zip(columns, row)) for row in cursor]
        state[table] = sorted(rows, key=lambda row: json.dumps(row, sort_keys=True))
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
