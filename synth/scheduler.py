"""The one scheduler and the author seam it runs: scenarios for any ``Author`` (the offline author in
synth.offline.author, the LLM agents in synth.agents.author), handed on in scenario order, so the output
never depends on concurrency or timing.

    spent = []
    written_or_failure = await author.write(scenario, spent)   # spent: the model answers it took

The pipeline never asks which author it has. ``spent`` collects the model answers the scenario took (none
offline), for spend; it is an argument, not part of the result, so the answers of a scenario that broke
part way are counted.

An author that waits on nothing (the offline one, an ``InlineAuthor``: its ``write`` is a plain
function) is called in the consumer's own thread, one scenario per item taken: no loop, no thread
hop. An author that waits on models (an ``Author``) runs on an asyncio loop in a background thread
with many scenarios in flight (each makes several model calls, one after another); the pipeline's
thread takes the results in index order and does the CPU work
(dedup, injection, writing), so the loop never waits on it.

Launching on the loop: scenarios start while fewer than ``HORIZON x C`` are past the writer (running,
or finished and waiting), so the C request slots always have work queued behind them; requests wait
for a slot in scenario order (synth.llm.base.PRIORITY), so the oldest scenarios finish first. A
scenario that finishes before the ones ahead of it waits in a reorder buffer bounded in bytes
(``buffer_bytes``); launches pause while that buffer is full or the horizon is reached.

Spending only on what is kept: a consumer that wants ``wanted`` accepted items reports each one it
accepts (``accepted``); launches stop once the scenarios started will fill what is still wanted at
the acceptance rate seen so far (``need``), and start again if they fall short. When the consumer
has enough (``finish``), the scenarios still running can no longer be used: each is dropped
(synth.llm.base.Claim), so its next request is not sent, while a request already on the wire is
answered and cached. What those scenarios cost is counted as discarded (``discard`` on the author,
for requests.json), never in the manifest, which counts only the scenarios the consumer took (each
distinct answer once, synth.llm.spend), so the output stays byte-identical at any concurrency; an
answer sent for a dropped scenario that a taken one also used (the cache shared it) is kept, not
discarded, so on a first run the manifest's tokens are requests.json's kept tokens exactly. A rerun
asks again for what was dropped, and says so.
``close`` (an error, a spent budget) cancels what runs at once.
"""

from __future__ import annotations

import asyncio
import math
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal, Protocol

from synth.config import Settings
from synth.errors import EndpointDown
from synth.llm.base import CLAIM, PRIORITY, ChatResponse, Claim
from synth.llm.spend import Spend
from synth.records import Scenario, StageFailure, Written

Item = tuple[Scenario, "Written | StageFailure", list[ChatResponse]]
_DONE = object()
HORIZON = 3  # scenarios launched past the writer per request slot, at most (running + reorder buffer): a
# scenario waits on a request most of its time, so three per slot keep a request queued for every free slot
REORDER_BYTES = 64 << 20  # completed scenarios waiting for an earlier one, by their estimated size
_POLL = 0.005  # seconds the loop sleeps when only the consumer's progress can let it go on


class Author(Protocol):
    """An author that waits on models: the scheduler runs many of its scenarios at once on its loop."""

    inline: Literal[False]

    async def write(self, scenario: Scenario, spent: list[ChatResponse]) -> Written | StageFailure:
        """One scenario, written and through the gates, or the StageFailure that ended it; every
        model answer it took is appended to ``spent``."""
        ...

    async def aclose(self) -> None:
        """Release what the author holds (clients, shops); called once, on the scheduler's loop."""
        ...

    def discard(self, responses: list[ChatResponse]) -> None:
        """Count answers that were sent for scenarios the run did not use (requests.json's ``discarded``)."""
        ...


class InlineAuthor(Protocol):
    """An author that waits on nothing (CPU only): the scheduler calls it in the consumer's thread, one
    scenario after another, with no event loop in between. ``write`` and ``close`` as ``Author``'s."""

    inline: Literal[True]

    def write(self, scenario: Scenario, spent: list[ChatResponse]) -> Written | StageFailure: ...

    def close(self) -> None: ...

    def discard(self, responses: list[ChatResponse]) -> None: ...


