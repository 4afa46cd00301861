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
    return RunPlan(registry, packs, Planner(registry, settings.seed, packs.by_server, settings.decisions), settings.n)
