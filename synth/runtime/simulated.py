"""The offline schema simulator behind the runtime seam (tools without a pack)."""

from __future__ import annotations

from typing import Any

from synth.offline.simulate import simulate
from synth.offline.values import Context
from synth.records import ToolSpec
from synth.runtime.base import ToolResult


class SimulatedRuntime:
    """Results shaped by what each tool does; ``provide`` puts values a later step needs where it reads them."""

    def __init__(self, ctx: Context, provide: dict[int, dict[str, Any]] | None = None):
        self.ctx, self.provide, self.step = ctx, provide or {}, 0

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        result = simulate(tool, arguments, self.ctx, self.provide.get(self.step))
        self.step += 1
        return ToolResult.of(result, "simulated")
