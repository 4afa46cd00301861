"""Hard positives: calls that differ from the gold one and are still right.

A judge that calls every difference from the gold call a mistake is wrong about defaults. Two
kinds, both accepted by BFCL's AST checker (a parameter with a schema default is optional there,
``""`` among its possible answers, and the default is one of its values):

- ``default_explicit``: an optional parameter the gold call leaves out, given with its default.
- ``default_omitted``: an optional parameter the gold call gives with its default value, left out.

A case is only made when BFCL's type check would pass the default too (a ``"3"`` default of an
integer parameter, or a ``null`` one, would not) and the whole call still validates.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from synth.grade import branch, json_type, same_value, schema_validator
from synth.records import ToolCall, ToolSpec


def bfcl_type_ok(schema: dict[str, Any], value: Any) -> bool:
    """BFCL's Python type check of one value: int for integer (int or float for number), ..."""
    kind = schema.get("type")
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("number", "float"):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    expected = (
        {"string": "string", "boolean": "boolean", "array": "array", "object": "object", "dict": "object"}.get(kind)
        if isinstance(kind, str)
        else None
    )
    return expected is not None and json_type(value) == expected


def hard_positives(tool: ToolSpec, gold: ToolCall, rng: random.Random) -> Iterator[tuple[str, ToolCall]]:
    """(subtype, call) for each default that can be made explicit or left out, in random order."""
    options: list[tuple[str, dict[str, Any]]] = []
    for name, raw in tool.properties.items():
        schema = branch(raw)
        if name in tool.required or "default" not in schema:
            continue
        default = schema["default"]
        if default is None or not bfcl_type_ok(schema, default):
            continue
        if name not in gold.arguments:
            options.append(("default_explicit", {**gold.arguments, name: default}))
        elif json_type(gold.arguments[name]) == json_type(default) and same_value(default, gold.arguments[name]):
            options.append(("default_omitted", {k: v for k, v in gold.arguments.items() if k != name}))
    rng.shuffle(options)
    validator = schema_validator(tool.input_schema)
    for subtype, arguments in options:
        if validator.is_valid(arguments):
            yield subtype, ToolCall(id=gold.id, name=gold.name, arguments=arguments)
