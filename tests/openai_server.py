"""A real OpenAI-compatible chat server on loopback, for tests and benchmarks.

    with OpenAIServer(latency_ms=5, faults=Faults(rate_429=0.2)) as server:
        backend = OpenAIBackend(base_url=server.base_url, api_key="sk-test")
        ...
        assert server.count("/v1/chat/completions") == 10

    python tests/openai_server.py --port 8011 --latency-ms 200

It speaks ``POST /v1/chat/completions`` and ``GET /v1/models`` over aiohttp in a background
thread (its own event loop), so a test's client and this server never share a loop. Answers come
from ``responder(request_json) -> message dict``. Faults are drawn from a hash of the request
body and how many times that body has been seen, so they depend only on the request, and a retry
of a faulted request draws again (and can succeed).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from aiohttp import web

Responder = Callable[[dict[str, Any]], dict[str, Any]]
CREATED = 1_700_000_000  # fixed, so answers depend only on the request


@dataclass(frozen=True)
class Faults:
    """What goes wrong, and how often (each rate is a share of attempts, drawn per attempt)."""

    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_slow: float = 0.0  # answer only after slow_s (past a short client timeout)
    rate_bad_json: float = 0.0  # the assistant's content is cut off (half of it), finish_reason still "stop"
    rate_length: float = 0.0  # the answer is cut off by max_tokens: half of it, finish_reason "length"
    rate_broken_body: float = 0.0  # the HTTP body itself is cut off (200 with invalid JSON)
    retry_after_s: float | None = 1.0  # Retry-After header on 429s (None: no header)
    retry_after_ms: int | None = None  # retry-after-ms header on 429s (None: no header)
    slow_s: float = 5.0
    reject_json_schema: bool = False  # 400 for response_format json_schema
    reject_json_object: bool = False  # 400 for response_format json_object
    faulty_attempts: int | None = None  # draw faults only for a body's first N attempts


@dataclass(frozen=True)
class Reasoning:
    """Behave like a reasoning model's endpoint: OpenAI's o-series and gpt-5 refuse ``max_tokens``
    (they take ``max_completion_tokens``) and any temperature but 1, with OpenAI's own 400s; the
    thinking comes next to the answer (vLLM's and DeepSeek's ``reasoning_content``, OpenRouter's
    ``reasoning``) or, from a server without a reasoning parser, as a leading <think> block."""

    refuse_max_tokens: bool = True
    refuse_temperature: bool = True
    field: str | None = "reasoning_content"  # "reasoning_content", "reasoning", or None (no thinking field)
    think_tags: bool = False  # the thinking inside the content, before the answer
    # thinking that looks like an answer, so a parser that does not set it apart picks the wrong object
    thought: str = 'The user wants JSON. A first guess was {"wrong": "object"}; check the schema first.'


@dataclass
class Received:
    """One request as it reached the server: everything a test may count or grep."""

    method: str
    path: str
    headers: dict[str, str]
    body: str
    json: Any
    attempt: int  # how many times this exact body had been seen before
    # ok, 429, 500, slow, bad_json, length, broken_body, reject_format, unsupported_param, bad_request, 401, 404
    outcome: str
    at: float  # time.monotonic() on arrival
    in_flight: int  # requests in flight at the server on arrival, this one included


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def example_for(schema: dict[str, Any], name: str = "value") -> Any:
    """A small value that follows a JSON schema (required properties, first enum, type)."""
    if not isinstance(schema, dict):
        return name
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return example_for(schema[key][0], name)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        required = schema.get("required") or list(props)
        return {key: example_for(props.get(key, {}), key) for key in required}
    if kind == "array":
        return [example_for(schema.get("items") or {}, name)] * max(1, schema.get("minItems", 1))
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1.5))
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return f"{name} example"


def _schema_in(messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A JSON schema spelled out in a system message ("... JSON schema:\n{...}"), if any."""
    for message in messages:
        text = _text_of(message.get("content")) if message.get("role") == "system" else ""
        at = text.find("schema:\n{")
        if at >= 0:
            try:
                schema, _ = json.JSONDecoder().raw_decode(text, at + len("schema:\n"))
            except ValueError:
                return None
            return schema if isinstance(schema, dict) else None
    return None


