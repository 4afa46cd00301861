"""Large runs: the planner's room per kind of first request, the offline run's patience, flat memory."""

from __future__ import annotations

import json
from pathlib import Path

from synth.config import Settings
from synth.packs.load import usable_packs
from synth.packs.model import Pack
from synth.pipeline import PRODUCTIVE, generate
from synth.registry import load_registry
from synth.rundir import ToolTable
from synth.scenarios.episodes import FREE, ROOM, Capacity, feeds_of
from synth.scenarios.planner import Planner
from synth.stages.dedup import Dedup, _Table

ROOT = Path(__file__).parents[1]


def _planner(folder: Path, capacity: bool = True) -> Planner:
    registry = load_registry(folder)
    planner = Planner(registry, 0, usable_packs(registry, folder).by_server)
    if not capacity:
        planner.capacity = {}
    return planner


def test_capacity_counts_goals_times_slot_values():
    pack = Pack.model_validate(
        {
            "server": "s",
            "tools": {
                "t": {
                    "goals": [
                        "What is the weather in {city}?",
                        "Is it {pick:hot|cold|wet} in {city} on {day}?",
                        "Any news?",
                    ],
                    "values": {"city": ["Lisbon", "Porto", "Faro"], "day": {"range": [1, 7]}},
                    "results": [{}],
                    "answers": ["It is fine.", "Nothing new."],
                    "feeds": [{"to": "u", "param": "x", "path": "a.0", "goals": ["Look it up and open the first."]}],
                },
                "u": {
                    "goals": ["Open {x}.", "Show {x}.", "Read {x}."],
                    "values": {"x": {"pool": ["a", "{id:###}"]}},
                    "results": [{}],
                    "answers": ["Done.", "Here."],
                },
            },
        }
    )
    capacity = Capacity.of(pack)
    assert capacity.single == {"t": 3 + 3 * 3 * 7 + 1, "u": 3 * (1 + 50)}  # a generator in a pool counts as 50
    assert capacity.feeds == {("t", "u", 0): 1}  # a goal with no slot says one thing


def test_first_round_is_planned_as_before_and_later_rounds_pass_over_used_up_kinds():
    """The shipped registry: every tool's first scenario is the same with or without capacities; by a
    late round no first request is a kind whose distinct texts the pack has used up."""
    planner, plain = _planner(ROOT / "registry"), _planner(ROOT / "registry", capacity=False)
    tools = len(planner.order)
    assert all(planner.scenario(i) == plain.scenario(i) for i in range(0, FREE * tools, 7))
    late = max(40, FREE)
    checked = 0
    for i in range(late * tools, late * tools + tools):
        sc = planner.scenario(i)
        capacity, pack = planner.capacity.get(sc.server), planner.packs.get(sc.server)
        if capacity is None or sc.turns is None:
            continue
        first = sc.turns[0]
        links = {lk.to_step: lk for lk in sc.links}
        if len(first) == 2 and first[1] in links:  # a chain: its feed still has room
            feed = next(
                f
                for f in feeds_of(pack)
                if f[:2] == (sc.tools[0], sc.tools[1]) and pack.tools[f[0]].feeds[f[2]].param == links[first[1]].param
            )
            assert capacity.feeds[feed] > ROOM * late, sc
        elif len(first) == 1:  # alone: only when it still has room, or the server has no other tool to pair
            others = [t for t in pack.tools if t != sc.tools[0]]
            assert capacity.single[sc.tools[0]] > ROOM * late or not others, sc
        checked += 1
    assert checked > tools // 2


SMALL_SERVER = {
    "qualifiedName": "@test/counter",
    "displayName": "Counter",
    "description": "Counts sheep.",
    "tools": [
        {
            "name": "count_sheep",
            "description": "Counts sheep up to a number.",
            "inputSchema": {
                "type": "object",
                "properties": {"upto": {"type": "integer", "minimum": 1}},
                "required": ["upto"],
            },
        }
    ],
}
SMALL_PACK = """pack: 1
server: "@test/counter"
tools:
  count_sheep:
    goals:
      - "I cannot sleep. Count the sheep up to {upto} for me, slowly and calmly please."
      - "Could you count sheep until you reach {upto}? It helps me wind down at night."
      - "Help me fall asleep by counting {upto} sheep, one after the other, nice and slow."
    values:
      upto: {range: [1, 20]}
    results:
      - {counted: 3}
    answers:
      - "I counted {upto} sheep for you. Sleep well."
      - "All {upto} sheep are counted. Good night."
"""


def test_an_offline_run_goes_past_2n_while_productive_then_stops_when_it_runs_out(tmp_path: Path):
    """A server that can say 60 different requests (3 goals x 20 values): the run goes on past 2n + 20
    scenarios while a window of them still gives 1 in PRODUCTIVE, then stops with what it has."""
    folder = tmp_path / "reg"
    (folder / "packs").mkdir(parents=True)
    (folder / "counter.json").write_text(json.dumps(SMALL_SERVER))
    (folder / "packs" / "counter.pack.yaml").write_text(SMALL_PACK)
    n = 80
    manifest = generate(Settings(servers=folder, out=tmp_path / "run", n=n, seed=0))
    funnel = manifest["funnel"]
    floor = 2 * n + 20
    assert 30 < funnel["accepted"] < n  # it ran out: 60 requests at most, some drawn only late
    assert funnel["scenarios"] > floor and funnel["scenarios"] % floor == 0  # checked once a window
    rejected = [json.loads(line) for line in (tmp_path / "run" / "rejected.jsonl").read_text().splitlines()]
    last = [r for r in rejected if r["stage"] != "inject"][-floor:]  # the last window, turned away
    assert len(last) == floor or (floor - len(last)) * PRODUCTIVE < floor


def test_dedup_table_keeps_every_value_newest_last_and_grows():
    table = _Table()
    for i in range(5000):
        table.add(i * 2654435761 % 2**64, i)
        table.add(7, i)  # one key with many values: a bucket of alike requests
    assert table.get(7, 3) == [4997, 4998, 4999] and len(table.get(7, 10**6)) == 5000
    assert table.first(2654435761) == 1 and table.first(12345) is None and 7 in table
    assert len(table.keys) >= 5001 * 3 // 2  # kept under 2/3 full


def test_dedup_memory_per_request_is_small():
    import tracemalloc

    d = Dedup()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(4000):
        d.check("", " ".join(f"w{i}x{j}" for j in range(12)), f"conv_{i:016x}")
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert d.counts["indexed"] == 4000
    assert used / 4000 < 700  # bytes a request (dicts of Python ints and a list of bytes took about 4 kB)


def test_tool_table_spells_a_tool_once_and_keeps_few_joined_lists():
    table = ToolTable()
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    refs = set()
    for i in range(600):
        tools = [{"name": f"t{k}", "description": "d", "input_schema": schema} for k in range(i % 40, i % 40 + 3)]
        refs.add(table.ref(tools))
    assert (
        len(table.texts) == 42
        and len(table._memo) == 42
        and all(len(places) == 3 * 4 for places in table.sets.values())
    )
    for ref in refs:
        assert [t["name"] for t in table.tools(ref)][0].startswith("t")
    assert len(table.joined) <= ToolTable.JOINED
    changed = {"name": "t0", "description": "other", "input_schema": schema}  # same schema, another string
    table.ref([changed])
    assert len(table.texts) == 43
