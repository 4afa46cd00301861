"""``synth registry import``: ask a running MCP server what it is and write its registry entry.

The entry is Smithery-style: qualifiedName, displayName, description, the tools exactly as
``tools/list`` served them (``inputSchema`` and ``outputSchema`` untouched), and a ``connections``
item that says how to reach the server again. Secrets stay out of the file: header and env values
that look like credentials must be written as ``$NAME`` (read from the environment at connect time).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import anyio

from synth.errors import ConfigError
from synth.live.client import Limits, connect
from synth.live.sandbox import placed, uses_folder
from synth.live.secrets import literal_secrets
from synth.records import Connection

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def describe(connection: Connection, limits: Limits = Limits(), name: str | None = None) -> dict[str, Any]:
    """The server's registry entry, from its ``initialize`` answer and every page of ``tools/list``."""
    check_secrets(connection)

    async def ask(started: Connection) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        async with connect(started, name or connection.where(), limits) as session:
            return session.info, await session.tools()

    if connection.type == "stdio" and (connection.stateful or uses_folder(connection)):
        with tempfile.TemporaryDirectory(prefix="synth-import-") as folder:  # as in a run: its state lands here
            info, tools = anyio.run(ask, placed(connection, folder))
    else:
        info, tools = anyio.run(ask, connection)
    server = info.get("serverInfo") or {}
    qualified = name or server.get("name") or "server"
    instructions = (info.get("instructions") or "").strip()
    entry: dict[str, Any] = {
        "qualifiedName": qualified,
        "displayName": server.get("title") or server.get("name") or qualified,
        "description": _first_paragraph(instructions) or f"{qualified} MCP server",
        "version": server.get("version"),
        "instructions": instructions or None,
        "tools": tools,
        "connections": [connection_entry(connection)],
        "imported": {"protocolVersion": info.get("protocolVersion"), "via": connection.type},
    }
    return {k: v for k, v in entry.items() if v is not None}


def connection_entry(connection: Connection) -> dict[str, Any]:
    """The ``connections`` item of a registry entry, in the shape the registry loader reads."""
    if connection.type == "stdio":
        out: dict[str, Any] = {"type": "stdio", "command": connection.command, "args": list(connection.args)}
        if connection.env:
            out["env"] = dict(connection.env)
        if connection.cwd:
            out["cwd"] = connection.cwd
    else:
        out = {"type": "http", "deploymentUrl": connection.url}
        if connection.headers:
            out["headers"] = dict(connection.headers)
    if connection.stateful:
        out["stateful"] = True
    return out


def check_secrets(connection: Connection) -> None:
    """Refuse to write a credential into a file (synth.live.secrets.literal_secrets: by name and by shape):
    it must be a ``$NAME`` reference, read from the environment when connecting."""
    found = literal_secrets(connection)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise ConfigError(
            f"{found[0]}{more}. A credential would be written into the registry file; nothing was written"
        )


def write_entry(entry: dict[str, Any], out: Path) -> Path:
    """``<out>/<safe name>.json``; the name cannot leave ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    stem = _UNSAFE.sub("_", entry["qualifiedName"].lstrip("@").replace("/", "__")).strip("._") or "server"
    path = out / f"{stem}.json"
    path.write_text(json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _first_paragraph(text: str) -> str:
    return text.split("\n\n", 1)[0].strip()[:500]
