"""Read a folder of MCP server definitions into a ``Registry``.

Accepted files (``*.json``, ``*.yaml``, ``*.yml``, read recursively in sorted order, hidden paths
skipped): a Smithery-style server object, a list of them or ``{"servers": [...]}``; an MCP
``tools/list`` result ``{"tools": [...]}`` or its JSON-RPC envelope; an OpenAI ``tools`` array.
Nothing in a file stops the others from loading: each defect becomes a ``Problem``. Only a folder
that cannot be read at all raises ``RegistryError``.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from synth.errors import RegistryError
from synth.records import Connection, Problem, Registry, ServerSpec, ToolSpec, content_hash
from synth.registry.normalize import escape, normalize_schema

SUFFIXES = (".json", ".yaml", ".yml")
PACK_SUFFIXES = (".pack.yaml", ".pack.yml", ".pack.json")
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_DESCRIPTION = 1024
_SHAPES = (
    "a Smithery server object {qualifiedName, displayName, description, tools: [...]}, a list of them or "
    '{"servers": [...]}; an MCP tools/list result {"tools": [...]} or its JSON-RPC envelope; '
    'or an OpenAI tools array [{"type": "function", "function": {...}}]'
)


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc] # libyaml's parser when present: packs are large
    """YAML read the way JSON would be: dates stay strings, so schemas and hashes hold JSON values only."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_yaml(text: str) -> Any:
    """One YAML document as JSON values (registry files and packs alike)."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass


@dataclass
class _Found:
    """One server found in a file, before its tools are checked."""

    obj: dict[str, Any]
    pointer: str  # of the server object in the file ("" for the whole file)
    id: str
    tools: list[tuple[Any, str]] | None  # (tool entry, its pointer); None when there is no tools list


@dataclass
class _Tally:
    problems: list[Problem] = field(default_factory=list)
    skipped_tools: int = 0
    skipped_servers: int = 0


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
    tally = _Tally()
    servers: list[ServerSpec] = []
    seen: dict[str, str] = {}  # server id -> where it was first defined
    for path in files:
        rel = path.relative_to(folder).as_posix()
        doc, problem = _parse(path, rel)
        if problem is not None:
            tally.problems.append(problem)
            continue
        for found in _servers_in(doc, rel, path.stem, tally):
            if found.id in seen:
                tally.skipped_servers += 1
                _add(
                    tally,
                    "error",
                    rel,
                    found.id,
                    None,
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


def registry_files(folder: Path) -> list[Path]:
    """Registry files under ``folder``, sorted by relative path; hidden files and folders are skipped."""
    found = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.name.endswith(PACK_SUFFIXES):  # a server pack sits beside its server; it is not one
            continue
        if path.suffix.lower() in SUFFIXES and path.is_file() and not any(p.startswith(".") for p in rel.parts):
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def problem_key(p: Problem) -> tuple[Any, ...]:
    """File, server, tool, then pointer with numeric steps in numeric order (/tools/2 before /tools/10)."""
    steps = tuple((0, int(t), "") if t.isascii() and t.isdigit() else (1, 0, t) for t in p.pointer.split("/")[1:])
    return (p.file, p.server or "", p.tool or "", steps, p.severity, p.what)


def _parse(path: Path, rel: str) -> tuple[Any, Problem | None]:
    """The file's document, or one error Problem saying where it stops parsing."""

    def bad(what: str, fix: str) -> tuple[Any, Problem]:
        return None, Problem(severity="error", file=rel, what=what, fix=fix)

    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return bad(f"file is not UTF-8 text (bad byte at offset {exc.start})", "save the file as UTF-8")
    except OSError as exc:
        return bad(f"file cannot be read: {exc.strerror or exc}", "check the file's permissions")
    if not text.strip():
        return bad("empty file", "put a server definition in it, or delete it")
    try:
        if path.suffix.lower() == ".json":
            try:
                return json.loads(text), None
            except json.JSONDecodeError as exc:
                return bad(
                    f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                    "fix the JSON syntax at that position (a JSON linter shows the exact spot)",
                )
        try:
            return _jsonish(read_yaml(text)), None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            return bad(
                f"not valid YAML: {reason}{at}", "fix the YAML syntax at that position (indentation, quotes, colons)"
            )
    except RecursionError:
        return bad("file is nested too deeply (or holds a recursive YAML alias)", "flatten the document")


