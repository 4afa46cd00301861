"""The one scheduler (synth.scheduler) for both authors: scenario order whatever the timing, a
reorder buffer bounded in bytes that pauses launches only when full, requests served oldest scenario
first, and the offline author run inline."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from fake_agents import respond
from openai_server import OpenAIServer

from synth.agents.author import LLMAuthor
from synth.config import ROLES, Settings
from synth.export.chat import ToolNames
from synth.llm.base import PRIORITY
from synth.llm.factory import open_backends
from synth.llm.limits import AIMDLimiter
from synth.llm.scripted import ScriptedBackend
from synth.pipeline import generate, offered_tools
from synth.records import StageFailure
from synth.registry import load_registry
from synth.rundir import FILES, stored
from synth.scenarios.planner import Planner
from synth.scheduler import Scheduler

REGISTRY = Path(__file__).parents[1] / "registry"


def llm_run(out: Path, url: str, concurrency: int) -> dict:
    settings = Settings(
        servers=REGISTRY,
        out=out,
        n=10,
        seed=5,
        backend="openai",
        base_url=url,
        model="synth-test",
        api_key_env="SYNTH_NO_SUCH_KEY",
        concurrency=concurrency,
    )
    return generate(settings, backends=open_backends(settings))


def test_a_busy_run_writes_the_bytes_of_a_sequential_one(tmp_path):
    """C=64 over HTTP with answers arriving out of order: the same files as one request at a time."""
    with OpenAIServer(respond, latency_ms=3, record=False) as server:
        one = llm_run(tmp_path / "one", server.base_url, 1)
        many = llm_run(tmp_path / "many", server.base_url, 64)
    assert one["funnel"] == many["funnel"] and one["tokens"] == many["tokens"]
    for name in FILES:
        assert stored(tmp_path / "one" / name).read_bytes() == stored(tmp_path / "many" / name).read_bytes(), name


def scheduler(tmp_path: Path, buffer_bytes: int, concurrency: int = 8) -> Scheduler:
    settings = Settings(servers=REGISTRY, out=tmp_path, n=10, seed=5, backend="openai", concurrency=concurrency)
    registry = load_registry(REGISTRY)
    planner = Planner(registry, settings.seed)
    servers = {s.id: s for s in registry.servers}
    backend = ScriptedBackend(respond)
    offer = lambda sc: offered_tools(sc.id, servers[sc.server], sc.tools, settings.max_tools, settings.seed)  # noqa: E731
    author = LLMAuthor(
        servers, offer, {role: backend for role in ROLES}, ToolNames(registry.servers), settings.models(), settings.seed
    )
    return Scheduler(author, planner.scenario, range(40), settings, buffer_bytes=buffer_bytes)


def test_a_full_reorder_buffer_pauses_launches_and_changes_nothing(tmp_path):
    roomy = scheduler(tmp_path, 64 << 20)
    expected = [(sc.id, written) for sc, written, _ in roomy]
    roomy.finish()
    tight = scheduler(tmp_path, 1)  # full as soon as one scenario waits
    got = []
    for sc, written, _ in tight:
        got.append((sc.id, written))
        if len(got) == 1:
            time.sleep(0.3)  # the consumer stalls: nothing more may start while the buffer is full
            stalled = tight.launched
    tight.finish()
    assert got == expected  # the same items in the same order
    assert stalled <= 1 + tight.horizon  # what had started before the first finished, at most
    assert tight.peak_buffered > 0 and roomy.launched == tight.launched == 40


def test_waiting_requests_are_served_oldest_scenario_first():
    async def go() -> list[int]:
        limiter = AIMDLimiter(1)
        order: list[int] = []
        holder = await limiter.acquire()

        async def wait(priority: int) -> None:
            PRIORITY.set(priority)
            ticket = await limiter.acquire()
            order.append(priority)
            limiter.release(ticket, "ok")

        waiters = [asyncio.create_task(wait(p)) for p in (7, 2, 5, 0)]
        await asyncio.sleep(0.01)  # all four queue behind the holder, in the order 7, 2, 5, 0
        limiter.release(holder, "ok")
        await asyncio.gather(*waiters)
        return order

    assert asyncio.run(go()) == [0, 2, 5, 7]


class Inline:
    """An author that waits on nothing (a plain ``write``); its second scenario breaks."""

    inline = True

    def __init__(self) -> None:
        self.threads: set[int] = set()
        self.calls = 0
        self.closed = False

    def write(self, scenario, spent):
        self.threads.add(threading.get_ident())
        self.calls += 1
        if self.calls == 2:
            raise ValueError("a bug in one item")
        return StageFailure(stage="generate", item_id=scenario.id, reason="written", detail="")

    def close(self) -> None:
        self.closed = True

    def discard(self, responses) -> None:
        pass


def test_an_inline_author_runs_in_the_consumers_thread_and_a_broken_item_is_counted(tmp_path):
    registry = load_registry(REGISTRY)
    author = Inline()
    run = Scheduler(author, Planner(registry, 0).scenario, range(3), Settings(servers=REGISTRY, out=tmp_path))
    reasons = [result.reason for _, result, _ in run]
    run.finish()
    assert reasons == ["written", "ValueError", "written"] and author.closed
    assert author.threads == {threading.get_ident()}


class _Waiting:
    """A runtime that waits on I/O (as a live server's does): each call sleeps, and the most calls waiting
    at once is counted."""

    waits = True

    def __init__(self) -> None:
        self.lock, self.now, self.most = threading.Lock(), 0, 0

    def call(self, tool, arguments):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.3)
        with self.lock:
            self.now -= 1

    def close(self) -> None:
        pass


class _Waiter:
    """An author whose scenarios each make one call on a waiting runtime, through the one adapter."""

    inline = False

    def __init__(self, runtime: _Waiting):
        self.runtime = runtime

    async def write(self, scenario, spent):
        from synth.runtime.base import Awaited

        await Awaited(self.runtime).call(None, {})
        return StageFailure(stage="generate", item_id=scenario.id, reason="done")

    async def aclose(self) -> None:
        pass

    def discard(self, responses) -> None:
        pass


def test_calls_that_wait_are_as_concurrent_as_the_run_allows(tmp_path):
    """Issue 41: live calls in an LLM run waited on the loop's default thread pool, min(32, cores + 4): 6 in
    flight on 2 cores whatever -c said. The scheduler's loop has a thread per request slot."""
    registry = load_registry(REGISTRY)
    runtime = _Waiting()
    settings = Settings(servers=REGISTRY, out=tmp_path, concurrency=16)
    run = Scheduler(_Waiter(runtime), Planner(registry, 0).scenario, range(48), settings)
    assert [r.reason for _, r, _ in run] == ["done"] * 48
    run.finish()
    assert runtime.most >= 12, runtime.most  # the default pool would hold at most min(32, cores + 4)