def echo_responder(request: dict[str, Any]) -> dict[str, Any]:
    """A plausible answer: a JSON object for structured requests, a tool call when tools are
    offered and the last message is the user's, else a sentence that echoes the user."""
    messages = request.get("messages") or []
    last = messages[-1] if messages else {}
    fmt = request.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        return {"content": json.dumps(example_for(schema))}
    if fmt.get("type") == "json_object" and _schema_in(messages) is None:
        return {"content": json.dumps({"answer": _text_of(last.get("content"))[:80]})}
    tools = request.get("tools") or []
    if tools and last.get("role") == "user":
        fn = tools[0].get("function", {})
        args = example_for(fn.get("parameters") or {"type": "object"})
        digest = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()[:24]
        return {
            "tool_calls": [
                {
                    "id": f"call_{digest}",
                    "type": "function",
                    "function": {"name": fn.get("name", "tool"), "arguments": json.dumps(args)},
                }
            ]
        }
    schema = _schema_in(messages)  # plain-text structured output: the schema is in the prompt
    if schema is not None:
        return {"content": json.dumps(example_for(schema))}
    if last.get("role") == "tool":
        return {"content": f"Done. The tool said: {_text_of(last.get('content'))[:120]}"}
    user = next((_text_of(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")
    return {"content": f"You asked: {user[:200]}"}


class OpenAIServer:
    """A loopback OpenAI chat completions server in a background thread (a context manager)."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency_ms: float = 0.0,
        faults: Faults | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "synth-test",
        record: bool = True,
        api_key: str | None = None,
        reasoning: Reasoning | None = None,
        models: frozenset[str] | None = None,
    ) -> None:
        self.responder = responder or echo_responder
        self.models = models  # when set, a request naming another model gets OpenAI's 404 model_not_found
        self.reasoning = reasoning
        self.api_key = api_key  # when set, other bearer tokens get a 401 that echoes them
        self.latency_ms = latency_ms
        self.faults = faults or Faults()  # may be replaced between phases of a test
        self.host, self.port, self.model, self.record = host, port, model, record
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.answered = 0  # chat requests whose answer (or error) the server has sent back
        self._seen: Counter[bytes] = Counter()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        return app

    async def start_async(self) -> None:
        """Bind and serve on the running loop (port 0 picks a free port)."""
        # handler_cancellation: a client that gives up (timeout) frees its slow handler at once
        self._runner = web.AppRunner(self.app(), access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, backlog=1024)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop_async(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def start(self) -> Self:
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self.start_async())
            except BaseException as exc:  # noqa: BLE001 - surfaced to the caller of start()
                errors.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.stop_async())
            loop.close()

        self._thread = threading.Thread(target=run, name="openai-test-server", daemon=True)
        self._thread.start()
        ready.wait()
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- what tests look at -----------------------------------------------------------------

    def count(self, path: str = "/v1/chat/completions") -> int:
        return sum(1 for r in self.requests if r.path == path)

    def outcomes(self) -> Counter[str]:
        return Counter(r.outcome for r in self.requests)

    def reset(self) -> None:
        self.requests.clear()
        self._seen.clear()
        self.max_in_flight = 0

    # --- handlers -----------------------------------------------------------------------------

    async def _models(self, request: web.Request) -> web.Response:
        self._note(request, b"", None, 0, "ok")
        return web.json_response(
            {"object": "list", "data": [{"id": self.model, "object": "model", "created": CREATED, "owned_by": "synth"}]}
        )

    def _note(self, request: web.Request, raw: bytes, body: Any, attempt: int, outcome: str) -> None:
        if self.record:
            self.requests.append(
                Received(
                    request.method,
                    request.path,
                    dict(request.headers),
                    raw.decode("utf-8", "replace"),
                    body,
                    attempt,
                    outcome,
                    time.monotonic(),
                    self.in_flight,
                )
            )

    def _draw(self, raw: bytes, attempt: int) -> str:
        faults = self.faults
        if faults.faulty_attempts is not None and attempt >= faults.faulty_attempts:
            return "ok"
        digest = hashlib.sha256(raw + b"#" + str(attempt).encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2**64
        for outcome, rate in (
            ("429", faults.rate_429),
            ("500", faults.rate_500),
            ("slow", faults.rate_slow),
            ("bad_json", faults.rate_bad_json),
            ("length", faults.rate_length),
            ("broken_body", faults.rate_broken_body),
        ):
            if u < rate:
                return outcome
            u -= rate
        return "ok"

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(request)
        finally:
            self.in_flight -= 1
            self.answered += 1

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        attempt = self._seen[raw]
        self._seen[raw] += 1
        if self.api_key is not None:
            given = request.headers.get("Authorization", "").removeprefix("Bearer ")
            if given != self.api_key:
                self._note(request, raw, None, attempt, "401")
                # echoes the key, as some proxies do, so tests can check that clients redact it
                return _error(
                    401, f"Incorrect API key provided: {given}.", "invalid_request_error", code="invalid_api_key"
                )
        try:
            body = json.loads(raw)
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
                raise ValueError("'messages' must be a non-empty list")
        except ValueError as exc:
            self._note(request, raw, None, attempt, "bad_request")
            return _error(400, f"could not parse the request body: {exc}", "invalid_request_error")
        if self.models is not None and body.get("model") not in self.models:
            self._note(request, raw, body, attempt, "404")
            return _error(
                404,
                f"The model `{body.get('model')}` does not exist or you do not have access to it.",
                "invalid_request_error",
                code="model_not_found",
            )
        faults = self.faults
        fmt = (body.get("response_format") or {}).get("type")
        if (fmt == "json_schema" and faults.reject_json_schema) or (fmt == "json_object" and faults.reject_json_object):
            self._note(request, raw, body, attempt, "reject_format")
            return _error(
                400,
                f"Invalid parameter: 'response_format' of type '{fmt}' is not supported with this model.",
                "invalid_request_error",
                param="response_format",
            )
        refused = self._refused(body)
        if refused is not None:
            self._note(request, raw, body, attempt, "unsupported_param")
            return refused
        outcome = self._draw(raw, attempt)
        self._note(request, raw, body, attempt, outcome)
        if self.latency_ms:
            await asyncio.sleep(self.latency_ms / 1000)
        if outcome == "429":
            headers = {}
            if faults.retry_after_s is not None:
                headers["Retry-After"] = f"{faults.retry_after_s:g}"
            if faults.retry_after_ms is not None:
                headers["retry-after-ms"] = str(faults.retry_after_ms)
            return _error(
                429,
                "Rate limit reached for requests. Please try again later.",
                "requests",
                code="rate_limit_exceeded",
                headers=headers,
            )
        if outcome == "500":
            return _error(500, "The server had an error while processing your request.", "server_error")
        if outcome == "slow":
            await asyncio.sleep(faults.slow_s)
        message = dict(self.responder(body))
        if self.reasoning is not None:
            message = self._think(message)
        if outcome in ("bad_json", "length"):
            text = message.get("content") or json.dumps({"answer": "a value that goes on"})
            message = {"content": text[: max(1, len(text) // 2)]}
            if outcome == "length":
                message["finish_reason"] = "length"
        payload = self._completion(body, raw, message)
        if outcome == "broken_body":
            text = json.dumps(payload)
            return web.Response(text=text[: len(text) // 2], content_type="application/json")
        return web.json_response(payload)

    def _refused(self, body: dict[str, Any]) -> web.Response | None:
        """A reasoning endpoint's 400 for a parameter it does not take (OpenAI's wording), or None."""
        r = self.reasoning
        if r is None:
            return None
        if r.refuse_max_tokens and "max_tokens" in body:
            return _error(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                "'max_completion_tokens' instead.",
                "invalid_request_error",
                param="max_tokens",
                code="unsupported_parameter",
            )
        if r.refuse_temperature and body.get("temperature", 1) != 1:
            return _error(
                400,
                f"Unsupported value: 'temperature' does not support {body['temperature']} with this "
                "model. Only the default (1) value is supported.",
                "invalid_request_error",
                param="temperature",
                code="unsupported_value",
            )
        return None

    def _think(self, message: dict[str, Any]) -> dict[str, Any]:
        r = self.reasoning
        assert r is not None
        if r.think_tags:
            return {**message, "content": f"<think>\n{r.thought}\n</think>\n\n{message.get('content') or ''}"}
        return {**message, r.field: r.thought} if r.field else message

    def _completion(self, body: dict[str, Any], raw: bytes, message: dict[str, Any]) -> dict[str, Any]:
        tool_calls = message.get("tool_calls") or None
        content = message.get("content")
        finish = message.get("finish_reason") or ("tool_calls" if tool_calls else "stop")  # a responder may say
        thought = {k: message[k] for k in ("reasoning_content", "reasoning") if k in message}
        prompt_text = " ".join(_text_of(m.get("content")) for m in body["messages"])
        if body.get("tools"):
            prompt_text += json.dumps(body["tools"])
        out_text = (content or "") + (json.dumps(tool_calls) if tool_calls else "")
        prompt, completion = _tokens(prompt_text), _tokens(out_text)
        thinking = _tokens(self.reasoning.thought) if self.reasoning is not None else 0
        completion += thinking  # as OpenAI counts: the reasoning is part of the completion
        return {
            "id": "chatcmpl-" + hashlib.sha256(raw).hexdigest()[:24],
            "object": "chat.completion",
            "created": CREATED,
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "tool_calls": tool_calls, **thought},
                    "finish_reason": finish,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                **({"completion_tokens_details": {"reasoning_tokens": thinking}} if thinking else {}),
            },
            "system_fingerprint": "fp_synth_test",
        }


def _error(
    status: int,
    message: str,
    kind: str,
    *,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    return web.json_response(
        {"error": {"message": message, "type": kind, "param": param, "code": code}}, status=status, headers=headers
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve an OpenAI-compatible test endpoint on loopback.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--rate-500", type=float, default=0.0)
    parser.add_argument("--rate-slow", type=float, default=0.0)
    parser.add_argument("--rate-bad-json", type=float, default=0.0)
    parser.add_argument("--retry-after-s", type=float, default=1.0)
    parser.add_argument("--reject-json-schema", action="store_true")
    parser.add_argument("--no-record", action="store_true", help="do not keep requests in memory")
    args = parser.parse_args()
    faults = Faults(
        rate_429=args.rate_429,
        rate_500=args.rate_500,
        rate_slow=args.rate_slow,
        rate_bad_json=args.rate_bad_json,
        retry_after_s=args.retry_after_s,
        reject_json_schema=args.reject_json_schema,
    )
    server = OpenAIServer(
        latency_ms=args.latency_ms, faults=faults, host=args.host, port=args.port, record=not args.no_record
    )

    async def serve() -> None:
        await server.start_async()
        print(server.base_url, flush=True)  # the benchmark reads this line
        try:
            await asyncio.Event().wait()
        finally:
            await server.stop_async()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
