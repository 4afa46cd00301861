"""What goes over the wire to an OpenAI-compatible endpoint and comes back, apart from sending it.

The structured-output fields of a request at each rung of the ladder (``FORMATS``), the answer as a
``ChatResponse`` (tool calls in the OpenAI shape, reasoning kept apart), the backend's counters, and a
failure said as one line naming the endpoint and the fix. synth.llm.openai_backend sends and retries.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai

from synth.llm.base import ChatRequest, ChatResponse, Usage
from synth.llm.limits import InvalidResponse, connection_phrase, error_kind
from synth.llm.reasoning import split_reasoning

FORMATS = ("json_schema", "json_object", "text")  # the structured-output ladder, best first
# finish_reason values of an answer the model ended itself (OpenAI, vLLM, llama.cpp, Ollama, TGI, Anthropic's
# compatible layer); anything else (length, content_filter, abort...) means the answer was cut. None: not said.
FINISHED = frozenset({"stop", "tool_calls", "function_call", "eos", "eos_token", "stop_sequence", "end_turn"})
_NAME_BAD = re.compile(r"[^a-zA-Z0-9_-]")
ADVICE = {
    "rate_limit": "the endpoint kept rate-limiting; lower --concurrency or set --rpm/--tpm",
    "server_error": "the endpoint kept failing; check that it is healthy, or raise --max-attempts",
    "timeout": "no answer within {timeout:g} s; raise --timeout or lower --concurrency",
    "connection": "could not reach the endpoint; check --base-url and that the server is running",
    "invalid_response": "the endpoint's answers were not chat completions; check --base-url",
    "auth": "the endpoint refused the API key; set OPENAI_API_KEY (or --api-key-env) to a valid key",
    "not_found": "wrong --base-url or --model; the endpoint does not know this path or model",
    "bad_request": "the endpoint rejected the request; check --model and the endpoint's limits",
}


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
    prompt_tokens: int = 0  # of every answer received: the tokens sent (and paid for)
    completion_tokens: int = 0
    answers: int = 0  # calls answered
    unsent: int = 0  # requests not sent: their scenario was dropped (synth.llm.base.Claim) while they waited
    # answers that went to scenarios past the end of the run (the scheduler's ``discard``): sent, not kept
    discarded: Counter[str] = field(default_factory=Counter)

    def discard(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.discarded.update(calls=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)

    def to_json(self) -> dict[str, Any]:
        thrown = {k: self.discarded[k] for k in ("calls", "prompt_tokens", "completion_tokens")}
        sent = {"calls": self.answers, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}
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
            "unsent": self.unsent,
            "sent": sent,
            "kept": {k: sent[k] - thrown[k] for k in sent},
            "discarded": thrown,
        }


def add_format(body: dict[str, Any], request: ChatRequest, level: int) -> None:
    """The request's schema asked for at rung ``level``: as ``json_schema``, or spelled out in the system
    message (with ``json_object`` on the middle rung) for an endpoint that cannot enforce it."""
    schema = request.response_schema
    if schema is None:
        return
    if FORMATS[level] == "json_schema":
        name = _NAME_BAD.sub("_", request.schema_name or "response")[:64]
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": False},
        }
    else:
        body["messages"] = with_schema_instruction(body["messages"], schema)
        if FORMATS[level] == "json_object":
            body["response_format"] = {"type": "json_object"}


def as_completion(content: bytes) -> dict[str, Any]:
    """A response body as a chat completion; InvalidResponse when it is none (no choices, no message)."""
    try:
        data = json.loads(content)
        data.get("usage")
        data["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        raise InvalidResponse(f"the body is not a chat completion ({type(exc).__name__})") from None
    return data


def parse_response(data: dict[str, Any]) -> ChatResponse:
    """A chat completion as a ChatResponse: tool calls in the OpenAI shape, reasoning apart from the content."""
    choice = data["choices"][0]
    message = choice["message"]
    usage = data.get("usage") or {}
    calls = tuple(tool_call(call) for call in message.get("tool_calls") or ())
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


def is_cut(response: ChatResponse) -> bool:
    """Whether the model did not end this answer itself (``finish_reason`` length, content_filter, ...)."""
    return response.finish_reason is not None and response.finish_reason not in FINISHED


def cut_message(response: ChatResponse, asks: int, endpoint: str) -> str:
    """One line for an answer that came back cut on every ask, with the fix."""
    why = response.finish_reason
    fix = (
        "raise max_tokens for this role in synth.toml ([llm] or [roles.<role>] max_tokens)"
        if why == "length"
        else "the endpoint stopped the answer itself; check its content filter or logs"
    )
    return f"the answer from {endpoint} was cut (finish_reason {why}) on {asks} of {asks} asks: {fix}"


def failure_message(exc: BaseException, attempts: int, endpoint: str, timeout: float) -> str:
    """One line for a call that failed: what came back, from where, after how many attempts, and the fix."""
    kind = error_kind(exc)
    status = getattr(exc, "status_code", None)
    what = f"HTTP {status}" if status else connection_phrase(exc) if kind == "connection" else kind.replace("_", " ")
    detail = server_message(exc)
    advice = ADVICE.get(kind, "unexpected failure; see the message above").format(timeout=timeout)
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    message = f"chat completion failed{tries}: {what} from {endpoint}"
    if detail:
        message += f" ({detail})"
    return f"{message}: {advice}"


def mentions_format(exc: openai.APIStatusError) -> bool:
    text = (str(exc.message) + " " + json.dumps(exc.body, default=str)).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object"))


def with_schema_instruction(messages: list[dict[str, Any]], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Spell the schema out when the endpoint cannot enforce it (json_object or plain text)."""
    instruction = (
        "Reply with only a JSON object (no prose, no code fences) that follows this JSON "
        "schema:\n" + json.dumps(schema, sort_keys=True)
    )
    if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
        first = dict(messages[0], content=messages[0]["content"] + "\n\n" + instruction)
        return [first, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def tool_call(call: dict[str, Any]) -> dict[str, Any]:
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


def server_message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
    if isinstance(exc, openai.APIStatusError):
        return ""
    return str(exc)[:300]


def public_url(url: str) -> str:
    """The URL without user info or query (where keys sometimes hide), for messages and logs; normalised
    (scheme and host in lower case, no default port, no trailing slash), so it also names the endpoint in
    cache keys."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = parts.hostname or ""
    if parts.port and (scheme, parts.port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{parts.port}"
    return urlunsplit((scheme, host, parts.path.rstrip("/"), "", ""))