def _jsonish(value: Any) -> Any:
    """YAML values as JSON values: string keys, lists for sequences and sets, strings for anything else."""
    if isinstance(value, dict):
        return {str(k): _jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonish(v) for v in value), key=repr)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _servers_in(doc: Any, rel: str, stem: str, tally: _Tally) -> list[_Found]:
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
        _add(
            tally,
            "error",
            rel,
            None,
            None,
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
    _add(
        tally,
        "error",
        rel,
        None,
        None,
        "",
        f"unknown file shape ({shape}); nothing loaded from it",
        f"use one of the accepted shapes: {_SHAPES}",
    )
    return []


def _list_of_servers(items: list[Any], base: str, rel: str, stem: str, tally: _Tally) -> list[_Found]:
    out = []
    for i, item in enumerate(items):
        if isinstance(item, dict):
            out.append(_found(item, f"{base}/{i}", f"{stem}#{i}"))
        else:
            tally.skipped_servers += 1
            _add(
                tally,
                "error",
                rel,
                None,
                None,
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


def _server(found: _Found, rel: str, tally: _Tally) -> ServerSpec | None:
    """Check the tools of one server; a server left with no usable tool is skipped with an error."""
    obj, sid = found.obj, found.id
    if found.tools is None or not found.tools:
        tally.skipped_servers += 1
        what = (
            "server has no tools"
            if found.tools is not None or "tools" not in obj
            else f'"tools" is a {type(obj["tools"]).__name__}, not a list'
        )
        _add(
            tally,
            "error",
            rel,
            sid,
            None,
            f"{found.pointer}/tools",
            f"{what}; server skipped",
            'add the server\'s tools (its tools/list answer) as a list under "tools"',
        )
        return None
    tools: list[ToolSpec] = []
    names: dict[str, str] = {}
    for entry, pointer in found.tools:
        tool = _tool(entry, pointer, sid, rel, tally, names)
        if tool is None:
            tally.skipped_tools += 1
        else:
            names[tool.name] = pointer
            tools.append(tool)
    if not tools:
        tally.skipped_servers += 1
        _add(
            tally,
            "error",
            rel,
            sid,
            None,
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


def _connection(obj: dict[str, Any], pointer: str, rel: str, sid: str, tally: _Tally) -> Connection | None:
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
            return Connection(type=kind, **fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            _add(
                tally,
                "warning",
                rel,
                sid,
                None,
                where,
                f"connection cannot be used: {'.'.join(map(str, first['loc']))}: {first['msg']}; the server is simulated",  # noqa: E501
                "stdio needs a command (string), args (list of strings), env (object of strings); "
                "http needs deploymentUrl and headers (object of strings)",
            )
    return None


def _tool(entry: Any, pointer: str, sid: str, rel: str, tally: _Tally, names: dict[str, str]) -> ToolSpec | None:
    """One tool entry -> ToolSpec, or None (with an error) when it cannot be used."""
    openai = isinstance(entry, dict) and isinstance(entry.get("function"), dict) and "name" not in entry
    if openai:
        entry, pointer = entry["function"], f"{pointer}/function"
    if not isinstance(entry, dict):
        kind = "missing" if entry is None else f"a {type(entry).__name__}"
        _add(
            tally,
            "error",
            rel,
            sid,
            None,
            pointer,
            f"tool entry is {kind}, not an object",
            "make each tool an object with name, description and inputSchema",
        )
        return None
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        what = (
            "tool has no name"
            if name is None or isinstance(name, str)
            else f"tool name is a {type(name).__name__}, not a string"
        )
        _add(
            tally,
            "error",
            rel,
            sid,
            None,
            f"{pointer}/name",
            f"{what}; tool skipped",
            "give the tool a non-empty string name",
        )
        return None
    if name in names:
        _add(
            tally,
            "error",
            rel,
            sid,
            name,
            f"{pointer}/name",
            f"duplicate tool name {name!r} (first defined at {names[name]}); this one is skipped",
            "give each tool of a server a unique name",
        )
        return None
    problems: list[Problem] = []

    def note(severity: str, ptr: str, what: str, fix: str) -> None:
        problems.append(Problem(severity=severity, file=rel, server=sid, tool=name, pointer=ptr, what=what, fix=fix))

    if not OPENAI_NAME.match(name):
        note(
            "warning",
            f"{pointer}/name",
            f"tool name {name!r} is not a valid OpenAI function name (^[a-zA-Z0-9_-]{{1,64}}$)",
            "rename it to letters, digits, _ and - (at most 64); until then the exporter renames it",
        )
    description = _description(entry, pointer, note)
    key = next((k for k in ("inputSchema", "input_schema", "parameters") if k in entry), None)
    original = entry.get(key) if key else None
    if original is None:
        if not openai:  # OpenAI functions may leave out "parameters"; MCP tools must have an inputSchema
            note(
                "warning",
                f"{pointer}/{key or 'inputSchema'}",
                "tool has no inputSchema; treated as taking no arguments",
                'add "inputSchema": {"type": "object", "properties": {}} (MCP requires one)',
            )
        schema: dict[str, Any] | None = {"type": "object", "properties": {}}
    else:
        schema, found = normalize_schema(original, file=rel, server=sid, tool=name, pointer=f"{pointer}/{escape(key)}")
        problems.extend(found)
    output = _output_schema(entry, pointer, rel, sid, name, problems)
    annotations = entry.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        note(
            "warning",
            f"{pointer}/annotations",
            f"annotations is a {type(annotations).__name__}, not an object; dropped",
            'make annotations an object such as {"readOnlyHint": true}',
        )
        annotations = None
    if schema is None:  # the errors say why; say also what happened
        problems = [
            p.model_copy(update={"what": f"{p.what}; tool skipped"}) if p.severity == "error" else p for p in problems
        ]
    tally.problems.extend(problems)
    if schema is None:
        return None
    return ToolSpec(
        server=sid,
        name=name,
        description=description,
        input_schema=schema,
        output_schema=output,
        schema_hash=content_hash(original),
        annotations=annotations,
    )


def _description(entry: dict[str, Any], pointer: str, note: Callable[[str, str, str, str], None]) -> str:
    """The tool's description with docstring indentation removed; missing or odd ones are warned about."""
    raw = entry.get("description")
    where = f"{pointer}/description"
    if raw is not None and not isinstance(raw, str):
        note(
            "warning",
            where,
            f"description is a {type(raw).__name__}, not a string; ignored",
            "make the description a string; tools with no description are hard to call",
        )
        return ""
    text = inspect.cleandoc(raw) if raw else ""
    if not text:
        note("warning", where, "tool has no description", "tools with no description are hard to call; add one")
    elif len(text) > MAX_DESCRIPTION:
        note(
            "warning",
            where,
            f"description is {len(text)} characters (over {MAX_DESCRIPTION})",
            f"shorten it below {MAX_DESCRIPTION} characters; some clients truncate or reject longer ones",
        )
    return text


def _output_schema(
    entry: dict[str, Any], pointer: str, rel: str, sid: str, name: str, problems: list[Problem]
) -> dict[str, Any] | None:
    """outputSchema is optional: an unusable one is dropped with warnings, never skips the tool."""
    key = next((k for k in ("outputSchema", "output_schema") if entry.get(k) is not None), None)
    if key is None:
        return None
    schema, found = normalize_schema(
        entry[key], file=rel, server=sid, tool=name, pointer=f"{pointer}/{key}", require_object=False
    )
    for p in found:
        if p.severity == "error":
            p = p.model_copy(update={"severity": "warning", "what": f"outputSchema dropped: {p.what}"})
        problems.append(p)
    return schema


def _add(
    tally: _Tally, severity: str, file: str, server: str | None, tool: str | None, pointer: str, what: str, fix: str
) -> None:
    tally.problems.append(
        Problem(severity=severity, file=file, server=server, tool=tool, pointer=pointer, what=what, fix=fix)
    )
