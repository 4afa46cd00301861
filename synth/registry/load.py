"""Read a folder of MCP server definitions into a ``Registry``.

Accepted files (``*.json``, ``*.yaml``, ``*.yml``, read recursively in sorted order, hidden paths
skipped): a Smithery-style server object, a list of them or ``{"servers": [...]}``; an MCP
``tools/list`` result ``{"tools": [...]}`` or its JSON-RPC envelope; an OpenAI ``tools`` array.
Nothing in a file stops the others from loading: each defect becomes a ``Problem``. Only a folder
that cannot be read at all raises ``RegistryError``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from synth.errors import RegistryError
from synth.records import Connection, Problem, Registry, ServerSpec, ToolSpec
from synth.registry.files import parse, registry_files
from synth.registry.tools import At, Tally, read_tool

_SHAPES = (
    "a Smithery server object {qualifiedName, displayName, description, tools: [...]}, a list of them or "
    '{"servers": [...]}; an MCP tools/list result {"tools": [...]} or its JSON-RPC envelope; '
    'or an OpenAI tools array [{"type": "function", "function": {...}}]'
)


@dataclass
class _Found:
    """One server found in a file, before its tools are checked."""

    obj: dict[str, Any]
    pointer: str  # of the server object in the file ("" for the whole file)
    id: str
    tools: list[tuple[Any, str]] | None  # (tool entry, its pointer); None when there is no tools list


def load_registry(root: Path | str) -> Registry:
    """Load every server under ``root``; same folder in, identical ``Registry`` out."""
    folder = Path(root)
    if not folder.exists():
        raise RegistryError(
            f"registry folder {folder} does not exist; pass a folder of MCP server files "
            "(*.json, *.yaml or *.yml), e.g. the registry/ folder shipped with synth"
        )
    if not folder.is_dir():
        raise RegistryError(f"{folder} is a file, not a folder; put it in a folder and pass the folder")
    files = registry_files(folder)
    if not files:
        raise RegistryError(
            f"no registry files (*.json, *.yaml, *.yml) in {folder}; add one file per MCP server, "
            'e.g. {"qualifiedName": "...", "tools": [{"name": ..., "inputSchema": ...}]}'
        )
    tally = Tally()
    servers: list[ServerSpec] = []
    seen: dict[str, str] = {}  # server id -> where it was first defined
    for path in files:
        rel = path.relative_to(folder).as_posix()
        doc, problem = parse(path, rel)
        if problem is not None:
            tally.problems.append(problem)
            continue
        for found in _servers_in(doc, rel, path.stem, tally):
            if found.id in seen:
                tally.skipped_servers += 1
                tally.at(rel, found.id).error(
                    found.pointer,
                    f"server id {found.id!r} is already defined in {seen[found.id]}; this one is ignored",
                    "give each server a unique qualifiedName, or remove one of the two definitions",
                )
                continue
            server = _server(found, rel, tally)
            if server is not None:
                seen[found.id] = rel + (f" at {found.pointer}" if found.pointer else "")
                servers.append(server)
    return Registry(
        root=folder.as_posix(),
        servers=tuple(servers),
        problems=tuple(sorted(tally.problems, key=problem_key)),
        skipped_tools=tally.skipped_tools,
        skipped_servers=tally.skipped_servers,
    )


def problem_key(p: Problem) -> tuple[Any, ...]:
    """File, server, tool, then pointer with numeric steps in numeric order (/tools/2 before /tools/10)."""
    steps = tuple((0, int(t), "") if t.isascii() and t.isdigit() else (1, 0, t) for t in p.pointer.split("/")[1:])
    return (p.file, p.server or "", p.tool or "", steps, p.severity, p.what)


def _servers_in(doc: Any, rel: str, stem: str, tally: Tally) -> list[_Found]:
    """Recognise the file's shape and list the servers in it (an unknown shape is one error)."""
    if isinstance(doc, list) and any(isinstance(x, dict) and "function" in x for x in doc):
        # An OpenAI tools array; _tool unwraps each {"type": "function", "function": {...}}.
        return [_Found({}, "", stem, [(x, f"/{i}") for i, x in enumerate(doc)])]
    if isinstance(doc, dict) and "jsonrpc" in doc:
        result = doc.get("result")
        if isinstance(result, dict) and "tools" in result:
            return [_found(result, "/result", stem)]
        what = (
            "file is a JSON-RPC error response, not a tools/list result"
            if "error" in doc
            else "JSON-RPC envelope has no result.tools"
        )
        tally.at(rel).error(
            "/error" if "error" in doc else "/result",
            what,
            "save the result of a successful tools/list call",
        )
        return []
    if isinstance(doc, dict) and isinstance(doc.get("servers"), list):
        return _list_of_servers(doc["servers"], "/servers", rel, stem, tally)
    if isinstance(doc, dict) and ("tools" in doc or "qualifiedName" in doc):
        return [_found(doc, "", stem)]
    if isinstance(doc, list) and any(isinstance(x, dict) and ("tools" in x or "qualifiedName" in x) for x in doc):
        return _list_of_servers(doc, "", rel, stem, tally)
    shape = (
        "empty"
        if doc in (None, [], {})
        else f"a {type(doc).__name__}"
        + (f" with keys {', '.join(sorted(map(str, doc))[:6])}" if isinstance(doc, dict) else "")
    )
    tally.at(rel).error(
        "",
        f"unknown file shape ({shape}); nothing loaded from it",
        f"use one of the accepted shapes: {_SHAPES}",
    )
    return []


