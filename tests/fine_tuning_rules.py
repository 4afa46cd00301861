"""OpenAI's chat fine-tuning rules for one JSONL line with tool calling (docs/run-folder.md, and
/work/shared/reference/formats.md 3.2): what a file must satisfy to be uploaded as it is."""

from __future__ import annotations

import json
import re
from typing import Any

OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MIN_EXAMPLES = 10  # the fewest lines OpenAI's fine-tuning takes in a training file


def check_line(record: dict[str, Any]) -> None:
    """Assert that one parsed line is a valid fine-tuning record: messages with known roles, tools as
    functions with valid names, every call a JSON-string ``arguments`` answered by a tool message, and an
    assistant answer last."""
    assert set(record) == {"messages", "tools"}
    assert all(t["type"] == "function" for t in record["tools"])
    offered = {t["function"]["name"] for t in record["tools"]}
    assert all(OPENAI_NAME.match(n) for n in offered)
    roles = [m["role"] for m in record["messages"]]
    start = 1 if roles[0] == "system" else 0  # a system prompt is optional, as deployments have one or none
    assert roles[start] == "user" and "system" not in roles[start:]
    pending: set[str] = set()
    for m in record["messages"]:
        assert m["role"] in ("system", "user", "assistant", "tool")
        if m.get("tool_calls"):
            for call in m["tool_calls"]:
                assert call["type"] == "function" and call["function"]["name"] in offered
                assert isinstance(call["function"]["arguments"], str)
                json.loads(call["function"]["arguments"])
                pending.add(call["id"])
        if m["role"] == "tool":
            assert m["tool_call_id"] in pending
            pending.remove(m["tool_call_id"])
    assert not pending
    assert record["messages"][-1]["role"] == "assistant" and record["messages"][-1]["content"]
