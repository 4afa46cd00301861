"""Turn a real-world tool input schema into a clean Draft 2020-12 schema the generator can rely on.

Servers emit schemas from pydantic, zod, hand-written JSON and older drafts. The result always has
``type: "object"`` and a ``properties`` dict, holds no ``$ref`` (local refs are inlined), no
``$schema``/``$defs``, and passes the 2020-12 metaschema. Optional patterns (``anyOf [X, null]``,
``type [X, "null"]``) become plain ``X``: leaving an argument out already means "not given", and the
generator should never have to invent ``null``.

A repaired defect gives a warning; a defect that cannot be repaired gives an error and ``None`` (the
tool is skipped). Simplifying a schema that was valid gives no problem at all.

Here the walk: ``$ref`` inlining, subschemas, properties and combinators; the repairs of one object's own
keywords are in ``synth.registry.keywords``.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator

from synth.records import Problem
from synth.registry.keywords import (
    ALIASES,
    ANNOTATIONS,
    TYPES,
    Run,
    check_depth,
    dedupe,
    drop_nulls,
    escape,
    is_null,
    kind,
    merge,
    pointer_at,
    prune_required,
    repair,
    short,
)
from synth.registry.metaschema import DRAFTS, declared_validator, metaschema_error

MAX_REF_DEPTH = 3  # a recursive $ref is unrolled this many times, then cut to {}
MAX_REF_EXPANSIONS = 2000  # guards against schemas that explode when inlined

_SCHEMA_MAPS = ("patternProperties", "dependentSchemas")  # "properties" has its own checks
_SCHEMA_ONE = tuple(
    "additionalProperties not if then else contains propertyNames unevaluatedProperties unevaluatedItems "
    "contentSchema".split()
)


def normalize_schema(
    schema: Any,
    *,
    file: str = "",
    server: str | None = None,
    tool: str | None = None,
    pointer: str = "",
    require_object: bool = True,
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Clean one schema: (normalised schema, or None when unusable; problems found).

    ``pointer`` is where the schema sits in its file, so every problem points into the file.
    ``require_object=False`` is for output schemas, which may describe any JSON value.
    """
    run = Run(root=schema, base=pointer, file=file, server=server, tool=tool)
    what = "inputSchema" if require_object else "outputSchema"
    if schema is True:
        run.warn(pointer, f"{what} is the boolean schema true", 'write {"type": "object", "properties": {}}')
        schema = {}
    if not isinstance(schema, dict):
        run.error(
            pointer,
            f"{what} is {kind(schema)}, not a JSON Schema object",
            'give the tool a schema such as {"type": "object", "properties": {...}}',
        )
        return None, run.problems
    cls, unknown = declared_validator(schema)
    if unknown:
        run.warn(
            pointer + "/$schema",
            f"unknown $schema {short(repr(schema['$schema']), 60)}; read as JSON Schema 2020-12",
            'use "https://json-schema.org/draft/2020-12/schema" or "http://json-schema.org/draft-07/schema#"',
        )
    original_error = metaschema_error(cls, schema)
    result: Any = None
    try:
        result = _node(schema, pointer, run, (), top=require_object)
    except RecursionError:
        run.error(pointer, f"{what} is nested too deeply to process", "flatten the schema")
    if not run.fatal:
        result = _finish_top(result, schema, pointer, run, require_object)
    if not run.fatal and (exc := metaschema_error(Draft202012Validator, result)) is not None:
        run.error(
            pointer_at(pointer, exc),
            f"{what} is not valid JSON Schema even after repair: {short(exc.message)}",
            "fix this keyword so the schema passes a JSON Schema 2020-12 validator",
        )
    if run.fatal:
        return None, dedupe(run.problems)
    if require_object:
        check_depth(result, pointer, run)
    if original_error is not None and not run.problems:  # repairable, and no specific warning said why
        draft = DRAFTS.get(cls.__name__, cls.__name__)
        run.warn(
            pointer_at(pointer, original_error),
            f"{what} is not valid {draft} as given: {short(original_error.message)}",
        )
    return copy.deepcopy(result), dedupe(run.problems)


