"""``--dry-run``: how many calls, tokens and dollars a run would take, before anything is sent.

The scenarios are the ones the run makes (the same setup, synth.scenarios.runplan: registry, packs,
planner); the prompts are rendered for real and counted at about four characters a token. How many
scenarios the run takes depends on how many the gates, the reviewer and dedup turn away: SPARE
assumes a fifth of them, unless the output folder holds an earlier model run of the same command,
whose manifest measured it (``spare``: a stopped or finished run; the output says which was used).
The run starts no more than that need at the rate it sees, and drops what it no longer needs when it
stops (synth.scheduler), so the estimate holds whatever the concurrency. What models write back, and
how long conversations get, can only be guessed: completion sizes are typical figures per role, and
each scenario is assumed to take one executor turn per tool call plus a final answer, and a question
with the user's reply when it is multi-turn and one of its steps takes a value the person knows (the
query prompt leaves that one out; a value an earlier step returns is never asked). A read with no
parameter to vary that a scenario lists twice is made once (the executor is told not to call again
for what the conversation holds).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

from synth.agents import roles
from synth.config import ROLES, Settings
from synth.messages import ToolNames, openai_tool
from synth.records import Scenario, ServerSpec
from synth.scenarios.runplan import RunPlan, open_run
from synth.stages.reader import reads

COMPLETION_TOKENS = {"query": 120, "refine": 90, "plan": 120, "executor": 70, "user": 30, "tool": 220, "review": 90}
SPARE = 1.25  # scenarios per accepted conversation: a fifth turned away by the gates, the reviewer and dedup
SPARE_SAID = "n plus a quarter for the ones the gates, reviewer and dedup turn away"
MEASURED = 10  # accepted conversations an earlier run needs before its turn-away rate is used instead


def _tokens(text: str) -> int:
    return len(text) // 4 + 1


def spare(settings: Settings) -> tuple[float, str]:
    """Scenarios taken per accepted conversation, and where the figure comes from: the turn-away an earlier
    model run in the output folder measured (its manifest's funnel, once it accepted MEASURED), else SPARE."""
    try:
        manifest = json.loads((settings.out / "manifest.json").read_text())
        taken, kept = manifest["funnel"]["scenarios"], manifest["funnel"]["accepted"]
    except (OSError, ValueError, KeyError, TypeError):
        return SPARE, ""
    if manifest.get("backend") == "offline" or not isinstance(taken, int) or not isinstance(kept, int):
        return SPARE, ""  # the offline author's turn-away says nothing of a model's
    if kept < MEASURED or taken < kept:
        return SPARE, ""
    return taken / kept, f"the run in {settings.out} took {taken} scenarios for {kept} accepted"


def planned(run: RunPlan, settings: Settings, rate: float = SPARE) -> Iterator[tuple[Scenario, ServerSpec]]:
    """The scenarios the dry run prices, with their servers: the run's own (``run`` is what
    synth.scenarios.runplan.open_run gives generate too, packs included), as many as it expects to take
    (``rate`` scenarios per accepted conversation)."""
    servers = run.servers
    count = math.ceil(settings.n * rate) if run.planner.order else 0
    for index in range(count):
        scenario = run.planner.scenario(index)
        yield scenario, servers[scenario.server]


def estimate(settings: Settings) -> dict[str, Any]:
    run = open_run(settings)
    names = ToolNames(run.registry.servers)
    models = settings.models()
    calls = dict.fromkeys(ROLES, 0)
    prompt = dict.fromkeys(ROLES, 0)
    count = 0
    answers = settings.tool_answers()
    rate, measured = spare(settings)
    for sc, server in planned(run, settings, rate):
        count += 1
        # the tool role asks no model where the pack answers (offline, the default for servers with a pack)
        free = answers == "offline" or (answers == "packs" and run.packs.get(sc.server) is not None)
        for role, (n, tokens) in _scenario(sc, server, names, settings.max_tools).items():
            if role == "tool" and free:
                continue
            calls[role] += n
            prompt[role] += tokens
    rows = [_row(settings, role, models[role], calls, prompt) for role in ROLES]
    # The run starts scenarios until n are accepted: as many as 2n + 20 when most are turned away.
    most = run.attempts() if count else 0
    return {
        "scenarios": count,
        "spare": round(rate, 3),
        "spare_said": f"n times {rate:.2f}: {measured}" if measured else SPARE_SAID,
        "max_scenarios": most,
        "roles": rows,
        "calls": sum(r["calls"] for r in rows),
        "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
        "completion_tokens": sum(r["completion_tokens"] for r in rows),
        "usd": round(sum(r["usd"] for r in rows), 6),
        "usd_max": round(sum(r["usd"] for r in rows) * most / count, 6) if count else 0.0,
    }


def _scenario(sc: Scenario, server: ServerSpec, names: ToolNames, max_tools: int) -> dict[str, tuple[int, int]]:
    """One scenario's calls and prompt tokens by role: one executor turn per call plus the final answer
    (and a question, with the user's reply, when it is multi-turn and a step takes a value the person knows);
    a read with no required parameter listed twice is one call."""
    tools = [t for t in (server.tool(n) for n in sc.tools) if t]
    linked = {(lk.to_step, lk.param) for lk in sc.links}
    known = any((i, p) not in linked for i, t in enumerate(tools) for p in t.required)
    once = [t for i, t in enumerate(tools) if t.required or not reads(t.name) or t not in tools[:i]]
    k, multi = len(once), int(sc.multi_turn and known)
    sizes = {
        "query": sum(_tokens(m["content"]) for m in roles.query_request("m", 0, sc, server).messages),
        "refine": 250,
        "plan": sum(_tokens(m["content"]) for m in roles.plan_request("m", 0, "x" * 200, tools).messages),
        "user": 400,
        "tool": 500 + sum(_tokens(json.dumps(t.input_schema)) for t in tools) // max(k, 1),
        "review": 300 + 250 * k,
    }
    offered = [t for t in server.tools][:max_tools]
    executor_base = 150 + sum(_tokens(json.dumps(openai_tool(t, names(server.id, t.name)))) for t in offered)
    turns = k + 1 + multi
    added = int(
        sc.decision in ("decline", "answer")
    )  # a turn added after the answer: the person says it, it is answered
    turns += added
    per = {"query": 1, "refine": 1, "plan": 1, "executor": turns, "user": multi + added, "tool": k, "review": 1}
    out = {role: (n, n * sizes[role]) for role, n in per.items() if role != "executor"}
    # the conversation grows by about 150 tokens a turn
    out["executor"] = (turns, sum(executor_base + 150 * t for t in range(turns)))
    return out


def _row(settings: Settings, role: str, model: str, calls: dict[str, int], prompt: dict[str, int]) -> dict[str, Any]:
    """One role's calls, tokens and price; a role answered offline ([roles.tool] backend = "offline") costs nothing."""
    n, tokens = (0, 0) if settings.offline(role) else (calls[role], prompt[role])
    completion = n * COMPLETION_TOKENS[role]
    price_in, price_out = settings.prices.get(model, (0.0, 0.0))
    return {
        "role": role,
        "model": model,
        "calls": n,
        "prompt_tokens": tokens,
        "completion_tokens": completion,
        "usd": round((tokens * price_in + completion * price_out) / 1e6, 6),
    }