class Scheduler:
    """Iterate it for (scenario, written or failure, responses) of ``indices`` in order; then ``finish()``
    (the run ended normally) or ``close()`` (cancel what runs). ``scenario(index)`` makes scenario ``index``."""

    def __init__(
        self,
        author: Author | InlineAuthor,
        scenario: Callable[[int], Scenario],
        indices: Sequence[int],
        settings: Settings,
        buffer_bytes: int = REORDER_BYTES,
        wanted: int | None = None,
    ):
        self.author, self.scenario, self.indices, self.settings = author, scenario, indices, settings
        self.buffer_bytes = buffer_bytes
        self.wanted = wanted  # accepted items the consumer needs (None: no rate limit on launches, e.g. a shard)
        self.need = len(indices) if wanted is None else wanted  # scenarios expected to be needed in all
        self.claims: dict[int, Claim] = {}  # scenarios started and not handed on (loop thread)
        self.spent: dict[int, list[ChatResponse]] = {}  # answers of scenarios started, until taken
        self.discarded = 0  # scenarios started that the consumer never took
        self.dropped = False  # whether their answers were counted as discarded
        self.reused: set[str] = set()  # keys of the cache hits of the scenarios taken (the consumer's thread)
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

    def accepted(self, count: int) -> None:
        """The consumer has accepted ``count`` of the items it took: launches stop once the scenarios
        started are expected to bring what is still wanted, at the acceptance rate seen so far."""
        if self.wanted is None:
            return
        left = self.wanted - count
        if left <= 0:
            self.need = self.taken
        elif count == 0:  # no rate yet: each scenario brings at most one
            self.need = self.taken + left
        else:
            self.need = self.taken + math.ceil(left * (self.taken + 1) / (count + 1))

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
            if self.author.inline:
                self.author.close()
            else:
                asyncio.run(self.author.aclose())

    # --- shared by both modes -----------------------------------------------------------------

    def _may_start(self, pos: int) -> bool:
        """Whether scenario ``pos`` (a position in ``indices``) may start: not past the end, not stopped,
        and the budget not spent."""
        return pos < len(self.indices) and not self.stop.is_set() and not _over_budget(self.settings, self.spend)

    async def _one(self, pos: int) -> Item:
        author, scenario = self.author, self.scenario(self.indices[pos])
        assert not author.inline, "an inline author is called in the consumer's thread"
        spent = self.spent.setdefault(pos, [])
        try:
            result = await author.write(scenario, spent)
        except EndpointDown:
            raise  # nothing reaches the endpoint: the run stops with one clear line
        except Exception as exc:  # a bug in one item must not sink the run; it is counted with its type
            result = _broke(scenario, exc)
        self.spend.add(spent)
        return scenario, result, spent

    # --- inline: the consumer's thread -----------------------------------------------------------

    def _inline(self) -> Iterator[Item]:
        author, pos = self.author, 0
        assert author.inline
        while self._may_start(pos) and not self.finished.is_set():
            scenario, spent = self.scenario(self.indices[pos]), list[ChatResponse]()
            try:
                result = author.write(scenario, spent)
            except Exception as exc:  # as on the loop: one item's bug is counted, the run goes on
                result = _broke(scenario, exc)
            self.spend.add(spent)
            pos += 1
            self.launched = pos
            self.taken += 1
            yield scenario, result, spent

    # --- on a loop: many scenarios at once ---------------------------------------------------------

    def _threaded(self) -> Iterator[Item]:
        while True:
            got = self.out.get()
            if got is _DONE:
                return
            if isinstance(got, BaseException):
                raise got
            item, size = got
            self.spent.pop(self.taken, None)  # taken: its answers are the consumer's to count
            self.reused.update(r.key for r in item[2] if r.cached and r.key)
            self.taken += 1
            self.taken_bytes += size
            yield item

    async def _prioritised(self, pos: int) -> Item:
        PRIORITY.set(pos)  # this task's own context: its requests queue for a slot by scenario order
        CLAIM.set(self.claims.setdefault(pos, Claim()))  # and are not sent once the run drops it
        return await self._one(pos)

    async def _drop(self, tasks: dict[int, asyncio.Task[Item]]) -> None:
        """End the scenarios the consumer will not take: none sends another request (one on the wire is
        answered first; one that has none out is cancelled at once); what they were answered is discarded."""
        for pos, task in tasks.items():
            claim = self.claims[pos]
            claim.dropped = True
            if not claim.out:
                task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        self._discard_left()

    def _discard_left(self) -> None:
        """What the scenarios the consumer did not take (running, buffered or queued) were answered is
        discarded, not kept; an answer one of them shares with a taken scenario (a cache hit) made the data."""
        self.dropped = True
        left = list(self.spent.values())
        self.discarded = len(left)
        self.author.discard([r for spent in left for r in spent if not r.cached and r.key not in self.reused])

    async def _run(self) -> None:
        # what the agents wait on off the loop (a live server's calls, through synth.runtime.base.Awaited) gets
        # a thread per request slot: the loop's default pool has min(32, cores + 4), 6 on 2 cores, whatever -c says
        workers = max(4, self.settings.concurrency)
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(workers, thread_name_prefix="synth-wait"))
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
            while (
                launched < min(limit, self.need) and self._may_start(launched) and done_bytes - self.taken_bytes < room
            ):
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
                    self.claims.pop(emitted, None)
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
            if self.finished.is_set() and not self.stop.is_set():  # what still runs is past the end
                await self._drop(tasks)
        finally:
            for task in tasks.values():
                task.cancel()
            await asyncio.gather(*tasks.values(), return_exceptions=True)
            if self.stop.is_set() and not self.dropped:  # stopped: what was started and not taken is not kept
                self._discard_left()
            assert not self.author.inline
            await self.author.aclose()

    def _thread_main(self) -> None:
        try:
            asyncio.run(self._run())
        except BaseException as exc:  # surfaced to the consumer, which re-raises it
            self.out.put(exc)
        finally:
            self.out.put(_DONE)


def _broke(scenario: Scenario, exc: Exception) -> StageFailure:
    """A bug in one item must not sink the run: it is counted with its type."""
    return StageFailure(stage="generate", item_id=scenario.id, reason=type(exc).__name__, detail=str(exc)[:500])


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
