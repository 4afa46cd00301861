"""The prompt gallery: real requests our agents send, and the answers a strong model gave them.

tests/fixtures/prompt_gallery.json holds a few exchanges, one or more per prompt fix: the inputs, the
request as the prompts render it, and an answer written by hand for that request, as a capable model
answers (read the request, answer it faithfully). They are not a measure of quality: they show each
fix on a real prompt, and a prompt change makes the first test fail until someone reads the new
request and records the gallery again (answers included).
"""

from __future__ import annotations

import asyncio
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from synth.agents import roles
from synth.agents.people import person
from synth.agents.roles import Detail, Draft, UserReply, Verdict
from synth.config import Settings
from synth.llm.base import ChatRequest
from synth.scenarios.runplan import RunPlan, open_run

ROOT = Path(__file__).parents[1]
GALLERY = ROOT / "tests" / "fixtures" / "prompt_gallery.json"
MODEL, SEED = "gpt-4.1", 0


@cache
def shipped() -> RunPlan:
    return open_run(Settings(servers=ROOT / "registry", out=ROOT / "outputs" / "unused", n=1, seed=SEED))


def render(role: str, inputs: dict[str, Any]) -> ChatRequest:
    """The request the agents send today for a recorded exchange's inputs (the shipped registry, seed 0)."""
    if role == "review":
        text = roles.transcript(inputs["messages"], inputs["failed"])
        return roles.review_request(MODEL, SEED, text, len(inputs["failed"]))
    run = shipped()
    scenario = run.planner.scenario(inputs["scenario"])
    server = run.servers[scenario.server]
    if role == "plan":
        return roles.plan_request(MODEL, SEED, inputs["request"], [server.tool(t) for t in scenario.tools])
    if role == "tool":
        tool = server.tool(inputs["tool"])
        return roles.tool_request(MODEL, SEED, tool, inputs["arguments"], inputs.get("needs", []), inputs["results"])
    who = person(scenario, server, SEED).describe()
    if role == "query":
        return roles.query_request(MODEL, SEED, scenario, server)
    if role == "refine":
        return roles.refine_request(MODEL, SEED, inputs["draft"], list(scenario.tools), who)
    details = roles.spoken_details([Detail(**d) for d in inputs["details"]], scenario, server)
    said_next = inputs.get("next", "")  # a turn the conversation adds, said in the person's voice
    return roles.user_request(MODEL, SEED, inputs["request"], details, inputs["transcript"], who, said_next)


def exchanges(fix: str) -> list[dict[str, Any]]:
    return [e for e in json.loads(GALLERY.read_text()) if e["fix"] == fix]


def text(exchange: dict[str, Any]) -> str:
    return exchange["messages"][1]["content"]


def test_every_recorded_request_is_what_the_prompts_render_today():
    for e in json.loads(GALLERY.read_text()):
        assert list(render(e["role"], e["inputs"]).messages) == e["messages"], (
            f"the {e['role']} prompt changed ({e['fix']}): read the request it renders now, answer it as a strong "
            f"model would, and record the gallery again ({GALLERY.name})"
        )


def test_a_persona_is_a_person_with_a_role_a_situation_and_a_way_of_speaking():
    [e] = exchanges("persona")
    run = shipped()
    for index in range(300):  # every scenario's person, openers such as "Quick one" never among them
        scenario = run.planner.scenario(index)
        p = person(scenario, run.servers[scenario.server], SEED)
        assert p.role and p.speaks and p.situation.split()[0] in ("is", "has", "was")
        assert "quick one" not in p.describe().lower()
    assert (
        "The person: a PhD student in biology, who is checking something before making a decision; is precise"
        in text(e)
    )
    draft = Draft.model_validate_json(e["answer"])
    assert "PhD" not in draft.request and "precise" not in draft.request  # written as them, not about them
    assert [(d.step, d.param) for d in draft.details] == [(1, "query")]


