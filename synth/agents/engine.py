"""The one scheduler: runs scenarios for any author (synth.agents.author) and hands the results on
in scenario order, so the output never depends on concurrency or timing.

An author that waits on nothing (the offline one, ``inline``) is run in the consumer's own thread,
one scenario per item taken: no loop, no thread hop. An author that waits on models runs on an
asyncio loop in a background thread with many scenarios in flight (each makes several model calls,
one after another); the pipeline's thread takes the results in index order and does the CPU work
(dedup, injection, writing), so the loop never waits on it.

Launching on the loop: scenarios start while fewer than ``HORIZON x C`` are past the writer (running,
or finished and waiting), so the C request slots always have work queued behind them; requests wait
for a slot in scenario order (synth.llm.base.PRIORITY), so the oldest scenarios finish first. A
scenario that finishes before the ones ahead of it waits in a reorder buffer bounded in bytes
(``buffer_bytes``); launches pause while that buffer is full or the horizon is reached, which is the
most a run can start beyond the last scenario it needed (what ``--dry-run`` prices as the worst case).
A normal end completes the horizon (so a rerun is free); it being no wider than what keeps the
slots busy keeps a run's last seconds, when fewer and fewer scenarios are left, short.
Both pauses depend on what the consumer took, and the horizon on nothing else, so a run that ends
normally completes every scenario up to its horizon and a rerun starts none that is not cached.

Stopping early (enough accepted, budget spent) cancels what is still in flight (``close``) or, on a
normal end (``finish``), completes the horizon; the cache keeps every answer that arrived, so a
rerun or ``--resume`` picks up without paying twice. The same ordering, stop and budget rule serve
both modes; the budget counts everything received so far, scenarios in flight included, while the
manifest counts only what the consumer took.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from synth.config import Settings
from synth.errors import EndpointDown
from synth.llm.base import PRIORITY, ChatResponse
from synth.llm.spend import Spend
from synth.records import Scenario, StageFailure, Written
from synth.runtime.base import run_sync

if TYPE_CHECKING:  # the protocol's module imports the agents, which load the live client
    from synth.agents.author import Author

Item = tuple[Scenario, "Written | StageFailure", list[ChatResponse]]
_DONE = object()
HORIZON = 3  # scenarios launched past the writer per request slot, at most (running + reorder buffer): a
# scenario waits on a request most of its time, so three per slot keep a request queued for every free slot
REORDER_BYTES = 64 << 20  # completed scenarios waiting for an earlier one, by their estimated size
_POLL = 0.005  # seconds the loop sleeps when only the consumer's progress can let it go on


class Scheduler:
    """Iterate it for (scenario, written or failure, responses) of ``indices`` in order; then ``finish()``
    (the run ended normally) or ``close()`` (cancel what runs). ``scenario(index)`` makes scenario ``index``."""

    def __init__(
        self,
        author: Author,
        scenario: Callable[[int], Scenario],
        indices: Sequence[int],
        settings: Settings,
        buffer_bytes: int = REORDER_BYTES,
    ):
        self.author, self.scenario, self.indices, self.settings = author, scenario, indices, settings
        self.buffer_bytes = buffer_bytes
        self.spend = Spend(settings.prices)
        concurrency = max(1, settings.concurrency)
        self.horizon = HORIZON * concurrency
        self.stop = threading.Event()  # cancel: end now
        self.finished = threading.Event()  # the consumer ended normally
        self.taken = 0  # items the consumer has taken; only the consumer's thread writes it
        self.taken_bytes = 0  # their estimated sizes; only the consumer's thread writes it
        self.peak_buffered = 0  # the most bytes waiting at once (loop thread), for tests and benchmarks
        self.launched = 0  # scenarios started so far (loop thread, or the consumer's when inline)
        self.out: queue.Queue[Any] = queue.Queue()
        self.thread: threading.Thread | None = None
        self._closed = False

    def __iter__(self) -> Iterator[Item]:
        if self.author.inline:
            return self._inline()
        self.thread = threading.Thread(target=self._thread_main, name="synth-authors", daemon=True)
        self.thread.start()
        return self._threaded()

    def finish(self) -> None:
        self.finished.set()
        self._end()

    def close(self) -> None:
        self.stop.set()
        self._end()

    def _end(self) -> None:
        if self.thread is not None:
            self.thread.join()
        elif not self._closed:  # inline, or ended before the loop started: the author is released here
            self._closed = True
            close = self.author.aclose()
            _drive(close) if self.author.inline else asyncio.run(close)

    # --- shared by both modes -----------------------------------------------------------------

    def _may_start(self, pos: int) -> bool:
        """Whether scenario ``pos`` (a position in ``indices``) may start: not past the end, not stopped,
        and the budget not spent."""
        return pos < len(self.indices) and not self.stop.is_set() and not _over_budget(self.settings, self.spend)

    async def _one(self, pos: int) -> Item:
        scenario = self.scenario(self.indices[pos])
        spent: list[ChatResponse] = []
        try:
            result = await self.author.write(scenario, spent)
        except EndpointDown:
            raise  # nothing reaches the endpoint: the run stops with one clear line
        except Exception as exc:  # a bug in one item must not sink the run; it is counted with its type
            result = StageFailure(
                stage="generate", item_id=scenario.id, reason=type(exc).__name__, detail=str(exc)[:500]
            )
        self.spend.add(spent)
        return scenario, result, spent

    # --- inline: the consumer's thread -----------------------------------------------------------

    def _inline(self) -> Iterator[Item]:
        pos = 0
        while self._may_start(pos) and not self.finished.is_set():
            item = _drive(self._one(pos))
            pos += 1
            self.launched = pos
            self.taken += 1
            yield item

    # --- on a loop: many scenarios at once ---------------------------------------------------------

    def _threaded(self) -> Iterator[Item]:
        while True:
            got = self.out.get()
            if got is _DONE:
                return
            if isinstance(got, BaseException):
                raise got
            item, size = got
            self.taken += 1
            self.taken_bytes += size
            yield item

    async def _prioritised(self, pos: int) -> Item:
        PRIORITY.set(pos)  # this task's own context: its requests queue for a slot by scenario order
        return await self._one(pos)

    async def _run(self) -> None:
        tasks: dict[int, asyncio.Task[Item]] = {}  # started, not yet handed on
        sizes: dict[int, int] = {}  # finished ones: their estimated size
        wake = asyncio.Event()
        launched = emitted = 0
        done_bytes = 0  # sizes of every finished scenario (handed on or not); taken_bytes is the consumer's part

        def settle(pos: int, task: asyncio.Task[Item]) -> None:
            nonlocal done_bytes
            sizes[pos] = 0 if task.cancelled() or task.exception() is not None else _size(task.result())
            done_bytes += sizes[pos]
            wake.set()

        def launch(limit: int, room: int) -> None:
            nonlocal launched
            while launched < limit and self._may_start(launched) and done_bytes - self.taken_bytes < room:
                task = asyncio.create_task(self._prioritised(launched))
                task.add_done_callback(lambda t, pos=launched: settle(pos, t))  # type: ignore[misc]
                tasks[launched] = task
                launched += 1
                self.launched = launched

        try:
            while not (self.stop.is_set() or self.finished.is_set()):
                launch(self.taken + self.horizon, self.buffer_bytes)
                self.peak_buffered = max(self.peak_buffered, done_bytes - self.taken_bytes)
                if emitted in sizes:
                    size = sizes.pop(emitted)
                    self.out.put((tasks.pop(emitted).result(), size))  # EndpointDown is raised here, in order
                    emitted += 1
                    continue
                if emitted not in tasks and not self._may_start(launched):
                    break  # nothing more will start: what was started has been handed on
                wake.clear()
                try:  # a scenario finishing wakes it at once; the consumer's progress is seen by polling
                    await asyncio.wait_for(wake.wait(), _POLL)
                except TimeoutError:
                    pass
            self.out.put(_DONE)
            while not (self.stop.is_set() or self.finished.is_set()):
                await asyncio.sleep(0.01)
            if self.finished.is_set() and not self.stop.is_set():  # complete the horizon: a rerun is then free
                launch(self.taken + self.horizon, 1 << 62)
                await asyncio.gather(*tasks.values(), return_exceptions=True)
        finally:
            for task in tasks.values():
                task.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            await self.author.aclose()

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # surfaced to the consumer, which re-raises it
            self.out.put(exc)
        finally:
            self.out.put(_DONE)


def _drive(coro: Coroutine[Any, Any, Any]) -> Any:
    """An inline author's coroutine run to its end in the consumer's thread (it never waits)."""
    return run_sync(
        coro, "an inline author awaited something; give it inline = False so the scheduler runs it on its loop"
    )


def _size(item: Item) -> int:
    """About how many bytes a finished scenario holds while it waits: its texts plus a fixed overhead
    per record (an estimate, cheap enough to take for every scenario)."""
    _, written, spent = item
    n = 1024 + sum(512 + len(r.content or "") + 256 * len(r.tool_calls) for r in spent)
    if isinstance(written, Written):
        n += sum(512 + len(m.content or "") for m in written.trajectory.messages) + len(written.query.text)
    return n


def _over_budget(settings: Settings, spend: Spend) -> bool:
    return settings.budget_usd is not None and spend.usd() >= settings.budget_usd
