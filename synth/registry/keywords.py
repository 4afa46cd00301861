"""One schema object's own keywords, repaired or checked (``synth.registry.normalize`` walks the subschemas).

Each function looks at a single schema object: its ``type``, ``required``, ``enum``/``pattern``, bounds
and draft-specific spellings. A repair is a warning (``Run.warn``), a defect no repair can fix an error
(``Run.error``: the tool is skipped with that reason), both pointing into the file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from jsonschema.exceptions import SchemaError

from synth.records import Problem

TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
ALIASES = {
    "str": "string",
    "text": "string",
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "bool": "boolean",
    "dict": "object",
    "map": "object",
    "list": "array",
}
ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
DROPPED = ("$schema", "$id", "$defs", "definitions", "$anchor")
REPAIRED = "the loader repaired it for this run; fix it in the server so every MCP client gets a valid schema"
FILL_DEPTH = 4  # levels of nested objects and arrays the offline value writer fills (synth.simulator.values.values)


def escape(token: Any) -> str:
    """One JSON pointer token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


@dataclass
class Run:
    """One normalisation: where the schema sits in its file, and what went wrong so far."""

    root: Any  # the schema as given, for resolving local $refs
    base: str  # JSON pointer of the schema inside the file
    file: str
    server: str | None
    tool: str | None
    problems: list[Problem] = field(default_factory=list)
    fatal: bool = False
    expansions: int = 0

    def warn(self, pointer: str, what: str, fix: str = REPAIRED) -> None:
        self._add("warning", pointer, what, fix)

    def error(self, pointer: str, what: str, fix: str) -> None:
        self.fatal = True
        self._add("error", pointer, what, fix)

    def _add(self, severity: str, pointer: str, what: str, fix: str) -> None:
        self.problems.append(
            Problem(
                severity=severity,
                file=self.file,
                server=self.server,
                tool=self.tool,
                pointer=pointer,
                what=what,
                fix=fix,
            )
        )


def repair(s: dict[str, Any], ptr: str, run: Run) -> bool:
    """The keyword repairs of one schema object, in place, before its subschemas are walked; True when a
    "null" was dropped from its type (the value was Optional)."""
    for kw in DROPPED:
        s.pop(kw, None)
    if not isinstance(s.get("items"), list):
        s.pop("additionalItems", None)  # meant nothing without tuple items, and 2020-12 has no such keyword
    fix_bounds(s, ptr, run)
    if isinstance(deps := s.pop("dependencies", None), dict):  # draft-07 keyword split in 2020-12
        for k, v in deps.items():
            s.setdefault("dependentRequired" if isinstance(v, list) else "dependentSchemas", {})[k] = v
    nullable = fix_type(s, ptr, run)
    fix_values(s, ptr, run)
    check_ranges(s, ptr, run)
    if "required" in s:
        clean_required(s, ptr, run)
    return nullable


def fix_type(s: dict[str, Any], ptr: str, run: Run) -> bool:
    """Clean ``type``; True when a "null" was dropped (the value was Optional)."""
    if "type" not in s:
        return False
    clean: list[str] = []
    anything = False
    for n in s["type"] if isinstance(s["type"], list) else [s["type"]]:
        key = n.lower() if isinstance(n, str) else ""
        if key == n and n in TYPES:
            clean.append(n)
        elif key in TYPES or key in ALIASES:
            clean.append(ALIASES.get(key, key))
            run.warn(
                f"{ptr}/type",
                f"type {n!r} is not a JSON Schema type; read as {clean[-1]!r}",
                f'write "type": "{clean[-1]}"',
            )
        elif key == "any":
            anything = True
            run.warn(
                f"{ptr}/type",
                'type "any" is not JSON Schema; dropped (any value allowed)',
                'omit "type" to allow any value',
            )
        else:
            run.warn(
                f"{ptr}/type", f"unknown type {short(repr(n), 40)} dropped", "use one of " + ", ".join(sorted(TYPES))
            )
    clean = list(dict.fromkeys(clean))
    nonnull = [t for t in clean if t != "null"]
    if anything or not clean:
        del s["type"]
        return False
    s["type"] = (nonnull[0] if len(nonnull) == 1 else nonnull) if nonnull else "null"
    return bool(nonnull) and len(nonnull) < len(clean)


