"""The offline schema simulator behind the runtime seam (tools without a pack).

It lives with the offline author, not in synth.runtime: it draws on the same value machinery the author
uses for arguments (synth.simulator.values.values), as the LLM tool simulator lives with the agents. synth.runtime
holds the seam and the runtimes that need no author (packs, live servers), so it never imports an author.
"""

from __future__ import annotations

from typing import Any

from synth.records import Link, ToolSpec
from synth.runtime.base import ToolResult
from synth.simulator.results.simulate import simulate
from synth.simulator.values.values import Context


class SimulatedRuntime:
    """Results shaped by what each tool does; ``provide`` puts values a later step needs where it reads them.

    A detail call about the item an earlier list returned (a ``link``) repeats that item's facts, so a
    chain never contradicts itself.
    """

    waits = False

    def __init__(self, ctx: Context, provide: dict[int, dict[str, Any]] | None = None, links: tuple[Link, ...] = ()):
        self.ctx, self.provide, self.links, self.step = ctx, provide or {}, links, 0
        self.results: list[dict[str, Any]] = []

    def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        result = simulate(tool, arguments, self.ctx, self.provide.get(self.step))
        for link in self.links:
            if link.to_step == self.step and (item := _first_item(self.results[link.from_step])) is not None:
                result.update({k: v for k, v in item.items() if k in result and k not in arguments})
        self.results.append(result)
        self.step += 1
        return ToolResult.of(result, "simulated")

    def close(self) -> None:
        """Nothing held."""


def _first_item(result: Any) -> dict[str, Any] | None:
    """The first record of a list result (``{"authors": [{...}, ...]}``), which a chained call is about."""
    if isinstance(result, dict):
        for value in result.values():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                return value[0]
    return None
