"""What a writer makes of one scenario: the request (``Query``), the plan it carried out (``Plan``) and the
conversation (``Trajectory``), built here for every writer (the offline fallback, pack and shop writers,
the LLM agents, a person's edit), so each record's content id is spelled once.

    query, plan, trajectory = made(scenario.id, request, steps, messages, withheld=..., decisions=...)

A step is ``(tool, arguments, depends_on)``. The plan's id is over its ``(tool, arguments)`` pairs unless
the writer gives the parts it keys its plan on (``plan_key``: the pack writer keys on every tool of the
scenario, a request it declined included).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from synth.records import JSON, Decision, Message, Plan, PlanStep, Query, Trajectory, make_id

Step = tuple[str, dict[str, JSON], tuple[int, ...]]


def query_id(scenario_id: str, text: str) -> str:
    """A request's id: the same words for the same scenario are the same request."""
    return make_id("query", scenario_id, text)


def made(
    scenario_id: str,
    request: str,
    steps: Sequence[Step],
    messages: Sequence[Message],
    *,
    withheld: Sequence[str] = (),
    parent_id: str | None = None,
    decisions: Sequence[Decision] = (),
    plan_key: Any = None,
) -> tuple[Query, Plan, Trajectory]:
    """The three records of one written scenario. ``parent_id``: the query a refined request came from;
    ``decisions``: the no-call turns (None on the trajectory when there are none)."""
    query = Query(
        id=query_id(scenario_id, request),
        scenario_id=scenario_id,
        text=request,
        parent_id=parent_id,
        withheld=tuple(withheld),
    )
    plan = Plan(
        id=make_id("plan", scenario_id, [(t, a) for t, a, _ in steps] if plan_key is None else plan_key),
        scenario_id=scenario_id,
        steps=tuple(PlanStep(step=i, tool=t, arguments=a, depends_on=d) for i, (t, a, d) in enumerate(steps)),
    )
    trajectory = Trajectory(
        id=make_id("traj", scenario_id, [m.to_json() for m in messages]),
        scenario_id=scenario_id,
        messages=tuple(messages),
        decisions=tuple(decisions) or None,
    )
    return query, plan, trajectory


def chained(calls: Sequence[tuple[str, dict[str, JSON]]]) -> list[Step]:
    """Steps that each depend on the one before (a customer's calls, a person's edit)."""
    return [(t, a, (i - 1,) if i else ()) for i, (t, a) in enumerate(calls)]
