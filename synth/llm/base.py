"""The one boundary between agents and models: ``backend.complete(ChatRequest) -> ChatResponse``.

Agents build requests; backends (the OpenAI-compatible client, the SQLite cache around it, a
scripted function in tests) answer them. A request carries everything that decides its answer,
so its ``key()`` is the cache key; the API key is never part of it.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from synth.records import Record, content_hash

# Which request gets the next free slot when several wait (lowest first): the scheduler sets the
# scenario's position in each scenario's task, so the scenario the writer waits for goes first.
PRIORITY: ContextVar[int] = ContextVar("synth_request_priority", default=0)


@dataclass
class Claim:
    """A scenario's hold on the endpoint (the scheduler sets one in each scenario's task, ``CLAIM``).
    Once ``dropped`` (the run no longer needs the scenario), its next request is not sent: ``hold``
    raises CancelledError, so the scenario ends without paying for more; a request already out is
    answered (and cached) first. ``out`` counts its requests on the wire."""

    dropped: bool = False
    out: int = 0

    def hold(self) -> None:
        """Called before a request goes out: refuses it once the scenario was dropped."""
        if self.dropped:
            raise asyncio.CancelledError("the run no longer needs this scenario")


CLAIM: ContextVar[Claim | None] = ContextVar("synth_request_claim", default=None)


class ChatRequest(Record):
    """One chat completion, as an agent asks for it."""

    role: str  # the agent asking: query, refine, plan, executor, user, tool, review, ...
    model: str
    messages: tuple[dict[str, Any], ...]  # OpenAI chat messages
    tools: tuple[dict[str, Any], ...] = ()  # OpenAI tools, for native tool calling
    response_schema: dict[str, Any] | None = None  # JSON schema the answer must follow
    schema_name: str | None = None
    temperature: float = 0.7
    max_tokens: int | None = None
    seed: int | None = None
    template_hash: str = ""  # hash of the prompt templates that made the messages

    def key(self) -> str:
        """Everything that decides the answer, hashed (never the API key or the endpoint's secrets)."""
        return content_hash(self.model_dump(mode="json"), 32)


class Usage(Record):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatResponse(Record):
    content: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()  # OpenAI shape: {"id", "type", "function": {"name", "arguments"}}
    finish_reason: str | None = None
    reasoning: str | None = None  # a reasoning model's thinking (reasoning_content, reasoning, <think>): never data
    model: str = ""
    usage: Usage = Usage()
    cached: bool = False
    # the cache's key of the request answered (synth.llm.cache): one answer however many scenarios use it, so
    # spend counts it once; "" (no cache) counts each response
    key: str = ""


class ChatBackend(Protocol):
    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request; raise synth.errors.BackendError when it cannot be answered."""
        ...


def stats_of(backend: Any) -> Any | None:
    """The request counters (``.stats``) of the client under a stack of wrappers (cache, budget), or
    None for a backend that keeps none (scripted, offline)."""
    for _ in range(8):
        if backend is None:
            return None
        if hasattr(backend, "stats"):
            return backend.stats
        backend = getattr(backend, "inner", None)
    return None


def request_report(backends: Any) -> dict[str, Any] | None:
    """What it took to get the answers, summed over the distinct clients of ``backends`` (a role ->
    backend dict or one backend): requests, retries, re-asks, errors by kind (rate_limit = 429,
    server_error = 5xx, timeout, connection, invalid_response), seconds spent waiting. None when no
    client keeps counters."""
    found = {}
    for backend in backends.values() if isinstance(backends, dict) else [backends]:
        stats = stats_of(backend)
        if stats is not None:
            found[id(stats)] = stats
    if not found:
        return None
    total: dict[str, Any] = {}
    for stats in found.values():
        for key, value in stats.to_json().items():
            if isinstance(value, dict):
                bucket = total.setdefault(key, {})
                for k, v in value.items():
                    bucket[k] = bucket.get(k, 0) + v
            else:
                total[key] = round(total.get(key, 0) + value, 3)
    return total
