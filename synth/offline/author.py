"""The offline author behind the author seam (synth.scheduler.Author): packs, the shop writer for
synth's store, and the fallback writer, then the gates; what the LLM agents give on the other path.

Calls go to the server's real MCP server when the run is live and the entry has a connection; else
to its pack, else to the schema simulator. Nothing here waits on anything, so ``write`` never
suspends: it is a synth.scheduler.InlineAuthor, called in the pipeline's own thread (no event loop,
no thread hop).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from synth.config import Settings
from synth.errors import LiveError
from synth.offline.discovered import Convo
from synth.offline.discovered_items import items
from synth.offline.discovered_sql import sql
from synth.offline.packed import write_packed
from synth.offline.writer import write as write_fallback
from synth.packs.model import Pack
from synth.records import Author, Plan, Query, Scenario, ServerSpec, StageFailure, Trajectory, Written
from synth.runtime.base import ToolRuntime
from synth.runtime.pick import offline_runtime, pick_runtime
from synth.scenarios.discover import ITEM_ROLES, Roles
from synth.scenarios.planner import Planner
from synth.stages import gates

if TYPE_CHECKING:  # the live client, pool and shop load the MCP SDK: imported only by runs that go live
    from synth.live.pool import Pool
    from synth.offline.shop_turns import ShopFacts


class OfflineAuthor:
    """Writes one scenario without a model; ``inline``: the scheduler calls it in the consumer's thread."""

    inline: Literal[True] = True

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

    def write(self, scenario: Scenario, spent: list[Any]) -> Written | StageFailure:
        server = self.servers[scenario.server]
        return written(scenario, server, self.planner, self.settings, self.packs.get(server.id), self.pool, self.shops)

    def close(self) -> None:
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
    topic = planner.topics[server.id]
    packed = pack is not None and scenario.turns is not None
    runtime = pick_runtime(
        server, pool, offline=(lambda: offline_runtime(scenario, pack, topic, settings.seed)) if packed else None
    )
    try:
        if (shop := _shop(pool, server, shops if shops is not None else {})) is not None and runtime is not None:
            from synth.offline.shop import write_shop  # synth's store, live: customer-service tasks

            query, plan, trajectory = write_shop(scenario, server, shop, settings.seed, runtime)
            author: Author = "shop"
        elif pack is not None and packed and runtime is not None:
            query, plan, trajectory = write_packed(scenario, server, pack, settings.seed, runtime)
            author = "pack"
        elif runtime is not None and pool is not None and (roles := discovering(scenario, server)) is not None:
            # a live store without a pack: it looks before it acts, every value from its results or the person
            query, plan, trajectory = write_discovered(scenario, server, roles, settings.seed, runtime)
            author = "fallback"
        else:  # no runtime picked: the fallback writer's own simulator answers
            query, plan, trajectory = write_fallback(scenario, server, topic, settings.seed, runtime)
            author = "fallback"
    except LiveError as exc:  # the server could not be reached or broke off: the scenario ends with its line
        return StageFailure(stage="execute", item_id=scenario.id, reason=exc.reason, detail=str(exc)[:500])
    except Exception as exc:  # a schema the writer cannot handle must not end the run; it is counted
        return StageFailure(
            stage="generate",
            item_id=scenario.id,
            reason=type(exc).__name__,
            detail=f"{server.id} {scenario.tools}: {exc}"[:500],
        )
    finally:
        if runtime is not None:
            runtime.close()
    review = gates.review(trajectory, server)
    if review.verdict != "accept":
        return gates.failure(review, scenario.id).model_copy(
            update={"raw": {"server": server.id, "tools": list(scenario.tools)}}
        )
    return Written(query=query, plan=plan, trajectory=trajectory, review=review, author=author)


def discovering(scenario: Scenario, server: ServerSpec) -> Roles | None:
    """The roles of a store's tools when ``scenario`` is the planner's discover-then-act one (its first tool acts)."""
    roles = Roles.of(server)
    primary = server.tool(scenario.tools[0]) if scenario.tools else None
    return roles if roles is not None and primary is not None and roles.act(primary) is not None else None


def write_discovered(
    scenario: Scenario, server: ServerSpec, roles: Roles, seed: int, runtime: ToolRuntime
) -> tuple[Query, Plan, Trajectory]:
    """One conversation: the calls made on ``runtime`` in order, each from what the earlier results held."""
    primary = server.tool(scenario.tools[0])
    act = roles.act(primary) if primary is not None else None
    assert primary is not None and act is not None, "not a discover-then-act scenario"
    convo = Convo(scenario, server, seed, runtime)
    (items if act in ITEM_ROLES else sql)(convo, roles, primary, act)
    return convo.written()
