"""The LLM engine against a real loopback OpenAI server: answers, structured-output downgrades,
retries that honour Retry-After and stay bounded, AIMD concurrency, the SQLite cache, and a key
that never leaks."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from openai_server import Faults, OpenAIServer

from synth.errors import BackendError, ConfigError
from synth.llm import cache
from synth.llm.base import CLAIM, ChatRequest, ChatResponse, Claim
from synth.llm.cache import CachedBackend
from synth.llm.openai_backend import OpenAIBackend

T = TypeVar("T")
KEY = "sk-synth-test-5f3c9a1e7b2d4c6e8f0a"
CHAT = "/v1/chat/completions"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"enum": ["metric", "imperial"]}},
            "required": ["city", "units"],
        },
    },
}
PLAN = {
    "type": "object",
    "properties": {"steps": {"type": "array", "items": {"type": "string"}}},
    "required": ["steps"],
}


def ask(text: str = "What is the weather in Lyon?", role: str = "query", **kw: Any) -> ChatRequest:
    return ChatRequest(role=role, model="test-model", messages=({"role": "user", "content": text},), **kw)


def backend(server: OpenAIServer, **kw: Any) -> OpenAIBackend:
    kw.setdefault("timeout", 2.0)
    kw.setdefault("backoff", 0.001)
    return OpenAIBackend(base_url=server.base_url, api_key=KEY, **kw)


def run(make: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(make())  # type: ignore[arg-type]


async def using(llm: OpenAIBackend | CachedBackend, requests: list[ChatRequest]) -> list[ChatResponse]:
    async with llm:
        return list(await asyncio.gather(*(llm.complete(r) for r in requests)))


async def one_by_one(llm: OpenAIBackend | CachedBackend, requests: list[ChatRequest]) -> list[ChatResponse]:
    async with llm:
        return [await llm.complete(r) for r in requests]


# --- answers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_plain_completion_sends_the_request_and_counts_tokens(transport):
    with OpenAIServer() as server:
        llm = backend(server, transport=transport, seed=11)
        [answer] = run(lambda: using(llm, [ask("hello there", temperature=0.2, max_tokens=50)]))
    assert answer.content == "You asked: hello there" and answer.finish_reason == "stop"
    assert answer.model == "test-model" and not answer.cached and answer.tool_calls == ()
    assert answer.usage.prompt_tokens > 0 and answer.usage.completion_tokens > 0
    sent = server.requests[0].json
    assert sent["messages"] == [{"role": "user", "content": "hello there"}]
    assert (sent["temperature"], sent["max_tokens"], sent["seed"]) == (0.2, 50, 11)
    assert "tools" not in sent and "response_format" not in sent
    assert llm.stats.requests == 1 and llm.stats.retries == 0
    assert llm.stats.prompt_tokens == answer.usage.prompt_tokens


def test_a_dropped_scenario_sends_no_further_request_but_its_request_on_the_wire_is_answered():
    """The scheduler drops scenarios the run no longer needs (synth.llm.base.Claim): a request already out
    is answered and counted (and cached), the next one is not sent, and the client counts it as unsent."""

    async def go(llm: OpenAIBackend) -> tuple[ChatResponse, BaseException]:
        claim = Claim()
        CLAIM.set(claim)
        async with llm:
            first = asyncio.ensure_future(llm.complete(ask("one")))
            while not claim.out:  # on the wire
                await asyncio.sleep(0.001)
            claim.dropped = True
            answer = await first
            second = await asyncio.gather(llm.complete(ask("two")), return_exceptions=True)
        return answer, second[0]

    with OpenAIServer(latency_ms=30) as server:
        llm = backend(server)
        answer, refused = asyncio.run(go(llm))
    assert answer.content == "You asked: one" and isinstance(refused, asyncio.CancelledError)
    assert server.count() == 1 and llm.stats.requests == 1 and llm.stats.unsent == 1
    assert llm.stats.to_json()["sent"]["calls"] == 1


def test_tool_calls_come_back_in_openai_shape():
    with OpenAIServer() as server:
        [answer] = run(lambda: using(backend(server), [ask(tools=(WEATHER,))]))
    assert server.requests[0].json["tools"] == [WEATHER]
    assert answer.finish_reason == "tool_calls" and answer.content is None
    [call] = answer.tool_calls
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"] == {"name": "get_weather", "arguments": '{"city": "city example", "units": "metric"}'}


def test_structured_output_uses_json_schema_when_the_endpoint_takes_it():
    with OpenAIServer() as server:
        [answer] = run(lambda: using(backend(server), [ask(response_schema=PLAN, schema_name="Trip plan!")]))
    fmt = server.requests[0].json["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "Trip_plan_", "schema": PLAN, "strict": False}}
    assert answer.content == '{"steps": ["steps example"]}'


def test_json_schema_rejection_falls_back_to_json_object_and_remembers(caplog):
    with OpenAIServer(faults=Faults(reject_json_schema=True)) as server:
        llm = backend(server)
        requests = [ask(f"plan {i}", response_schema=PLAN) for i in range(3)]

        async def go() -> list[ChatResponse]:
            async with llm:
                first = await llm.complete(requests[0])
                return [first, *await asyncio.gather(*(llm.complete(r) for r in requests[1:]))]

        answers = run(go)
    # the first is turned down once; the rest (sent together, after it) go straight to json_object
    kinds = [(r.json.get("response_format") or {}).get("type") for r in server.requests]
    assert kinds == ["json_schema", "json_object", "json_object", "json_object"]
    assert llm.response_format == "json_object" and llm.stats.downgrades == 1
    assert all(a.content == '{"steps": ["steps example"]}' for a in answers)
    system = server.requests[1].json["messages"][0]
    assert system["role"] == "system" and '"required":["steps"]' in system["content"].replace(" ", "")
    assert "json_object" in caplog.text  # one warning says what changed


def test_an_endpoint_without_json_modes_gets_plain_text_with_the_schema_spelled_out():
    with OpenAIServer(faults=Faults(reject_json_schema=True, reject_json_object=True)) as server:
        llm = backend(server)
        messages = ({"role": "system", "content": "You plan trips."}, {"role": "user", "content": "Lyon"})
        request = ChatRequest(role="plan", model="m", messages=messages, response_schema=PLAN)
        answers = run(lambda: one_by_one(llm, [request, request.model_copy(update={"seed": 1})]))
    assert [r.outcome for r in server.requests] == ["reject_format", "reject_format", "ok", "ok"]
    assert llm.response_format == "text"
    last = server.requests[-1].json
    assert "response_format" not in last and len(last["messages"]) == 2
    assert last["messages"][0]["content"].startswith("You plan trips.\n\nReply with only a JSON object")
    assert all(a.content == '{"steps": ["steps example"]}' for a in answers)  # the test server obliges


def test_other_bad_requests_fail_at_once_with_the_servers_reason():
    with OpenAIServer() as server:
        llm = backend(server)
        bad = ChatRequest(role="query", model="m", messages=())
        with pytest.raises(BackendError) as caught:
            run(lambda: using(llm, [bad]))
    assert server.count() == 1 and llm.stats.retries == 0
    assert "HTTP 400" in str(caught.value) and server.base_url in str(caught.value)


# --- retries ------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", ["retry-after-ms", "Retry-After"])
def test_429_is_retried_after_the_time_the_server_asked_for(header):
    wait = 0.3 if header == "retry-after-ms" else 1.0
    faults = (
        Faults(rate_429=1.0, faulty_attempts=1, retry_after_s=None, retry_after_ms=300)
        if header == "retry-after-ms"
        else Faults(rate_429=1.0, faulty_attempts=1, retry_after_s=1)
    )
    with OpenAIServer(faults=faults) as server:
        llm = backend(server, concurrency=8)
        [answer] = run(lambda: using(llm, [ask()]))
    first, second = server.requests
    assert first.outcome == "429" and second.outcome == "ok" and answer.content
    assert wait <= second.at - first.at < wait * 1.5 + 0.2
    assert llm.stats.retries == 1 and llm.stats.errors == {"rate_limit": 1}
    assert llm.limiter.limit == 4 and llm.limiter.cuts == 1  # 8 halved; one success is not a run


def test_500s_and_cut_off_bodies_are_retried():
    with OpenAIServer(faults=Faults(rate_500=1.0, faulty_attempts=2)) as server:
        llm = backend(server)
        [answer] = run(lambda: using(llm, [ask()]))
    assert [r.outcome for r in server.requests] == ["500", "500", "ok"] and answer.content
    assert llm.stats.retries == 2 and llm.stats.errors == {"server_error": 2}
    with OpenAIServer(faults=Faults(rate_broken_body=1.0, faulty_attempts=1)) as server:
        llm = backend(server)
        [answer] = run(lambda: using(llm, [ask()]))
    assert [r.outcome for r in server.requests] == ["broken_body", "ok"] and answer.content
    assert llm.stats.errors == {"invalid_response": 1}


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_timeouts_are_retried(transport):
    with OpenAIServer(faults=Faults(rate_slow=1.0, slow_s=3.0, faulty_attempts=1)) as server:
        llm = backend(server, timeout=0.3, transport=transport)
        start = time.monotonic()
        [answer] = run(lambda: using(llm, [ask()]))
    assert time.monotonic() - start < 2.0 and answer.content
    assert [r.outcome for r in server.requests] == ["slow", "ok"]
    assert llm.stats.errors == {"timeout": 1} and llm.stats.retries == 1


def test_bad_json_content_is_passed_through_for_the_structured_layer():
    with OpenAIServer(faults=Faults(rate_bad_json=1.0)) as server:
        [answer] = run(lambda: using(backend(server), [ask(response_schema=PLAN)]))
    assert answer.content == '{"steps": ["st'  # cut off; synth.llm.structured re-asks
    assert server.count() == 1


def test_retries_are_bounded_then_a_backend_error_names_status_and_endpoint():
    with OpenAIServer(faults=Faults(rate_500=1.0)) as server:
        llm = backend(server, max_attempts=4)
        with pytest.raises(BackendError) as caught:
            run(lambda: using(llm, [ask()]))
    message = str(caught.value)
    assert server.count() == 4 and llm.stats.retries == 3 and llm.stats.failures == 1
    assert "HTTP 500" in message and f"{server.base_url}/chat/completions" in message
    assert "after 4 attempts" in message and "--max-attempts" in message
    assert caught.value.__cause__ is None and caught.value.__context__ is None


def test_the_total_wait_is_bounded_too():
    # the server asks for 5 s; the budget is 0.5 s, so the backend gives up instead of sleeping
    with OpenAIServer(faults=Faults(rate_429=1.0, retry_after_s=5)) as server:
        llm = backend(server, max_attempts=10, max_wait=0.5)
        start = time.monotonic()
        with pytest.raises(BackendError, match="HTTP 429"):
            run(lambda: using(llm, [ask()]))
    assert time.monotonic() - start < 1.5 and server.count() == 1


def test_an_unreachable_endpoint_fails_fast_with_advice():
    with OpenAIServer() as server:
        url = server.base_url  # the port is free again once the server stops
    llm = OpenAIBackend(base_url=url, api_key=KEY, max_attempts=3, backoff=0.001, timeout=1)
    with pytest.raises(BackendError) as caught:
        run(lambda: using(llm, [ask()]))
    assert "connection" in str(caught.value) and "--base-url" in str(caught.value)
    assert llm.stats.requests == 3 and llm.stats.errors == {"connection": 3}


# --- throughput control -----------------------------------------------------------------------


def test_many_coroutines_share_one_backend_and_keep_c_in_flight():
    with OpenAIServer(latency_ms=20) as server:
        llm = backend(server, concurrency=16)
        answers = run(lambda: using(llm, [ask(f"question {i}") for i in range(120)]))
    assert [a.content for a in answers] == [f"You asked: question {i}" for i in range(120)]
    assert server.max_in_flight == 16 and llm.limiter.peak_in_flight == 16


def test_aimd_halves_concurrency_in_a_429_storm_and_recovers():
    storm = Faults(rate_429=1.0, faulty_attempts=3, retry_after_s=None, retry_after_ms=5)
    with OpenAIServer(latency_ms=5, faults=storm) as server:
        llm = backend(server, concurrency=16, max_attempts=10)

        async def go() -> tuple[list[int], int]:
            async with llm:
                await asyncio.gather(*(llm.complete(ask(f"storm {i}")) for i in range(64)))
                in_storm = [r.in_flight for r in server.requests]
                server.faults = Faults()
                server.latency_ms = 40  # long enough that every free slot is seen busy, even on a loaded machine
                server.reset()
                await asyncio.gather(*(llm.complete(ask(f"calm {i}")) for i in range(400)))
                return in_storm, server.max_in_flight

        in_storm, calm_peak = run(go)
    # 16 -> 8 -> 4 -> 2 -> 1: most of the storm ran one request at a time
    assert llm.limiter.lowest == 1 and llm.limiter.cuts >= 4
    # the storm opens above the first cut (all 16 at once on an idle machine; on a loaded one the first 429s can
    # come back before the 16th request leaves), and most of it runs one request at a time
    assert max(in_storm) > 8 and sum(n == 1 for n in in_storm) > len(in_storm) / 2
    # then one more slot per run of successes, back up to the configured 16
    assert llm.limiter.limit == 16 and calm_peak == 16
    assert llm.stats.failures == 0 and llm.stats.errors == {"rate_limit": 64 * 3}


def test_rpm_paces_requests():
    with OpenAIServer() as server:
        llm = backend(server, rpm=600)  # 10 a second, bursting to 10
        start = time.monotonic()
        run(lambda: using(llm, [ask(f"q{i}") for i in range(15)]))
    assert time.monotonic() - start >= 0.45 and server.count() == 15


# --- cache --------------------------------------------------------------------------------------


def test_a_second_identical_run_makes_no_http_requests(tmp_path):
    db = tmp_path / "cache.sqlite"
    requests = [ask(f"q{i}", role="query" if i % 2 else "plan") for i in range(20)] + [ask(tools=(WEATHER,))]
    with OpenAIServer() as server:
        first = run(lambda: using(CachedBackend(backend(server), db), requests))
        assert server.count() == 21
        second = run(lambda: using(CachedBackend(backend(server), db), requests))
        assert server.count() == 21
    assert all(a.cached for a in second) and not any(a.cached for a in first)
    assert [a.model_copy(update={"cached": False}) for a in second] == first
    summary = cache.stats(db)
    assert (summary["entries"], summary["calls"], summary["hits"]) == (21, 21, 21)
    assert summary["prompt_tokens"] == sum(a.usage.prompt_tokens for a in first)
    assert summary["by_role"]["plan"]["entries"] == 10 and summary["by_role"]["query"]["hits"] == 11


def test_answers_are_committed_as_they_arrive(tmp_path):
    db = tmp_path / "cache.sqlite"
    with OpenAIServer() as server:

        async def go() -> int:
            llm = CachedBackend(backend(server), db)
            await llm.complete(ask())
            # another process (a resumed run) sees it before this one closes anything
            with sqlite3.connect(db) as other:
                seen = other.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            await llm.aclose()
            return int(seen)

        assert run(go) == 1


def test_concurrent_identical_requests_make_one_call(tmp_path):
    with OpenAIServer(latency_ms=50) as server:
        llm = CachedBackend(backend(server), tmp_path / "cache.sqlite")
        answers = run(lambda: using(llm, [ask("same")] * 10 + [ask("other")]))
    assert server.count() == 2 and llm.calls == 2 and llm.hits == 9
    assert sum(not a.cached for a in answers) == 2 and len({a.content for a in answers[:10]}) == 1


def test_failed_calls_are_logged_and_not_cached(tmp_path):
    db = tmp_path / "cache.sqlite"
    with OpenAIServer(faults=Faults(rate_500=1.0)) as server, pytest.raises(BackendError):
        run(lambda: using(CachedBackend(backend(server, max_attempts=2), db), [ask(role="review")]))
    summary = cache.stats(db)
    assert summary["entries"] == 0 and summary["calls"] == 1 and summary["errors"] == 1
    with sqlite3.connect(db) as conn:
        status, error = conn.execute("SELECT status, error FROM calls").fetchone()
    assert status == "error" and "HTTP 500" in error


def test_stats_of_a_missing_or_foreign_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="no cache"):
        cache.stats(tmp_path / "nope.sqlite")
    (tmp_path / "x.sqlite").write_text("not a database at all, just text" * 100)
    with pytest.raises(ConfigError, match="cache"):
        cache.stats(tmp_path / "x.sqlite")


# --- secrets ------------------------------------------------------------------------------------


def test_the_api_key_never_reaches_the_cache_the_log_or_an_error(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "cache.sqlite"
    errors: list[str] = []
    with OpenAIServer(faults=Faults(rate_500=0.3, reject_json_schema=True), api_key=KEY) as server:
        requests = [ask(f"q{i}", response_schema=PLAN if i % 3 == 0 else None) for i in range(30)]
        try:
            run(lambda: using(CachedBackend(backend(server, max_attempts=2), db), requests))
        except BackendError as exc:
            errors.append(str(exc))
        # a wrong key: the server echoes it back in its 401, and the error must not repeat it
        wrong = "sk-wrong-0123456789abcdef"
        llm = OpenAIBackend(base_url=server.base_url, api_key=wrong, backoff=0.001)
        with pytest.raises(BackendError) as caught:
            run(lambda: using(CachedBackend(llm, db), [ask("with the wrong key")]))
        errors.append(str(caught.value))
    assert "HTTP 401" in errors[-1] and "OPENAI_API_KEY" in errors[-1]
    for secret in (KEY, wrong):
        assert all(secret not in text for text in errors)
        assert secret not in caplog.text
        for file in tmp_path.iterdir():  # the database and its WAL
            assert secret.encode() not in file.read_bytes()
    # it reached the server only as the bearer token, never in a body
    assert all(r.headers["Authorization"] in (f"Bearer {KEY}", f"Bearer {wrong}") for r in server.requests)
    assert not any(KEY in r.body for r in server.requests)
    with sqlite3.connect(db) as conn:
        logged = " ".join(str(v) for row in conn.execute("SELECT * FROM calls") for v in row)
    assert "Incorrect API key" in logged and wrong not in logged and KEY not in logged


def test_the_endpoint_in_messages_drops_user_info_and_query():
    llm = OpenAIBackend(base_url="https://user:pw@example.test/v1?api-key=abc", api_key=KEY)
    assert llm.endpoint == "https://example.test/v1/chat/completions"
    run(llm.aclose)  # never used: no network
