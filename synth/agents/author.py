"""The LLM agents behind the author seam (synth.scheduler.Author): ``LLMAuthor`` over synth.agents.writer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from synth.agents.writer import Agents, write
from synth.export.chat import ToolNames
from synth.llm.base import ChatResponse, stats_of
from synth.records import Scenario, ServerSpec, StageFailure, Written
from synth.runtime.base import ToolRuntime

if TYPE_CHECKING:  # the pool loads the MCP SDK: only runs that go live import it
    from synth.live.pool import Pool


class LLMAuthor:
    """The agents (query, refine, plan, executor with tool and user simulators, review) per scenario."""

    inline: Literal[False] = False

    def __init__(
        self,
        servers: dict[str, ServerSpec],
        offer: Callable[[Scenario], tuple[str, ...]],
        backends: dict[str, Any],
        names: ToolNames,
        models: dict[str, str],
        seed: int,
        pool: Pool | None = None,
        tool_runtime: Callable[[Scenario], ToolRuntime | None] | None = None,
    ):
        self.servers, self.offer, self.backends = servers, offer, backends
        self.agents = Agents(
            backends=backends, models=models, seed=seed, names=names, pool=pool, tool_runtime=tool_runtime
        )

    async def write(self, scenario: Scenario, spent: list[ChatResponse]) -> Written | StageFailure:
        return await write(scenario, self.servers[scenario.server], self.offer(scenario), self.agents, spent)

    def discard(self, responses: list[ChatResponse]) -> None:
        """Each answer counted as discarded by the client of the role that asked for it ("role:model")."""
        for r in responses:
            stats = stats_of(self.backends.get(r.model.split(":", 1)[0]))
            if stats is not None and hasattr(stats, "discard"):
                stats.discard(r.usage.prompt_tokens, r.usage.completion_tokens)

    async def aclose(self) -> None:
        closes = [getattr(b, "aclose", None) for b in {id(b): b for b in self.backends.values()}.values()]
        await asyncio.gather(*(close() for close in closes if close is not None))
