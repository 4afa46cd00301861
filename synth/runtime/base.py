"""The tool-runtime protocols, the one adapter between them, and the result record every runtime returns.

    result = runtime.call(tool, arguments)          # ToolRuntime: synchronous
    result = await Awaited(runtime).call(tool, arguments)   # the same runtime on an event loop

One protocol, synchronous, as httpx keeps a sync transport beside an async one. Sync is the shape of
what answers a call: a pack, a world and the schema simulator compute their answer, the live runtime
waits on the pool's own thread and loop (synth.live.pool), and the offline author that calls them has
no event loop at all. The LLM agents run on a loop; they reach a sync runtime only through ``Awaited``,
the one adapter: a runtime that computes is called in place (nothing to wait on), one that ``waits`` on
I/O runs in a worker thread, so no coroutine blocks the loop and no caller steps a coroutine by hand.
The LLM tool role (synth.agents.toolsim) is the one runtime whose answer is itself a model request,
so it speaks ``AsyncToolRuntime`` directly. synth.runtime.pick decides which runtime answers.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal, Protocol

from synth.records import JSON, Message, Outcome, Record, ToolSpec

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

    def message(self, call_id: str) -> Message:
        """The tool message that answers call ``call_id`` in the conversation."""
        return Message(
            role="tool", tool_call_id=call_id, content=self.content, source=self.source, is_error=self.is_error
        )


class ToolRuntime(Protocol):
    """Answers one scenario's calls, in call order. Made per scenario, so state never leaks between scenarios."""

    waits: bool  # True when ``call`` waits on I/O (a live server): Awaited runs it off the event loop

    def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult: ...

    def close(self) -> None:
        """Give back what the scenario held (a live server goes back to the pool); nothing for the others."""
        ...


class AsyncToolRuntime(Protocol):
    """A runtime as the agents' event loop calls it: ``Awaited`` over a ``ToolRuntime``, or the LLM tool role."""

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult: ...

    async def aclose(self) -> None: ...


class Awaited:
    """The one adapter: a sync ``ToolRuntime`` behind ``AsyncToolRuntime``, never blocking the loop."""

    def __init__(self, runtime: ToolRuntime):
        self.runtime = runtime

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        if self.runtime.waits:
            return await asyncio.to_thread(self.runtime.call, tool, arguments)
        return self.runtime.call(tool, arguments)

    async def aclose(self) -> None:
        if self.runtime.waits:
            await asyncio.to_thread(self.runtime.close)
        else:
            self.runtime.close()
