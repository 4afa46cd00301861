"""Where each member of a JSON object or element of a JSON array sits in the text as written.

A line's messages, tools and calls are cut out of its own text by these spans (found with the standard
decoder), so what is exported from a user's file keeps their key order, spacing and ``arguments``
strings byte for byte.
"""

from __future__ import annotations

import json
from json.decoder import WHITESPACE, scanstring  # type: ignore[attr-defined]

_DECODER = json.JSONDecoder()


def skip(text: str, i: int) -> int:
    """The index of the first non-blank character at or after ``i``."""
    return WHITESPACE.match(text, i).end()


def members(text: str, start: int) -> dict[str, tuple[int, int]]:
    """(start, end) of each member value of the JSON object that begins at ``start``."""
    out: dict[str, tuple[int, int]] = {}
    i = skip(text, start + 1)
    while text[i] != "}":
        key, i = scanstring(text, i + 1)
        i = skip(text, skip(text, i) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, i)
        out[key] = (i, end)
        i = skip(text, end)
        if text[i] == ",":
            i = skip(text, i + 1)
    return out


def elements(text: str, start: int) -> list[tuple[int, int]]:
    """(start, end) of each element of the JSON array that begins at ``start``."""
    out: list[tuple[int, int]] = []
    i = skip(text, start + 1)
    while text[i] != "]":
        _, end = _DECODER.raw_decode(text, i)
        out.append((i, end))
        i = skip(text, end)
        if text[i] == ",":
            i = skip(text, i + 1)
    return out
