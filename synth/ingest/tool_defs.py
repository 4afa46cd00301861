"""Tool definitions as people's files carry them (OpenAI ``tools`` or ``functions``, MCP ``inputSchema``,
APIGen's parameter maps) as ToolSpecs for the gates, and as OpenAI ``tools`` JSON for the exports."""

from __future__ import annotations

import json
import re
from typing import Any

from synth.records import ToolSpec, content_hash
from synth.registry.normalize import normalize_schema

_XLAM_TYPES = {
    "str": "string",
    "string": "string",
    "int": "integer",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "list": "array",
    "dict": "object",
}


def _xlam_schema(params: dict[str, Any]) -> dict[str, Any]:
    """APIGen's ``{"name": {"type": "str, optional", "default": ..}}`` as a JSON Schema."""
    props: dict[str, Any] = {}
    required = []
    for name, spec in params.items():
        spec = spec if isinstance(spec, dict) else {}
        kind = str(spec.get("type") or "")
        optional = "optional" in kind.lower()
        base = re.split(r"[,\[]", kind)[0].strip().lower()
        prop: dict[str, Any] = {"description": str(spec.get("description") or "")}
        if base in _XLAM_TYPES:
            prop["type"] = _XLAM_TYPES[base]
        if spec.get("default") not in (None, ""):
            prop["default"] = spec["default"]
        props[name] = prop
        if not optional:
            required.append(name)
    return {"type": "object", "properties": props, "required": required}


def _function(entry: Any) -> dict[str, Any] | None:
    fn = entry.get("function", entry) if isinstance(entry, dict) else None
    return fn if isinstance(fn, dict) and fn.get("name") else None


def _schema_of(fn: dict[str, Any]) -> Any:
    schema = fn.get("parameters", fn.get("input_schema", fn.get("inputSchema")))
    if schema is None:
        return {"type": "object", "properties": {}}
    if (
        isinstance(schema, dict)
        and "type" not in schema
        and "properties" not in schema
        and schema
        and all(isinstance(v, dict) for v in schema.values())
    ):
        return _xlam_schema(schema)
    return schema


def tool_specs(raw: list[Any], server: str, where: str) -> tuple[tuple[ToolSpec, ...], list[str]]:
    """ToolSpecs of OpenAI (or MCP, or APIGen) tool definitions; an unusable one is a problem, not an error."""
    out, problems = [], []
    for i, entry in enumerate(raw):
        fn = _function(entry)
        if fn is None:
            problems.append(f"tools[{i}] has no function name")
            continue
        spec, why = _tool_spec(fn, server)
        if why is not None:
            problems.append(f"tools[{i}] {fn['name']}: unusable schema ({why})")
        out.append(spec)
    return tuple(out), problems


_SPECS: dict[tuple[str, str], tuple[ToolSpec, str | None]] = {}  # (server, the definition's JSON) -> what it gives
SPECS = 4096  # definitions remembered: a file offers the same few hundred tools on every line


def _tool_spec(fn: dict[str, Any], server: str) -> tuple[ToolSpec, str | None]:
    """One definition's ToolSpec and why its schema is unusable (None when it is usable), normalised
    once per distinct definition: normalising took most of the time of reading a line."""
    key = (server, json.dumps(fn, ensure_ascii=False, default=str))
    known = _SPECS.get(key)
    if known is not None:
        return known
    schema = _schema_of(fn)
    normal, found = normalize_schema(schema, file="", server=server, tool=str(fn["name"]))
    why = None
    if normal is None:
        why = found[0].what if found else "invalid"
        normal = {"type": "object", "properties": {}}
    spec = ToolSpec(
        server=server,
        name=str(fn["name"]),
        description=str(fn.get("description") or ""),
        input_schema=normal,
        schema_hash=content_hash(schema),
    )
    if len(_SPECS) >= SPECS:
        _SPECS.clear()
    _SPECS[key] = (spec, why)
    return spec, why


def openai_tools_json(raw: list[Any]) -> str:
    """The usable definitions of ``raw`` as an OpenAI ``tools`` array, in JSON text."""
    out = []
    for entry in raw:
        fn = _function(entry)
        if fn is not None:
            out.append(
                {
                    "type": "function",
                    "function": {
                        "name": fn["name"],
                        "description": fn.get("description") or "",
                        "parameters": _schema_of(fn),
                    },
                }
            )
    return json.dumps(out, ensure_ascii=False)
