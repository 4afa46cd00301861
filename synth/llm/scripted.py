"""A backend that is a function: request body in, assistant message out. For exact tests and demos."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synth.llm.base import ChatRequest, ChatResponse, Usage


def request_body(request: ChatRequest) -> dict[str, Any]:
    """The chat completions body an OpenAI-compatible endpoint would receive for ``request``."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": list(request.messages),
        "temperature": request.temperature,
    }
    if request.tools:
        body["tools"] = list(request.tools)
    if request.response_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name or "answer",
                "schema": request.response_schema,
                "strict": False,
            },
        }
    if request.seed is not None:
        body["seed"] = request.seed
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    return body


class ScriptedBackend:
    """``complete`` calls ``answer(body)``, which returns ``{"content": ...}`` or ``{"tool_calls": [...]}``."""

    def __init__(self, answer: Callable[[dict[str, Any]], dict[str, Any]]):
        self.answer = answer
        self.calls = 0

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        message = self.answer(request_body(request))
        text = str(message.get("content") or "") + str(message.get("tool_calls") or "")
        prompt = sum(len(str(m.get("content") or "")) for m in request.messages)
        return ChatResponse(
            content=message.get("content"),
            tool_calls=tuple(message.get("tool_calls") or ()),
            finish_reason="tool_calls" if message.get("tool_calls") else "stop",
            model=request.model,
            usage=Usage(prompt_tokens=prompt // 4 + 1, completion_tokens=len(text) // 4 + 1),
        )
