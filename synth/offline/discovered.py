"""The discover-then-act writer: a live server without a pack, written from what it holds (issue 39).

    convo = Convo(scenario, server, seed, runtime)    # synth.offline.author.write_discovered makes one

A scenario on such a server (synth.scenarios.discover picked its tools, the act first) looks before it acts: it
calls the server's own list tool first and reads tables, columns, ids and names out of the real results; every
later argument comes from them or from the person's own words: SQL is built from the real schema and by the
tool's purpose (CREATE TABLE for a create tool, INSERT or UPDATE for a write tool, SELECT for a read tool), an id
is one a list or a create returned. An empty store gets what the act needs from the person (a table they
describe, a row, a task), created and then read back, so a create is always followed by a read that shows it. A
value that no result gave and no person said is never made up: a step that would need one is left out, and a
call that fails ends the steps, the answer saying why.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from synth.offline.language import reply
from synth.records import Message, Plan, Query, Scenario, ServerSpec, ToolCall, ToolSpec, Trajectory, content_hash
from synth.runtime.base import ToolResult, ToolRuntime
from synth.scenarios.made import made
from synth.scenarios.planner import rng_for
from synth.scenarios.system_prompts import opening


class Convo:
    """One conversation as it is made: the calls on the live server, what the person asks, what the answer says."""

    def __init__(self, scenario: Scenario, server: ServerSpec, seed: int, runtime: ToolRuntime):
        self.scenario, self.runtime = scenario, runtime
        self.rng = rng_for(seed, "discover", scenario.id)
        self.messages: list[Message] = opening(server, seed, scenario.id)
        self.at = len(self.messages)  # where the request goes, once it is known
        self.planned: list[tuple[str, dict[str, Any], tuple[int, ...]]] = []
        self.asked: list[str] = []  # the request's clauses, in the order the calls answer them
        self.told: list[str] = []  # the answer's sentences
        self.failed = False

    def call(self, tool: ToolSpec, args: dict[str, Any]) -> ToolResult:
        """One call on the live server, in the conversation; a failure is said in the answer and ends the steps."""
        call = ToolCall(
            id=f"call_{content_hash([self.scenario.id, len(self.planned)], 12)}", name=tool.name, arguments=args
        )
        self.messages.append(Message(role="assistant", tool_calls=(call,)))
        result = self.runtime.call(tool, args)
        self.messages.append(result.message(call.id))
        self.planned.append((tool.name, args, (len(self.planned) - 1,) if self.planned else ()))
        if result.is_error:
            self.failed = True
            self.told.append(reply(tool, args, result))
        return result

    def written(self) -> tuple[Query, Plan, Trajectory]:
        request = " ".join(self.asked)
        messages = [*self.messages[: self.at], Message(role="user", content=request), *self.messages[self.at :]]
        messages.append(Message(role="assistant", content=" ".join(self.told) or "Done."))
        return made(self.scenario.id, request, self.planned, messages)


def parsed(result: ToolResult) -> Any:
    """A result's value: its JSON, a Python literal a server printed (``[{'name': 'books'}]``), or its text."""
    if result.data is not None and not isinstance(result.data, str):
        return result.data
    text = result.content.strip()
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return text


def records(value: Any) -> list[dict[str, Any]]:
    """The records a result lists: a list of objects, or the list an object holds (``rows``, ``tasks``, ...)."""
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)]
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        return lists[0] if len(lists) == 1 else []
    return []


_ID_TEXT = re.compile(r"(?i)\b(?:id|ID)\b\s*[:=#]?\s*#?(\d+)|#(\d+)")


def new_id(result: ToolResult, kind: str | None) -> Any:
    """The id a create returned: an ``id``-like key of its JSON, or the number its text gives ("with ID: 3")."""
    value = parsed(result)
    if isinstance(value, dict):
        for key, v in value.items():
            if re.fullmatch(r"(?i)(?:.*_)?id|inserted_?id|last_?insert_?row_?id", key) and isinstance(v, (int, str)):
                return int(v) if kind == "integer" and str(v).isdigit() else v
    found = _ID_TEXT.search(result.content)
    if found is None:
        return None
    number = found.group(1) or found.group(2)
    return number if kind == "string" else int(number)


def said(values: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]


__all__ = ["Convo", "new_id", "parsed", "records", "said"]
