"""Every prompt renders from records through the agents' request builders; registry text stays data."""

import re

import pytest

from synth import templates
from synth.agents import roles
from synth.errors import TemplateError
from synth.evaluate.run import judge_request
from synth.packs.build import pack_request
from synth.records import Link, Scenario, ServerSpec, ToolSpec

INJECTED = "{{ server.secret }} {% raw %}"
TOOL = ToolSpec(
    server="x/y",
    name="get_forecast",
    description=f"Forecast for a city. {INJECTED}",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    schema_hash="h",
)
SERVER = ServerSpec(id="x/y", name=f"Weather {INJECTED}", source="y.json", tools=(TOOL,))
SCENARIO = Scenario(
    id="scn_1",
    index=0,
    server="x/y",
    tools=("get_forecast",),
    persona="I run a cafe",
    multi_turn=True,
    links=(Link(from_step=0, field="city", to_step=1, param="city"),),
)


def requests():
    yield roles.query_request("m", 1, SCENARIO, SERVER)
    yield roles.refine_request("m", 1, f"Forecast for Porto please {INJECTED}", ["get_forecast"], INJECTED)
    yield roles.plan_request("m", 1, "Forecast for Porto please", [TOOL])
    details = roles.spoken_details([roles.Detail(step=1, param="city", value=f"Porto {INJECTED}")], SCENARIO, SERVER)
    yield roles.user_request("m", 1, "Forecast for Porto", details, f"assistant: Which city? {INJECTED}", INJECTED)
    yield roles.tool_request("m", 1, TOOL, {"city": "Porto"}, ["city"], [{"city": "Porto"}])
    yield roles.review_request("m", 1, f"user: hi {INJECTED}")
    yield pack_request(SERVER, "m", 1)
    yield judge_request(
        "m",
        {
            "available_tools": [{"name": "get_forecast", "description": INJECTED}],
            "message_history": [{"role": "user", "content": f"hi {INJECTED}"}],
            "tool_call": {"function": {"name": "get_forecast", "arguments": "{}"}},
        },
    )


def test_every_template_renders_through_a_request_builder():
    rendered = {
        "executor.plan.j2": roles.plan_note([roles.PlanItem(tool="get_forecast")]),
    }
    for request in requests():
        assert request.template_hash and len(request.messages) == 2
        system, user = (m["content"] for m in request.messages)
        assert system.startswith("You are ") and user.strip()
        rendered[request.role] = system + user
    used = {
        "query",
        "refine",
        "plan",
        "user",
        "tool",
        "review",
        "judge",
        "pack",
        "executor.plan.j2",
    }
    assert set(rendered) == used
    assert len(templates.names()) == 2 * 8 + 1  # a system and a user template per role, plus the plan note
    # text from a registry or a model is data: template syntax inside it is not evaluated
    for role in ("query", "refine", "user", "tool", "review", "judge", "pack"):
        assert "{{ server.secret }}" in rendered[role], role


def test_missing_variable_is_a_clear_error():
    with pytest.raises(TemplateError, match="executor.plan.j2"):
        templates.render("executor.plan.j2")


def test_system_prompts_vary_by_scenario_as_deployments_write_them():
    """A run opens with many system prompts (none at all among them), none in more than a fifth of the
    conversations; the same scenario always gets the same one; the server's name is put in as data."""
    from collections import Counter

    from synth.scenarios.system_prompts import opening, system_prompt, table

    drawn = Counter(system_prompt(SERVER, 0, f"scn_{i}") for i in range(1000))
    assert len(drawn) >= 20 and max(drawn.values()) <= 200
    assert 50 <= drawn[None] <= 200  # some conversations have no system prompt at all
    assert system_prompt(SERVER, 0, "scn_7") == system_prompt(SERVER, 0, "scn_7")
    assert any(p is not None and SERVER.name in p for p in drawn)  # "{{ server.secret }}" stays text
    assert [m.role for m in opening(SERVER, 0, "scn_7")] in ([], ["system"])
    # none forbids what the data teaches: calling, asking for a missing value, declining, answering from context
    forbids = re.compile(
        r"(?i)\b(?:never|don't|do not|avoid)\s+(?:ask|refuse|decline|say no|call|use (?:a |the )?tools?)"
        r"|\balways (?:call|use) (?:a |the )?tool|\bonly answer (?:with|from) (?:a )?tools?"
    )
    assert [p for p in table()[1] if forbids.search(p)] == []
