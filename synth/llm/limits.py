"""How hard to push an endpoint: what counts as retryable for the OpenAI SDK, the AIMD
concurrency limiter, token buckets.

The retry policy itself (which kinds are retried, the backoff, Retry-After) is the project's one
policy in ``synth.retry``; this module only says which OpenAI SDK errors are which kind.

The limiter keeps at most ``limit`` requests in flight and moves ``limit`` like TCP congestion
control: halve on a 429 (once per window, not once per 429 of the same burst), add one back after
each run of ``limit`` successes, never above the configured concurrency or below 1. Requests
waiting for a slot are served by ``PRIORITY`` (lowest first, then in arrival order): the scheduler
sets it to the scenario's position in each scenario's task, so the oldest scenario, the one the
writer waits for, never queues behind later ones.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Any

import openai

from synth.llm.base import PRIORITY
from synth.retry import RETRYABLE, status_kind


class InvalidResponse(Exception):
    """A 200 whose body is not a chat completion (cut off, not JSON, no choices)."""


def _refused(exc: BaseException) -> bool:
    """True when a "timeout" was really a refused or reset connection (the aiohttp transport
    reports a refused connect as ConnectTimeout)."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 8:
        if isinstance(cause, ConnectionError):
            return True
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return False


def connection_phrase(exc: BaseException) -> str:
    """What a connection failure was, in the words people search for: refused, reset, or not made."""
    seen = 0
    cause: BaseException | None = exc
    while cause is not None and seen < 8:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused"
        if isinstance(cause, ConnectionResetError):
            return "connection reset"
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    return "could not connect"


def error_kind(exc: BaseException) -> str:
    """A short name for what went wrong, used for counting and for choosing the advice."""
    if isinstance(exc, openai.APITimeoutError):
        return "connection" if _refused(exc) else "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection"
    if isinstance(exc, InvalidResponse):
        return "invalid_response"
    if isinstance(exc, openai.APIStatusError):
        return status_kind(exc.status_code)
    return "other"


def is_retryable(exc: BaseException) -> bool:
    """The ``retryable`` predicate of ``synth.retry.RetryPolicy`` for OpenAI SDK errors."""
    return error_kind(exc) in RETRYABLE


class AIMDLimiter:
    """At most ``limit`` holders at once; ``limit`` halves on rate limits and creeps back up."""

    def __init__(self, limit: int) -> None:
        self.max_limit = max(1, limit)
        self.limit = self.max_limit
        self.lowest = self.limit  # the lowest the limit fell to, for reports
        self.in_flight = 0
        self.peak_in_flight = 0
        self.cuts = 0
        self._epoch = 0  # bumped on every cut; a 429 from an older window does not cut again
        self._successes = 0
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []  # a heap: (priority, arrival, future)
        self._arrival = itertools.count()

    async def acquire(self) -> int:
        """Wait for a slot; returns a ticket to hand back to ``release``."""
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
        else:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiters, (PRIORITY.get(), next(self._arrival), fut))
            try:
                await fut
            except asyncio.CancelledError:
                if fut.done() and not fut.cancelled():  # the slot was already handed over
                    self.in_flight -= 1
                    self._wake()
                raise
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        return self._epoch

    def release(self, ticket: int, outcome: str) -> None:
        """``outcome``: "ok", "rate_limited", or anything else (neither grows nor cuts)."""
        self.in_flight -= 1
        if outcome == "rate_limited":
            if ticket == self._epoch:
                if self.limit > 1:
                    self.cuts += 1
                self.limit = max(1, self.limit // 2)
                self.lowest = min(self.lowest, self.limit)
                self._epoch += 1
                self._successes = 0
        elif outcome == "ok" and self.limit < self.max_limit:
            self._successes += 1
            if self._successes >= self.limit:
                self.limit += 1
                self._successes = 0
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            fut = heapq.heappop(self._waiters)[2]
            if not fut.done():
                self.in_flight += 1
                fut.set_result(None)


class TokenBucket:
    """``per_minute`` units a minute, bursting to one second's worth. Each ``take`` reserves its
    units at once (the level may go negative) and sleeps off the debt, so callers are served in
    arrival order with no lock and no polling. ``give_back`` corrects an estimate afterwards."""

    def __init__(self, per_minute: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self._level = self.capacity
        self._stamp = time.monotonic()

    async def take(self, units: float = 1.0) -> None:
        now = time.monotonic()
        self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
        self._stamp = now
        self._level -= units
        if self._level < 0:
            await asyncio.sleep(-self._level / self.rate)

    def give_back(self, units: float) -> None:
        self._level = min(self.capacity, self._level + units)


def estimate_tokens(body: dict[str, Any]) -> int:
    """A cheap upper-ish guess of a request's tokens for TPM pacing (4 characters a token)."""
    chars = 0
    for message in body.get("messages", ()):
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif content is not None:
            chars += len(str(content))
    for tool in body.get("tools", ()):
        chars += len(str(tool))
    return chars // 4 + int(body.get("max_tokens") or 0)
