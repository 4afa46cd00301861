"""What a tool says about each parameter, wherever it says it.

Many servers (FastMCP, most Python ones) document parameters only in the tool's docstring::

    Args:
        juz_no: Juz number (1-30)
        script_type: Script type ("" = normal, "la" = latin)

and leave the schema's properties bare (``{"type": "integer"}``). The fallback reads a value's
meaning, range and examples from the parameter's description, so such a parameter gets the text
its tool gives it (``Args:``/``Parameters:`` sections, ``:param x:`` and ``@param x`` lines). A
description the schema has is kept; nothing is invented.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from synth.records import ToolSpec
from synth.simulator.tables import table
from synth.simulator.values.strings import examples

_SECTION = table("values/params", "section", re.Pattern[str])
_END = table("values/params", "end", re.Pattern[str])
_ITEM = table("values/params", "item", re.Pattern[str])
_TAGGED = table("values/params", "tagged", re.Pattern[str])


def arg_docs(description: str, names: frozenset[str]) -> dict[str, str]:
    """``{param: text}`` for the parameters in ``names`` that ``description`` documents."""
    found: dict[str, str] = {}
    current: str | None = None
    inside = False
    for line in (description or "").splitlines():
        if _SECTION.match(line):
            inside, current = True, None
            continue
        if inside and _END.match(line):
            inside, current = False, None
            continue
        if not inside:
            continue
        m = _ITEM.match(line)
        if m and m.group(1) in names and m.group(1) not in found:
            current = m.group(1)
            found[current] = m.group(2).strip()
        elif current is not None and line.strip() and line[:1].isspace() and not m:
            found[current] += " " + line.strip()  # a description that wraps onto the next line
        elif not line.strip():
            current = None
    for m in _TAGGED.finditer(description or ""):
        if m.group(1) in names and m.group(1) not in found:
            found[m.group(1)] = m.group(2).strip()
    return found


def documented(tool: ToolSpec, siblings: Iterable[ToolSpec] = ()) -> dict[str, Any]:
    """The tool's properties, each with the description its tool's docstring gives when the schema has none.

    A parameter whose description offers no examples takes a same-named sibling's description that does
    (one tool of a server says ``edition_name (e.g. "en.sahih")``, the others only "Edition name").
    """
    docs = arg_docs(tool.description, frozenset(tool.properties))
    out: dict[str, Any] = {}
    for name, schema in tool.properties.items():
        if isinstance(schema, dict) and not schema.get("description") and docs.get(name):
            schema = {**schema, "description": docs[name]}
        out[name] = schema
    for name, schema in out.items():
        if not isinstance(schema, dict) or "enum" in schema or examples(str(schema.get("description") or "")):
            continue
        for other in siblings:
            if other.name != tool.name and name in other.properties:
                text = arg_docs(other.description, frozenset((name,))).get(name) or str(
                    (other.properties[name] or {}).get("description") or ""
                )
                if examples(text):
                    out[name] = {**schema, "description": text}
                    break
    return out
