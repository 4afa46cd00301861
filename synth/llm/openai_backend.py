"""The OpenAI-compatible backend: OpenAI, Azure, vLLM, Ollama, llama.cpp, LiteLLM.

    async with OpenAIBackend(base_url="http://localhost:8000/v1", api_key=key, concurrency=64) as llm:
        response = await llm.complete(request)

Requests go out on one aiohttp session per backend (``transport="direct"``, the default), or through
one ``openai.AsyncOpenAI`` client (``"aiohttp"``/``"httpx"``, SDK retries off); either way errors are
the SDK's typed ones (a status error is made by the SDK from the response), retries follow the
project's one policy (``synth.retry``); concurrency and pacing live in ``synth.llm.limits``.
Structured output asks for ``json_schema``; an endpoint that rejects it gets ``json_object``, then plain text (with
the schema spelled out in the system message), and
the downgrade is remembered for the run.

Reasoning models (o1, o3, o4, gpt-5 names, or ``token_param="max_completion_tokens"``) get the answer's
length limit as ``max_completion_tokens`` and no ``temperature`` (they take only the default); any
endpoint that answers 400 naming ``max_tokens`` (with token_param "auto") or ``temperature`` as unsupported is asked
again
once with ``max_completion_tokens`` / without the temperature, remembered for the run. Their
thinking (``reasoning_content``, ``reasoning``, or a leading ``<think>...</think>`` in the content) is
kept apart in ``ChatResponse.reasoning``, so the content parses as the answer alone.

The SDK transports go through its generic ``client.post`` with a plain JSON body: same auth, base
URL, headers, timeouts and typed errors as ``chat.completions.create``, without the walk over
the typed params; the direct transport (synth.llm.transport) skips the SDK's request building. What is sent and
read back (structured-output fields, the parsed answer, the failure message) is in synth.llm.openai_wire.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping
from typing import Any, Self, get_args

import httpx2
import openai

from synth.config import TokenParam
from synth.errors import BackendError, CutAnswer, EndpointDown
from synth.llm.base import CLAIM, ChatRequest, ChatResponse
from synth.llm.limits import (
    AIMDLimiter,
    InvalidResponse,
    TokenBucket,
    connection_phrase,
    error_kind,
    estimate_tokens,
    is_retryable,
)
from synth.llm.openai_wire import (
    FORMATS,
    BackendStats,
    add_format,
    as_completion,
    cut_message,
    failure_message,
    is_cut,
    mentions_format,
    parse_response,
    public_url,
)
from synth.llm.reasoning import is_reasoning_model, unsupported_param
from synth.llm.transport import Direct
from synth.retry import RetryPolicy

log = logging.getLogger(__name__)

FAIL_FAST = 3  # connection failures in a row, before any request got through, that end the run
GONE_AFTER = 3.0  # seconds of nothing but connection failures, after the endpoint had answered, that end the run
CUT_ATTEMPTS = 2  # asks of one request whose answers come back cut (finish_reason length...) before it fails
FATAL = frozenset({"auth", "not_found"})  # a refused key (401/403), an unknown model or path (404): all fail alike


class _FormatRejected(Exception):
    """The endpoint said no to the response_format we sent."""


class _ParamRejected(Exception):
    """The endpoint said a parameter we sent (max_tokens, temperature) is not supported."""

    def __init__(self, param: str):
        super().__init__(param)
        self.param = param


class OpenAIBackend:
    """``ChatBackend`` over any OpenAI-compatible endpoint; safe to share between coroutines."""

    name = "openai"

    def __init__(
        self,
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        concurrency: int = 16,
        rpm: float | None = None,
        tpm: float | None = None,
        timeout: float = 60.0,
        max_attempts: int = 6,
        max_wait: float = 300.0,
        backoff: float = 0.5,
        transport: str = "direct",
        token_param: str = "auto",
    ) -> None:
        """``model``/``max_tokens``/``seed`` fill in what a request leaves empty; ``extra_body``
        is merged into every request (vendor options). ``api_key`` defaults to OPENAI_API_KEY;
        local servers need none. ``max_attempts`` and ``max_wait`` (seconds spent waiting between
        attempts) bound the retries of one request; ``backoff`` is the first retry's wait."""
        _check_options(transport, concurrency, token_param)
        self.token_param = token_param
        self._refused: set[str] = set()  # parameters the endpoint said it does not support (max_tokens, temperature)
        self.model, self.max_tokens, self.seed = model, max_tokens, seed
        self.extra_body = dict(extra_body or {})
        self.timeout = timeout
        key = api_key or os.environ.get("OPENAI_API_KEY") or ""
        self._secret = key
        base = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.endpoint = public_url(base) + "/chat/completions"
        self.transport, self._url = transport, base.rstrip("/") + "/chat/completions"
        self._open_clients(base, key, concurrency)
        self.stats = BackendStats()
        self.limiter = AIMDLimiter(concurrency)
        self._rpm = TokenBucket(rpm) if rpm else None
        self._tpm = TokenBucket(tpm) if tpm else None
        self._format = 0  # index into FORMATS; only ever moves down the ladder
        self._policy = RetryPolicy(
            retryable=is_retryable,
            max_attempts=max_attempts,
            max_wait=max_wait,
            backoff=backoff,
            on_retry=self._count_retry,
            on_wait=self._count_wait,
        )
        self._reached = False  # some request got an HTTP answer
        self._refusals = 0  # connection failures in a row (any request), since the last answer
        self._failing_since: float | None = None  # when that run of connection failures began
        self.down: EndpointDown | None = None  # set once the endpoint is judged unable to answer

    def _open_clients(self, base: str, key: str, concurrency: int) -> None:
        """The SDK client (its transports, and the status errors the direct transport raises) and the
        direct transport, sized for ``concurrency`` requests at once."""
        self._connections = max(100, 2 * concurrency)
        limits = httpx2.Limits(max_connections=self._connections, max_keepalive_connections=max(20, concurrency))
        http_client = (
            openai.DefaultAsyncHttpxClient(limits=limits, timeout=self.timeout)
            if self.transport == "httpx"
            else openai.DefaultAioHttpClient(limits=limits, timeout=self.timeout)
        )
        # The SDK insists on a key; local servers need none, so they get a placeholder bearer token.
        self._client = openai.AsyncOpenAI(
            api_key=key or "no-key", base_url=base, timeout=self.timeout, max_retries=0, http_client=http_client
        )
        self._direct = Direct(
            self._url,
            self.endpoint,
            key or "no-key",
            self.timeout,
            self._connections,
            self._client._make_status_error_from_response,
        )

    # --- lifecycle --------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._direct.aclose()
        await self._client.close()

    @property
    def response_format(self) -> str:
        """The structured-output mode in use: json_schema, json_object or text."""
        return FORMATS[self._format]

    # --- the one method -----------------------------------------------------------------------

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request, retrying what a retry can fix; BackendError otherwise."""
        self.stats.calls += 1
        if self.down is not None:
            raise self.down
        attempts = cuts = 0

        async def attempt() -> dict[str, Any]:
            nonlocal attempts
            attempts += 1
            return await self._send(body)

        while True:
            level = self._format
            body = self._body(request, level)
            try:
                data = await self._policy.call(attempt)
            except _FormatRejected:
                self._downgrade(level)
                continue
            except _ParamRejected as rejected:
                self._refuse(rejected.param)
                continue
            except EndpointDown:
                self.stats.failures += 1
                raise
            except (openai.OpenAIError, InvalidResponse) as exc:  # anything else is a bug: traceback kept
                self.stats.failures += 1
                error = BackendError(self._redact(failure_message(exc, attempts, self.endpoint, self.timeout)))
            else:
                response = parse_response(data)
                if not is_cut(response):
                    return response
                cuts += 1  # a cut answer is a failed attempt: asked again within the bound, never returned
                self.stats.errors["cut_answer"] += 1
                usage = response.usage  # sent and paid for, used by no conversation
                self.stats.discard(usage.prompt_tokens, usage.completion_tokens)
                if cuts < CUT_ATTEMPTS:
                    self.stats.retries += 1
                    continue
                self.stats.failures += 1
                error = CutAnswer(cut_message(response, cuts, self.endpoint))
            raise error  # outside the except block: no chained SDK error holding request headers

    def _body(self, request: ChatRequest, level: int) -> dict[str, Any]:
        body: dict[str, Any] = {"model": request.model or self.model, "messages": list(request.messages)}
        if not body["model"]:
            raise BackendError("the request names no model: set one in the config (--model)")
        reasoning = self.token_param == "max_completion_tokens" or (
            self.token_param == "auto" and is_reasoning_model(body["model"])
        )
        if not reasoning and "temperature" not in self._refused:
            body["temperature"] = request.temperature
        if request.tools:
            body["tools"] = list(request.tools)
        max_tokens = request.max_tokens if request.max_tokens is not None else self.max_tokens
        if max_tokens is not None:
            body["max_completion_tokens" if reasoning or "max_tokens" in self._refused else "max_tokens"] = max_tokens
        seed = request.seed if request.seed is not None else self.seed
        if seed is not None:
            body["seed"] = seed
        add_format(body, request, level)
        if self.extra_body:
            body.update(self.extra_body)
        return body

    async def _send(self, body: dict[str, Any]) -> dict[str, Any]:
        """One HTTP attempt, holding a concurrency slot only while the request is out."""
        if self._rpm is not None:
            await self._rpm.take(1)
        estimate = 0
        if self._tpm is not None:
            estimate = estimate_tokens(body)
            await self._tpm.take(estimate)
        claim = CLAIM.get()
        ticket = await self.limiter.acquire()
        if self.down is not None:  # judged down while this request waited for its slot: send nothing
            self.limiter.release(ticket, "error")
            raise self.down
        outcome = "error"
        try:  # a scenario the run dropped while this request waited for a slot sends nothing more
            if claim is not None:
                claim.hold()
        except asyncio.CancelledError:
            self.limiter.release(ticket, outcome)
            self.stats.unsent += 1
            raise
        self.stats.requests += 1
        if claim is not None:
            claim.out += 1
        try:
            if self.transport == "direct":
                content = await self._direct.post(body)
            else:
                content = (await self._client.post("/chat/completions", body=body, cast_to=httpx2.Response)).content
            data = as_completion(content)
            outcome = "ok"
        except openai.BadRequestError as exc:
            self._reached = True
            self._rejected(exc, body)
            self.stats.errors[error_kind(exc)] += 1
            raise
        except Exception as exc:
            if self._failed(exc) == "rate_limit":
                outcome = "rate_limited"
            raise
        finally:
            self.limiter.release(ticket, outcome)
            if claim is not None:
                claim.out -= 1
        self._reached = True
        self._refusals, self._failing_since = 0, None
        self.stats.answers += 1
        self._count_usage(data.get("usage") or {}, estimate)
        return data

    def _rejected(self, exc: openai.BadRequestError, body: dict[str, Any]) -> None:
        """_FormatRejected or _ParamRejected when the 400 is about something this backend can leave out."""
        if "response_format" in body and mentions_format(exc):
            raise _FormatRejected() from None
        refused = unsupported_param(exc, body)
        if refused == "max_tokens" and self.token_param != "auto":
            refused = None  # the setting named the parameter: the endpoint's refusal is the answer
        if refused is not None and refused not in self._refused:  # once per parameter: then it is an error
            raise _ParamRejected(refused) from None

    def _failed(self, exc: Exception) -> str:
        """Count a failed request by kind (returned); raise EndpointDown when the endpoint cannot answer any
        request: a refused key or unknown model (FATAL), FAIL_FAST connection failures in a row before any
        request got through, or connection failures only for GONE_AFTER seconds after it had answered."""
        kind = error_kind(exc)
        self.stats.errors[kind] += 1
        if kind in FATAL and self.down is None:
            self.down = EndpointDown(self._redact(failure_message(exc, 1, self.endpoint, self.timeout)))
        elif kind == "connection" and self.down is None:
            now = time.monotonic()
            self._refusals += 1
            self._failing_since = self._failing_since or now
            gone = self._reached and now - self._failing_since >= GONE_AFTER
            if self._refusals >= FAIL_FAST and (gone or not self._reached):
                self.down = EndpointDown(self._redact(self._down_line(exc, now)))
        elif kind != "connection" and not isinstance(exc, InvalidResponse) and getattr(exc, "status_code", None):
            self._reached = True
        if self.down is not None:
            raise self.down from None
        return kind

    def _down_line(self, exc: Exception, now: float) -> str:
        phrase = connection_phrase(exc)
        if not self._reached:
            what = f"{self._refusals} attempts in a row, none got through"
        else:
            span = now - (self._failing_since or now)
            what = f"it answered earlier; {self._refusals} attempts over {span:.0f} s failed"
        return f"{self.endpoint}: {phrase} ({what}); check --base-url and that the server is running and listening"

    def _count_usage(self, usage: dict[str, Any], estimate: int) -> None:
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        self.stats.prompt_tokens += prompt
        self.stats.completion_tokens += completion
        if self._tpm is not None:
            self._tpm.give_back(estimate - prompt - completion)

    def _count_retry(self, exc: BaseException) -> None:
        self.stats.retries += 1

    def _count_wait(self, seconds: float) -> None:
        self.stats.waited_s += seconds

    def _refuse(self, param: str) -> None:
        self._refused.add(param)
        self.stats.downgrades += 1
        log.warning(
            "%s does not support %s; %s for the rest of the run",
            self.endpoint,
            param,
            "sending max_completion_tokens" if param == "max_tokens" else "leaving it out",
        )

    def _downgrade(self, level: int) -> None:
        if self._format == level and level + 1 < len(FORMATS):
            self._format = level + 1
            self.stats.downgrades += 1
            log.warning(
                "%s rejected response_format %s; using %s for the rest of the run",
                self.endpoint,
                FORMATS[level],
                FORMATS[level + 1],
            )

    def _redact(self, text: str) -> str:
        if self._secret and len(self._secret) >= 4:
            text = text.replace(self._secret, "***")
        return text


def _check_options(transport: str, concurrency: int, token_param: str) -> None:
    if transport not in ("direct", "aiohttp", "httpx"):
        raise BackendError(f"unknown transport {transport!r}: use 'direct', 'aiohttp' or 'httpx'")
    if concurrency < 1:
        raise BackendError(f"concurrency must be at least 1 (got {concurrency})")
    if token_param not in get_args(TokenParam):
        raise BackendError(f"unknown token_param {token_param!r}: use auto, max_tokens or max_completion_tokens")
