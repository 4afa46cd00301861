"""Records from what a tool's description promises, for tools with no output schema: the keys it
says the result has ("Returns a dictionary with 'installed' (bool) and 'version' (str)"), or the
fields it lists ("Returns temperature, conditions and humidity"), each with a value its name fits."""

from __future__ import annotations

import re
from typing import Any

from synth.offline import texts
from synth.offline.values import Context, make_value
from synth.records import ToolSpec

_DECLARED = re.compile(r"\breturns?\b[^.]{0,80}?\b(?:with|containing|including|has|of)\b([^.]{4,200})", re.I)
_KEY = re.compile(r"""['"`](\w+)['"`]\s*(?:\((\w+)\))?""")


def declared(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The keys a description says the result has ("Returns a dictionary with 'installed' (bool) and 'version' (str)
    or 'error' (str)": installed and version; the error is the other outcome), as the tool's own output schema."""
    m = _DECLARED.search(tool.description or "")
    if m is None:
        return None
    first = re.split(r"""\s+or\s+(?=['"`])""", m.group(1))[0]  # "..., or 'error'" names what a failure returns
    keys = _KEY.findall(first)
    if len(keys) < 2:
        return None
    out: dict[str, Any] = {}
    for key, type_name in keys:
        if type_name in ("bool", "boolean"):
            out[key] = ctx.rng.random() < 0.85
        elif type_name in ("int", "integer", "float", "number"):
            value = texts.field_value(key, ctx, args)
            out[key] = value if isinstance(value, (int, float)) else ctx.rng.randint(1, 500)
        else:
            value = texts.field_value(key, ctx, args)
            out[key] = value if value is not None else make_value(key, {"type": "string"}, ctx)[0]
    return out


_RETURNS = re.compile(r"(?=\b(?:returns?|including|includes|such as|containing|contains)\s*:?\s*([^.\n]{5,160}))", re.I)


def _described_fields(description: str) -> list[str]:
    """Field names from "Returns temperature, conditions and humidity" in a tool's description."""
    best: list[str] = []
    for m in _RETURNS.finditer(description or ""):
        fields = []
        for part in re.split(r",|\band\b|\bor\b|;", m.group(1)):
            w = re.findall(r"[a-zA-Z]+", part.lower())
            w = [x for x in w if x not in _FILLER]
            if 1 <= len(w) <= 3:
                fields.append("_".join(w))
        fields = list(dict.fromkeys(fields))[:5]
        if len(fields) >= len(best):  # on a tie the later, more specific list wins
            best = fields
    return best if len(best) >= 2 else []


def described(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The fields a description promises, when at least two have names that say what they hold."""
    out = {}
    for field in _described_fields(tool.description):
        value = texts.field_value(field, ctx, args)
        if value is not None:
            out[field] = value
    return out if len(out) >= 2 else None


_FILLER = {"the", "a", "an", "of", "its", "their", "etc", "current", "data", "information", "details", "list", "with"}
