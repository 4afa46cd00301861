"""Every model answer is whole or refused (issue 30): an answer the endpoint says it cut (finish_reason
length, content_filter) is a failed attempt, asked again once, then the item fails with reason cut_answer;
a structured answer that does not parse whole is never taken; the whole_text gate catches cut text the
endpoint did not own up to. Each fault is run against the loopback OpenAI server."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from fake_agents import respond, role_of
from openai_server import Faults, OpenAIServer, echo_responder
from typer.testing import CliRunner

from synth.cli.app import app
from synth.errors import CutAnswer, ParseError
from synth.llm.base import ChatRequest
from synth.llm.openai_backend import OpenAIBackend
from synth.llm.structured import extract_json
from synth.records import Message
from synth.rundir import read_jsonl
from synth.stages.whole import cut_message, cut_reason

runner = CliRunner()
HALF_JSON = '{"answer": "a val'  # what the issue found in 17 of 200 accepted conversations


@pytest.mark.parametrize(
    "text",
    [
        HALF_JSON,
        '[{"id": 1}, {"id": 2',
        "All done. Here is what I",
        "The forecast for Porto is sunny, and",
        "Here are the three orders:",
        'Results:\n```json\n{"a": 1}',
        'I found the file "report',
        "It returned (see the",
    ],
)
def test_cut_texts_are_caught_in_every_role(text):
    for role in ("user", "assistant"):
        assert cut_reason(text) is not None, (role, text)
        assert cut_message(Message(role=role, content=text), by_model=True) is not None
    assert cut_message(Message(role="tool", tool_call_id="c", content=text, source="llm")) is not None


@pytest.mark.parametrize(
    "text",
    [
        "All done. Here is what I found: city Porto, days 4.",
        "Which city should I use?",
        '[{"name": "initech"}], please.',
        "Details: https://clinicaltrials.gov/study/NCT05114954",
        "The files:\n- publish.yaml\n- tests.yaml",
        "Your order total is 42",
        'He said "done" (twice)',
    ],
)
def test_whole_texts_pass(text):
    assert cut_message(Message(role="assistant", content=text), by_model=True) is None


def test_prose_without_a_full_stop_is_whole_for_a_person_but_cut_for_a_model():
    assert cut_reason("book me a table in Porto") is None  # people write that way
    assert "mid-sentence" in cut_reason("I booked a table in Por", prose=True)
    assert cut_message(Message(role="user", content="I booked a table in Por"), by_model=True) is None


def test_a_cut_object_is_never_taken_for_the_object_inside_it():
    whole_inner = '{"steps": [{"tool": "search", "purpose": "find"}, {"tool": "get'
    with pytest.raises(ParseError, match="not whole"):
        extract_json(whole_inner)
    with pytest.raises(ParseError, match="not whole"):
        extract_json('Here it is: {"request": "Book a table", "details": {"city": "Porto"}')
    assert extract_json('Here it is: {"request": "Book"} and that is all')["request"] == "Book"


def _ask(server: OpenAIServer, **options) -> tuple[object, OpenAIBackend]:
    async def go():
        backend = OpenAIBackend(base_url=server.base_url, model="m", backoff=0.01, **options)
        request = ChatRequest(role="executor", model="m", messages=({"role": "user", "content": "hi"},))
        try:
            return await backend.complete(request), backend
        except CutAnswer as exc:
            return exc, backend
        finally:
            await backend.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("why", ["length", "content_filter"])
def test_an_answer_cut_every_time_is_asked_again_once_then_refused_with_its_reason(why):
    def cut(body):
        return {"content": "All done. Here is what I", "finish_reason": why}

    with OpenAIServer(cut) as server:
        outcome, backend = _ask(server)
        assert server.count() == 2  # asked again once: the bound
    assert isinstance(outcome, CutAnswer) and f"finish_reason {why}" in str(outcome)
    assert ("max_tokens" in str(outcome)) == (why == "length")
    assert backend.stats.errors["cut_answer"] == 2 and backend.stats.failures == 1


def test_an_answer_cut_once_is_replaced_by_the_whole_one():
    with OpenAIServer(echo_responder, faults=Faults(rate_length=1.0, faulty_attempts=1)) as server:
        outcome, backend = _ask(server)
        assert [r.outcome for r in server.requests] == ["length", "ok"]
    assert outcome.content == "You asked: hi" and outcome.finish_reason == "stop"
    assert backend.stats.retries == 1
    spend = backend.stats.to_json()  # the cut answer was sent and paid for, and no conversation has it
    assert spend["sent"]["calls"] == 2 and spend["discarded"]["calls"] == 1 and spend["kept"]["calls"] == 1


def _generate(server: OpenAIServer, registry: Path, out: Path, n: int) -> object:
    args = ["generate", "--servers", registry, "--out", out, "--n", n, "--seed", 3, "--base-url", server.base_url]
    return runner.invoke(app, [str(a) for a in [*args, "--model", "m", "--concurrency", 4]])


def _accepted_texts(out: Path) -> list[str]:
    texts = []
    for row in read_jsonl(out / "conversations.jsonl"):
        texts += [m.get("content") or "" for m in row["messages"]]
    return texts


def _half(body) -> bool:
    return hashlib.sha256(json.dumps(body["messages"]).encode()).digest()[0] < 128


def test_executor_answers_cut_by_max_tokens_never_become_data(tiny_registry, tmp_path):
    """The issue's second fault: the executor's final answer cut by max_tokens (22 of 22 train rows ended
    in "All done. Here is what I"). Here half of them are cut: those scenarios fail as cut_answer."""
    cut_texts = []

    def answer(body):
        message = respond(body)
        text = message.get("content") or ""
        if role_of(body) == "executor" and text.startswith("All done") and _half(body):
            cut_texts.append(text[: len(text) // 2])
            return {"content": text[: len(text) // 2], "finish_reason": "length"}
        return message

    out = tmp_path / "run"
    with OpenAIServer(answer) as server:
        result = _generate(server, tiny_registry, out, 12)
    assert result.exit_code == 0, result.output
    texts = _accepted_texts(out)
    assert cut_texts and texts
    assert not any(t.startswith(c) and len(t) <= len(c) + 1 for t in texts for c in cut_texts)
    assert not any(t.rstrip().endswith("Here is what I") for t in texts)
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    cut = [r for r in rejected if r["reason"] == "cut_answer"]
    assert cut and all("finish_reason length" in r["detail"] and "max_tokens" in r["detail"] for r in cut)
    train = [m.get("content") or "" for row in read_jsonl(out / "train.jsonl") for m in row["messages"]]
    assert train and not any(t.rstrip().endswith("Here is what I") or t in cut_texts for t in train)


def test_answers_cut_without_saying_so_never_become_data(tiny_registry, tmp_path):
    """The issue's first fault: 10% of answers cut in half while finish_reason says "stop" (JSON answers,
    tool calls turned into '{"answer": "a val', the executor's prose). The parser and the whole_text gate
    keep every one of them out; the server's own record says which answers it cut."""
    out = tmp_path / "run"
    with OpenAIServer(respond, faults=Faults(rate_bad_json=0.1)) as server:
        result = _generate(server, tiny_registry, out, 24)
        cut_bodies = [r.json for r in server.requests if r.outcome == "bad_json"]
    assert result.exit_code == 0, result.output
    cut_texts = set()
    for body in cut_bodies:
        text = respond(body).get("content") or json.dumps({"answer": "a value that goes on"})
        cut_texts.add(text[: max(1, len(text) // 2)])
    assert HALF_JSON in cut_texts and len(cut_texts) >= 5
    texts = _accepted_texts(out)
    assert texts and not (set(texts) & cut_texts)
    assert not any(HALF_JSON in t for t in texts)
    (entry,) = json.loads((out / "requests.json").read_text())
    assert entry["reasks"] > 0  # cut executor answers were asked again (another seed), cut JSON answers re-asked


def test_a_cut_the_endpoint_keeps_denying_is_turned_away_by_the_gate(tiny_registry, tmp_path):
    """The executor's final answer cut every time it is asked, with finish_reason "stop": asked again once,
    then the whole_text gate rejects the scenario."""
    cut_texts = []

    def answer(body):
        message = respond(body)
        text = message.get("content") or ""
        if role_of(body) == "executor" and text.startswith("All done") and _half(body):
            cut_texts.append(text[: len(text) // 2])
            return {"content": text[: len(text) // 2]}
        return message

    out = tmp_path / "run"
    with OpenAIServer(answer) as server:
        result = _generate(server, tiny_registry, out, 12)
    assert result.exit_code == 0, result.output
    texts = _accepted_texts(out)
    assert cut_texts and texts and not (set(texts) & set(cut_texts))
    rejected = [json.loads(x) for x in (out / "rejected.jsonl").read_text().splitlines()]
    gate = [r for r in rejected if r["reason"] == "whole_text"]
    assert gate and all("was cut short" in r["detail"] for r in gate)
