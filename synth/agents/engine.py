"""Runs the agents for many scenarios at once and hands the results on in scenario order.

An asyncio loop in a background thread keeps up to ``window`` scenarios in flight (each makes
several model calls, one after another); the pipeline's thread takes the results in index order
and does the CPU work (dedup, injection, writing), so the loop never waits on it. Stopping early
(enough accepted, budget spent) cancels what is still in flight; the cache keeps every answer
that arrived, so a rerun or ``--resume`` picks up without paying twice.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Callable, Iterator

from synth.agents.spend import Spend
from synth.live.pool import Pool
from synth.agents.writer import Agents, write
from synth.config import Settings
from synth.errors import EndpointDown
from synth.export.chat import ToolNames
from synth.llm.base import ChatResponse
from synth.offline.scenario import Planner
from synth.records import Scenario, ServerSpec, StageFailure, Written

_DONE = object()
LOOKAHEAD = 3


class OrderedRun:
    """Iterate it for (scenario, written or failure, responses) of scenario 0, 1, 2, ...; then ``finish()``
    (the run ended normally: the look-ahead is completed so a rerun is free) or ``close()`` (cancel).

    The budget is checked against everything received so far, the scenarios in flight included; the
    manifest counts only what the consumer took, so it does not depend on timing.
    """

    def __init__(self, planner: Planner, servers: dict[str, ServerSpec], offer: Callable[[Scenario], tuple[str, ...]],
                 backends: dict[str, Any], names: ToolNames, settings: Settings, max_attempts: int,
                 pool: Pool | None = None):
        self.planner, self.servers, self.offer, self.backends = planner, servers, offer, backends
        self.settings, self.max_attempts = settings, max_attempts
        self.agents = Agents(backends=backends, models=settings.models(), seed=settings.seed, names=names, pool=pool)
        self.spend = Spend(settings.prices)
        self.out: queue.Queue[Any] = queue.Queue()
        self.stop = threading.Event()  # cancel: end now
        self.finished = threading.Event()  # the consumer ended normally
        self.taken = 0  # items the consumer has taken; only the consumer's thread writes it
        # Scenarios in flight: several per request slot, so one long conversation at the head of the
        # line does not leave the slots idle; the backend's own limiter keeps requests at C.
        self.window = LOOKAHEAD * max(1, settings.concurrency)
        self.thread = threading.Thread(target=self._thread_main, name="synth-agents", daemon=True)
        self.thread.start()

    def __iter__(self) -> Iterator[tuple[Scenario, Written | StageFailure, list[ChatResponse]]]:
        while True:
            item = self.out.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            self.taken += 1
            yield item

    def finish(self) -> None:
        self.finished.set()
        self.thread.join()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()

    async def _one(self, index: int) -> tuple[Scenario, Written | StageFailure, list[ChatResponse]]:
        scenario = self.planner.scenario(index)
        spent: list[ChatResponse] = []
        try:
            result = await write(scenario, self.servers[scenario.server], self.offer(scenario), self.agents, spent)
        except EndpointDown:
            raise  # nothing reaches the endpoint: the run stops with one clear line
        except Exception as exc:  # a bug in one item must not sink the run; it is counted with its type
            result = StageFailure(stage="generate", item_id=scenario.id, reason=type(exc).__name__, detail=str(exc)[:500])
        self.spend.add(spent)
        return scenario, result, spent

    async def _run(self) -> None:
        # Scenario i starts only when i < taken + window: the look-ahead depends on what the consumer
        # took, never on timing, so a rerun starts exactly the scenarios this run started.
        pending: dict[int, asyncio.Task] = {}
        launched = emitted = 0

        def launch() -> None:
            nonlocal launched
            while launched < min(self.max_attempts, self.taken + self.window) and not _over_budget(self.settings, self.spend):
                pending[launched] = asyncio.create_task(self._one(launched))
                launched += 1

        try:
            while not (self.stop.is_set() or self.finished.is_set()):
                launch()
                if emitted not in pending:
                    if launched >= self.max_attempts or _over_budget(self.settings, self.spend):
                        break  # nothing more will start: what was started has been handed on
                    await asyncio.sleep(0.002)  # the consumer has not taken enough yet
                    continue
                if not pending[emitted].done():
                    await asyncio.wait([pending[emitted]], timeout=0.05)
                    continue
                self.out.put(pending.pop(emitted).result())
                emitted += 1
            self.out.put(_DONE)
            while not (self.stop.is_set() or self.finished.is_set()):
                await asyncio.sleep(0.01)
            if self.finished.is_set() and not self.stop.is_set():
                launch()
                await asyncio.gather(*pending.values(), return_exceptions=True)
        finally:
            for task in pending.values():
                task.cancel()
            await asyncio.gather(*pending.values(), return_exceptions=True)
            for backend in {id(b): b for b in self.backends.values()}.values():
                close = getattr(backend, "aclose", None)
                if close:
                    await close()

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # surfaced to the consumer, which re-raises it
            self.out.put(exc)
        finally:
            self.out.put(_DONE)


def _over_budget(settings: Settings, spend: Spend) -> bool:
    return settings.budget_usd is not None and spend.usd() >= settings.budget_usd
