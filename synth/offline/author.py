"""The offline author behind the author seam (synth.agents.author.Author): packs, the shop writer for
synth's store, and the fallback writer, then the gates; what the LLM agents give on the other path.

Calls go to the server's real MCP server when the run is live and the entry has a connection; else
to its pack, else to the schema simulator. Nothing here waits on anything, so ``write`` never
suspends and the scheduler runs it in the pipeline's own thread (no event loop, no thread hop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from synth.config import Settings
from synth.errors import LiveError
from synth.offline.packed import write_packed
from synth.offline.writer import write as write_fallback
from synth.packs.model import Pack
from synth.packs.world import WorldState
from synth.records import Author, Scenario, ServerSpec, StageFailure, Written
from synth.runtime.base import ToolRuntime
from synth.runtime.pack import PackRuntime
from synth.runtime.simulated import SimulatedRuntime
from synth.scenarios.planner import Planner, rng_for
from synth.simulator import vocab
from synth.simulator.values.values import Context
from synth.stages import gates

if TYPE_CHECKING:  # the live client, pool and shop load the MCP SDK: imported only by runs that go live
    from synth.live.pool import Pool
    from synth.offline.shop_turns import ShopFacts


class OfflineAuthor:
    """Writes one scenario without a model; ``inline``: the scheduler calls it in the consumer's thread."""

    inline = True

    def __init__(
        self,
        planner: Planner,
        servers: dict[str, ServerSpec],
        settings: Settings,
        packs: dict[str, Pack],
        pool: Pool | None = None,
    ):
        self.planner, self.servers, self.settings, self.packs, self.pool = planner, servers, settings, packs, pool
        self.shops: dict[int, ShopFacts] = {}

    async def write(self, scenario: Scenario, spent: list[Any]) -> Written | StageFailure:
        server = self.servers[scenario.server]
        return written(scenario, server, self.planner, self.settings, self.packs.get(server.id), self.pool, self.shops)

    async def aclose(self) -> None:
        for shop in self.shops.values():
            shop.close()
        self.shops.clear()

    def discard(self, responses: list[Any]) -> None:
        """Nothing to count: the offline author sends no request."""


def _shop(pool: Pool | None, server: ServerSpec, shops: dict[int, ShopFacts]) -> ShopFacts | None:
    """What the customers of synth's store know (its seed database), when ``server`` is that store."""
    if pool is None or server.connection is None:
        return None
    from synth.live.stores import store_seed
    from synth.offline.shop_turns import ShopFacts

    seed = store_seed(server.connection)
    if seed is None:
        return None
    if seed not in shops:  # one read-only copy of the seed database per run
        shops[seed] = ShopFacts(pool.store_copy(seed, pool.scratch()))
    return shops[seed]


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


def written(
    scenario: Scenario,
    server: ServerSpec,
    planner: Planner,
    settings: Settings,
    pack: Pack | None,
    pool: Pool | None = None,
    shops: dict[int, ShopFacts] | None = None,
) -> Written | StageFailure:
    """The offline author plus the gates for one scenario (was ``pipeline._offline``)."""
    live = None
    if pool is not None and server.connection is not None:
        from synth.runtime.live import LiveRuntime

        live = LiveRuntime(pool, server)
    try:
        if (
            live is not None and (shop := _shop(pool, server, shops if shops is not None else {})) is not None
        ):  # synth's store: customer-service tasks
            from synth.offline.shop import write_shop

            query, plan, trajectory = write_shop(scenario, server, shop, settings.seed, live)
            author: Author = "shop"
        elif pack is not None and scenario.turns is not None:
            runtime = live or offline_runtime(scenario, pack, planner.topics[server.id], settings.seed)
            query, plan, trajectory = write_packed(scenario, server, pack, settings.seed, runtime)
            author = "pack"
        else:
            query, plan, trajectory = write_fallback(scenario, server, planner.topics[server.id], settings.seed, live)
            author = "fallback"
    except Exception as exc:  # a schema the writer cannot handle must not end the run; it is counted
        if live is not None:
            if isinstance(
                exc, LiveError
            ):  # the server could not be reached or broke off: the scenario ends with its line
                return StageFailure(stage="execute", item_id=scenario.id, reason=exc.reason, detail=str(exc)[:500])
        return StageFailure(
            stage="generate",
            item_id=scenario.id,
            reason=type(exc).__name__,
            detail=f"{server.id} {scenario.tools}: {exc}"[:500],
        )
    finally:
        if live is not None:
            live.close()
    review = gates.review(trajectory, server)
    if review.verdict != "accept":
        return gates.failure(review, scenario.id).model_copy(
            update={"raw": {"server": server.id, "tools": list(scenario.tools)}}
        )
    return Written(query=query, plan=plan, trajectory=trajectory, review=review, author=author)