def test_links_are_said_in_plain_words_and_the_person_invents_no_value():
    [e] = exchanges("links")
    assert '2. pg_export_table_data; its "tableName" is item 5 of "tables" in what step 1 returns' in text(e)
    assert "(the person cannot know it)" in text(e) and "from_step" not in text(e).split("<scenario>")[0]
    draft = Draft.model_validate_json(e["answer"])
    assert "fifth table in that list" in draft.request and not draft.details


def test_details_are_keyed_per_step_where_tools_share_a_parameter():
    [e] = exchanges("details")
    run = shipped()
    scenario = run.planner.scenario(e["inputs"]["scenario"])
    server = run.servers[scenario.server]
    shared = set.intersection(*(set(server.tool(t).properties) for t in scenario.tools))
    assert shared == {"symbol"}  # a detail keyed by "symbol" alone could be any of three calls
    draft = Draft.model_validate_json(e["answer"])
    assert [(d.step, d.param, d.value) for d in draft.details] == [(1, "date", "2025-03-31")]
    [said] = roles.spoken_details(draft.details, scenario, server)
    assert said["about"] == "the date for the first thing you asked" and said["say"] == "exactly"
    assert '"details": [{"step": 1, "param": "...", "value": "..."}]' in e["messages"][0]["content"]


def test_verbatim_text_is_fenced_and_kept_byte_for_byte_by_the_refiner():
    query, refine = exchanges("verbatim")
    draft = Draft.model_validate_json(query["answer"]).request
    [block] = roles.verbatim(draft)
    assert block.startswith("```sql\n") and block.count("\n") == 8
    assert refine["inputs"]["draft"] == draft and "byte for byte" in refine["messages"][0]["content"]
    refined = json.loads(refine["answer"])["request"]
    assert roles.lost_verbatim(draft, refined) == [] and refined != draft
    squashed = refined.replace(block, " ".join(block.split()))  # what "one to three sentences" did to it
    assert roles.lost_verbatim(draft, squashed) == [block]


@pytest.mark.parametrize("kept_on", [1, 2, None])
def test_the_refiner_is_asked_again_once_when_it_changes_a_fenced_block(kept_on):
    """Through the writer's refine step: a changed block is shown to the refiner once; changed twice, the
    scenario fails with its reason rather than keep a changed value."""
    from synth.agents.writer import Agents, _Episode, _refine
    from synth.export.chat import ToolNames
    from synth.llm.scripted import ScriptedBackend
    from synth.records import StageFailure

    _, refine = exchanges("verbatim")
    draft, good = refine["inputs"]["draft"], json.loads(refine["answer"])["request"]
    [block] = roles.verbatim(draft)
    bad = good.replace(block, " ".join(block.split()))
    asked: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        asked.append(body)
        keep = kept_on is not None and len(asked) >= kept_on
        return {"content": json.dumps({"request": good if keep else bad})}

    run = shipped()
    scenario = run.planner.scenario(refine["inputs"]["scenario"])
    server = run.servers[scenario.server]
    agents = Agents(
        backends={"refine": ScriptedBackend(answer)},
        models={"refine": MODEL},
        seed=SEED,
        names=ToolNames(run.registry.servers),
    )
    got = asyncio.run(_refine(_Episode(scenario, server, scenario.tools, agents, []), draft))
    if kept_on is None:
        assert isinstance(got, StageFailure) and got.reason == "verbatim_changed" and len(asked) == 2
    else:
        assert got == good and len(asked) == kept_on
    if len(asked) == 2:
        assert block in asked[1]["messages"][-1]["content"]  # the block it changed, shown to it


def test_the_user_simulator_says_a_fixed_option_in_its_own_words():
    [e] = exchanges("user")
    assert '- the type for the first thing you asked: "show" (in your own words)' in text(e)
    assert "never the bare option word" in e["messages"][0]["content"]
    reply = UserReply.model_validate_json(e["answer"]).reply
    assert reply.strip(' ."').lower() != "show" and '"show"' not in reply
    assert not any(word in reply for word in ("type", "getStories", "parameter", "tool"))
    assert reply == reply.lower()  # the person writes short, lowercase messages