def clean_required(s: dict[str, Any], ptr: str, run: Run) -> None:
    """``required`` as a list of distinct names (before combinators, so merges compare clean values)."""
    req, where = s["required"], f"{ptr}/required"
    if isinstance(req, str):
        run.warn(where, "required is a string, not a list; read as a one-item list", f'write "required": ["{req}"]')
        req = [req]
    if not isinstance(req, list):
        run.warn(where, f"required is {kind(req)}, not a list; ignored", "make required a list of parameter names")
        del s["required"]
        return
    names = list(dict.fromkeys(r for r in req if isinstance(r, str)))
    if len(names) < len(req):
        run.warn(where, "required holds duplicates or non-strings; dropped", "list each required parameter name once")
    s["required"] = names


def prune_required(s: dict[str, Any], ptr: str, run: Run, removed: set[str], never: set[str]) -> None:
    """Drop required names that are not properties (the generator could not fill them)."""
    props, names = s.get("properties"), s["required"]
    for name in [n for n in names if isinstance(props, dict) and n not in props]:
        names.remove(name)
        if name in never:
            run.error(
                f"{ptr}/required",
                f"required parameter {name!r} can never be given",
                "make it optional or fix its schema",
            )
        elif name not in removed:  # a leaked Context parameter is reported once, where it was removed
            run.warn(
                f"{ptr}/required",
                f"required names {name!r}, which is not in properties; dropped",
                f"add {name!r} to properties or remove it from required",
            )


def fix_values(s: dict[str, Any], ptr: str, run: Run) -> None:
    """enum and pattern: drop what no validator can use (before combinators, like clean_required)."""
    if "enum" in s and (not isinstance(s["enum"], list) or not s["enum"]):
        run.warn(f"{ptr}/enum", "enum is not a non-empty list; dropped", "make enum a list of the allowed values")
        del s["enum"]
    if "pattern" in s:
        try:
            re.compile(s["pattern"])
        except (re.error, TypeError) as exc:
            run.warn(
                f"{ptr}/pattern",
                f"pattern {short(repr(s['pattern']), 60)} is not a valid regular expression ({exc}); dropped",
                "fix the regular expression",
            )
            del s["pattern"]


def check_ranges(s: dict[str, Any], ptr: str, run: Run) -> None:
    """Bounds no value can meet, and an enum the pattern rules out: errors (the tool is skipped with
    this reason), since generation could only fail on them."""
    lo, hi = s.get("minimum"), s.get("maximum")
    xlo, xhi = s.get("exclusiveMinimum"), s.get("exclusiveMaximum")
    lows = [float(v) for v in (lo, xlo) if isinstance(v, (int, float)) and _number(v)]
    highs = [float(v) for v in (hi, xhi) if isinstance(v, (int, float)) and _number(v)]
    if lows and highs:
        low, high = max(lows), min(highs)
        strict = (low == xlo and _number(xlo)) or (high == xhi and _number(xhi))
        integer = s.get("type") == "integer"
        empty = low > high or (low == high and strict) or (integer and math.ceil(low) > math.floor(high))
        if empty:
            which = (
                "exclusiveMinimum" if low == xlo and _number(xlo) else "minimum",
                "exclusiveMaximum" if high == xhi and _number(xhi) else "maximum",
            )
            run.error(
                f"{ptr}/{which[0]}",
                f"{which[0]} {low:g} and {which[1]} {high:g} leave no {'integer' if integer else 'number'} allowed",
                f"fix the bounds so {which[0]} is below {which[1]}",
            )
    for small, big, what in (
        ("minLength", "maxLength", "string"),
        ("minItems", "maxItems", "array"),
        ("minProperties", "maxProperties", "object"),
    ):
        a, b = s.get(small), s.get(big)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and _number(a) and _number(b) and a > b:
            run.error(
                f"{ptr}/{small}",
                f"{small} {a} is above {big} {b}: no {what} is allowed",
                f"fix the bounds so {small} <= {big}",
            )
    pattern, enum = s.get("pattern"), s.get("enum")
    if isinstance(pattern, str) and isinstance(enum, list):
        texts = [v for v in enum if isinstance(v, str)]
        if texts and not any(re.search(pattern, v) for v in texts):
            run.error(
                f"{ptr}/pattern",
                f"pattern {short(repr(pattern), 60)} matches none of the enum values {short(repr(texts), 80)}",
                "fix the pattern or the enum so the allowed values match",
            )


