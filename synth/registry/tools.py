"""One tool entry of a registry file -> ToolSpec, with every problem found on the way (and the place that
collects them, for the whole registry)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from synth.records import Problem, ToolSpec, content_hash
from synth.registry.normalize import escape, normalize_schema

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_DESCRIPTION = 1024


@dataclass
class Tally:
    problems: list[Problem] = field(default_factory=list)
    skipped_tools: int = 0
    skipped_servers: int = 0

    def at(self, file: str, server: str | None = None) -> At:
        return At(self, file, server)


@dataclass(frozen=True)
class At:
    """A place problems are found in (a file, a server of it), so each one is told by pointer, what and fix."""

    tally: Tally
    file: str
    server: str | None = None

    def error(self, pointer: str, what: str, fix: str, tool: str | None = None) -> None:
        self._add("error", pointer, what, fix, tool)

    def warning(self, pointer: str, what: str, fix: str, tool: str | None = None) -> None:
        self._add("warning", pointer, what, fix, tool)

    def _add(self, severity: str, pointer: str, what: str, fix: str, tool: str | None) -> None:
        self.tally.problems.append(
            Problem(
                severity=severity, file=self.file, server=self.server, tool=tool, pointer=pointer, what=what, fix=fix
            )
        )


def read_tool(entry: Any, pointer: str, sid: str, rel: str, tally: Tally, names: dict[str, str]) -> ToolSpec | None:
    """One tool entry -> ToolSpec, or None (with an error) when it cannot be used."""
    openai = isinstance(entry, dict) and isinstance(entry.get("function"), dict) and "name" not in entry
    if openai:
        entry, pointer = entry["function"], f"{pointer}/function"
    name = _name(entry, pointer, tally.at(rel, sid), names)
    if name is None:
        return None
    problems: list[Problem] = []

    def note(severity: str, ptr: str, what: str, fix: str) -> None:
        problems.append(Problem(severity=severity, file=rel, server=sid, tool=name, pointer=ptr, what=what, fix=fix))

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
    annotations = _annotations(entry.get("annotations"), pointer, note)
    _unspoken(entry, annotations, pointer, note)
    if schema is None:  # the errors say why; say also what happened
        tally.problems.extend(
            p.model_copy(update={"what": f"{p.what}; tool skipped"}) if p.severity == "error" else p for p in problems
        )
        return None
    tally.problems.extend(problems)
    return ToolSpec(
        server=sid,
        name=name,
        description=description,
        input_schema=schema,
        output_schema=output,
        schema_hash=content_hash(original),
        annotations=annotations,
    )


def _unspoken(entry: dict[str, Any], annotations: dict[str, Any] | None, pointer: str, note: Any) -> None:
    """Warnings for a tool that needs what synth does not give a live call: MCP task support, or the network."""
    execution = entry.get("execution")
    if isinstance(execution, dict) and execution.get("taskSupport") == "required":
        note(
            "warning",
            f"{pointer}/execution/taskSupport",
            "the tool needs MCP task support (taskSupport: required), which synth does not speak: every live call "
            "of it fails",
            "leave the tool out of the entry for live runs, or generate without --execute live",
        )
    if (annotations or {}).get("openWorldHint") is True:
        note(
            "warning",
            f"{pointer}/annotations/openWorldHint",
            "the tool reaches the outside world (openWorldHint): a live call needs network access from where synth "
            "runs, and its results change over time, so conversations do not replay",
            "run it live only where the network is reachable, or generate it simulated",
        )


def _name(entry: Any, pointer: str, at: At, names: dict[str, str]) -> str | None:
    """The tool's name, or None (with an error) when the entry is no object, has no name or repeats one."""
    if not isinstance(entry, dict):
        kind = "missing" if entry is None else f"a {type(entry).__name__}"
        at.error(
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
        at.error(f"{pointer}/name", f"{what}; tool skipped", "give the tool a non-empty string name")
        return None
    if name in names:
        at.error(
            f"{pointer}/name",
            f"duplicate tool name {name!r} (first defined at {names[name]}); this one is skipped",
            "give each tool of a server a unique name",
            tool=name,
        )
        return None
    if not OPENAI_NAME.match(name):
        at.warning(
            f"{pointer}/name",
            f"tool name {name!r} is not a valid OpenAI function name (^[a-zA-Z0-9_-]{{1,64}}$)",
            "rename it to letters, digits, _ and - (at most 64); until then the exporter renames it",
            tool=name,
        )
    return name


def _annotations(annotations: Any, pointer: str, note: Callable[[str, str, str, str], None]) -> dict[str, Any] | None:
    """The tool's annotations object; anything else is dropped with a warning."""
    if annotations is not None and not isinstance(annotations, dict):
        note(
            "warning",
            f"{pointer}/annotations",
            f"annotations is a {type(annotations).__name__}, not an object; dropped",
            'make annotations an object such as {"readOnlyHint": true}',
        )
        return None
    return annotations


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
