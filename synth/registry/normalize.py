"""Turn a real-world tool input schema into a clean Draft 2020-12 schema the generator can rely on.

Servers emit schemas from pydantic, zod, hand-written JSON and older drafts. The result always has
``type: "object"`` and a ``properties`` dict, holds no ``$ref`` (local refs are inlined), no
``$schema``/``$defs``, and passes the 2020-12 metaschema. Optional patterns (``anyOf [X, null]``,
``type [X, "null"]``) become plain ``X``: leaving an argument out already means "not given", and the
generator should never have to invent ``null``.

A repaired defect gives a warning; a defect that cannot be repaired gives an error and ``None`` (the
tool is skipped). Simplifying a schema that was valid gives no problem at all.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from synth.records import Problem
from synth.registry.metaschema import DRAFTS, declared_validator, metaschema_error

MAX_REF_DEPTH = 3  # a recursive $ref is unrolled this many times, then cut to {}
MAX_REF_EXPANSIONS = 2000  # guards against schemas that explode when inlined

_TYPES = {"object", "array", "string", "number", "integer", "boolean", "null"}
_ALIASES = {"str": "string", "text": "string", "int": "integer", "long": "integer", "float": "number",
            "double": "number", "bool": "boolean", "dict": "object", "map": "object", "list": "array"}
_ANNOTATIONS = {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
_SCHEMA_MAPS = ("patternProperties", "dependentSchemas")  # "properties" has its own checks
_SCHEMA_ONE = ("additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
               "unevaluatedProperties", "unevaluatedItems", "contentSchema")
_DROPPED = ("$schema", "$id", "$defs", "definitions", "$anchor")
_REPAIRED = "the loader repaired it for this run; fix it in the server so every MCP client gets a valid schema"


def escape(token: Any) -> str:
    """One JSON pointer token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


@dataclass
class _Run:
    """One normalisation: where the schema sits in its file, and what went wrong so far."""

    root: Any  # the schema as given, for resolving local $refs
    base: str  # JSON pointer of the schema inside the file
    file: str
    server: str | None
    tool: str | None
    problems: list[Problem] = field(default_factory=list)
    fatal: bool = False
    expansions: int = 0

    def warn(self, pointer: str, what: str, fix: str = _REPAIRED) -> None:
        self.problems.append(Problem(severity="warning", file=self.file, server=self.server, tool=self.tool,
                                     pointer=pointer, what=what, fix=fix))

    def error(self, pointer: str, what: str, fix: str) -> None:
        self.fatal = True
        self.problems.append(Problem(severity="error", file=self.file, server=self.server, tool=self.tool,
                                     pointer=pointer, what=what, fix=fix))


