"""Results from the real server: the executor's calls go out as ``tools/call``."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from synth.live.client import result_text
from synth.live.pool import Pool, Server
from synth.records import ServerSpec, ToolSpec
from synth.runtime.base import ToolResult

_INPUT = re.compile(r"validation error|invalid|not found|no \w+ with|unknown|missing|required|must be", re.I)


class LiveRuntime:
    """One scenario's calls on ``server``'s real MCP server, through ``pool``.

    The tool message is the result's text content as served; an ``isError`` result stays an error
    the assistant must deal with. A stateful server is fresh for this scenario and ends with ``close``.
    A server that cannot be reached raises ``LiveError``, which ends the scenario with its reason.
    """

    def __init__(self, pool: Pool, server: ServerSpec):
        assert server.connection is not None, "a live runtime needs a connection"
        self.pool, self.spec = pool, server
        self.server: Server | None = None

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        looped = _in_loop()
        if self.server is None:  # connecting may take a while: off the caller's event loop when there is one
            open_ = lambda: self.pool.open(self.spec.id, self.spec.connection)  # type: ignore[arg-type]  # noqa: E731
            self.server = await asyncio.to_thread(open_) if looped else open_()
        future = self.server.call(tool.name, arguments)
        # the offline author has no loop: it waits for the pool's thread; the agents await the future
        wire = await asyncio.wrap_future(future) if looped else future.result()
        return to_result(wire)

    def close(self) -> None:
        """End a fresh (stateful) server; a shared session stays open for the next scenario."""
        if self.server is not None:
            self.pool.release(self.server)
        self.server = None


def _in_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def to_result(wire: dict[str, Any]) -> ToolResult:
    """A wire ``CallToolResult`` as a ToolResult: text as served, data parsed where it is JSON."""
    content = result_text(wire)
    data: Any = wire.get("structuredContent")
    if data is None:
        try:
            data = json.loads(content)
        except ValueError:
            data = content
    is_error = bool(wire.get("isError"))
    outcome = "success"
    if is_error:
        outcome = "input_error" if _INPUT.search(content) else "unable_to_accomplish"
    return ToolResult(content=content, data=data, is_error=is_error, outcome=outcome, source="live")
