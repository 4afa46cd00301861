"""Results from the real server: the executor's calls go out as ``tools/call``."""

from __future__ import annotations

import json
from typing import Any

from synth.errors import LiveError
from synth.live.client import Limits, result_text, said_error
from synth.live.pool import Pool, Server
from synth.live.sandbox import WORKSPACE, Neutral
from synth.records import ServerSpec, ToolSpec
from synth.runtime.base import ToolResult
from synth.stages.gates import error_label


class LiveRuntime:
    """One scenario's calls on ``server``'s real MCP server, through ``pool``.

    The tool message is the result's text content as served; an error result (``isError``, or text that
    reads as one: synth.live.client.said_error) stays an error the assistant must deal with. A stateful
    server is fresh for this scenario and ends with ``close``.
    A server that cannot be reached raises ``LiveError``, which ends the scenario with its reason.
    ``call`` waits for the server (on the pool's thread): on an event loop it runs through ``Awaited``.
    """

    waits = True

    def __init__(self, pool: Pool, server: ServerSpec):
        assert server.connection is not None, "a live runtime needs a connection"
        self.pool, self.spec = pool, server
        self.server: Server | None = None

    def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        if self.server is None:
            self.server = self.pool.open(self.spec.id, self.spec.connection)  # type: ignore[arg-type]
        refusal = refused(
            tool, arguments, self.pool.writes, sandboxed=self.server.fresh or self.server.folder is not None
        )
        if refusal is not None:
            raise LiveError(self.spec.id, refusal, "run with --allow-writes to let it run", "write_refused")
        neutral = Neutral(self.server.folder)
        wire = self.server.call(tool.name, neutral.to_real(arguments)).result()  # answered on the pool's loop
        return to_result(wire, neutral, self.pool.limits)

    def close(self) -> None:
        """End a fresh (stateful) server; a shared session stays open for the next scenario."""
        if self.server is not None:
            self.pool.release(self.server)
        self.server = None


def refused(tool: ToolSpec, arguments: dict[str, Any], writes: str, sandboxed: bool) -> str | None:
    """Why a call must not run under the run's ``writes`` policy, or None.

    read-only: only tools annotated ``readOnlyHint``. guarded (the default): a tool annotated destructive runs
    only in a scenario's own sandbox, and a tool that may write runs with paths only inside it (a server on a
    real folder is never changed by default). allow: everything.
    """
    notes = tool.annotations or {}
    if writes == "allow" or notes.get("readOnlyHint") is True:
        return None
    if writes == "read-only":
        return f"{tool.name} is not annotated read-only, and the run is --read-only"
    if not sandboxed and notes.get("destructiveHint") is True:
        return (
            f"{tool.name} is annotated destructive and the server has no sandbox of synth's (a real folder or service)"
        )
    outside = [
        v for v in _strings(arguments) if _path_like(v) and not (v == WORKSPACE or v.startswith(WORKSPACE + "/"))
    ]
    if outside:
        where = "outside the scenario's sandbox" if sandboxed else "on a server that has no sandbox"
        return f"{tool.name} may write, and {outside[0]!r} is {where}"
    return None


def _path_like(value: str) -> bool:
    return value.startswith(("/", "~", "../")) or "/../" in value


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    return []


def to_result(wire: dict[str, Any], neutral: Neutral | None = None, limits: Limits | None = None) -> ToolResult:
    """A wire ``CallToolResult`` as a ToolResult: text as served (the sandbox as /workspace, the machine's names
    taken out), data parsed where it is JSON; a text longer than ``limits.max_result`` is cut with a marker, or
    becomes an error result, as ``limits.overflow`` says."""
    neutral = neutral or Neutral(None)
    content = neutral.text(result_text(wire))
    data: Any = neutral.value(wire.get("structuredContent"))
    is_error = said_error(wire)  # isError, or text that reads as an error ("Task not found")
    if limits is not None and len(content) > limits.max_result:
        size, data = len(content), None
        if limits.overflow == "error":
            content, is_error = (
                f"[synth: the result was {size} characters, over the cap of {limits.max_result}; not kept]",
                True,
            )
        else:
            content = (
                content[: limits.max_result]
                + f"\n[synth: cut here; the result was {size} characters, capped at {limits.max_result}]"
            )
    if data is None:
        try:
            data = json.loads(content)
        except ValueError:
            data = content
    outcome = error_label(content) if is_error else "success"
    return ToolResult(content=content, data=data, is_error=is_error, outcome=outcome, source="live")
