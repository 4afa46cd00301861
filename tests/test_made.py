"""One builder for the records a writer makes of a scenario (synth.scenarios.made): content ids spelled
once, and no writer assembling a Query, Plan or Trajectory by hand (an AST check, so a fifth copy cannot
creep back)."""

from __future__ import annotations

import ast
from pathlib import Path

from synth.records import Decision, Message, ToolCall, make_id
from synth.scenarios.made import chained, made, query_id

ROOT = Path(__file__).parents[1]
CALL = ToolCall(id="call_1", name="search", arguments={"q": "tea"})
MESSAGES = [
    Message(role="user", content="Find tea."),
    Message(role="assistant", tool_calls=(CALL,)),
    Message(role="tool", tool_call_id="call_1", content="{}"),
    Message(role="assistant", content="None found."),
]


def test_the_records_are_keyed_on_their_content():
    steps = chained([("search", {"q": "tea"}), ("get", {"id": "1"})])
    query, plan, trajectory = made("scn_1", "Find tea.", steps, MESSAGES, withheld=["0.q"], parent_id="query_x")
    assert query.id == query_id("scn_1", "Find tea.") == make_id("query", "scn_1", "Find tea.")
    assert (query.parent_id, query.withheld) == ("query_x", ("0.q",))
    assert plan.id == make_id("plan", "scn_1", [("search", {"q": "tea"}), ("get", {"id": "1"})])
    assert [s.depends_on for s in plan.steps] == [(), (0,)] and [s.step for s in plan.steps] == [0, 1]
    assert trajectory.id == make_id("traj", "scn_1", [m.to_json() for m in MESSAGES])
    assert trajectory.decisions is None and trajectory.calls == [CALL]
    decision = Decision(kind="ask", message=3, why="q")
    _, keyed, decided = made("scn_1", "Find tea.", [], MESSAGES, decisions=[decision], plan_key=["search"])
    assert keyed.id == make_id("plan", "scn_1", ["search"]) and keyed.steps == ()
    assert decided.decisions == (decision,) and decided.id == trajectory.id  # decisions are not the content
    other = made("scn_2", "Find tea.", steps, MESSAGES)
    assert {other[0].id, other[1].id, other[2].id}.isdisjoint({query.id, plan.id, trajectory.id})


# derive keys its records on the sample it read (no scenario of ours wrote it); edit's probe is a throwaway
# trajectory the gates read before the edit is accepted
BY_HAND = {"Query": {"synth.derive"}, "Plan": {"synth.derive"}, "Trajectory": {"synth.review.edit"}}


def test_no_writer_builds_the_records_by_hand():
    built: dict[str, set[str]] = {name: set() for name in BY_HAND}
    for path in (ROOT / "synth").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module == "synth.scenarios.made":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BY_HAND:
                built[node.func.id].add(module)
    assert built == BY_HAND
