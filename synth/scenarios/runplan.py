"""What a run is made of before anything is written: the registry, its packs and the scenario planner.

    plan = open_run(settings)
    plan.planner.scenario(i)       # the run's scenario i, the same for generate and --dry-run

``synth generate`` (synth.pipeline) and ``--dry-run`` (synth.agents.estimate) both start here, so the
dry run prices the scenarios the run makes: with the packs a server has, which change the tools, the
turns and the user's requests the planner chooses.
"""

from __future__ import annotations

from dataclasses import dataclass

from synth.config import Settings
from synth.errors import ConfigError
from synth.packs.load import Packs, usable_packs, with_worlds
from synth.records import Registry, ServerSpec
from synth.registry import load_registry
from synth.scenarios.planner import Planner


@dataclass(frozen=True)
class RunPlan:
    """The registry as loaded, its usable packs, and the planner that makes scenario ``i`` from (seed, i)."""

    registry: Registry
    packs: Packs
    planner: Planner
    n: int  # conversations asked for

    @property
    def servers(self) -> dict[str, ServerSpec]:
        return {s.id: s for s in self.registry.servers}

    def attempts(self) -> int:
        """Scenarios a run may take to accept ``n`` when each is paid for: 2n + 20 (none without a usable tool)."""
        return self.n * 2 + 20 if self.planner.order else 0


def open_run(settings: Settings) -> RunPlan:
    """The run's registry, packs and planner, as every command that makes or prices a run needs them."""
    loaded = load_registry(settings.servers)
    packs = usable_packs(loaded, settings.servers)
    registry = with_worlds(loaded, packs)  # a pack's sandbox is the world its live server starts from
    packs.left_out = left_out(settings, registry, packs)
    live = settings.execute == "live"
    planner = Planner(registry, settings.seed, packs.by_server, settings.decisions, frozenset(packs.left_out), live)
    if packs.left_out and not planner.order:
        raise ConfigError(nothing_to_write(settings, packs.left_out))
    return RunPlan(registry, packs, planner, settings.n)


def left_out(settings: Settings, registry: Registry, packs: Packs) -> list[str]:
    """The servers a run leaves out of its data: on an offline run, those without a pack, whose conversations
    only the plain fallback could write (requests that read like forms; issue 39), unless --allow-fallback;
    synth's store run live is written by its own shop writer. An LLM run's model writes every server."""
    if settings.allow_fallback or settings.backend != "offline":
        return []
    from synth.live.stores import store_seed

    live = settings.execute == "live"
    return sorted(
        s.id
        for s in registry.servers
        if s.id not in packs.by_server and s.tools and not (live and s.connection and store_seed(s.connection))
    )


def nothing_to_write(settings: Settings, servers: list[str]) -> str:
    """Why a run whose every server lacks a pack writes nothing, and the commands that fix it."""
    from synth.packs.load import fix_line

    named = ", ".join(servers[:8]) + (f" and {len(servers) - 8} more" if len(servers) > 8 else "")
    return (
        f"no server in {settings.servers} has a server pack ({named}), and without a pack or a model synth "
        f"cannot write training data for a server. {fix_line(settings.servers, servers)} "
        f"--allow-fallback writes the schema-driven fallback's conversations anyway (for pipeline tests; requests "
        f'read like forms), marked "author": "fallback" wherever the format has room.'
    )
