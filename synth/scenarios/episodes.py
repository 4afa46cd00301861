"""Scenarios for servers with a pack: several requests per conversation, chains from feeds, parallel calls.

A conversation is one to three requests (``turns``): the first is built around the scenario's
primary tool; follow-ups are what the same person asks next. A request is one tool, a chain
(one tool's result feeds the next, from the pack's ``feeds``) or two independent tools called in
parallel. Everything is drawn from the scenario's own random stream.

A pack can say only so many different first requests of one kind: a goal with no slot is one
sentence, and a chain's goals often have none (the value comes from the result). The planner
visits every tool once per round, so by round ``r`` a tool's single requests (or one chain's) have
been drawn up to ``r`` times; once ``r`` reaches half of how many distinct texts that kind can make
(``capacity``, counted from the pack: goals times the values their slots can take), another is
only a duplicate the dedup stage throws away, so from round FREE on the first request becomes one
that still has room (two things at once, whose pairs are many). The first FREE rounds, and a
request with room left in any round, are drawn exactly as before (the same random draws).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from synth.packs.model import Draw, Feed, Pack, Pool, Range, ToolPack, Values, goal_of
from synth.packs.template import slots
from synth.records import Link, ServerSpec, ToolSpec

MANY = 10**6  # a capacity past any run's rounds
GENERATED = 50  # texts a generator slot ({int:1-100}, {fake:city}, a pool string holding one) is counted as
ROOM = 2  # a kind is drawn while ROOM * round < its capacity: random draws repeat well before all are used
FREE = 8  # rounds planned exactly as before capacities were counted (runs of up to 8 scenarios a tool)

P_CHAIN = 0.6  # a request around a tool that feeds or is fed is a chain this often
P_PARALLEL = 0.3  # a request for a tool with no chain asks for two things at once this often
P_FOLLOW = (0.7, 0.4)  # chance of a second request, then of a third
P_FAIL = 0.07  # the last call of the conversation meets one of the tool's real failures
P_THEN = 0.8  # a later request acts on an earlier result (a feed's ``then``) this often, when the pack has one


def feeds_of(pack: Pack) -> list[tuple[str, str, int]]:
    """(producer, consumer, index of the feed in the producer's entry) for every feed of the pack into a tool it
    has an entry for (a consumer whose entry failed the checker is the fallback's), as one request's chain; a
    feed with only ``then`` goals is asked in a later request, never in the same one."""
    return [
        (name, f.to, i)
        for name, entry in sorted(pack.tools.items())
        for i, f in enumerate(entry.feeds)
        if f.to in pack.tools and (f.goals or not f.then)
    ]


def _size(values: Values | Draw | None, cases: int) -> int:
    """How many different texts a slot filled from ``values`` can say."""
    if isinstance(values, Draw):  # an entity of the world: a few dozen
        return GENERATED
    if isinstance(values, Range):
        lo, hi = values.range
        if values.step:
            return int((hi - lo) / values.step) + 1
        whole = all(float(x).is_integer() for x in (lo, hi))
        return int(hi - lo) + 1 if whole else MANY
    pool = values.pool if isinstance(values, Pool) else values
    if pool is None:
        return max(cases, 1)
    return sum(GENERATED if isinstance(v, str) and "{" in v else 1 for v in pool) or 1


def _goal_capacity(goals: list, entries: list[ToolPack]) -> int:
    """Distinct request texts ``goals`` can make, their slots filled from the first of ``entries`` that has values."""
    total = 0
    for goal in map(goal_of, goals):
        count = 1
        for slot in slots(goal.text):
            kind, sep, arg = slot.partition(":")
            if sep:
                count *= len(arg.split("|")) if kind == "pick" else GENERATED
            else:
                entry = next((e for e in entries if slot in e.values), entries[0])
                count *= _size(entry.values.get(slot), len(entry.cases))
            count = min(count, MANY)
        total = min(total + count, MANY)
    return total


@dataclass
class Capacity:
    """How many distinct first requests each kind can make: a tool alone, and each feed (its goals)."""

    single: dict[str, int] = field(default_factory=dict)
    feeds: dict[tuple[str, str, int], int] = field(default_factory=dict)

    @classmethod
    def of(cls, pack: Pack) -> Capacity:
        out = cls()
        for name, entry in pack.tools.items():
            out.single[name] = _goal_capacity(entry.goals, [entry])
        for producer, consumer, i in feeds_of(pack):
            feed = pack.tools[producer].feeds[i]
            entries = [pack.tools[producer]] + ([pack.tools[consumer]] if consumer in pack.tools else [])
            # a feed without goals is asked with the producer's own goals (synth.offline.packed)
            out.feeds[(producer, consumer, i)] = (
                _goal_capacity(feed.goals, entries) if feed.goals else out.single[producer]
            )
        return out


def _request(
    tool: str,
    pack: Pack,
    server: ServerSpec,
    rng: random.Random,
    used: set[str],
    feeds: list[tuple[str, str, int]],
    spent: int = 0,
    capacity: Capacity | None = None,
) -> list[tuple[str, int | None]]:
    """The tools of one request as (tool, index of the feed that links it to the previous tool or None).

    ``spent`` (the planner's round, for a first request): kinds whose ``capacity`` it has reached are
    passed over; the same random draws are made, so a request with room left is drawn as before."""
    chains = [f for f in feeds if tool in (f[0], f[1])]
    fresh = (
        chains
        if capacity is None
        else [f for f in chains if spent < FREE or capacity.feeds.get(f, MANY) > ROOM * spent]
    )
    if chains and rng.random() < (P_CHAIN if pack.chain is None else pack.chain) and fresh:
        producer, consumer, i = rng.choice(fresh)
        return [(producer, None), (consumer, i)]
    others = [t.name for t in server.tools if t.name in pack.tools and t.name != tool and t.name not in used]
    alone = capacity is None or spent < FREE or capacity.single.get(tool, MANY) > ROOM * spent
    if others and (rng.random() < P_PARALLEL or not alone):
        return [(tool, None), (rng.choice(sorted(others)), None)]
    return [(tool, None)]


def _then(pack: Pack, tools: list[str], rng: random.Random) -> tuple[int, Feed] | None:
    """A later request on an earlier step's result (its step and the feed), when the pack says how a person asks
    it (the feed's ``then``) and the tool it goes to has not been called yet. Draws only when there is one, so a
    pack without ``then`` plans as before."""
    options = [
        (step, feed)
        for step, name in enumerate(tools)
        for feed in pack.tools[name].feeds
        if feed.then and feed.to in pack.tools and feed.to not in tools
    ]
    if not options or rng.random() >= P_THEN:
        return None
    return rng.choice(options)


def plan_turns(
    primary: ToolSpec,
    pack: Pack,
    server: ServerSpec,
    rng: random.Random,
    spent: int = 0,
    capacity: Capacity | None = None,
) -> tuple[list[str], list[Link], list[tuple[int, ...]], list[int]]:
    """Tools in call order, links between steps, steps per request, and failing steps; ``spent`` is the
    planner's round (the first request passes over kinds with no distinct text left, see above)."""
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
    for k, tool in enumerate(wanted):
        if k and (then := _then(pack, tools, rng)) is not None:  # act on what an earlier request listed
            producer, later = then
            links.append(Link(from_step=producer, field=later.path, to_step=len(tools), param=later.param))
            turns.append((len(tools),))
            tools.append(later.to)
            continue
        request = _request(tool, pack, server, rng, set(tools), feeds, *((spent, capacity) if k == 0 else ()))
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
