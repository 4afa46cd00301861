"""The tool-runtime protocol and the result record every runtime returns."""

from __future__ import annotations

import json
from collections.abc import Coroutine
from typing import Any, Literal, Protocol, TypeVar

from synth.records import JSON, Outcome, Record, ToolSpec

T = TypeVar("T")
Source = Literal["pack", "simulated", "llm", "live"]


class ToolResult(Record):
    """What a tool call returned: the text the tool message carries, and what we know about it."""

    content: str
    data: JSON = None  # the parsed result, when the content is JSON
    is_error: bool = False
    outcome: Outcome = "success"  # what this result means for the call
    source: Source = "simulated"

    @classmethod
    def of(cls, data: Any, source: Source, is_error: bool = False, outcome: Outcome = "success") -> ToolResult:
        content = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        return cls(content=content, data=data, is_error=is_error, outcome=outcome, source=source)


class ToolRuntime(Protocol):
    """Answers one scenario's calls, in call order. Made per scenario, so state never leaks between scenarios."""

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult: ...


def run_sync(
    coro: Coroutine[Any, Any, T], why: str = "run_sync: the coroutine awaited real I/O; run it in an event loop instead"
) -> T:
    """Run a coroutine that never really waits (an offline runtime, the offline author) to its end, in
    this thread, without an event loop; ``why`` is the error when it does wait after all."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError(why)
