"""Gold calls replayed on a fresh copy of a conversation's world: what a world task is made and checked from.

The runtime is the one the offline author wrote the conversation with (``synth.runtime.pick.
offline_runtime``, from the seed, the scenario and the server's topic), so a replay gives the very
results the conversation holds; ``replay`` also says what each call did to the world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synth.errors import SynthError
from synth.packs.model import Pack
from synth.packs.world import set_fields
from synth.records import Scenario, ServerSpec
from synth.runtime.pack import PackRuntime
from synth.runtime.pick import offline_runtime
from synth.tasks.world import Replay
from synth.tasks.world_verify import run_verify as run_world_verify

WRITING = ("create", "update", "delete")


def world_runtime(scenario: Scenario, pack: Pack, topic: str, seed: int, fail: bool = True) -> PackRuntime:
    """A fresh world and the pack runtime over it; ``fail=False`` serves every call (an agent's calls do
    not line up with the steps the conversation's failures were planned for)."""
    if not fail:
        scenario = scenario.model_copy(update={"fail": ()})
    runtime = offline_runtime(scenario, pack, topic, seed)
    assert isinstance(runtime, PackRuntime) and runtime.world is not None, "a world task needs a pack with a world"
    return runtime


def replay(
    scenario: Scenario, server: ServerSpec, pack: Pack, topic: str, seed: int, calls: list[dict[str, Any]]
) -> Replay:
    """``calls`` on a fresh world: each result's text, the world before and after, what was written and made."""
    runtime = world_runtime(scenario, pack, topic, seed)
    world = runtime.world
    assert world is not None
    before = world.snapshot()
    results, writes, created = [], [], []
    for call in calls:
        tool = server.tool(call["name"])
        if tool is None:
            raise ValueError(f"{server.id} has no tool {call['name']!r}")
        results.append(runtime.call(tool, call["arguments"]).content)
        entry = pack.tools.get(call["name"])
        touch = entry.world if entry else None
        if touch is not None and touch.op in WRITING:
            writes.append(call["name"])
            if touch.op == "create":
                args = call["arguments"]
                created.append((touch.entity, set_fields(touch.set, args)))
    ids = {kind: e.id for kind, e in world.spec.entities.items()}
    return Replay(results, before, world.snapshot(), ids, writes, created)


def replayer(packs: dict[str, Pack], seed: int) -> Any:
    """What a run's task writer calls for each accepted conversation: its replay on a fresh world and what
    meta.json needs to replay it again; (reason, detail) when a world conversation cannot be a task (a
    planned failure, a result the world did not make, no call); None when its server has no world."""
    from synth.scenarios.planner import topic

    def replay_of(conv: Any, server: ServerSpec) -> tuple[Replay, dict[str, Any]] | tuple[str, str] | None:
        pack = packs.get(server.id)
        if pack is None or pack.world is None or conv.scenario.turns is None:
            return None
        if not conv.calls:  # a decline: an agent that does nothing would pass it
            return "task_no_calls", "the conversation makes no tool call, so there is nothing to replay or verify"
        if not any((e := pack.tools.get(c.name)) is not None and e.world is not None for c in conv.calls):
            return "task_no_world_call", "no call of the conversation reads or writes the server's world"
        if conv.scenario.fail:
            return "task_planned_failure", "a call meets one of the tool's failures, which an agent's calls would not"
        if any(m.role == "tool" and m.source not in ("pack", "simulated") for m in conv.messages):
            return "task_not_from_the_world", "a result came from a live server or a model, not the pack's world"
        about = topic(server)
        calls = [{"name": c.name, "arguments": c.arguments} for c in conv.calls]
        done = replay(conv.scenario, server, pack, about, seed, calls)
        return done, {"seed": seed, "topic": about, "scenario": conv.scenario.model_dump(mode="json")}

    return replay_of


class RunWorlds:
    """The servers and packs a run was made from (its manifest's registry), for replaying its world tasks."""

    def __init__(self, run: Path):
        from synth.packs.load import usable_packs
        from synth.registry import load_registry
        from synth.rundir import RunDir

        folder = Path(RunDir(run).manifest()["config"]["servers"])
        registry = load_registry(folder)
        self.servers = {s.id: s for s in registry.servers}
        self.packs = usable_packs(registry, folder).by_server

    def parts(self, meta: dict[str, Any]) -> tuple[Scenario, ServerSpec, Pack]:
        synth = meta["synth"]
        server, pack = self.servers.get(synth["server"]), self.packs.get(synth["server"])
        if server is None or pack is None or pack.world is None:
            raise SynthError(
                f"task {meta.get('task_id')}: the run's registry has no server {synth['server']!r} with a world "
                "pack any more; check the task against the registry it was made from"
            )
        return Scenario.model_validate(synth["scenario"]), server, pack

    def runtime(self, meta: dict[str, Any]) -> tuple[PackRuntime, ServerSpec]:
        """A fresh world for an agent's episode (every call served: no planned failure)."""
        scenario, server, pack = self.parts(meta)
        return world_runtime(scenario, pack, meta["synth"]["topic"], int(meta["synth"]["seed"]), fail=False), server

    def check(self, folder: Path, meta: dict[str, Any]) -> str | None:
        """None when the task holds: verify.py passes after the gold calls on a fresh world with the gold answer,
        and fails on the untouched world with nothing said."""
        scenario, server, pack = self.parts(meta)
        synth = meta["synth"]
        done = replay(scenario, server, pack, synth["topic"], int(synth["seed"]), synth["gold_calls"])
        after = run_world_verify(folder, done.after, synth.get("gold_answer", ""))
        if after.returncode != 0:
            return f"verify.py fails after the gold calls (rc {after.returncode}): {_failures(after)}"
        if run_world_verify(folder, done.before, "").returncode == 0:
            return "verify.py passes on the untouched world with nothing said: a do-nothing agent would pass"
        return None


def _failures(done: Any) -> str:
    lines = [line for line in done.stdout.splitlines() if line.startswith("❌")]
    return "; ".join(lines[:3]) or (done.stderr.strip().splitlines() or ["no output"])[-1]