def normalize_schema(schema: Any, *, file: str = "", server: str | None = None, tool: str | None = None,
                     pointer: str = "", require_object: bool = True) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Clean one schema: (normalised schema, or None when unusable; problems found).

    ``pointer`` is where the schema sits in its file, so every problem points into the file.
    ``require_object=False`` is for output schemas, which may describe any JSON value.
    """
    run = _Run(root=schema, base=pointer, file=file, server=server, tool=tool)
    what = "inputSchema" if require_object else "outputSchema"
    if schema is True:
        run.warn(pointer, f"{what} is the boolean schema true", 'write {"type": "object", "properties": {}}')
        schema = {}
    if not isinstance(schema, dict):
        run.error(pointer, f"{what} is {_kind(schema)}, not a JSON Schema object",
                  'give the tool a schema such as {"type": "object", "properties": {...}}')
        return None, run.problems
    cls, unknown = declared_validator(schema)
    if unknown:
        run.warn(pointer + "/$schema",
                 f"unknown $schema {_short(repr(schema['$schema']), 60)}; read as JSON Schema 2020-12",
                 'use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#"')
    original_error = metaschema_error(cls, schema)
    result: Any = None
    try:
        result = _node(schema, pointer, run, (), top=require_object)
    except RecursionError:
        run.error(pointer, f"{what} is nested too deeply to process", "flatten the schema")
    if not run.fatal:
        result = _finish_top(result, schema, pointer, run, require_object)
    if not run.fatal and (exc := metaschema_error(Draft202012Validator, result)) is not None:
        run.error(_at(pointer, exc), f"{what} is not valid JSON Schema even after repair: {_short(exc.message)}",
                  "fix this keyword so the schema passes a JSON Schema 2020-12 validator")
    if run.fatal:
        return None, _dedupe(run.problems)
    if require_object:
        _check_depth(result, pointer, run)
    if original_error is not None and not run.problems:  # repairable, and no specific warning said why
        draft = DRAFTS.get(cls.__name__, cls.__name__)
        run.warn(_at(pointer, original_error),
                 f"{what} is not valid {draft} as given: {_short(original_error.message)}")
    return copy.deepcopy(result), _dedupe(run.problems)


def _finish_top(result: Any, original: dict[str, Any], pointer: str, run: _Run, require_object: bool) -> Any:
    """Tool arguments are always an object: ``type: "object"`` with a ``properties`` dict."""
    if result is False:
        run.error(pointer, 'the schema accepts no value at all (false or {"not": {}})', "describe the tool's arguments")
        return None
    if not require_object:
        if result.get("type") == "object" or "properties" in result:
            result.setdefault("type", "object")
            result.setdefault("properties", {})
        return result
    t = result.get("type")
    if "type" not in original and "$ref" not in original and t in (None, "object"):
        run.warn(pointer + "/type", 'inputSchema has no type; assumed "object"',
                 'add "type": "object" to the inputSchema (MCP requires it)')
    elif isinstance(t, list) and "object" in t:
        run.warn(pointer + "/type", f'inputSchema type {t!r} narrowed to "object"', 'use "type": "object"')
    elif t != "object":
        run.error(pointer + "/type", f"inputSchema has type {t!r}; tool arguments must be an object",
                  'wrap the argument in an object: {"type": "object", "properties": {"value": ...}}')
        return None
    result["type"] = "object"
    result.setdefault("properties", {})
    return result


def _node(s: Any, ptr: str, run: _Run, stack: tuple[str, ...], top: bool = False) -> Any:
    """Normalise one (sub)schema. Returns a dict, or False for a schema that no value can match.

    ``top`` marks the arguments object of a tool (where a leaked ``ctx`` can appear).
    """
    if isinstance(s, bool):
        return {} if s else False
    if not isinstance(s, dict):
        if isinstance(s, str) and s.lower() in _TYPES | set(_ALIASES):
            t = _ALIASES.get(s.lower(), s.lower())
            run.warn(ptr, f"schema is the bare string {s!r}", f'write {{"type": "{t}"}}')
            return {"type": t}
        run.warn(ptr, f"schema is {_kind(s)}; read as {{}} (any value)", "give this parameter a JSON Schema object")
        return {}
    s = dict(s)
    while "$ref" in s:  # a definition may itself be a $ref
        resolved = _deref(s, ptr, run, stack)
        if resolved is None:
            return {k: v for k, v in s.items() if k in _ANNOTATIONS}
        s, ptr, stack = resolved
        if not isinstance(s, dict):
            return _node(s, ptr, run, stack)
        s = dict(s)
    if top:
        s.setdefault("properties", {})  # tool arguments; set early so "required" is checked against it
    for kw in ("$dynamicRef", "$recursiveRef"):
        if kw in s:
            run.error(f"{ptr}/{kw}", f"{kw} is not supported", "use a local $ref to #/$defs/... instead")
            return {}
    props = s.get("properties")
    if isinstance(props, dict) and isinstance(props.get("type"), str) and isinstance(props.get("properties"), dict):
        run.warn(f"{ptr}/properties", 'the whole schema is wrapped inside "properties"; unwrapped',
                 'put type/properties/required at the top of the schema, not inside "properties"')
        outer = {k: v for k, v in s.items() if k not in ("properties", "required")}
        return _node({**outer, **props}, f"{ptr}/properties", run, stack, top)
    for kw in _DROPPED:
        s.pop(kw, None)
    if not isinstance(s.get("items"), list):
        s.pop("additionalItems", None)  # meant nothing without tuple items, and 2020-12 has no such keyword
    _fix_bounds(s, ptr, run)
    if isinstance(deps := s.pop("dependencies", None), dict):  # draft-07 keyword split in 2020-12
        for k, v in deps.items():
            s.setdefault("dependentRequired" if isinstance(v, list) else "dependentSchemas", {})[k] = v
    nullable = _fix_type(s, ptr, run)
    _fix_values(s, ptr, run)
    _check_ranges(s, ptr, run)
    if "required" in s:
        _clean_required(s, ptr, run)
    for kw in ("items", "prefixItems"):
        if kw in s:
            _fix_items(s, kw, ptr, run, stack)
    for kw in _SCHEMA_ONE:
        if kw in s:
            s[kw] = _node(s[kw], f"{ptr}/{kw}", run, stack)
    for kw in _SCHEMA_MAPS:
        if isinstance(s.get(kw), dict):
            s[kw] = {k: _node(v, f"{ptr}/{kw}/{escape(k)}", run, stack) for k, v in s[kw].items()}
    removed: set[str] = set()  # leaked Context parameters
    never: set[str] = set()  # parameters no value can satisfy
    if "properties" in s:
        s["properties"] = _properties(s, ptr, run, stack, top, removed, never)
    if "allOf" in s:
        s = _all_of(s, ptr, run, stack)
    for kw in ("anyOf", "oneOf"):
        if kw in s:
            s, dropped_null = _any_of(s, kw, ptr, run, stack)
            if s is False:
                return False
            nullable = nullable or dropped_null
    if "type" not in s and isinstance(s.get("properties"), dict):
        s["type"] = "object"
    if "required" in s:
        _prune_required(s, ptr, run, removed, never)
    if nullable:
        _drop_nulls(s)
    if s.get("not") == {} and not set(s) - _ANNOTATIONS - {"not"}:
        return False  # {"not": {}}: zod's z.never()
    return s


def _deref(s: dict[str, Any], ptr: str, run: _Run, stack: tuple[str, ...]) -> tuple[Any, str, tuple[str, ...]] | None:
    """Inline a local $ref (siblings win over the target). None: cut (a warning) or unusable (an error)."""
    ref, where = s["$ref"], f"{ptr}/$ref"
    if not isinstance(ref, str) or not ref.startswith("#"):
        run.error(where, f"$ref {ref!r} is not a local reference; remote schemas are not fetched",
                  "inline the referenced schema, or put it under #/$defs/ and point there")
        return None
    if ref != "#" and not ref.startswith("#/"):
        run.error(where, f"$ref {ref} names an anchor; only JSON pointer refs (#/...) are supported",
                  "point the $ref at the definition, e.g. #/$defs/Name")
        return None
    if stack.count(ref) >= MAX_REF_DEPTH:
        run.warn(where, f"recursive $ref {ref} cut after {MAX_REF_DEPTH} levels; the deepest level accepts any value",
                 "nothing to do unless the generator should fill deeper levels; then make the recursion shallower")
        return None
    run.expansions += 1
    if run.expansions > MAX_REF_EXPANSIONS:
        run.error(where, f"schema needs more than {MAX_REF_EXPANSIONS} $ref expansions when inlined",
                  "simplify the schema so it does not reference the same definitions so many times")
        return None
    target: Any = run.root
    tokens = [unquote(t).replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")] if ref != "#" else []
    for token in tokens:
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isascii() and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            run.error(where, f"$ref {ref} points at nothing in this schema",
                      "add the missing definition under #/$defs/ or fix the reference")
            return None
    siblings = {k: v for k, v in s.items() if k != "$ref"}  # usually a description of this use
    merged = {**target, **siblings} if isinstance(target, dict) else target
    return merged, run.base + "".join("/" + escape(t) for t in tokens), (*stack, ref)


def _properties(s: dict[str, Any], ptr: str, run: _Run, stack: tuple[str, ...], top: bool,
                removed: set[str], never: set[str]) -> dict[str, Any]:
    props = s["properties"]
    if not isinstance(props, dict):
        run.warn(f"{ptr}/properties", f"properties is {_kind(props)}, not an object; ignored",
                 "make properties an object mapping each parameter name to its schema")
        return {}
    out: dict[str, Any] = {}
    for name, sub in props.items():
        p = f"{ptr}/properties/{escape(name)}"
        if top and _leaked_context(name, sub):
            run.warn(p, f"parameter {name!r} is the server framework's Context object, not a user argument; removed",
                     "hide the framework context from the tool signature (FastMCP injects ctx: Context itself)")
            removed.add(name)
            continue
        if isinstance(sub, dict) and isinstance(sub.get("required"), bool):
            run.warn(f"{p}/required", 'boolean "required" inside a property (draft-03 style); moved to the parent',
                     'list required parameter names in the parent\'s "required" array')
            if sub["required"] and name not in s.setdefault("required", []):
                s["required"].append(name)
            sub = {k: v for k, v in sub.items() if k != "required"}
        value = _node(sub, p, run, stack)
        if value is False:
            run.warn(p, f"parameter {name!r} can never be given (its schema matches nothing); removed",
                     "remove the parameter from the schema")
            never.add(name)
        else:
            out[str(name)] = value
    return out


def _leaked_context(name: Any, sub: Any) -> bool:
    """A framework Context leaked into the tool signature as a ``ctx``/``context`` parameter.

    A plain, described ``context: string`` (a kube context, a decision context) is a real argument.
    """
    if not isinstance(name, str) or name.lower() not in ("ctx", "context"):
        return False
    sub = sub if isinstance(sub, dict) else {}  # a non-schema here documents nothing either
    branches = [b for kw in ("anyOf", "allOf", "oneOf") if isinstance(sub.get(kw), list) for b in sub[kw]]
    refs = [sub.get("$ref")] + [b.get("$ref") for b in branches if isinstance(b, dict)]
    if any(isinstance(r, str) and r.startswith("#") and r.rsplit("/", 1)[-1] == "Context" for r in refs):
        return True
    if sub.get("title") in ("Context", "Ctx", "ctx") and sub.get("type") in (None, "object"):
        return True
    # Nobody names a real user argument "ctx" and leaves it undocumented: that is FastMCP's context.
    return name.lower() == "ctx" and not sub.get("description")


def _fix_type(s: dict[str, Any], ptr: str, run: _Run) -> bool:
    """Clean ``type``; True when a "null" was dropped (the value was Optional)."""
    if "type" not in s:
        return False
    clean: list[str] = []
    anything = False
    for n in s["type"] if isinstance(s["type"], list) else [s["type"]]:
        key = n.lower() if isinstance(n, str) else ""
        if key == n and n in _TYPES:
            clean.append(n)
        elif key in _TYPES or key in _ALIASES:
            clean.append(_ALIASES.get(key, key))
            run.warn(f"{ptr}/type", f"type {n!r} is not a JSON Schema type; read as {clean[-1]!r}",
                     f'write "type": "{clean[-1]}"')
        elif key == "any":
            anything = True
            run.warn(f"{ptr}/type", 'type "any" is not JSON Schema; dropped (any value allowed)',
                     'omit "type" to allow any value')
        else:
            run.warn(f"{ptr}/type", f"unknown type {_short(repr(n), 40)} dropped",
                     "use one of " + ", ".join(sorted(_TYPES)))
    clean = list(dict.fromkeys(clean))
    nonnull = [t for t in clean if t != "null"]
    if anything or not clean:
        del s["type"]
        return False
    s["type"] = (nonnull[0] if len(nonnull) == 1 else nonnull) if nonnull else "null"
    return bool(nonnull) and len(nonnull) < len(clean)


def _fix_items(s: dict[str, Any], kw: str, ptr: str, run: _Run, stack: tuple[str, ...]) -> None:
    """Normalise items; a draft-07 tuple ``items: [...]`` becomes 2020-12 ``prefixItems``."""
    if not isinstance(s[kw], list):
        s[kw] = _node(s[kw], f"{ptr}/{kw}", run, stack)
        return
    s[kw] = [_node(v, f"{ptr}/{kw}/{i}", run, stack) for i, v in enumerate(s[kw])]
    if kw == "items":
        positions = s["prefixItems"] = s.pop("items")
        extra = s.pop("additionalItems", None)
        if extra is not None:
            s["items"] = _node(extra, f"{ptr}/additionalItems", run, stack)
        elif positions and all(p == positions[0] for p in positions):
            s["items"] = positions[0]  # the same schema at every position: say so plainly for the generator


def _all_of(s: dict[str, Any], ptr: str, run: _Run, stack: tuple[str, ...]) -> dict[str, Any]:
    """Merge allOf into the parent when the parts do not conflict (the generator reads one schema)."""
    parts = s.pop("allOf")
    if not isinstance(parts, list):
        run.warn(f"{ptr}/allOf", "allOf is not a list; ignored", "make allOf a list of schemas")
        return s
    branches = [_node(b, f"{ptr}/allOf/{i}", run, stack) for i, b in enumerate(parts)]
    merged: dict[str, Any] | None = dict(s)
    for b in branches:
        merged = _merge(merged, b) if merged is not None else None
    return merged if merged is not None else {**s, "allOf": branches}


def _merge(a: dict[str, Any], b: Any) -> dict[str, Any] | None:
    """Both schemas at once as one schema, or None when that needs real reasoning."""
    if not isinstance(b, dict):
        return None
    out = dict(a)
    for k, v in b.items():
        if k not in out or out[k] == v or k in _ANNOTATIONS:
            out.setdefault(k, v)
        elif k == "type" and (both := _intersect(out[k], v)):
            out[k] = both[0] if len(both) == 1 else both
        elif k == "required" and isinstance(v, list) and isinstance(out[k], list):
            out[k] = list(dict.fromkeys([*out[k], *v]))
        elif k == "properties" and isinstance(v, dict) and isinstance(out[k], dict) and \
                all(out[k].get(n, x) == x for n, x in v.items()):
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


def _any_of(s: dict[str, Any], kw: str, ptr: str, run: _Run, stack: tuple[str, ...]) -> tuple[Any, bool]:
    """Drop null and impossible branches; a lone survivor merges into the parent (Optional[X] -> X).

    Returns the schema (False if nothing can match) and whether a null branch was dropped.
    """
    parts = s.pop(kw)
    if not isinstance(parts, list) or not parts:
        run.warn(f"{ptr}/{kw}", f"{kw} is not a non-empty list; ignored", f"make {kw} a list of schemas")
        return s, False
    branches = [_node(b, f"{ptr}/{kw}/{i}", run, stack) for i, b in enumerate(parts)]
    nulls = [b for b in branches if isinstance(b, dict) and _is_null(b)]
    kept = [b for b in branches if b is not False and not (isinstance(b, dict) and _is_null(b))]
    if not kept:
        return ({**s, "type": "null"}, False) if nulls else (False, False)
    if len(kept) == 1 and (merged := _merge(s, kept[0])) is not None:  # the parent's annotations win
        return merged, bool(nulls)
    return {**s, kw: kept}, bool(nulls)


def _is_null(b: dict[str, Any]) -> bool:
    return (b.get("type") == "null" or b.get("const", 0) is None or b.get("enum") == [None]) and \
        not set(b) - _ANNOTATIONS - {"type", "const", "enum"}


def _clean_required(s: dict[str, Any], ptr: str, run: _Run) -> None:
    """``required`` as a list of distinct names (before combinators, so merges compare clean values)."""
    req, where = s["required"], f"{ptr}/required"
    if isinstance(req, str):
        run.warn(where, "required is a string, not a list; read as a one-item list", f'write "required": ["{req}"]')
        req = [req]
    if not isinstance(req, list):
        run.warn(where, f"required is {_kind(req)}, not a list; ignored", "make required a list of parameter names")
        del s["required"]
        return
    names = list(dict.fromkeys(r for r in req if isinstance(r, str)))
    if len(names) < len(req):
        run.warn(where, "required holds duplicates or non-strings; dropped", "list each required parameter name once")
    s["required"] = names


def _prune_required(s: dict[str, Any], ptr: str, run: _Run, removed: set[str], never: set[str]) -> None:
    """Drop required names that are not properties (the generator could not fill them)."""
    props, names = s.get("properties"), s["required"]
    for name in [n for n in names if isinstance(props, dict) and n not in props]:
        names.remove(name)
        if name in never:
            run.error(f"{ptr}/required", f"required parameter {name!r} can never be given",
                      "make it optional or fix its schema")
        elif name not in removed:  # a leaked Context parameter is reported once, where it was removed
            run.warn(f"{ptr}/required", f"required names {name!r}, which is not in properties; dropped",
                     f"add {name!r} to properties or remove it from required")


def _fix_values(s: dict[str, Any], ptr: str, run: _Run) -> None:
    """enum and pattern: drop what no validator can use (before combinators, like _clean_required)."""
    if "enum" in s and (not isinstance(s["enum"], list) or not s["enum"]):
        run.warn(f"{ptr}/enum", "enum is not a non-empty list; dropped", "make enum a list of the allowed values")
        del s["enum"]
    if "pattern" in s:
        try:
            re.compile(s["pattern"])
        except (re.error, TypeError) as exc:
            run.warn(f"{ptr}/pattern", f"pattern {_short(repr(s['pattern']), 60)} is not a valid regular expression "
                     f"({exc}); dropped", "fix the regular expression")
            del s["pattern"]


def _check_ranges(s: dict[str, Any], ptr: str, run: _Run) -> None:
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
            which = ("exclusiveMinimum" if low == xlo and _number(xlo) else "minimum",
                     "exclusiveMaximum" if high == xhi and _number(xhi) else "maximum")
            run.error(f"{ptr}/{which[0]}", f"{which[0]} {low:g} and {which[1]} {high:g} leave no "
                      f"{'integer' if integer else 'number'} allowed", f"fix the bounds so {which[0]} is below {which[1]}")
    for small, big, what in (("minLength", "maxLength", "string"), ("minItems", "maxItems", "array"),
                             ("minProperties", "maxProperties", "object")):
        a, b = s.get(small), s.get(big)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and _number(a) and _number(b) and a > b:
            run.error(f"{ptr}/{small}", f"{small} {a} is above {big} {b}: no {what} is allowed",
                      f"fix the bounds so {small} <= {big}")
    pattern, enum = s.get("pattern"), s.get("enum")
    if isinstance(pattern, str) and isinstance(enum, list):
        texts = [v for v in enum if isinstance(v, str)]
        if texts and not any(re.search(pattern, v) for v in texts):
            run.error(f"{ptr}/pattern", f"pattern {_short(repr(pattern), 60)} matches none of the enum values "
                      f"{_short(repr(texts), 80)}", "fix the pattern or the enum so the allowed values match")


FILL_DEPTH = 4  # levels of nested objects and arrays the offline value writer fills (synth.offline.values)


def _check_depth(s: Any, ptr: str, run: _Run, depth: int = -1) -> None:
    """Warn where a required value sits deeper than the offline writer fills: it would be left empty."""
    if not isinstance(s, dict):
        return
    if depth >= FILL_DEPTH and s.get("required"):
        run.warn(ptr, f"required values nested {depth + 1} levels deep; the offline writer fills {FILL_DEPTH}, so "
                 "offline calls of this tool leave them out and fail validation", "flatten the arguments, or give "
                 "the server a pack with example values")
        return
    for name, sub in (s.get("properties") or {}).items():
        if name in (s.get("required") or ()):
            _check_depth(sub, f"{ptr}/properties/{escape(name)}", run, depth + 1)
    if isinstance(s.get("items"), dict) and (s.get("minItems") or 0) >= 1:
        _check_depth(s["items"], f"{ptr}/items", run, depth + 1)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _drop_nulls(s: dict[str, Any]) -> None:
    """The value was Optional and null is no longer accepted: drop null from enum and a null default."""
    if None in s.get("enum", ()) and s.get("type") != "null":
        s["enum"] = [v for v in s["enum"] if v is not None] or s["enum"]
    if "default" in s and s["default"] is None:
        del s["default"]  # pydantic's Optional default


def _fix_bounds(s: dict[str, Any], ptr: str, run: _Run) -> None:
    """Draft-04 boolean exclusiveMinimum/Maximum -> the numeric form of later drafts."""
    for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(flag := s.get(exclusive), bool):
            run.warn(f"{ptr}/{exclusive}", f"{exclusive} is a boolean (draft-04 style); converted",
                     f'write "{exclusive}": <number> instead of "{bound}" plus "{exclusive}": true')
            del s[exclusive]
            if flag and isinstance(s.get(bound), (int, float)):
                s[exclusive] = s.pop(bound)


def _at(pointer: str, exc: SchemaError) -> str:
    return pointer + "".join("/" + escape(p) for p in exc.path)


def _dedupe(problems: list[Problem]) -> list[Problem]:
    """A definition inlined twice reports its problems once."""
    return list({(p.severity, p.pointer, p.what): p for p in problems}.values())


def _kind(value: Any) -> str:
    return "missing" if value is None else f"a {type(value).__name__} ({_short(repr(value), 40)})"


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
