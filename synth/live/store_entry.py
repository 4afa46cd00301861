"""The store's registry entry (``registry/synth__store.json``), made from what the server serves.

The tools are the server's own ``tools/list``, read through synth's MCP client (in process), so the
entry cannot drift from the code: ``synth serve store --entry registry/synth__store.json`` rewrites it,
and a test checks the shipped file equals this.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from synth.live.client import connect
from synth.records import Connection
from synth.store.server import build_server
from synth.store.shop import Store

QUALIFIED_NAME = "synth/store"
ENTRY_FILE = "synth__store.json"


async def served_tools() -> list[dict[str, Any]]:
    """The server's tools/list, as wire JSON (camelCase, no nulls)."""
    store = Store.open(":memory:")  # the schema only: tools/list needs no rows
    try:
        async with connect(
            Connection(type="stdio", command="synth", args=("serve", "store")),
            QUALIFIED_NAME,
            local=build_server(store),
        ) as session:
            return await session.tools()
    finally:
        store.close()


async def registry_entry() -> dict[str, Any]:
    return {
        "qualifiedName": QUALIFIED_NAME,
        "displayName": "Synth Store",
        "description": "A stateful online shop shipped with synth (`synth serve store`): about 500 customers, 50 product "  # noqa: E501
        "types with variants and 1000 orders in SQLite, seeded deterministically. Look up customers, "
        "orders and products; cancel or change pending orders; return or exchange delivered items; "
        "update addresses. Every write follows the shop's rules and refuses with a readable error. "
        "Modelled on tau-bench's retail domain.",
        "license": "MIT",
        "category": "E-commerce",
        "remote": False,
        "connections": [{"type": "stdio", "command": "synth", "args": ["serve", "store"], "stateful": True}],
        "tools": await served_tools(),
    }


def entry_text(entry: dict[str, Any]) -> str:
    return json.dumps(entry, indent=2, ensure_ascii=False) + "\n"


def write_entry(path: Path) -> None:
    import anyio

    path.write_text(entry_text(anyio.run(registry_entry)), encoding="utf-8")