def _list_of_servers(items: list[Any], base: str, rel: str, stem: str, tally: Tally) -> list[_Found]:
    out = []
    for i, item in enumerate(items):
        if isinstance(item, dict):
            out.append(_found(item, f"{base}/{i}", f"{stem}#{i}"))
        else:
            tally.skipped_servers += 1
            tally.at(rel).error(
                f"{base}/{i}",
                f"server entry is a {type(item).__name__}, not an object",
                "make each entry a server object with qualifiedName and tools",
            )
    return out


def _found(obj: dict[str, Any], pointer: str, fallback_id: str) -> _Found:
    name = obj.get("qualifiedName")
    server_id = name.strip() if isinstance(name, str) and name.strip() else fallback_id
    tools = obj.get("tools")
    listed = [(t, f"{pointer}/tools/{i}") for i, t in enumerate(tools)] if isinstance(tools, list) else None
    return _Found(obj, pointer, server_id, listed)


def _server(found: _Found, rel: str, tally: Tally) -> ServerSpec | None:
    """Check the tools of one server; a server left with no usable tool is skipped with an error."""
    obj, sid = found.obj, found.id
    if found.tools is None or not found.tools:
        tally.skipped_servers += 1
        what = (
            "server has no tools"
            if found.tools is not None or "tools" not in obj
            else f'"tools" is a {type(obj["tools"]).__name__}, not a list'
        )
        tally.at(rel, sid).error(
            f"{found.pointer}/tools",
            f"{what}; server skipped",
            'add the server\'s tools (its tools/list answer) as a list under "tools"',
        )
        return None
    tools: list[ToolSpec] = []
    names: dict[str, str] = {}
    for entry, pointer in found.tools:
        tool = read_tool(entry, pointer, sid, rel, tally, names)
        if tool is None:
            tally.skipped_tools += 1
        else:
            names[tool.name] = pointer
            tools.append(tool)
    if not tools:
        tally.skipped_servers += 1
        tally.at(rel, sid).error(
            f"{found.pointer}/tools",
            f"none of the server's {len(found.tools)} tools is usable; server skipped",
            "fix the tool errors reported for this server",
        )
        return None
    display = obj.get("displayName")
    return ServerSpec(
        id=sid,
        name=display.strip() if isinstance(display, str) and display.strip() else sid,
        description=obj["description"] if isinstance(obj.get("description"), str) else "",
        source=rel,
        category=obj["category"] if isinstance(obj.get("category"), str) else None,
        license=obj["license"] if isinstance(obj.get("license"), str) else None,
        tools=tuple(tools),
        connection=_connection(obj, found.pointer, rel, sid, tally),
    )


def _connection(obj: dict[str, Any], pointer: str, rel: str, sid: str, tally: Tally) -> Connection | None:
    """The first entry of ``connections`` synth can run: stdio with a command, or http with a URL.

    Smithery's own stdio entries carry a bundle, not a command: they are skipped without a word, as
    are entries of other types. A runnable entry with wrong fields is a warning that says the fix.
    """
    items = obj.get("connections")
    if not isinstance(items, list):
        return None
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind, where = item.get("type"), f"{pointer}/connections/{i}"
        if kind == "stdio" and "command" in item:
            fields = {
                "command": item["command"],
                "args": item.get("args") or (),
                "env": item.get("env") or {},
                "cwd": item.get("cwd"),
                "stateful": item.get("stateful", False),
                "sandbox": item.get("sandbox"),
            }
        elif kind == "http" and (item.get("deploymentUrl") or item.get("url")):
            fields = {
                "url": item.get("deploymentUrl") or item.get("url"),
                "headers": item.get("headers") or {},
                "stateful": item.get("stateful", False),
            }
        else:
            continue
        try:
            connection = Connection(type=kind, **fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            tally.at(rel, sid).warning(
                where,
                f"connection cannot be used: {'.'.join(map(str, first['loc']))}: {first['msg']}; the server is simulated",  # noqa: E501
                "stdio needs a command (string), args (list of strings), env (object of strings), and a sandbox "
                "of steps (each one of write: {path: text}, run: [argv], call: {tool, arguments}); "
                "http needs deploymentUrl and headers (object of strings)",
            )
            continue
        _say_reads(connection, tally.at(rel, sid), where)
        return connection
    return None


def _say_reads(connection: Connection, at: At, where: str) -> None:
    """The environment variables a runnable entry reads, said by lint: a warning for each entry that reads any,
    an error for the user's model or Hub keys (refused by --execute live unless --allow-env names them)."""
    from synth.live.secrets import KEY_NAMES, reads

    names = reads(connection)
    keys = [n for n in names if n in KEY_NAMES]
    if keys:
        at.error(
            where,
            f"the connection reads {', '.join(keys)} from your environment: your model or Hub key would go to "
            "this server; synth refuses to start it",
            f"remove it from the entry's env or headers (or, if the server must have it, --allow-env {keys[0]})",
        )
    elif names:
        at.warning(
            where,
            f"when started, the server gets {', '.join('$' + n for n in names)} from your environment",
            "check that this entry should have them before --execute live --allow-exec",
        )
