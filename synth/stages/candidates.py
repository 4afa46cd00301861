"""What the injector knows about a tool and a gold call, and what a candidate negative is.

Shared by the generators of synth.stages.inject (tools and names) and synth.stages.wrong_values.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema.protocols import Validator

from synth.facts import format_of
from synth.grade import (
    FILLER_WORDS,
    Evidence,
    Facts,
    facts,
    format_ok,
    json_type,
    loose,
    purpose,
    schema_validator,
    show,
    words,
)
from synth.memo import ByIdentity
from synth.records import ToolCall, ToolSpec
from synth.stages.scalars import Scalars

# --- what is known about a tool and a call ------------------------------------------------------


@dataclass(frozen=True)
class ToolInfo:
    spec: ToolSpec
    validator: Validator
    docs: dict[str, str]  # docstring lines per parameter: "days: ... (1-10, default: 3)"
    purpose: str  # the description's first sentence, cleaned
    name_words: frozenset[str]
    topic: frozenset[str]  # content words of name, description and parameters
    loose: str  # the name as a lenient grader matches it


_IDS = {"id", "ids", "key", "slug", "code", "token", "uuid", "hash"}  # one-word values
_IMPLIED = (("url", "uri"), ("uri", "uri"), ("link", "uri"), ("email", "email"), ("date", "date"))
_TOOLS: ByIdentity[ToolInfo] = ByIdentity(8192)
_DOC_LINE = re.compile(r"\s*[-*•]?\s*`?([A-Za-z_][\w\-]*)`?\s*(?:\([^)]*\))?\s*[:–]\s+(.+)")
_STOP = {"the", "and", "for", "with", "from", "this", "that", "into", "tool", "given", "specific", "returns", "args"}


def tool_info(spec: ToolSpec) -> ToolInfo:
    """Everything about a tool that does not depend on the call, computed once per tool."""
    known = _TOOLS.get(spec)
    if known is not None:
        return known
    props = spec.properties
    docs: dict[str, str] = {}
    for line in spec.description.splitlines():
        if (d := _DOC_LINE.match(line)) and d.group(1) in props:
            docs.setdefault(d.group(1), d.group(2).strip())
    text = re.sub(r"[^\w\s]", " ", f"{spec.name} {spec.description[:300]} {' '.join(props)}")
    topic = frozenset(w for w in words(text) if len(w) > 2 and w not in _STOP)
    info = ToolInfo(
        spec,
        schema_validator(spec.input_schema),
        docs,
        purpose(spec),
        frozenset(words(spec.name)) - FILLER_WORDS,
        topic,
        loose(spec.name),
    )
    return _TOOLS.put((spec,), info)


@dataclass(frozen=True)
class Node:
    """One value of the gold call, at the top level or inside an object argument."""

    path: tuple[str, ...]
    facts: Facts
    value: Any

    @property
    def label(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True)
class Ctx:
    tool: ToolInfo
    siblings: tuple[ToolInfo, ...]
    gold: ToolCall
    evidence: Evidence
    nodes: tuple[Node, ...]
    context: Scalars
    kin: tuple[tuple[ToolSpec, ...], ...] = ()  # tools not offered, in tiers, whose parameters an extra may borrow
    # the other calls the turn still makes (made beside this one, or later before the person speaks again), each
    # with its tool: a negative that is one of them is no mistake
    needed: tuple[tuple[ToolSpec | None, ToolCall], ...] = ()

    def call(self, arguments: dict[str, Any], name: str | None = None) -> ToolCall:
        return ToolCall(id=self.gold.id, name=name or self.gold.name, arguments=arguments)

    def wanted(self, node: Node) -> str:
        """ "the user asked for 4 days", "the search_tool result gave 'Porto'", "the request ..."."""
        v, name = node.value, node.path[-1]
        shown = show(v)
        if json_type(v) == "number" and name.isalpha() and name.islower() and name.endswith("s"):
            shown += " " + (name[:-1] if v == 1 else name)  # "4 days"
        src = self.evidence.source(v)
        if src == "user":
            return f"the user asked for {shown}"
        return f"the {src} result gave {shown}" if src else f"the request calls for {shown}"


def nodes_of(tool: ToolInfo, arguments: dict[str, Any]) -> tuple[Node, ...]:
    out: list[Node] = []

    def walk(path: tuple[str, ...], schema: Any, value: Any, doc: str) -> None:
        f = facts(".".join(path), schema, doc, value)
        out.append(Node(path, f, value))
        props = f.schema.get("properties")
        if isinstance(value, dict) and isinstance(props, dict):
            for k, v in value.items():
                if k in props:
                    walk(path + (k,), props[k], v, "")

    for k, v in arguments.items():
        walk((k,), tool.spec.properties.get(k, {}), v, tool.docs.get(k, ""))
    return tuple(out)


# --- candidates ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    subtype: str
    call: ToolCall
    reason: str
    node: Node | None = None  # the changed value, for value subtypes


Generator = Callable[[Ctx, random.Random], Iterator[Candidate]]


def fits(value: Any, name: str, schema: dict[str, Any]) -> bool:
    """The value has the parameter's type and could pass for it (no sentence as an id)."""
    if "enum" in schema:
        return value in schema["enum"]
    t = schema.get("type")
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(value, str):
        w = set(words(name))
        fmt = format_of(name, schema, "", value) or next((f for k, f in _IMPLIED if k in w), "")
        if fmt and not (format_ok(fmt, value) or format_ok(fmt + "-time", value)):  # or a date-time
            return False
        if " " in value.strip() and w & _IDS:
            return False
    return json_type(value) == t if isinstance(t, str) else True


def replace(arguments: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(arguments)
    out[path[0]] = value if len(path) == 1 else replace(out[path[0]], path[1:], value)
    return out


def value_at(arguments: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        arguments = arguments[key]
    return arguments
