"""Tool responses for T-Eval's review subset, one per outcome, that no surface feature gives away.

T-Eval's REVIEW asks what a tool response means: success (A), the tool's own failure (B), wrong
input (C), a response that does not answer (D), or a task the tools cannot do (E). If every
failure were ``{"error": ...}`` JSON, every input error a validation message and every not-found a
"No X found", a regex on the response alone would answer most items (86% did, issue 29). So the
outcomes share their forms, and the label is read from the call against the conversation:

- success: the call's real result from the conversation.
- internal_error: a server-side failure: a 500 or a timeout, but also a bare ``{"ok": false}``, an
  empty reply, a traceback, an upstream 400 the server caused, for a call whose arguments are right.
- input_error: an injected bad call's response. A schema error as an MCP error, as ``{"error": ...}``,
  or in words that name the value and not the rule; a wrong value the schema accepts (part of a value,
  a value given for something else) as the server's "No X found for 'Hong'" or "Unknown X": the same
  forms a right call gets when the thing is not there, so only the arguments tell them apart.
- irrelevant_response: a real result of another tool of the same server (from the conversation,
  or from an earlier conversation of the run).
- unable_to_accomplish: a real error/not-found result of the conversation when there is one;
  otherwise the call's real result with its lists emptied, a "no X found" sentence, ``{"found":
  false}``, an "Unknown X" or an "Invalid X" error, for a call whose arguments are right.
"""

from __future__ import annotations

import json
import re
from typing import Any

from synth.grade import words
from synth.records import content_hash

LABELS = {
    "A": "success",
    "B": "internal_error",
    "C": "input_error",
    "D": "irrelevant_response",
    "E": "unable_to_accomplish",
}
_VERBS = {
    "get",
    "fetch",
    "search",
    "find",
    "list",
    "lookup",
    "retrieve",
    "query",
    "read",
    "tool",
    "by",
    "for",
    "the",
    "of",
    "info",
    "data",
    "details",
    "current",
    "all",
    "mcp",
}


def pick(key: str, n: int, salt: str = "") -> int:
    """A stable choice in range(n) from a key (no shared random stream)."""
    return int(content_hash([key, salt]), 16) % n


def is_error_json(content: str) -> bool:
    """The surface feature a lazy reviewer would use: a JSON object with an error flag or key."""
    try:
        data = json.loads(content)
    except ValueError:
        return False
    return isinstance(data, dict) and ("error" in data or data.get("isError") is True or data.get("is_error") is True)


def not_found(content: str) -> bool:
    """A result that says the thing asked for is not there (an error or an empty answer)."""
    if not is_error_json(content):
        return False
    text = content.lower()
    return any(w in text for w in ("not found", "no ", "does not exist", "unknown", "404"))


# Each failing outcome comes in one form per kind of wording (a rule's words, a failure's, a not-found, a
# bare error, no error word at all), so the wording of a response is as common under one label as another.


def internal_error(key: str, tool: str) -> str:
    """The server's own failure, for a right call."""
    forms = (
        json.dumps({"status": "error", "message": "Upstream answered 400 Bad Request to the request it was sent"}),
        "Error: request to the upstream API timed out after 30 seconds",
        json.dumps({"error": f"Upstream resource not found: /v2/{tool}/cache"}),
        json.dumps({"error": "Could not complete the request"}),
        json.dumps({"ok": False, "message": "Please try again in a few minutes."}),
    )
    return forms[pick(key, len(forms), "internal")]


def input_error(key: str, error: str, arguments: dict[str, Any]) -> str:
    """The response to a call whose arguments break the schema: the rule's words, or the value's."""
    named = re.search(r"'([A-Za-z_][\w\-]*)'", error)
    param = named.group(1) if named and named.group(1) in arguments else next(iter(arguments), "arguments")
    value = json.dumps(arguments.get(param), ensure_ascii=False)[:60]
    forms = (
        f"MCP error -32602: Invalid params: {error}",
        f"Error: the request failed: {param}={value} could not be used",
        json.dumps({"error": f"{param} {value} not found"}),
        f"Error: could not use {param}={value}",
        json.dumps({"ok": False, "message": f"{param} {value} was not accepted"}),
    )
    return forms[pick(key, len(forms), "input")]


def nothing(key: str, tool: str, value: Any, emptied: str | None = None) -> str:
    """A server that finds nothing for ``value``: a right call for a thing that is not there (unable), or a
    wrong value the schema accepts (part of a name, a value given for something else: input_error)."""
    thing, shown = _thing(tool), str(value)[:60]
    forms: tuple[str, ...] = (
        f"Error: Invalid {thing} '{shown}'",
        f"Error: lookup failed, nothing for '{shown}'",
        json.dumps({"error": f"No {thing} found for '{shown}'"}),
        json.dumps({"error": f"Unknown {thing} '{shown}'"}),
        json.dumps({"ok": False, "message": f"Nothing for '{shown}'"}),
    )
    # the emptied result is one more form, not one in place of the "No X found" error: that error alone
    # was then an input_error's (a small run's regex read 11 of 12 of them right)
    forms += (emptied,) if emptied else ()
    return forms[pick(key, len(forms), "nothing")]


def _thing(tool: str) -> str:
    kept = [w for w in words(tool) if w not in _VERBS]
    return " ".join(kept[-2:]) or "results"


def _emptied(result: Any) -> Any:
    """The real result with every list emptied and counts set to 0: a search that found nothing."""
    if isinstance(result, dict):
        out = {  # type: ignore[var-annotated]
            k: (
                []
                if isinstance(v, list)
                else 0
                if k in ("count", "total", "total_count", "num_results")
                else _emptied(v)
                if isinstance(v, dict)
                else v
            )
            for k, v in result.items()
        }
        return out if out != result else None
    return [] if isinstance(result, list) else None


def unable(key: str, tool: str, arguments: dict[str, Any], result: str, seen_errors: list[str]) -> str:
    """A not-found answer: a real one from the conversation, or the server finding nothing for the call."""
    if seen_errors:
        return seen_errors[pick(key, len(seen_errors), "seen")]
    value = next((v for v in arguments.values() if isinstance(v, (str, int, float))), "")
    try:
        emptied = _emptied(json.loads(result))
    except ValueError:
        emptied = None
    return nothing(key, tool, value, json.dumps(emptied, ensure_ascii=False) if emptied is not None else None)
