"""One place picks the tool runtime (synth.runtime.pick): its order, a real server behind the live choice,
and no other module making a runtime of its own (an AST check, so a second decision cannot creep back)."""

from __future__ import annotations

import ast
import asyncio
import json
import sys
from pathlib import Path

import pytest

from synth.live.client import Limits
from synth.live.pool import Pool
from synth.records import Connection, ServerSpec, ToolSpec
from synth.runtime.base import Awaited, ToolResult
from synth.runtime.pack import PackRuntime
from synth.runtime.pick import offline_runtime, pick_async_runtime, pick_runtime
from synth.runtime.simulated import SimulatedRuntime
from synth.scenarios.planner import Planner

ROOT = Path(__file__).parents[1]
TOOL = ToolSpec(
    server="env", name="environment", description="The variables it sees.", input_schema={}, schema_hash="x"
)


def server(connection: Connection | None = None) -> ServerSpec:
    return ServerSpec(id="env", name="env", source="env.json", tools=(TOOL,), connection=connection)


class Named:
    """A runtime that says who it is, so the test sees which one was picked."""

    waits = False

    def __init__(self, name: str):
        self.name = name

    def call(self, tool: ToolSpec, arguments: dict) -> ToolResult:
        return ToolResult.of({"by": self.name}, "simulated")

    def close(self) -> None:
        pass


class Model(Named):
    """The model's tool role, as the agents' loop calls it."""

    async def call(self, tool: ToolSpec, arguments: dict) -> ToolResult:  # type: ignore[override]
        return ToolResult.of({"by": self.name}, "llm")

    async def aclose(self) -> None:
        pass


@pytest.mark.parametrize(
    "model, offline, expected",
    [("model", "offline", "model"), (None, "offline", "offline"), ("model", None, "model"), (None, None, None)],
)
def test_without_a_live_server_the_model_comes_before_the_offline_runtime(model, offline, expected):
    picked = pick_async_runtime(
        server(),
        None,
        model=(lambda: Model("model")) if model else None,
        offline=(lambda: Named("offline")) if offline else None,
    )
    if isinstance(picked, Awaited):  # a sync runtime on the agents' loop: through the one adapter
        picked = picked.runtime
    assert (picked.name if isinstance(picked, Named) else picked) == expected
    synced = pick_runtime(server(), None, offline=(lambda: Named("offline")) if offline else None)
    assert (synced.name if isinstance(synced, Named) else synced) == (offline and "offline")


def test_an_entry_without_a_connection_stays_offline_on_a_live_run():
    with Pool(Limits(10, 10)) as pool:
        picked = pick_runtime(server(), pool, offline=lambda: Named("offline"))
    assert isinstance(picked, Named) and picked.name == "offline"


def test_a_live_run_calls_the_real_server_whatever_else_is_offered(tmp_path):
    connection = Connection(type="stdio", command=sys.executable, args=(str(ROOT / "tests/servers/env_server.py"),))
    with Pool(Limits(20, 20)) as pool:
        picked = pick_async_runtime(
            server(connection), pool, model=lambda: Model("model"), offline=lambda: Named("offline")
        )
        assert isinstance(picked, Awaited) and not isinstance(picked.runtime, Named)

        async def both() -> tuple[ToolResult, ToolResult]:  # on a loop: the live call runs off it
            try:
                return await picked.call(TOOL, {}), await picked.call(TOOL, {})
            finally:
                await picked.aclose()

        looped, again = asyncio.run(both())
        synced = pick_runtime(server(connection), pool, offline=lambda: Named("offline"))
        assert synced is not None and synced.waits
        try:
            result = synced.call(TOOL, {})
        finally:
            synced.close()
    assert result.source == "live" and "PATH" in json.loads(result.content)["names"]
    assert looped.content == again.content == result.content


def test_the_offline_runtime_is_the_pack_over_the_simulator(tiny_registry):
    from synth.registry import load_registry

    registry = load_registry(tiny_registry)
    scenario = Planner(registry, 5).scenario(0)
    runtime = offline_runtime(scenario, None, "general", 5)
    assert isinstance(runtime, SimulatedRuntime)
    again = offline_runtime(scenario, None, "general", 5).call(registry.servers[0].tools[0], {})
    assert runtime.call(registry.servers[0].tools[0], {}) == again  # per scenario, from (seed, id)
    assert not runtime.waits  # computed: Awaited calls it in place on a loop


# Each runtime is made by synth.runtime.pick only; the fallback writer's own simulator shares the writer's
# values (the documented ``None`` of pick_runtime), and the LLM tool role is made by the agents' factory.
MAKERS = {
    "LiveRuntime": {"synth.runtime.pick"},
    "PackRuntime": {"synth.runtime.pick"},
    "SimulatedRuntime": {"synth.runtime.pick", "synth.offline.writer"},
    "LLMToolRuntime": {"synth.agents.writer"},
}


def test_no_other_module_makes_a_runtime():
    made: dict[str, set[str]] = {name: set() for name in MAKERS}
    for path in (ROOT / "synth").rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MAKERS:
                made[node.func.id].add(module)
    assert made == MAKERS
    assert PackRuntime.__module__ == "synth.runtime.pack"
