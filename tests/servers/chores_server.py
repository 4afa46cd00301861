"""A test server written as many to-do servers on PyPI are: stateful (its chores live in a JSON file under the
user's home, ``~/.local/share/chores/chores.json``), integer ids that a create says only in text ("Chore created
with ID: 3"), and a missing id said in text too ("Chore not found"), never with ``isError``."""

import json
from pathlib import Path
from typing import Literal

from mcp.server.mcpserver import MCPServer

STATE = Path("~/.local/share/chores/chores.json").expanduser()
mcp = MCPServer("chores", instructions="A household chore list: add chores, list them, mark them done, remove them.")


def _load() -> list[dict]:
    return json.loads(STATE.read_text()) if STATE.exists() else []


def _save(chores: list[dict]) -> None:
    STATE.parent.mkdir(parents=True, exist_ok=True)
    STATE.write_text(json.dumps(chores, indent=1))


@mcp.tool()
def chore_create(name: str, room: str | None = None) -> str:
    """Create a new chore."""
    chores = _load()
    number = max((c["id"] for c in chores), default=0) + 1
    _save([*chores, {"id": number, "name": name, "room": room, "status": "open"}])
    return f"Chore created with ID: {number}"


@mcp.tool()
def chore_list() -> str:
    """List every chore."""
    return json.dumps(_load(), indent=1)


@mcp.tool()
def chore_get(id: int) -> str:
    """Get a chore by ID."""
    found = next((c for c in _load() if c["id"] == id), None)
    return json.dumps(found, indent=1) if found else "Chore not found"


@mcp.tool()
def chore_update(id: int, status: Literal["open", "done"] | None = None, name: str | None = None) -> str:
    """Update a chore: its status (open, done) or its name."""
    chores = _load()
    found = next((c for c in chores if c["id"] == id), None)
    if found is None:
        return "Chore not found"
    if status is not None:
        found["status"] = status
    if name is not None:
        found["name"] = name
    _save(chores)
    return f"Chore {id} updated"


@mcp.tool()
def chore_delete(id: int) -> str:
    """Delete a chore."""
    chores = _load()
    if not any(c["id"] == id for c in chores):
        return "Chore not found"
    _save([c for c in chores if c["id"] != id])
    return f"Chore {id} deleted"


if __name__ == "__main__":
    mcp.run()
