"""Tool responses for T-Eval's review subset, one per outcome, that no surface feature gives away.

T-Eval's REVIEW asks what a tool response means: success (A), the tool's own failure (B), wrong
input (C), a response that does not answer (D), or a task the tools cannot do (E). If every
failure were ``{"error": ...}`` JSON and every success plain JSON, "is it error JSON" would answer
most items. So each outcome comes in several real-looking forms:

- success: the call's real result from the conversation.
- internal_error: a server-side failure: a 500 or 504 as JSON, a timeout or a bad gateway as
  text, a traceback, a ``{"status": "failed"}`` body.
- input_error: the schema-validation error of an injected bad call, as an MCP error, as plain
  text, as a FastAPI-style ``{"detail": [...]}`` body or as ``{"error": ...}``.
- irrelevant_response: a real result of another tool of the same server (from the conversation,
  or from an earlier conversation of the run).
- unable_to_accomplish: a real error/not-found result of the conversation when there is one;
  otherwise the call's real result with its lists emptied (``{"results": []}``), a "no X found"
  sentence, ``{"found": false, ...}`` or ``{"error": "No X found for 'Y'"}``.
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


def internal_error(key: str, tool: str) -> str:
    forms = (
        json.dumps({"error": {"code": 500, "message": "Internal server error"}}),
        "Error: request to the upstream API timed out after 30 seconds",
        "502 Bad Gateway: the upstream server returned an invalid response",
        json.dumps({"status": "failed", "detail": "database is locked, try again later"}),
        json.dumps({"error": "Service temporarily unavailable", "status": 503, "retry_after": 30}),
        f'Traceback (most recent call last):\n  File "server.py", line 88, in {tool}\n'
        "    response = session.get(url, timeout=10)\n"
        "ConnectionResetError: [Errno 104] Connection reset by peer",
    )
    return forms[pick(key, len(forms), "internal")]


def input_error(key: str, error: str, arguments: dict[str, Any]) -> str:
    named = re.search(r"'([A-Za-z_][\w\-]*)'", error)
    param = named.group(1) if named else next(iter(arguments), "arguments")
    forms = (
        json.dumps({"error": {"code": 400, "message": f"Invalid arguments: {error}"}}),
        f"MCP error -32602: Invalid params: {error}",
        f"Input validation error: {error}",
        json.dumps({"detail": [{"loc": ["body", param], "msg": error, "type": "value_error"}]}),
    )
    return forms[pick(key, len(forms), "input")]


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
    """A not-found answer: a real one from the conversation, or the call's own result emptied."""
    if seen_errors:
        return seen_errors[pick(key, len(seen_errors), "seen")]
    value = next((v for v in arguments.values() if isinstance(v, (str, int, float))), "")
    thing, shown = _thing(tool), str(value)[:60]
    try:
        emptied = _emptied(json.loads(result))
    except ValueError:
        emptied = None
    forms = [
        json.dumps({"error": f"No {thing} found for '{shown}'"}),
        f"No {thing} found matching '{shown}'.",
        json.dumps({"found": False, "message": f"Nothing matched '{shown}'"}),
        json.dumps({"results": [], "total": 0}),
    ]
    if emptied is not None:
        forms += [json.dumps(emptied, ensure_ascii=False)] * 2
    return forms[pick(key, len(forms), "unable")]
