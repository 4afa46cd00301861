"""A SQLite cache and call log around any ChatBackend, so a killed run resumes and a rerun is free.

    async with CachedBackend(OpenAIBackend(...), Path("outputs/cache.sqlite")) as llm:
        response = await llm.complete(request)   # a hit makes no call and says cached=True

An answer is keyed by the request and by the endpoint that gave it (its normalised URL, without user
info or query): two deployments served under one model name at different base URLs are two models.

Tables (one file, WAL mode):

    responses  key (request.key()) -> response JSON, role, model, tokens, created
    calls      every call made: role, model, tokens, latency, status, error (never a secret)
    hits       hits per role, counted across runs

Each answer is committed the moment it arrives, so a SIGKILL loses only requests still in flight.
Coroutines asking for the same key at once share one call (single-flight). The clock is read
only for ``created`` and latency, which stay in this file and never reach outputs.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Self

from synth.errors import BackendError, ConfigError
from synth.llm.base import CLAIM, ChatBackend, ChatRequest, ChatResponse
from synth.records import content_hash

SCHEMA_VERSION = 1
_GIVE = "give a run folder made with an LLM backend, or its cache.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    role TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ms REAL NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS hits (
    role TEXT PRIMARY KEY,
    n INTEGER NOT NULL
);
"""


def _open(path: Path, create: bool = True) -> sqlite3.Connection:
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        db.execute("PRAGMA busy_timeout = 5000")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise ConfigError(
                f"{path} was written by a newer synth (cache schema {version}): "
                "upgrade synth, or delete the file (its answers are asked again)"
            )
        if create:
            db.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode survives a killed process (only power loss drops recent commits)
            db.execute("PRAGMA synchronous = NORMAL")
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version != SCHEMA_VERSION:
            raise ConfigError(f"{path} is not a synth cache: {_GIVE}")
    except (sqlite3.DatabaseError, ConfigError) as exc:
        db.close()
        if isinstance(exc, ConfigError):
            raise
        raise ConfigError(
            f"cannot use {path} as a cache ({exc}): delete the file (its answers are asked again) or give another --out"
        ) from None
    return db


class CachedBackend:
    """Wraps ``inner``: answers from ``path`` when it can, else asks ``inner`` and stores the answer.
    Closing it (``aclose`` / ``async with``) closes the database and the inner backend."""

    def __init__(self, inner: ChatBackend, path: Path | str) -> None:
        self.inner = inner
        self.path = Path(path)
        self.endpoint = endpoint_of(inner)  # part of every key: another endpoint's answers are not this one's
        self._db = _open(self.path)
        self._inflight: dict[str, asyncio.Future[ChatResponse]] = {}
        self.hits = 0  # this run
        self.calls = 0  # this run
        self._closed = False

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel calls still in flight, close the database, then the inner backend (once)."""
        if self._closed:
            return
        self._closed = True
        pending = list(self._inflight.values())
        for fut in pending:
            fut.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        self._db.close()
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """A stored answer (cached=True) if there is one; else one call per key, however many ask."""
        key = request.key() if not self.endpoint else content_hash([request.key(), self.endpoint], 32)
        row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self._hit(request.role)
            return ChatResponse.model_validate({**json.loads(row[0]), "cached": True, "key": key})
        running = self._inflight.get(key)
        if running is not None:
            response = await asyncio.shield(running)
            self._hit(request.role)
            return response.model_copy(update={"cached": True})
        task = asyncio.ensure_future(self._call(key, request))
        self._inflight[key] = task
        task.add_done_callback(lambda done: self._settle(key, done))
        # The answer is the asking scenario's until it has it: its claim counts it as out while it travels from
        # the call's task to this caller (a later step of the loop), so a scenario the run drops is never
        # cancelled with an answer on its way, sent and counted nowhere (synth.scheduler._drop).
        claim = CLAIM.get()
        if claim is not None:
            claim.out += 1
        try:  # shielded: a caller that gives up does not cancel the call others are waiting on
            return await asyncio.shield(task)
        finally:
            if claim is not None:
                claim.out -= 1

    def _settle(self, key: str, done: asyncio.Future[ChatResponse]) -> None:
        self._inflight.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved, so an unwaited failure is not reported as lost

    async def _call(self, key: str, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        start = time.perf_counter()
        try:
            response = await self.inner.complete(request)
        except BackendError as exc:
            self._log(key, request, None, start, "error", str(exc))
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug in the inner backend: log it, keep its traceback
            self._log(key, request, None, start, "error", f"{type(exc).__name__}: {exc}")
            raise
        response = response.model_copy(update={"key": key})
        stored = response.model_dump(mode="json", exclude={"cached", "key"})
        usage = response.usage
        with self._db:  # the answer and its log line land together, committed at once
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    request.role,
                    request.model,
                    json.dumps(stored, ensure_ascii=False),
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    time.time(),
                ),
            )
            self._log(key, request, response, start, "ok", None)
        return response

    def _log(
        self,
        key: str,
        request: ChatRequest,
        response: ChatResponse | None,
        start: float,
        status: str,
        error: str | None,
    ) -> None:
        usage = response.usage if response is not None else None
        self._db.execute(
            "INSERT INTO calls (key, role, model, prompt_tokens, completion_tokens, latency_ms, status, error,"
            " created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                request.role,
                request.model,
                usage.prompt_tokens if usage else 0,
                usage.completion_tokens if usage else 0,
                (time.perf_counter() - start) * 1000,
                status,
                error,
                time.time(),
            ),
        )

    def _hit(self, role: str) -> None:
        self.hits += 1
        self._db.execute("INSERT INTO hits VALUES (?, 1) ON CONFLICT(role) DO UPDATE SET n = n + 1", (role,))


def endpoint_of(backend: Any) -> str:
    """The normalised URL of the endpoint under a stack of wrappers (budget...), or "" for a backend that has
    none (scripted, offline): ``OpenAIBackend.endpoint`` is already normalised (synth.llm.openai_wire.public_url)."""
    for _ in range(8):
        if backend is None:
            return ""
        endpoint = getattr(backend, "endpoint", None)
        if isinstance(endpoint, str):
            return endpoint
        backend = getattr(backend, "inner", None)
    return ""


def stats(path: Path | str) -> dict[str, Any]:
    """What a cache file holds and what it saved, across every run that used it (``synth cache stats``)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no cache at {path}: {_GIVE}")
    db = _open(path, create=False)
    try:
        roles: dict[str, dict[str, int]] = {}

        def role(name: str) -> dict[str, int]:
            return roles.setdefault(
                name, {"entries": 0, "hits": 0, "calls": 0, "errors": 0, "prompt_tokens": 0, "completion_tokens": 0}
            )

        for name, n in db.execute("SELECT role, COUNT(*) FROM responses GROUP BY role"):
            role(name)["entries"] = n
        for name, n in db.execute("SELECT role, n FROM hits"):
            role(name)["hits"] = n
        for name, n, errors, prompt, completion in db.execute(
            "SELECT role, COUNT(*), SUM(status != 'ok'), SUM(prompt_tokens), SUM(completion_tokens)"
            " FROM calls GROUP BY role"
        ):
            role(name).update(calls=n, errors=errors or 0, prompt_tokens=prompt or 0, completion_tokens=completion or 0)
    finally:
        db.close()
    totals = {
        field: sum(r[field] for r in roles.values())
        for field in ("entries", "hits", "calls", "errors", "prompt_tokens", "completion_tokens")
    }
    return {**totals, "by_role": dict(sorted(roles.items()))}
