"""Live MCP sessions on one background event loop, usable from synchronous code.

The offline author runs one scenario at a time without an event loop; the LLM path runs inside
one. Both reach servers through a ``Pool``: it owns a thread with its own loop, and each open
server is a task there that holds the session (the SDK's transports must be entered and left by
one task) and answers calls from a queue, one at a time, so a server sees calls in the order the
conversation makes them.

A server that is not stateful gets one session for the whole run, reused by every scenario (not a
process per call). A stateful one gets a fresh server per scenario: a new process in a new
temporary folder that is its working folder, HOME, XDG folders and TMPDIR, so scenarios never see each
other's writes, nothing it writes reaches the user's files, and a conversation can be replayed. A server
that fails to connect is remembered, so its other scenarios are refused at once with the same line instead
of each waiting out the timeout again.

synth's own store (an entry that runs ``synth serve store``) is served in this process: each scenario
gets a copy of the seed database and a session with one shared server object over the SDK's
in-memory transport. Same tools, same protocol, same result text as the process, in milliseconds.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from synth.errors import LiveError
from synth.live.client import Limits, Session, connect, result_text, said_error
from synth.live.sandbox import Neutral, placed, prepare, uses_folder
from synth.live.stores import store_seed
from synth.records import Connection
from synth.store.seed import seed_database
from synth.store.server import CURRENT, build_server
from synth.store.shop import Store


class Server:
    """One open server: calls go in order through its session; ``close`` ends it (and its process)."""

    def __init__(self, pool: Pool, name: str, connection: Connection, fresh: bool, store_seed: int | None = None):
        self.pool, self.name, self.connection, self.fresh = pool, name, connection, fresh
        self.store_seed = store_seed  # synth's own store: served in this process from a fresh copy of its seed
        self.info: dict[str, Any] = {}
        self.folder: str | None = None  # the scenario's prepared sandbox, when the entry has one
        self.broken: LiveError | None = None
        self._queue: asyncio.Queue[tuple[str, dict[str, Any], Future[dict[str, Any]]] | None] | None = None
        self._done: Future[None] = Future()

    def start(self) -> Server:
        """Begin connecting in the background; ``wait`` for the result."""
        self._ready: Future[dict[str, Any]] = Future()
        asyncio.run_coroutine_threadsafe(self._own(self._ready), self.pool.loop)
        return self

    def wait(self) -> None:
        """Until connected; raises LiveError with the reason when the server cannot be reached."""
        self.info = self._ready.result()

    def call(self, tool: str, arguments: dict[str, Any]) -> Future[dict[str, Any]]:
        """A future of the wire ``CallToolResult``; a LiveError if the session broke or timed out."""
        result: Future[dict[str, Any]] = Future()
        if self.broken is not None or self._queue is None:
            result.set_exception(self.broken or LiveError(self.name, "the session is closed", "reconnect"))
            return result
        queue = self._queue
        self.pool.loop.call_soon_threadsafe(queue.put_nowait, (tool, arguments, result))
        return result

    def close(self, wait: bool = True) -> None:
        """End the session and its process (and its folder); ``wait`` until they are gone."""
        if self._queue is not None:
            queue, self._queue = self._queue, None
            self.pool.loop.call_soon_threadsafe(queue.put_nowait, None)
        elif not self._ready.done():  # still connecting (a spare): it ends once connected
            self._ready.add_done_callback(lambda _: self.close(wait=False))
        if wait:
            self._done.result()

    async def _own(self, ready: Future[dict[str, Any]]) -> None:
        sandboxed = self.store_seed is None and (self.fresh or uses_folder(self.connection))
        folder = tempfile.mkdtemp(prefix="synth-live-") if self.fresh or sandboxed else None
        queue: asyncio.Queue[Any] = asyncio.Queue()
        store = None
        connection = self.connection
        try:
            if self.store_seed is not None:
                store = self.pool.store_copy(self.store_seed, folder or tempfile.mkdtemp(prefix="synth-live-"))
                CURRENT.set(store)  # this task's context: the session's tasks and tool threads inherit it
            elif folder is not None and sandboxed:  # its HOME, XDG folders and TMPDIR too (sandbox.homed)
                await asyncio.to_thread(prepare, connection.sandbox, folder, self.name)
                connection = placed(connection, folder)
                self.folder = folder
            async with connect(
                connection,
                self.name,
                self.pool.limits,
                local=self.pool.store_server() if store is not None else None,
            ) as session:
                await self._seed(session)
                self._queue = queue
                ready.set_result(session.info)
                while (item := await queue.get()) is not None:
                    tool, arguments, result = item
                    try:
                        result.set_result(await session.call(tool, arguments))
                    except LiveError as error:
                        result.set_exception(error)
                        if error.reason == "live_timeout":
                            self.pool.hung(self.name, tool, error)
                        if error.reason in ("live_closed", "live_error"):  # the session is gone: fail what is left
                            self.broken = error
                            break
        except LiveError as error:
            self.broken = error
            if not ready.done():
                ready.set_exception(error)
        except BaseException as error:  # noqa: BLE001 - never leave a caller waiting on a future
            self.broken = LiveError(
                self.name, f"the session ended: {type(error).__name__}: {error}"[:300], "see the server's log"
            )
            if not ready.done():
                ready.set_exception(self.broken)
        finally:
            if store is not None:
                store.close()
            self._queue = None
            while not queue.empty():  # calls that arrived after the end
                item = queue.get_nowait()
                if item is not None and not item[2].done():
                    item[2].set_exception(self.broken or LiveError(self.name, "the session is closed", "reconnect"))
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
            self._done.set_result(None)

    async def _seed(self, session: Session) -> None:
        """The sandbox's ``call`` steps, made on the server before the scenario's first call; one that fails
        (or returns an error) ends the scenario with a line that names it."""
        sandbox = self.connection.sandbox if self.folder else None
        neutral = Neutral(self.folder)
        for number, step in enumerate(sandbox.steps if sandbox else ()):
            if step.call is None:
                continue
            result = await session.call(step.call.tool, neutral.to_real(dict(step.call.arguments)))
            if said_error(result):
                raise LiveError(
                    self.name,
                    f"sandbox step {number} ({step.call.tool}) returned an error: {result_text(result)[:160]}",
                    "fix the call's arguments in the entry's sandbox",
                    "live_sandbox",
                )


class Pool:
    """Every live server of a run, on one background event loop.

    ``writes`` says which tool calls may run (synth.live.policy): guarded (the default), allow, read-only.
    A server whose calls hang twice is marked unreachable for the rest of the run.
    """

    def __init__(self, limits: Limits = Limits(), fresh_at_once: int = 8, writes: str = "guarded"):
        self.limits, self.writes = limits, writes
        self.hangs: dict[str, int] = {}
        self._fresh = threading.BoundedSemaphore(fresh_at_once)  # stateful servers running at once
        self._spares: dict[str, Server] = {}  # the next scenario's fresh server, started while this one runs
        self._ending: list[Server] = []  # fresh servers released, still shutting down
        self._templates: dict[int, Path] = {}  # seed -> the store's seed database, copied for each scenario
        self._folder: str | None = None
        self._store_server: Any = None
        self._lock = threading.RLock()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="synth-live", daemon=True)
        self._thread.start()
        self._shared: dict[str, Server] = {}
        self.dead: dict[str, LiveError] = {}  # servers that could not be reached: refused at once from then on

    def open(self, name: str, connection: Connection) -> Server:
        """A session for one scenario: fresh for a stateful server, else the run's shared one.

        A fresh server for the next scenario is started as this one is handed out, when a slot is free,
        so a scenario does not wait for a process to start and initialize (each server is used once).
        Safe from several threads (the LLM path opens servers from worker threads).
        """
        with self._lock:
            if name in self.dead:
                raise self.dead[name]
            if not connection.stateful:
                shared = self._shared.get(name)
                if shared is None or shared.broken is not None:
                    shared = self._shared[name] = self._launch(name, connection)  # type: ignore[assignment]
                server = shared
            else:
                server = self._spares.pop(name, None)
        if server is None:
            server = self._launch(name, connection)  # may wait for a slot: scenarios in flight each end theirs
        try:
            server.wait()  # type: ignore[union-attr]
        except LiveError as error:
            with self._lock:
                self.dead[name] = error
                self._shared.pop(name, None)
            raise
        if connection.stateful:
            spare = self._launch(name, connection, wait_for_slot=False)
            if spare is not None:
                with self._lock:
                    old = self._spares.pop(name, None)
                    self._spares[name] = spare
                if old is not None:
                    old.close(wait=False)
        return server  # type: ignore[return-value]

    def _launch(self, name: str, connection: Connection, wait_for_slot: bool = True) -> Server | None:
        server = Server(self, name, connection, fresh=connection.stateful, store_seed=store_seed(connection))
        if server.fresh:
            if not self._fresh.acquire(blocking=wait_for_slot):
                return None  # every slot is taken: no spare now (waiting here could deadlock the scenarios in flight)
            server._done.add_done_callback(lambda _: self._fresh.release())
        return server.start()

    def hung(self, name: str, tool: str, error: LiveError) -> None:
        """A call that got no answer in time: one line on the console; the second marks the server unreachable."""
        with self._lock:
            self.hangs[name] = self.hangs.get(name, 0) + 1
            twice = self.hangs[name] >= 2
            if twice:
                self.dead[name] = LiveError(
                    name, f"hung twice (tools/call {tool}: {error.what})", error.hint, "live_hung"
                )
        then = "marked unreachable for the rest of the run" if twice else "its scenario is rejected"
        print(f"synth: {name}: tools/call {tool} hung ({error.what}); {then}", file=sys.stderr, flush=True)

    def store_copy(self, seed: int, folder: str) -> Store:
        """A fresh store in ``folder``: a copy of the seed database, which is made once per run and seed."""
        with self._lock:
            if seed not in self._templates:
                path = Path(self.scratch()) / f"store-seed{seed}.db"
                seed_database(path, seed)
                self._templates[seed] = path
        db = Path(folder) / "store.db"
        shutil.copyfile(self._templates[seed], db)
        return Store.open(db, seed)

    def store_server(self) -> Any:
        """The store's MCP server, built once: each session's store comes from ``CURRENT``."""
        with self._lock:
            if self._store_server is None:
                self._store_server = build_server()
            return self._store_server

    def scratch(self) -> str:
        """A folder of the pool's, removed when it closes."""
        if self._folder is None:
            self._folder = tempfile.mkdtemp(prefix="synth-pool-")
        return self._folder

    def release(self, server: Server) -> None:
        """A scenario is done with ``server``: a fresh one ends (its process and folder go), a shared one stays."""
        if server.fresh:
            server.close(wait=False)
            with self._lock:
                self._ending = [s for s in self._ending if not s._done.done()] + [server]

    def close(self) -> None:
        """Close every shared session and stop the loop."""
        for server in [*self._shared.values(), *self._spares.values()]:
            server.close()
        for server in self._ending:
            server._done.result()
        self._ending.clear()
        self._shared.clear()
        if self._folder:
            shutil.rmtree(self._folder, ignore_errors=True)
        self._spares.clear()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        if not self.loop.is_running():
            self.loop.close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()
