"""The one boundary between agents and models: ``backend.complete(ChatRequest) -> ChatResponse``.

Agents build requests; backends (the OpenAI-compatible client, the SQLite cache around it, a
scripted function in tests) answer them. A request carries everything that decides its answer,
so its ``key()`` is the cache key; the API key is never part of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from synth.records import Record, content_hash


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
    model: str = ""
    usage: Usage = Usage()
    cached: bool = False


class ChatBackend(Protocol):
    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Answer one request; raise synth.errors.BackendError when it cannot be answered."""
        ...
