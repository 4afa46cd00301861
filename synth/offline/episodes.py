"""Scenarios for servers with a pack: several requests per conversation, chains from feeds, parallel calls.

A conversation is one to three requests (``turns``): the first is built around the scenario's
primary tool; follow-ups are what the same person asks next. A request is one tool, a chain
(one tool's result feeds the next, from the pack's ``feeds``) or two independent tools called in
parallel. Everything is drawn from the scenario's own random stream.
"""

from __future__ import annotations

import random

from synth.packs.model import Pack
from synth.records import Link, ServerSpec, ToolSpec

P_CHAIN = 0.6  # a request around a tool that feeds or is fed is a chain this often
P_PARALLEL = 0.3  # a request for a tool with no chain asks for two things at once this often
P_FOLLOW = (0.7, 0.4)  # chance of a second request, then of a third
P_FAIL = 0.07  # the last call of the conversation meets one of the tool's real failures


def feeds_of(pack: Pack) -> list[tuple[str, str, int]]:
    """(producer, consumer, index of the feed in the producer's entry) for every feed of the pack."""
    return [(name, f.to, i) for name, entry in sorted(pack.tools.items()) for i, f in enumerate(entry.feeds)]


def _request(tool: str, pack: Pack, server: ServerSpec, rng: random.Random, used: set[str],
             feeds: list[tuple[str, str, int]]) -> list[tuple[str, int | None]]:
    """The tools of one request as (tool, index of the feed that links it to the previous tool or None)."""
    chains = [f for f in feeds if tool in (f[0], f[1])]
    if chains and rng.random() < P_CHAIN:
        producer, consumer, i = rng.choice(chains)
        return [(producer, None), (consumer, i)]
    others = [t.name for t in server.tools if t.name in pack.tools and t.name != tool and t.name not in used]
    if others and rng.random() < P_PARALLEL:
        return [(tool, None), (rng.choice(sorted(others)), None)]
    return [(tool, None)]


def plan_turns(primary: ToolSpec, pack: Pack, server: ServerSpec, rng: random.Random
               ) -> tuple[list[str], list[Link], list[tuple[int, ...]], list[int]]:
    """Tools in call order, links between steps, steps per request, and failing steps."""
    feeds = feeds_of(pack)
    tools: list[str] = []
    links: list[Link] = []
    turns: list[tuple[int, ...]] = []
    first = primary.name if primary.name in pack.tools else sorted(pack.tools)[0]
    wanted = [first]
    for p in P_FOLLOW:
        if rng.random() >= p:
            break
        pool = sorted(t for t in pack.tools if t not in wanted) or sorted(pack.tools)
        wanted.append(rng.choice(pool))
    for tool in wanted:
        request = _request(tool, pack, server, rng, set(tools), feeds)
        steps = []
        for name, feed in request:
            step = len(tools)
            tools.append(name)
            steps.append(step)
            if feed is not None:
                f = pack.tools[tools[step - 1]].feeds[feed]
                links.append(Link(from_step=step - 1, field=f.path, to_step=step, param=f.param))
        turns.append(tuple(steps))
    fail = []
    last = len(tools) - 1
    if pack.tools[tools[last]].failures and rng.random() < P_FAIL:
        fail.append(last)
    return tools, links, turns, fail