def test_the_reviewer_sees_the_error_and_a_failed_call_is_never_success():
    from synth.agents.writer import _labels

    honest, pretends = exchanges("reviewer")
    for e in (honest, pretends):
        assert "1 tool result was an error (marked ERROR below)" in text(e)
        assert "tool result (ERROR, internal error): Open Skies API: 503" in text(e)
        assert "A result marked ERROR is never success" in e["messages"][0]["content"]
    kept, thrown = Verdict.model_validate_json(honest["answer"]), Verdict.model_validate_json(pretends["answer"])
    assert kept.verdict == "accept" and kept.step_labels == ["success", "internal_error"]
    assert thrown.verdict == "reject" and "no result" in thrown.reasons[0]
    assert _labels(("success", "internal_error"), ["success", "success"]) == ("success", "internal_error")


def test_the_planner_numbers_steps_from_1_as_the_query_prompt_does():
    """Issue 41: the planner's example said depends_on [0] while the query prompt counts steps from 1."""
    from synth.agents.roles import PlanAnswer
    from synth.agents.writer import _deps

    [e] = exchanges("plan-numbers")
    system = e["messages"][0]["content"]
    assert "numbered from 1" in system and '"depends_on": [1]' in system and '"depends_on": [0]' not in system
    plan = PlanAnswer.model_validate_json(e["answer"])
    assert [s.depends_on for s in plan.steps] == [[], [1]]
    assert _deps(plan, "list-events", 0) == () and _deps(plan, "get-event", 1) == (0,)  # the first call, by position


def test_the_tool_simulator_sees_which_call_made_each_earlier_result():
    """Issue 41: earlier results came as bare JSON; now each says its tool and arguments, so the simulator
    answers get-event for the event list-events returned."""
    [e] = exchanges("earlier-calls")
    said = text(e)
    assert "each with its tool, its arguments and the result it got" in said
    assert '"tool": "list-events"' in said and '"timeMin": "2026-05-05T00:00:00+02:00"' in said
    result = json.loads(e["answer"])["result"]
    listed = e["inputs"]["results"][0]["result"]["items"][0]
    assert all(result[k] == listed[k] for k in ("id", "summary", "start", "end"))


def test_an_added_turn_is_said_in_the_persons_own_voice():
    """Issue 41: a decline or follow-up added to the conversation came in synth's words ("Can you set a reminder
    on my phone ...?") whoever the person was; the user simulator now says it as they write."""
    [e] = exchanges("voice")
    said = text(e)
    assert "writes short, lowercase messages and skips greetings" in said
    assert "<next>Please set a price alert on my phone for when SOL drops below $100.</next>" in said
    reply = UserReply.model_validate_json(e["answer"]).reply
    assert reply == reply.lower() and "sol" in reply and "100" in reply and "please" not in reply


def test_the_reviewer_is_told_where_a_long_result_was_cut():
    """Issue 41: results were cut at 1,500 characters without a word; now they are whole up to a budget and a
    longer one says where it was cut, and the prompt says a fact may be in the part not shown."""
    [e] = exchanges("cut")
    page = e["inputs"]["messages"][2]["content"]
    assert len(page) > roles.RESULT_BUDGET
    assert f"[cut here: the first {roles.RESULT_BUDGET:,} of {len(page):,} characters are shown]" in text(e)
    assert page[: roles.RESULT_BUDGET] in text(e)  # whole up to the budget (it was 1,500)
    assert "a fact the answer states may be in the part not shown" in e["messages"][0]["content"]
    assert Verdict.model_validate_json(e["answer"]).verdict == "accept"


def test_the_pack_prompt_explains_every_field_of_a_tool_entry():
    """Issue 41: the pack schema carried ``followups`` that the prompt never explained."""
    from synth.packs.model import ToolPack

    system = (ROOT / "prompts" / "pack.system.j2").read_text("utf-8")
    assert all(f'"{name}"' in system for name in ToolPack.model_fields), [
        n for n in ToolPack.model_fields if f'"{n}"' not in system
    ]
