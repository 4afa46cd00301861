"""How hard to push an endpoint: the one retry policy, the AIMD concurrency limiter, token buckets.

Retries (tenacity, SDK retries off) happen only for what a retry can fix: 429, 5xx, timeouts,
dropped connections and cut-off bodies. Waits grow exponentially with jitter, except that a
server's ``retry-after-ms`` / ``Retry-After`` is honoured. Attempts and the total time spent
waiting are both bounded, so a dead endpoint fails a request in bounded time.

The limiter keeps at most ``limit`` requests in flight and moves ``limit`` like TCP congestion
control: halve on a 429 (once per window, not once per 429 of the same burst), add one back after
each run of ``limit`` successes, never above the configured concurrency or below 1.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base
from tenacity.wait import wait_base

T = TypeVar("T")

MAX_SINGLE_WAIT = 30.0  # one exponential wait never exceeds this (Retry-After may, within budget)


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
        status = exc.status_code
        if status == 429:
            return "rate_limit"
        if status >= 500:
            return "server_error"
        if status in (401, 403):
            return "auth"
        if status == 404:
            return "not_found"
        return "bad_request"
    return "other"


RETRYABLE = frozenset({"rate_limit", "server_error", "timeout", "connection", "invalid_response"})


def is_retryable(exc: BaseException) -> bool:
    return error_kind(exc) in RETRYABLE


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms, then Retry-After seconds or date)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            if name == "retry-after":  # an HTTP date
                parsed = email.utils.parsedate_tz(value)
                if parsed is not None:
                    return max(0.0, email.utils.mktime_tz(parsed) - time.time())
            continue
        if seconds >= 0 and seconds != float("inf"):
            return seconds
    return None


class wait_backoff(wait_base):
    """Retry-After when the server gives one (plus up to 10% so a burst does not return in
    lockstep), else ``initial * 2**n`` with equal jitter, capped at MAX_SINGLE_WAIT."""

    def __init__(self, initial: float) -> None:
        self.initial = initial

    def __call__(self, retry_state: RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        asked = retry_after(exc) if exc is not None else None
        if asked is not None:
            return asked * (1 + 0.1 * random.random())
        base = min(MAX_SINGLE_WAIT, self.initial * 2.0 ** (retry_state.attempt_number - 1))
        return base / 2 + random.random() * base / 2


class stop_wait_budget(stop_base):
    """Stop when the next wait would take the total time spent waiting past ``budget`` seconds."""

    def __init__(self, budget: float) -> None:
        self.budget = budget

    def __call__(self, retry_state: RetryCallState) -> bool:
        return retry_state.idle_for + retry_state.upcoming_sleep > self.budget


class RetryPolicy:
    """The one retry policy. ``await policy.call(fn)`` runs ``fn`` until it succeeds, raises
    something not worth retrying, or runs out of attempts or waiting budget (then it re-raises
    the last error). ``on_retry(exc)`` and ``on_wait(seconds)`` are called before each wait."""

    def __init__(self, *, max_attempts: int = 6, max_wait: float = 300.0, backoff: float = 0.5,
                 on_retry: Callable[[BaseException], None] | None = None,
                 on_wait: Callable[[float], None] | None = None) -> None:
        def before_sleep(state: RetryCallState) -> None:
            if on_retry is not None and state.outcome is not None:
                exc = state.outcome.exception()
                if exc is not None:
                    on_retry(exc)
            if on_wait is not None:
                on_wait(state.upcoming_sleep)

        self.max_attempts = max(1, max_attempts)
        self._template = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts) | stop_wait_budget(max_wait),
            wait=wait_backoff(backoff),
            retry=retry_if_exception(is_retryable),
            before_sleep=before_sleep,
            reraise=True,
        )

    async def call(self, fn: Callable[[], Awaitable[T]]) -> T:
        # A fresh copy per call: tenacity keeps per-run state on the object (thread-local, which
        # coroutines on one thread would share).
        return await self._template.copy()(fn)


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
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> int:
        """Wait for a slot; returns a ticket to hand back to ``release``."""
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
        else:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
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
            fut = self._waiters.popleft()
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
