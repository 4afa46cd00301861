"""Which runtime answers a scenario's calls, decided here for every author.

    runtime = pick_runtime(server, pool, offline=...)            # the offline author: sync, or None
    runtime = pick_async_runtime(server, pool, model=..., offline=...)   # the LLM agents, on their loop

In this order: the entry's real MCP server (``LiveRuntime``) on a live run (a pool) for an entry with a
connection; else a model's tool role (``model``: the LLM agents' ``LLMToolRuntime``); else the offline
runtime (``offline``: a pack's templates over the schema simulator, ``offline_runtime``); else ``None``,
and the offline fallback writer answers with its own ``SimulatedRuntime``, which shares the values the
writer drew for the request (so an id the user gives is the id the result holds). The agents get a sync
runtime through the one adapter, ``Awaited`` (synth.runtime.base).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from synth.packs.model import Pack
from synth.packs.world import WorldState
from synth.records import Scenario, ServerSpec
from synth.runtime.base import AsyncToolRuntime, Awaited, ToolRuntime
from synth.runtime.pack import PackRuntime
from synth.runtime.simulated import SimulatedRuntime
from synth.scenarios.planner import rng_for
from synth.simulator import vocab
from synth.simulator.values.context import Context

if TYPE_CHECKING:  # the live client and pool load the MCP SDK: imported only by runs that go live
    from synth.live.pool import Pool


def pick_runtime(
    server: ServerSpec, pool: Pool | None, *, offline: Callable[[], ToolRuntime] | None = None
) -> ToolRuntime | None:
    """The runtime for one scenario on ``server`` (made per scenario: state never leaks between them).

    A ``LiveRuntime`` it returns holds a server from the pool until ``close``: the caller closes it."""
    if pool is not None and server.connection is not None:
        from synth.runtime.live import LiveRuntime  # the MCP SDK: loaded only by runs that go live

        return LiveRuntime(pool, server)
    return offline() if offline is not None else None


def pick_async_runtime(
    server: ServerSpec,
    pool: Pool | None,
    *,
    model: Callable[[], AsyncToolRuntime] | None = None,
    offline: Callable[[], ToolRuntime] | None = None,
) -> AsyncToolRuntime | None:
    """``pick_runtime`` for an author on an event loop, with the model's tool role between the live server
    and the offline runtime; the caller awaits ``aclose``."""
    if model is not None and (pool is None or server.connection is None):  # not live: the model answers
        return model()
    picked = pick_runtime(server, pool, offline=offline)
    return None if picked is None else Awaited(picked)


def offline_runtime(scenario: Scenario, pack: Pack | None, topic: str, seed: int) -> ToolRuntime:
    """Tool results with no model and no server: the pack's templates for the tools it has an entry for,
    the schema simulator for the rest. The offline author's runtime, and an LLM run's tool role when
    synth.toml sets it offline ([roles.tool] backend = "offline")."""
    rng = rng_for(seed, "runtime", scenario.id)
    fallback = SimulatedRuntime(Context(rng=rng, topic=topic, city=rng.choice(vocab.CITIES)[0]))
    if pack is None:
        return fallback
    world = WorldState.fresh(pack.world, seed, scenario.id) if pack.world else None
    return PackRuntime(pack, rng, fallback, frozenset(scenario.fail or ()), world)
