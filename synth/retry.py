"""The one retry policy, shared by everything that talks HTTP (model endpoints, registry APIs).

Retries (tenacity) happen only for what a retry can fix: 429, 5xx, timeouts, dropped
connections and cut-off bodies. Waits grow exponentially with jitter, except that a server's
``retry-after-ms`` / ``Retry-After`` is honoured. Attempts and the total time spent waiting are
both bounded, so a dead endpoint fails a request in bounded time.

What counts as which kind of failure depends on the client library, so each caller hands the
policy a ``retryable(exc)`` predicate; the kinds themselves (``status_kind``, ``RETRYABLE``) and
the waits live here so that every client retries the same way.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.stop import stop_base
from tenacity.wait import wait_base

T = TypeVar("T")

MAX_SINGLE_WAIT = 30.0  # one exponential wait never exceeds this (Retry-After may, within budget)

RETRYABLE = frozenset({"rate_limit", "server_error", "timeout", "connection", "invalid_response"})


def status_kind(status: int) -> str:
    """The failure kind of a non-2xx HTTP status, used for counting and for choosing advice."""
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    if status in (401, 403):
        return "auth"
    if status == 404:
        return "not_found"
    return "bad_request"


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (retry-after-ms, then Retry-After seconds or date).

    Reads ``exc.response.headers``, which both httpx-style and OpenAI SDK errors carry."""
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
    something ``retryable`` says no to, or runs out of attempts or waiting budget (then it
    re-raises the last error). ``on_retry(exc)`` and ``on_wait(seconds)`` are called before each wait."""

    def __init__(
        self,
        *,
        retryable: Callable[[BaseException], bool],
        max_attempts: int = 6,
        max_wait: float = 300.0,
        backoff: float = 0.5,
        on_retry: Callable[[BaseException], None] | None = None,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        def before_sleep(state: RetryCallState) -> None:
            if on_retry is not None and state.outcome is not None:
                exc = state.outcome.exception()
                if exc is not None:
                    on_retry(exc)
            if on_wait is not None:
                on_wait(state.upcoming_sleep)

        self.max_attempts = max(1, max_attempts)
        self._retryable = retryable
        self._template = AsyncRetrying(
            stop=stop_after_attempt(self.max_attempts) | stop_wait_budget(max_wait),
            wait=wait_backoff(backoff),
            retry=retry_if_exception(retryable),
            before_sleep=before_sleep,
            reraise=True,
        )

    async def call(self, fn: Callable[[], Awaitable[T]]) -> T:
        # The first attempt runs bare: most calls succeed, and tenacity's set-up cost about as much
        # CPU as the rest of a model call. After a retryable failure tenacity takes over, its first
        # attempt re-raising that failure, so waits, counts and limits are exactly as if it had run it.
        try:
            return await fn()
        except Exception as exc:
            if self.max_attempts == 1 or not self._retryable(exc):
                raise
            failed: BaseException | None = exc

        async def again() -> T:
            nonlocal failed
            if failed is not None:
                exc, failed = failed, None
                raise exc
            return await fn()

        # A fresh copy per call: tenacity keeps per-run state on the object (thread-local, which
        # coroutines on one thread would share).
        return await self._template.copy()(again)
