"""The LLM tool simulator behind the runtime seam: the executor's calls answered by a model role."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from synth.agents import roles
from synth.records import Scenario, StageFailure, ToolSpec
from synth.runtime.base import ToolResult


class SimulatorFailed(Exception):
    """The simulator could not answer (invalid output after a re-ask, a backend error): the scenario ends."""

    def __init__(self, failure: StageFailure):
        super().__init__(failure.detail)
        self.failure = failure


class LLMToolRuntime:
    """Answers each call with the ``tool`` role, showing it the earlier results and the fields later steps need."""

    def __init__(self, scenario: Scenario, model: str, seed: int, ask: Callable[[Any, type, str], Awaitable[Any]]):
        self.model, self.seed, self.ask = model, seed, ask
        self.results: list[dict[str, Any]] = []  # each earlier call: its tool, its arguments and what it returned
        self.needs: dict[int, list[str]] = {}
        for lk in scenario.links:
            self.needs.setdefault(lk.from_step, []).append(lk.field)

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        request = roles.tool_request(
            self.model, self.seed, tool, arguments, self.needs.get(len(self.results), []), self.results
        )
        answer = await self.ask(request, roles.ToolAnswer, "tool")
        if isinstance(answer, StageFailure):
            raise SimulatorFailed(answer)
        self.results.append({"tool": tool.name, "arguments": arguments, "result": answer.result})
        return ToolResult.of(
            answer.result, "llm", is_error=answer.is_error, outcome="internal_error" if answer.is_error else "success"
        )

    async def aclose(self) -> None:
        """Nothing held."""
