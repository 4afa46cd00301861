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
the typed params; the direct transport (synth.llm.transport) skips the SDK's request building.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Self
from urllib.parse import urlsplit, urlunsplit

import httpx2
import openai

from synth.errors import BackendError, EndpointDown
from synth.llm.base import ChatRequest, ChatResponse, Usage
from synth.llm.limits import (
    AIMDLimiter,
    InvalidResponse,
    TokenBucket,
    connection_phrase,
    error_kind,
    estimate_tokens,
    is_retryable,
)
from synth.llm.reasoning import is_reasoning_model, split_reasoning, unsupported_param
from synth.llm.transport import Direct
from synth.retry import RetryPolicy

log = logging.getLogger(__name__)

FORMATS = ("json_schema", "json_object", "text")  # the structured-output ladder, best first
FAIL_FAST = 3  # connection failures in a row, before any request got through, that end the run
_NAME_BAD = re.compile(r"[^a-zA-Z0-9_-]")


@dataclass
class BackendStats:
    """What the backend did so far (read it any time; the pipeline puts it in the manifest)."""

    calls: int = 0  # complete() calls
    requests: int = 0  # HTTP requests sent (retries and format downgrades included)
    retries: int = 0
    failures: int = 0  # calls that ended in BackendError
    downgrades: int = 0
    reasks: int = 0  # answers that did not validate and were asked again (counted by synth.llm.structured)
    waited_s: float = 0.0  # time spent waiting before retries (backoff and Retry-After)
    errors: Counter[str] = field(default_factory=Counter)  # failed requests by kind
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "requests": self.requests,
            "retries": self.retries,
            "failures": self.failures,
            "downgrades": self.downgrades,
            "reasks": self.reasks,
            "waited_s": round(self.waited_s, 3),
            "errors": dict(self.errors),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


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
        if transport not in ("direct", "aiohttp", "httpx"):
            raise BackendError(f"unknown transport {transport!r}: use 'direct', 'aiohttp' or 'httpx'")
        if concurrency < 1:
            raise BackendError(f"concurrency must be at least 1 (got {concurrency})")
        if token_param not in ("auto", "max_tokens", "max_completion_tokens"):
            raise BackendError(f"unknown token_param {token_param!r}: use auto, max_tokens or max_completion_tokens")
        self.token_param = token_param
        self._refused: set[str] = set()  # parameters the endpoint said it does not support (max_tokens, temperature)
        self.model, self.max_tokens, self.seed = model, max_tokens, seed
        self.extra_body = dict(extra_body or {})
        self.timeout = timeout
        key = api_key or os.environ.get("OPENAI_API_KEY") or ""
        self._secret = key
        base = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.endpoint = _public_url(base) + "/chat/completions"
        self.transport, self._url = transport, base.rstrip("/") + "/chat/completions"
        self._connections = max(100, 2 * concurrency)
        limits = httpx2.Limits(max_connections=self._connections, max_keepalive_connections=max(20, concurrency))
        http_client = (
            openai.DefaultAsyncHttpxClient(limits=limits, timeout=timeout)
            if transport == "httpx"
            else openai.DefaultAioHttpClient(limits=limits, timeout=timeout)
        )
        # The SDK insists on a key; local servers need none, so they get a placeholder bearer token.
        self._client = openai.AsyncOpenAI(
            api_key=key or "no-key", base_url=base, timeout=timeout, max_retries=0, http_client=http_client
        )
        self._direct = Direct(
            self._url,
            self.endpoint,
            key or "no-key",
            timeout,
            self._connections,
            self._client._make_status_error_from_response,
        )
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
        self._reached = False  # some request got an HTTP answer: from then on failures are per request
        self._refusals = 0  # connection failures in a row while not yet reached
        self.down: EndpointDown | None = None  # set once the endpoint is judged unreachable

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
        attempts = 0

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
                error = self._error(exc, attempts)
            else:
                return self._response(data)
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
        schema = request.response_schema
        if schema is not None:
            if FORMATS[level] == "json_schema":
                name = _NAME_BAD.sub("_", request.schema_name or "response")[:64]
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": False},
                }
            else:
                body["messages"] = _with_schema_instruction(body["messages"], schema)
                if FORMATS[level] == "json_object":
                    body["response_format"] = {"type": "json_object"}
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
        ticket = await self.limiter.acquire()
        outcome = "error"
        self.stats.requests += 1
        try:
            if self.transport == "direct":
                content = await self._direct.post(body)
            else:
                content = (await self._client.post("/chat/completions", body=body, cast_to=httpx2.Response)).content
            try:
                data = json.loads(content)
                usage = data.get("usage") or {}
                data["choices"][0]["message"]
            except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                raise InvalidResponse(f"the body is not a chat completion ({type(exc).__name__})") from None
            outcome = "ok"
        except openai.BadRequestError as exc:
            self._reached = True
            if "response_format" in body and _mentions_format(exc):
                raise _FormatRejected() from None
            refused = unsupported_param(exc, body)
            if refused == "max_tokens" and self.token_param != "auto":
                refused = None  # the setting named the parameter: the endpoint's refusal is the answer
            if refused is not None and refused not in self._refused:  # once per parameter: then it is an error
                raise _ParamRejected(refused) from None
            self.stats.errors[error_kind(exc)] += 1
            raise
        except Exception as exc:
            kind = error_kind(exc)
            self.stats.errors[kind] += 1
            if kind == "rate_limit":
                outcome = "rate_limited"
            if kind == "connection" and not self._reached:
                self._refusals += 1
                if self._refusals >= FAIL_FAST and self.down is None:
                    phrase = connection_phrase(exc)
                    self.down = EndpointDown(
                        self._redact(
                            f"{self.endpoint}: {phrase} ({self._refusals} attempts in a row, none got through); "
                            "check --base-url and that the server is running and listening there"
                        )
                    )
                if self.down is not None:
                    raise self.down from None
            elif not isinstance(exc, InvalidResponse) and getattr(exc, "status_code", None) is not None:
                self._reached = True
            raise
        finally:
            self.limiter.release(ticket, outcome)
        self._reached = True
        prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        self.stats.prompt_tokens += prompt
        self.stats.completion_tokens += completion
        if self._tpm is not None:
            self._tpm.give_back(estimate - prompt - completion)
        return data

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

    @staticmethod
    def _response(data: dict[str, Any]) -> ChatResponse:
        choice = data["choices"][0]
        message = choice["message"]
        usage = data.get("usage") or {}
        calls = tuple(_tool_call(call) for call in message.get("tool_calls") or ())
        content, reasoning = split_reasoning(message)
        return ChatResponse(
            content=content,
            tool_calls=calls,
            finish_reason=choice.get("finish_reason"),
            reasoning=reasoning,
            model=str(data.get("model") or ""),
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
            ),
        )

    def _error(self, exc: BaseException, attempts: int) -> BackendError:
        kind = error_kind(exc)
        status = getattr(exc, "status_code", None)
        what = (
            f"HTTP {status}" if status else connection_phrase(exc) if kind == "connection" else kind.replace("_", " ")
        )
        detail = _server_message(exc)
        advice = {
            "rate_limit": "the endpoint kept rate-limiting; lower --concurrency or set --rpm/--tpm",
            "server_error": "the endpoint kept failing; check that it is healthy, or raise --max-attempts",
            "timeout": f"no answer within {self.timeout:g} s; raise --timeout or lower --concurrency",
            "connection": "could not reach the endpoint; check --base-url and that the server is running",
            "invalid_response": "the endpoint's answers were not chat completions; check --base-url",
            "auth": "the endpoint refused the API key; set OPENAI_API_KEY (or --api-key-env) to a valid key",
            "not_found": "wrong --base-url or --model; the endpoint does not know this path or model",
            "bad_request": "the endpoint rejected the request; check --model and the endpoint's limits",
        }.get(kind, "unexpected failure; see the message above")
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        message = f"chat completion failed{tries}: {what} from {self.endpoint}"
        if detail:
            message += f" ({detail})"
        return BackendError(self._redact(f"{message}: {advice}"))

    def _redact(self, text: str) -> str:
        if self._secret and len(self._secret) >= 4:
            text = text.replace(self._secret, "***")
        return text


def _mentions_format(exc: openai.APIStatusError) -> bool:
    text = (str(exc.message) + " " + json.dumps(exc.body, default=str)).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def _with_schema_instruction(messages: list[dict[str, Any]], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Spell the schema out when the endpoint cannot enforce it (json_object or plain text)."""
    instruction = (
        "Reply with only a JSON object (no prose, no code fences) that follows this JSON "
        "schema:\n" + json.dumps(schema, sort_keys=True)
    )
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        first = dict(messages[0], content=messages[0]["content"] + "\n\n" + instruction)
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def _tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI shape, whatever extras the server adds; arguments always a JSON string."""
    fn = call.get("function") or {}
    args = fn.get("arguments")
    if not isinstance(args, str):
        args = json.dumps(args if args is not None else {})
    return {
        "id": str(call.get("id") or ""),
        "type": "function",
        "function": {"name": str(fn.get("name") or ""), "arguments": args},
    }


def _server_message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    if isinstance(exc, openai.APIStatusError):
        return ""
    return str(exc)[:300]


def _public_url(url: str) -> str:
    """The URL without user info or query (where keys sometimes hide), for messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))
