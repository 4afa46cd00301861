"""Tool responses for T-Eval's review subset, one per outcome, written as real services write them.

T-Eval's REVIEW asks what a tool response means: success (A), the tool's own failure (B), wrong
input (C), a response that does not answer (D), or a task the tools cannot do (E). What a response
says decides its label (issue 38): a 5xx, a timeout or a crash is never the caller's fault, a 4xx never
the tool's. Where the words cannot tell (a not-found, a success-shaped result), the call against the
conversation does:

- success: the call's real result from the conversation.
- internal_error: the server's own failure for a right call: a 502 or 503, a 500, a timeout, a traceback.
- input_error: an injected bad call's response. A schema error as an MCP error or a 400 in the rule's or the
  value's words; a wrong value the schema accepts (part of a value, a value given for something else) as
  the server's "Product '5810' not found" or "No results found for 'Hong'": the same forms a right call
  gets when the thing is not there, so only the arguments tell them apart.
- irrelevant_response: a real result of another tool of the same server (from the conversation,
  or from an earlier conversation of the run).
- unable_to_accomplish: a real not-found result of the conversation when there is one; otherwise the
  call's real result with its lists emptied or a not-found for its first value that names a thing, for a
  call whose arguments are right.
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


# Each outcome's responses are written as real services write them, and what a response says decides its label:
# a 5xx, a timeout or a crash is the tool's own failure (B); a 4xx or a validation message is the call's (C); a
# not-found is the call's when its value is wrong (C) and the world's when the value is right (E), in the same
# words, so only the call against the conversation tells those two apart.
CALLER = re.compile(r"(?i)\b4\d\d\b|bad request|invalid|not valid|validation|required|unexpected|-32602")


def fault(content: str) -> str:
    """The label a failing response of a right call reads as: E for a not-found, C for a 4xx or a validation
    message (the call's fault, as the service says), B for anything else (the service's own failure)."""
    text = content.lower()
    if not_found(content) or any(w in text for w in ("not found", "no such", "does not exist", "404")):
        return "E"
    return "C" if CALLER.search(content) else "B"


def internal_error(key: str, tool: str) -> str:
    """The server's own failure, for a right call: a 5xx, a timeout, a crash."""
    forms = (
        json.dumps({"status": "error", "message": "Upstream service returned 502 Bad Gateway"}),
        "Error: request to the upstream API timed out after 30 seconds",
        json.dumps({"error": "Internal server error"}),
        f'Traceback (most recent call last):\n  File "server.py", line 88, in {tool}\n'
        "ConnectionResetError: [Errno 104] Connection reset by peer",
        json.dumps({"ok": False, "message": "Service temporarily unavailable (503). Please try again later."}),
    )
    return forms[pick(key, len(forms), "internal")]


def input_error(key: str, error: str, arguments: dict[str, Any]) -> str:
    """The response to a call whose arguments break the schema: a 400 in the rule's words, or the value's."""
    named = re.search(r"'([A-Za-z_][\w\-]*)'", error)
    param = named.group(1) if named else next(iter(arguments), "arguments")
    value = json.dumps(arguments.get(param), ensure_ascii=False)[:60]
    if "required" in error:
        said = f"missing required parameter '{param}'"
    elif "unexpected" in error or param not in arguments:
        said = f"unknown parameter '{param}'"
    else:
        said = f"invalid value for '{param}': {value}"
    forms = (
        f"MCP error -32602: Invalid params: {error}",
        f"Error: 400 Bad Request: {said}",
        json.dumps({"error": {"code": 400, "message": error}}),
        json.dumps({"error": said[0].upper() + said[1:]}),
        json.dumps({"ok": False, "message": f"Request rejected: {said}"}),
    )
    return forms[pick(key, len(forms), "input")]


_QUERY = re.compile(r"(?i)^(q|query|search.*|keywords?|term)$")
_TAIL = {"id", "ids", "name", "no", "number", "key", "code", "slug", "uuid"}
_PERSON = {"first", "last", "full", "display", "given", "family"}


def _noun(param: str) -> str:
    """What a parameter names, as a service says it: product_id -> product, stopName -> stop, first_name -> user."""
    said = words(param)
    kept = said[:-1] if len(said) > 1 and said[-1] in _TAIL else said
    return "user" if set(kept) <= _PERSON else " ".join(kept)


def names_thing(param: str, value: Any) -> bool:
    """Whether a service could answer "not found" for this value: a name, an id, a short phrase, or any search
    query; never a number, a flag, nor a message or a sentence given to write."""
    if not isinstance(value, str) or not value.strip():
        return False
    return len(value.split()) <= (12 if _QUERY.match(param) else 5) and len(value) <= 80


def nothing(key: str, param: str, value: Any, emptied: str | None = None) -> str:
    """A server that finds nothing for ``param``'s ``value``: a right call for a thing that is not there
    (unable), or a wrong value the schema accepts (part of a name, a value given for something else:
    input_error); the real result emptied is one more form."""
    shown = str(value)[:60]
    if _QUERY.match(param):
        forms: tuple[str, ...] = (
            json.dumps({"results": [], "total": 0}),
            f"No results found for '{shown}'",
            json.dumps({"error": f"No matches for '{shown}'"}),
        )
    else:
        noun = _noun(param)
        forms = (
            json.dumps({"error": f"{noun[0].upper() + noun[1:]} '{shown}' not found"}),
            f"Error: 404 Not Found: no {noun} '{shown}'",
            json.dumps({"ok": False, "message": f"Could not find {noun} '{shown}'"}),
            json.dumps({"error": f"{noun} {shown} does not exist"}),
        )
    forms += (emptied,) if emptied else ()
    return forms[pick(key, len(forms), "nothing")]


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


def unable(key: str, arguments: dict[str, Any], result: str, seen_errors: list[str]) -> str:
    """A not-found answer: a real one from the conversation, or the server finding nothing for the call's
    first value that names a thing (a string); with none, the result emptied, or no data."""
    if seen_errors:
        return seen_errors[pick(key, len(seen_errors), "seen")]
    try:
        emptied = _emptied(json.loads(result))
    except ValueError:
        emptied = None
    shown = json.dumps(emptied, ensure_ascii=False) if emptied is not None else None
    param = next((k for k, v in arguments.items() if names_thing(k, v)), None)
    if param is None:
        return shown or json.dumps({"error": "No data available for the given parameters"})
    return nothing(key, param, arguments[param], shown)
