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
from synth.agents.writer import Agents, write
from synth.config import Settings
from synth.export.chat import ToolNames
from synth.llm.base import ChatResponse
from synth.offline.scenario import Planner
from synth.records import Scenario, ServerSpec, StageFailure, Written

_DONE = object()


def ordered_items(planner: Planner, servers: dict[str, ServerSpec], offer: Callable[[Scenario], tuple[str, ...]],
                  backends: dict[str, Any], names: ToolNames, settings: Settings, max_attempts: int,
                  spend: Spend) -> Iterator[tuple[Scenario, Written | StageFailure]]:
    """(scenario, written or failure) for scenario 0, 1, 2, ... until the consumer stops or the budget is spent."""
    agents = Agents(backends=backends, models=settings.models(), seed=settings.seed, names=names)
    out: queue.Queue[Any] = queue.Queue(maxsize=settings.concurrency * 2)
    stop = threading.Event()

    async def one(index: int) -> tuple[Scenario, Written | StageFailure]:
        scenario = planner.scenario(index)
        spent: list[ChatResponse] = []
        try:
            result = await write(scenario, servers[scenario.server], offer(scenario), agents, spent)
        except Exception as exc:  # a bug in one item must not sink the run; it is counted with its type
            result = StageFailure(stage="generate", item_id=scenario.id, reason=type(exc).__name__, detail=str(exc)[:500])
        spend.add(spent)
        return scenario, result

    async def run() -> None:
        window = max(1, settings.concurrency)
        pending: dict[int, asyncio.Task] = {}
        launched = emitted = 0
        try:
            while emitted < max_attempts and not stop.is_set():
                while launched < max_attempts and len(pending) < window and not _over_budget(settings, spend):
                    pending[launched] = asyncio.create_task(one(launched))
                    launched += 1
                if emitted not in pending:
                    break  # the budget stopped new work: hand on what was started, then end
                item = await pending.pop(emitted)
                emitted += 1
                while not stop.is_set():
                    try:
                        out.put(item, timeout=0.05)
                        break
                    except queue.Full:
                        await asyncio.sleep(0.01)
        finally:
            for task in pending.values():
                task.cancel()
            await asyncio.gather(*pending.values(), return_exceptions=True)
            for backend in {id(b): b for b in backends.values()}.values():
                close = getattr(backend, "aclose", None)
                if close:
                    await close()

    def thread_main() -> None:
        try:
            asyncio.run(run())
        except BaseException as exc:  # surfaced to the consumer, which re-raises it
            out.put(exc)
        finally:
            out.put(_DONE)

    thread = threading.Thread(target=thread_main, name="synth-agents", daemon=True)
    thread.start()
    try:
        while True:
            item = out.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # drain so the loop thread is never stuck on a full queue
            try:
                out.get(timeout=0.05)
            except queue.Empty:
                pass
        thread.join()


def _over_budget(settings: Settings, spend: Spend) -> bool:
    return settings.budget_usd is not None and spend.usd() >= settings.budget_usd