def check_depth(s: Any, ptr: str, run: Run, depth: int = -1) -> None:
    """Warn where a required value sits deeper than the offline writer fills: it would be left empty."""
    if not isinstance(s, dict):
        return
    if depth >= FILL_DEPTH and s.get("required"):
        run.warn(
            ptr,
            f"required values nested {depth + 1} levels deep; the offline writer fills {FILL_DEPTH}, so "
            "offline calls of this tool leave them out and fail validation",
            "flatten the arguments, or give the server a pack with example values",
        )
        return
    for name, sub in (s.get("properties") or {}).items():
        if name in (s.get("required") or ()):
            check_depth(sub, f"{ptr}/properties/{escape(name)}", run, depth + 1)
    if isinstance(s.get("items"), dict) and (s.get("minItems") or 0) >= 1:
        check_depth(s["items"], f"{ptr}/items", run, depth + 1)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def drop_nulls(s: dict[str, Any]) -> None:
    """The value was Optional and null is no longer accepted: drop null from enum and a null default."""
    if None in s.get("enum", ()) and s.get("type") != "null":
        s["enum"] = [v for v in s["enum"] if v is not None] or s["enum"]
    if "default" in s and s["default"] is None:
        del s["default"]  # pydantic's Optional default


def fix_bounds(s: dict[str, Any], ptr: str, run: Run) -> None:
    """Draft-04 boolean exclusiveMinimum/Maximum -> the numeric form of later drafts."""
    for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(flag := s.get(exclusive), bool):
            run.warn(
                f"{ptr}/{exclusive}",
                f"{exclusive} is a boolean (draft-04 style); converted",
                f'write "{exclusive}": <number> instead of "{bound}" plus "{exclusive}": true',
            )
            del s[exclusive]
            if flag and isinstance(s.get(bound), (int, float)):
                s[exclusive] = s.pop(bound)


def pointer_at(pointer: str, exc: SchemaError) -> str:
    return pointer + "".join("/" + escape(p) for p in exc.path)


def dedupe(problems: list[Problem]) -> list[Problem]:
    """A definition inlined twice reports its problems once."""
    return list({(p.severity, p.pointer, p.what): p for p in problems}.values())


def kind(value: Any) -> str:
    return "missing" if value is None else f"a {type(value).__name__} ({short(repr(value), 40)})"


def short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def merge(a: dict[str, Any], b: Any) -> dict[str, Any] | None:
    """Both schemas at once as one schema, or None when that needs real reasoning."""
    if not isinstance(b, dict):
        return None
    out = dict(a)
    for k, v in b.items():
        if k not in out or out[k] == v or k in ANNOTATIONS:
            out.setdefault(k, v)
        elif k == "type" and (both := _intersect(out[k], v)):
            out[k] = both[0] if len(both) == 1 else both
        elif k == "required" and isinstance(v, list) and isinstance(out[k], list):
            out[k] = list(dict.fromkeys([*out[k], *v]))
        elif (
            k == "properties"
            and isinstance(v, dict)
            and isinstance(out[k], dict)
            and all(out[k].get(n, x) == x for n, x in v.items())
        ):
            out[k] = {**out[k], **v}
        else:
            return None
    return out


def _intersect(a: Any, b: Any) -> list[str]:
    left, right = (a if isinstance(a, list) else [a]), (b if isinstance(b, list) else [b])
    both = [t for t in left if t in right]
    if "integer" not in both and {"integer", "number"} <= {*left, *right} - ({*left} & {*right}):
        both.append("integer")  # an integer is a number
    return both


def is_null(b: dict[str, Any]) -> bool:
    """A schema that only allows null (a branch an Optional leaves behind)."""
    return (b.get("type") == "null" or b.get("const", 0) is None or b.get("enum") == [None]) and not set(
        b
    ) - ANNOTATIONS - {"type", "const", "enum"}