def _finish_top(result: Any, original: dict[str, Any], pointer: str, run: Run, require_object: bool) -> Any:
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
        run.warn(
            pointer + "/type",
            'inputSchema has no type; assumed "object"',
            'add "type": "object" to the inputSchema (MCP requires it)',
        )
    elif isinstance(t, list) and "object" in t:
        run.warn(pointer + "/type", f'inputSchema type {t!r} narrowed to "object"', 'use "type": "object"')
    elif t != "object":
        run.error(
            pointer + "/type",
            f"inputSchema has type {t!r}; tool arguments must be an object",
            'wrap the argument in an object: {"type": "object", "properties": {"value": ...}}',
        )
        return None
    result["type"] = "object"
    result.setdefault("properties", {})
    return result


def _node(s: Any, ptr: str, run: Run, stack: tuple[str, ...], top: bool = False) -> Any:
    """Normalise one (sub)schema. Returns a dict, or False for a schema that no value can match.

    ``top`` marks the arguments object of a tool (where a leaked ``ctx`` can appear).
    """
    if not isinstance(s, dict):
        return _not_an_object(s, ptr, run)
    s = dict(s)
    while "$ref" in s:  # a definition may itself be a $ref
        resolved = _deref(s, ptr, run, stack)
        if resolved is None:
            return {k: v for k, v in s.items() if k in ANNOTATIONS}
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
        run.warn(
            f"{ptr}/properties",
            'the whole schema is wrapped inside "properties"; unwrapped',
            'put type/properties/required at the top of the schema, not inside "properties"',
        )
        outer = {k: v for k, v in s.items() if k not in ("properties", "required")}
        return _node({**outer, **props}, f"{ptr}/properties", run, stack, top)
    nullable = repair(s, ptr, run)
    _subschemas(s, ptr, run, stack)
    return _combined(s, ptr, run, stack, top, nullable)


def _not_an_object(s: Any, ptr: str, run: Run) -> Any:
    """A schema that is not an object: a boolean schema, a bare type name, or anything else (read as {})."""
    if isinstance(s, bool):
        return {} if s else False
    if isinstance(s, str) and s.lower() in TYPES | set(ALIASES):
        t = ALIASES.get(s.lower(), s.lower())
        run.warn(ptr, f"schema is the bare string {s!r}", f'write {{"type": "{t}"}}')
        return {"type": t}
    run.warn(ptr, f"schema is {kind(s)}; read as {{}} (any value)", "give this parameter a JSON Schema object")
    return {}


def _subschemas(s: dict[str, Any], ptr: str, run: Run, stack: tuple[str, ...]) -> None:
    """Normalise, in place, the subschemas under items and the single-schema and schema-map keywords."""
    for kw in ("items", "prefixItems"):
        if kw in s:
            _fix_items(s, kw, ptr, run, stack)
    for kw in _SCHEMA_ONE:
        if kw in s:
            s[kw] = _node(s[kw], f"{ptr}/{kw}", run, stack)
    for kw in _SCHEMA_MAPS:
        if isinstance(s.get(kw), dict):
            s[kw] = {k: _node(v, f"{ptr}/{kw}/{escape(k)}", run, stack) for k, v in s[kw].items()}


def _combined(s: dict[str, Any], ptr: str, run: Run, stack: tuple[str, ...], top: bool, nullable: bool) -> Any:
    """Properties, then allOf merged and anyOf/oneOf simplified, then what they leave to tidy."""
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
        prune_required(s, ptr, run, removed, never)
    if nullable:
        drop_nulls(s)
    if s.get("not") == {} and not set(s) - ANNOTATIONS - {"not"}:
        return False  # {"not": {}}: zod's z.never()
    return s


