"""The features of each ``datasets`` config, spelled as the card's YAML so ``datasets`` is not imported.

A config's features are written as the ``dataset_info.features`` list ``datasets`` reads back (its YAML
spelling), so the card is made without importing ``datasets`` (about 90 MB and a second): a leaf is a
dtype name ("string", "int64", "json" for ``datasets.Json``), ``[x]`` a list of x, a dict a struct.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datasets import Features

_CALL = {"id": "string", "type": "string", "function": {"name": "string", "arguments": "json"}}
_MESSAGE = {"role": "string", "content": "string", "tool_calls": [_CALL], "tool_call_id": "string"}
_TOOL = {"type": "string", "function": {"name": "string", "description": "string", "parameters": "json"}}
SPECS: dict[str, dict[str, Any]] = {
    "chat": {"messages": [_MESSAGE], "tools": [_TOOL]},
    "eval": {
        "messages": [_MESSAGE],
        "tools": [_TOOL],
        "expected_output": {"role": "string", "content": "string", "tool_calls": [_CALL]},
        "metadata": {
            "id": "string",
            "conversation_id": "string",
            "call_index": "int64",
            "decision": "string",
            "server": "string",
            "tool": "string",
            "split": "string",
            "author": "string",
            "parallel_calls": [_CALL],
            "tool_errors": "json",  # the ids of earlier calls whose results were errors
        },
    },
    "scored": {
        "id": "string",
        "conversation_id": "string",
        "call_index": "int64",
        "server": "string",
        "split": "string",
        "available_tools": [{"name": "string", "description": "string", "input_schema": "json"}],
        "message_history": [_MESSAGE],
        "tool_call": _CALL,
        "score": "string",
        "subtype": "string",
        "failure_reason": "string",
        "gold_call": _CALL,
        "author": "string",
    },
    "decisions": {
        "id": "string",
        "conversation_id": "string",
        "server": "string",
        "split": "string",
        "decision": "string",
        "available_tools": [{"name": "string", "description": "string", "input_schema": "json"}],
        "message_history": [_MESSAGE],
        "tool_call": _CALL,
        "score": "string",
        "subtype": "string",
        "failure_reason": "string",
        "gold_response": _MESSAGE,
        "author": "string",
    },
    "preference": {  # TRL's conversational preference type (explicit prompt) with its tools column
        "prompt": [_MESSAGE],
        "chosen": [_MESSAGE],
        "rejected": [_MESSAGE],
        "tools": [_TOOL],
        "label": "string",
        "subtype": "string",
        "decision": "string",
        "failure_reason": "string",
        "id": "string",
        "conversation_id": "string",
        "server": "string",
        "split": "string",
        "author": "string",
    },
}


def features_yaml(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """A features spec as the card's ``dataset_info.features`` list (what ``Features._to_yaml_list`` writes)."""

    def field(name: str, kind: Any) -> dict[str, Any]:
        if isinstance(kind, list):
            inner = kind[0]
            return {"name": name, "list": features_yaml(inner) if isinstance(inner, dict) else inner}  # list: string
        if isinstance(kind, dict):
            return {"name": name, "struct": features_yaml(kind)}
        return {"name": name, "dtype": kind}

    return [field(name, kind) for name, kind in spec.items()]


def hf_features(spec: dict[str, Any]) -> Features:
    """The ``datasets.Features`` of a features spec (imports ``datasets``: only for building parquet)."""
    from datasets import Features

    return Features._from_yaml_list(features_yaml(spec))


def teval_features(rows: Iterable[dict[str, Any]]) -> tuple[dict[str, Any], set[str]]:
    """Features for a T-Eval subset, read off its records: text stays text, chat prompts are messages,
    anything else is Json. Returns the features spec and the Json columns (encoded by us: synth.export.hf's
    ``_encode``)."""
    # one pass over the records, so a large subset is never held: per column, which kinds all its values are
    kinds: dict[str, dict[str, bool]] = {}
    for row in rows:
        for col, v in row.items():
            k = kinds.setdefault(col, {"any": False, "str": True, "int": True, "chat": True})
            if v is None:
                continue
            k["any"] = True
            k["str"] = k["str"] and isinstance(v, str)
            k["int"] = k["int"] and isinstance(v, int) and not isinstance(v, bool)
            k["chat"] = (
                k["chat"]
                and isinstance(v, list)
                and all(
                    isinstance(m, dict) and set(m) == {"role", "content"} and isinstance(m["content"], str) for m in v
                )
            )
    out: dict[str, Any] = {}
    json_columns = set()
    for col, k in kinds.items():
        if k["str"]:
            out[col] = "string"
        elif k["int"]:
            out[col] = "int64"
        elif k["any"] and k["chat"]:
            out[col] = [{"role": "string", "content": "string"}]
        else:
            out[col] = "json"
            json_columns.add(col)
    return out, json_columns
