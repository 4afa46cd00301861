"""The package reads downward: no import cycles, and no import from a higher layer.

Layers, lowest first (a module may import its own layer and the ones below it):

0. records  synth (the package root), synth.errors, synth.records: the records every stage passes on
1. core     synth.config, synth.templates, synth.registry, synth.grade (with synth.facts and
            synth.wording), synth.asks (what a request asks, read from its words), synth.messages (the
            OpenAI message shape), synth.rundir (the run folder and its parts), synth.live (the MCP client:
            the only module importing the SDK's client side), synth.store (the shop MCP server synth
            ships: the shop, its reads and writes, the server; it knows nothing of the rest of synth),
            synth.retry (the one retry policy, shared by model endpoints and registry APIs)
2. llm      synth.llm: the ChatBackend seam, its backends, cache and spend
3. stages   synth.stages, synth.packs: pure functions from records to records (gates, inject, dedup);
            synth.simulator (argument values and tool results with no server), synth.scenarios (the
            planner every author uses, and the records a writer makes of a scenario), synth.ingest
            (reading other people's files), synth.tasks (the store's MCPMark-style tasks)
4. export   synth.export: the run's files in other tools' shapes, and the card (synth.export.card)
5. authors  synth.offline, synth.agents, synth.runtime: who writes a conversation (the offline author
            or LLM agents) and the tool runtimes they call. They sit above stages and export because
            they call the gates and speak the export message format; nothing below them may know
            which author wrote the data ("an author behind the same seam as the LLM"), so stages and
            export never import them.
6. review   synth.review: the human review queue and applying its decisions
7. apps     synth.pipeline (the orchestrator; the manifest it writes in synth.run_manifest), synth.scheduler
            (the one scheduler and the two author protocols it runs), synth.derive,
            synth.evaluate, synth.hub, synth.summary, synth.shards and synth.ray_shards (a run in slices,
            merged through the orchestrator's loop)
8. cli      synth.cli: the app (synth.cli.app) and one module per command group (synth.cli.common: what
            they share)

Every import counts, function-level and TYPE_CHECKING ones included: a lazy import hides a cycle
from the interpreter, not from the design. A unit is a top-level package (synth.stages) or module
(synth.grade); cycles are checked between units and between modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1] / "synth"
LAYERS: tuple[tuple[str, ...], ...] = (
    ("synth", "synth.errors", "synth.records", "synth.memo"),
    (
        "synth.config",
        "synth.templates",
        "synth.registry",
        "synth.grade",
        "synth.facts",
        "synth.wording",
        "synth.asks",
        "synth.messages",
        "synth.rundir",
        "synth.live",
        "synth.store",
        "synth.retry",
    ),
    ("synth.llm",),
    ("synth.stages", "synth.packs", "synth.simulator", "synth.scenarios", "synth.ingest", "synth.tasks"),
    ("synth.export",),
    ("synth.offline", "synth.agents", "synth.runtime"),
    ("synth.review",),
    (
        "synth.pipeline",
        "synth.scheduler",
        "synth.run_manifest",
        "synth.derive",
        "synth.evaluate",
        "synth.hub",
        "synth.summary",
        "synth.shards",
        "synth.ray_shards",
    ),
    ("synth.cli",),
)
# Known imports that go upward or close a package cycle, each owned by someone who will remove it.
# They are left out of both checks; an entry whose import is gone fails the test, so the list only shrinks.
ALLOWED: dict[tuple[str, str], str] = {}
# Known module cycles inside the authors, which are being restructured (synth.offline, synth.agents).
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The synth modules ``name`` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            for alias in node.names:  # `from synth import templates` imports the module synth.templates
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _unit(module: str) -> str:
    parts = module.split(".")
    return module if len(parts) == 1 else ".".join(parts[:2])


def _layer(unit: str) -> int:
    for index, layer in enumerate(LAYERS):
        if unit in layer:
            return index
    raise AssertionError(f"{unit} is in no layer: add it to LAYERS in {Path(__file__).name}")


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_unit_has_a_layer() -> None:
    for module in _graph():
        _layer(_unit(module))


def test_no_module_cycles() -> None:
    cycles = {tuple(c) for c in _cycles(_graph())}
    assert sorted(cycles - set(KNOWN_CYCLES)) == []
    assert sorted(set(KNOWN_CYCLES) - cycles) == [], "no longer a cycle: remove from KNOWN_CYCLES"


def test_no_package_cycles() -> None:
    units: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        units.setdefault(_unit(module), set()).update(
            _unit(t) for t in targets if _unit(t) != _unit(module) and (module, t) not in ALLOWED
        )
    assert _cycles(units) == []


def test_allowed_imports_still_exist() -> None:
    graph = _graph()
    stale = sorted((m, t) for m, t in ALLOWED if t not in graph.get(m, ()))
    assert stale == [], f"no longer imported: remove from ALLOWED {stale}"


def test_imports_read_downward() -> None:
    upward = sorted((m, t) for m, targets in _graph().items() for t in targets if _layer(_unit(t)) > _layer(_unit(m)))
    unexpected = [
        f"{m} imports {t} ({LAYERS[_layer(_unit(t))][0]} layer is above {_unit(m)})"
        for m, t in upward
        if (m, t) not in ALLOWED
    ]
    assert unexpected == []


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import synth.records\n", {"synth.records"}),
        ("from synth import templates\n", {"synth.templates"}),
        ("from synth.registry import load_registry\n", {"synth.registry"}),
        ("def f():\n    from synth.export.hf import write_parquet\n", {"synth.export.hf"}),
        ("from .chat import ToolNames\n", {"synth.export.chat"}),
    ],
)
def test_imports_are_found(tmp_path: Path, source: str, expected: set[str]) -> None:
    """The graph sees every spelling of an import, lazy ones too (else the test above could not fail)."""
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")
    assert _imports("synth.export.probe", path, _modules()) == expected


def test_only_the_live_client_speaks_mcp_as_a_client():
    """The SDK's client side (sessions, transports, ``mcp.Client``) is imported in one module only."""
    client_names = {"Client", "ClientSession", "stdio_client", "StdioServerParameters", "ClientSessionGroup"}
    found = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and (
                    node.module.startswith("mcp.client")
                    or (node.module == "mcp" and {a.name for a in node.names} & client_names)
                )
            ):
                found.append(name)
    assert set(found) == {"synth.live.client"}, found


def test_the_readme_picture_shows_these_layers():
    """docs/architecture.md's picture names the same units in the same layers as LAYERS (so it cannot drift)."""
    text = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("# Architecture") :]
    block = section[section.index("```\n") + 4 :]
    block = block[: block.index("```")]
    shown: dict[int, set[str]] = {}
    layer = -1
    for line in block.splitlines():
        left = line[:70]  # the units; what each layer does is to the right
        if m := re.match(r" (\d) \w+ ", left):
            layer, left = int(m.group(1)), left[m.end() :]
        for name in re.findall(r"[a-z_]+(?:\.[a-z_]+)*", left):
            shown.setdefault(layer, set()).add(name if name.startswith("synth") else f"synth.{name}")
    assert shown == {i: set(units) for i, units in enumerate(LAYERS)}