def _deref(s: dict[str, Any], ptr: str, run: Run, stack: tuple[str, ...]) -> tuple[Any, str, tuple[str, ...]] | None:
    """Inline a local $ref (siblings win over the target). None: cut (a warning) or unusable (an error)."""
    ref, where = s["$ref"], f"{ptr}/$ref"
    if not isinstance(ref, str) or not ref.startswith("#"):
        run.error(
            where,
            f"$ref {ref!r} is not a local reference; remote schemas are not fetched",
            "inline the referenced schema, or put it under #/$defs/ and point there",
        )
        return None
    if ref != "#" and not ref.startswith("#/"):
        run.error(
            where,
            f"$ref {ref} names an anchor; only JSON pointer refs (#/...) are supported",
            "point the $ref at the definition, e.g. #/$defs/Name",
        )
        return None
    if stack.count(ref) >= MAX_REF_DEPTH:
        run.warn(
            where,
            f"recursive $ref {ref} cut after {MAX_REF_DEPTH} levels; the deepest level accepts any value",
            "nothing to do unless the generator should fill deeper levels; then make the recursion shallower",
        )
        return None
    run.expansions += 1
    if run.expansions > MAX_REF_EXPANSIONS:
        run.error(
            where,
            f"schema needs more than {MAX_REF_EXPANSIONS} $ref expansions when inlined",
            "simplify the schema so it does not reference the same definitions so many times",
        )
        return None
    target: Any = run.root
    tokens = [unquote(t).replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")] if ref != "#" else []
    for token in tokens:
        if isinstance(target, dict) and token in target:
            target = target[token]
        elif isinstance(target, list) and token.isascii() and token.isdigit() and int(token) < len(target):
            target = target[int(token)]
        else:
            run.error(
                where,
                f"$ref {ref} points at nothing in this schema",
                "add the missing definition under #/$defs/ or fix the reference",
            )
            return None
    siblings = {k: v for k, v in s.items() if k != "$ref"}  # usually a description of this use
    merged = {**target, **siblings} if isinstance(target, dict) else target
    return merged, run.base + "".join("/" + escape(t) for t in tokens), (*stack, ref)


def _properties(
    s: dict[str, Any], ptr: str, run: Run, stack: tuple[str, ...], top: bool, removed: set[str], never: set[str]
) -> dict[str, Any]:
    props = s["properties"]
    if not isinstance(props, dict):
        run.warn(
            f"{ptr}/properties",
            f"properties is {kind(props)}, not an object; ignored",
            "make properties an object mapping each parameter name to its schema",
        )
        return {}
    out: dict[str, Any] = {}
    for name, sub in props.items():
        p = f"{ptr}/properties/{escape(name)}"
        if top and _leaked_context(name, sub):
            run.warn(
                p,
                f"parameter {name!r} is the server framework's Context object, not a user argument; removed",
                "hide the framework context from the tool signature (FastMCP injects ctx: Context itself)",
            )
            removed.add(name)
            continue
        if isinstance(sub, dict) and isinstance(sub.get("required"), bool):
            run.warn(
                f"{p}/required",
                'boolean "required" inside a property (draft-03 style); moved to the parent',
                'list required parameter names in the parent\'s "required" array',
            )
            if sub["required"] and name not in s.setdefault("required", []):
                s["required"].append(name)
            sub = {k: v for k, v in sub.items() if k != "required"}
        value = _node(sub, p, run, stack)
        if value is False:
            run.warn(
                p,
                f"parameter {name!r} can never be given (its schema matches nothing); removed",
                "remove the parameter from the schema",
            )
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


def _fix_items(s: dict[str, Any], kw: str, ptr: str, run: Run, stack: tuple[str, ...]) -> None:
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


def _all_of(s: dict[str, Any], ptr: str, run: Run, stack: tuple[str, ...]) -> dict[str, Any]:
    """Merge allOf into the parent when the parts do not conflict (the generator reads one schema)."""
    parts = s.pop("allOf")
    if not isinstance(parts, list):
        run.warn(f"{ptr}/allOf", "allOf is not a list; ignored", "make allOf a list of schemas")
        return s
    branches = [_node(b, f"{ptr}/allOf/{i}", run, stack) for i, b in enumerate(parts)]
    merged: dict[str, Any] | None = dict(s)
    for b in branches:
        merged = merge(merged, b) if merged is not None else None
    return merged if merged is not None else {**s, "allOf": branches}


def _any_of(s: dict[str, Any], kw: str, ptr: str, run: Run, stack: tuple[str, ...]) -> tuple[Any, bool]:
    """Drop null and impossible branches; a lone survivor merges into the parent (Optional[X] -> X).

    Returns the schema (False if nothing can match) and whether a null branch was dropped.
    """
    parts = s.pop(kw)
    if not isinstance(parts, list) or not parts:
        run.warn(f"{ptr}/{kw}", f"{kw} is not a non-empty list; ignored", f"make {kw} a list of schemas")
        return s, False
    branches = [_node(b, f"{ptr}/{kw}/{i}", run, stack) for i, b in enumerate(parts)]
    nulls = [b for b in branches if isinstance(b, dict) and is_null(b)]
    kept = [b for b in branches if b is not False and not (isinstance(b, dict) and is_null(b))]
    if not kept:
        return ({**s, "type": "null"}, False) if nulls else (False, False)
    if len(kept) == 1 and (merged := merge(s, kept[0])) is not None:  # the parent's annotations win
        return merged, bool(nulls)
    return {**s, kw: kept}, bool(nulls)
