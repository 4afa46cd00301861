"""The agents (synth.agents) end to end through a scripted backend: the same records, gates and exports
as the offline path, identical bytes whatever the concurrency, every failure counted with its reason."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fake_agents import respond

from synth.agents.roles import Refined
from synth.config import ROLES, Settings
from synth.llm.base import ChatRequest, ChatResponse
from synth.llm.scripted import ScriptedBackend
from synth.llm.structured import ask, extract_json
from synth.pipeline import generate
from synth.records import StageFailure
from synth.rundir import FILES, read_jsonl, stored

REGISTRY = Path(__file__).parents[1] / "registry"


def run(out: Path, answer=respond, n: int = 24, concurrency: int = 4) -> tuple[dict, ScriptedBackend]:
    backend = ScriptedBackend(answer)
    settings = Settings(servers=REGISTRY, out=out, n=n, seed=2, backend="openai", concurrency=concurrency)
    return generate(settings, backends={role: backend for role in ROLES}), backend


def lines(path: Path) -> list[dict]:
    """The rows of a run file as published, whatever its storage (synth.rundir reads it)."""
    return list(read_jsonl(path))


def test_agents_write_every_file_with_gold_calls_that_pass_the_gates(tmp_path):
    manifest, backend = run(tmp_path / "a")
    for name in FILES:
        assert stored(tmp_path / "a" / name).exists()
    convs = lines(tmp_path / "a" / "conversations.jsonl")
    assert len(convs) == manifest["funnel"]["accepted"] == 24
    assert all(c["review"]["verdict"] == "accept" and all(g["passed"] for g in c["review"]["gates"]) for c in convs)
    assert all(c["query"]["parent_id"] for c in convs)  # the refined request points at its draft
    assert any(c["query"]["withheld"] for c in convs)  # multi-turn: the user gave a value when asked
    assert {r["score"] for r in lines(tmp_path / "a" / "scored.jsonl")} >= {"correct", "incorrect_tool"}
    roles_used = {key.split(":")[0] for key in manifest["tokens"]}
    assert roles_used == set(ROLES) - {"tool"}  # every shipped server has a pack: it answers the tool calls
    counted = sum(row["calls"] for row in manifest["tokens"].values())
    assert 24 * 6 <= counted <= backend.calls  # scenarios still in flight when the run ended are not counted
    assert manifest["cost_usd"] > 0


def test_same_bytes_whatever_the_concurrency(tmp_path):
    run(tmp_path / "one", concurrency=1)
    run(tmp_path / "many", concurrency=12)
    for name in FILES:
        assert stored(tmp_path / "one" / name).read_bytes() == stored(tmp_path / "many" / name).read_bytes(), name


def test_a_model_that_breaks_its_answers_costs_only_those_items(tmp_path):
    """Every fifth executor call names a tool that does not exist; every seventh query answer is not JSON."""
    seen = {"n": 0}

    def flaky(body):
        seen["n"] += 1
        message = respond(body)
        if message.get("tool_calls") and seen["n"] % 5 == 0:
            message["tool_calls"][0]["function"]["name"] = "delete_everything"
        if "query generator" in body["messages"][0]["content"] and seen["n"] % 7 == 0:
            return {"content": "Sure! Here is a request: find me a hotel"}
        return message

    manifest, _ = run(tmp_path / "f", flaky, n=20)
    funnel = manifest["funnel"]
    scenario_drops = sum(
        v for stage, reasons in funnel["dropped"].items() if stage != "inject" for v in reasons.values()
    )
    assert funnel["accepted"] + scenario_drops == funnel["scenarios"]
    rejected = lines(tmp_path / "f" / "rejected.jsonl")
    assert any(r["reason"] == "tool_exists" for r in rejected)
    assert all(r["detail"] for r in rejected)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"request": "Book a table for two"}', "Book a table for two"),
        ('Sure!\n```json\n{"request": "Book a table for two"}\n```', "Book a table for two"),
        ('Here you go: {"request": "Book a table for two"} Anything else?', "Book a table for two"),
    ],
)
def test_structured_answers_are_found_in_what_models_write(text, expected):
    assert extract_json(text)["request"] == expected


@pytest.mark.parametrize("text", ["", "   ", "I cannot help with that.", '{"request": "cut off'])
def test_an_answer_without_json_is_a_parse_error(text):
    from synth.errors import ParseError

    with pytest.raises(ParseError, match="empty|no JSON object|not whole"):
        extract_json(text)


def test_one_re_ask_shows_the_error_then_a_stage_failure():
    asked: list[ChatRequest] = []

    class Stubborn:
        async def complete(self, request: ChatRequest) -> ChatResponse:
            asked.append(request)
            return ChatResponse(content='{"text": "no request field"}')

    request = ChatRequest(role="refine", model="m", messages=({"role": "user", "content": "hi"},))
    spent: list[ChatResponse] = []
    out = asyncio.run(ask(Stubborn(), request, Refined, "refine", "scn_1", spent))
    assert isinstance(out, StageFailure) and out.reason == "invalid_output" and "request" in out.detail
    assert len(asked) == 2 == len(spent)
    assert "could not be used" in asked[1].messages[-1]["content"] and asked[1].response_schema


def test_the_plan_schema_names_only_the_scenarios_tools():
    """Structured output cannot name a tool the server lacks: the tool names are an enum, and the schema
    is inlined so an endpoint that fills it from the schema alone gives a usable plan."""
    import asyncio

    from openai_server import OpenAIServer, echo_responder

    from synth.agents import roles
    from synth.llm.openai_backend import OpenAIBackend
    from synth.llm.structured import ask
    from synth.records import ToolSpec

    tools = [
        ToolSpec(
            server="x/y", name=n, description="d", input_schema={"type": "object", "properties": {}}, schema_hash=n
        )
        for n in ("search_items", "get_item")
    ]
    request = roles.plan_request("m", 1, "Find the blue chair and show it", tools)
    tool_schema = request.response_schema["properties"]["steps"]["items"]["properties"]["tool"]
    assert tool_schema["enum"] == ["get_item", "search_items"] and "$defs" not in request.response_schema

    async def go():
        with OpenAIServer(echo_responder) as server:
            backend = OpenAIBackend(base_url=server.base_url, model="m")
            try:
                return await ask(backend, request, roles.PlanAnswer, "plan", "scn", [])
            finally:
                await backend.aclose()

    answer = asyncio.run(go())
    assert isinstance(answer, roles.PlanAnswer), answer
    assert {s.tool for s in answer.steps} <= {"get_item", "search_items"}


def test_a_failed_call_is_marked_for_the_reviewer_and_never_labelled_success():
    """The reviewer reads which results were errors; whatever it says, an errored step keeps the gates' label
    (from the result's isError), and a step it left out gets its result's label."""
    from synth.agents.roles import review_request, transcript
    from synth.agents.writer import _labels

    chat = [
        {"role": "user", "content": "Book the 9:40 to Porto."},
        {"role": "assistant", "tool_calls": [{"function": {"name": "search", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": '{"trains": ["IC 521"]}'},
        {"role": "assistant", "tool_calls": [{"function": {"name": "book", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_b", "content": '{"error": "seat map unavailable"}'},
    ]
    text = transcript(chat, {"call_b": "internal_error"})
    assert 'tool result: {"trains"' in text and 'tool result (ERROR, internal error): {"error"' in text
    prompt = review_request("m", 0, text, errors=1).messages[1]["content"]
    assert "1 tool result was an error (marked ERROR below)" in prompt
    gates = ("success", "internal_error")
    assert _labels(gates, ["success", "success"]) == ("success", "internal_error")
    assert _labels(gates, ["success"]) == ("success", "internal_error")
    assert _labels(gates, ["irrelevant_response", "input_error"]) == ("irrelevant_response", "internal_error")


def test_the_plan_names_each_tool_as_the_executor_is_offered_it(tmp_path):
    """Votars' tools are named with spaces ("Votars fetch recent transcripts"); the executor is offered
    "Votars_fetch_recent_transcripts". The plan note once named the first, a function the model could not call."""
    registry = tmp_path / "registry"
    (registry / "packs").mkdir(parents=True)
    for name in ("scarletlabs-ai__votars-mcp.json", "packs/scarletlabs-ai__votars-mcp.pack.yaml"):
        (registry / name).write_bytes((REGISTRY / name).read_bytes())
    plans: list[tuple[list[str], set[str]]] = []

    def recording(body):
        system = body["messages"][0].get("content") or ""
        notes = [m["content"] for m in body["messages"] if m["role"] == "system" and "<plan>" in (m["content"] or "")]
        if notes and not system.startswith("You are synth's"):
            offered = {t["function"]["name"] for t in body.get("tools") or []}
            plans.append(([s["tool"] for s in json.loads(notes[0].split("<plan>")[1].split("</plan>")[0])], offered))
        return respond(body)

    backend = ScriptedBackend(recording)
    settings = Settings(servers=registry, out=tmp_path / "v", n=4, seed=2, backend="openai")
    manifest = generate(settings, backends={role: backend for role in ROLES})
    assert plans and manifest["funnel"]["accepted"] == 4
    assert all(set(tools) <= offered for tools, offered in plans), plans[0]
    assert any("Votars_fetch_recent_transcripts" in tools for tools, _ in plans)
