"""One setup for every command that makes or prices a run (synth.scenarios.runplan.open_run): the dry run
prices the very scenarios generate makes (same ids, servers, tools, decisions, turns), on a registry with packs
(the shipped one) and on one without (servers the fallback serves). Shards slice the same planner
(tests/test_shards.py: merged shards are the single run byte for byte)."""

from __future__ import annotations

from pathlib import Path

import pytest

from synth.agents.estimate import planned
from synth.config import Settings
from synth.pipeline import generate
from synth.records import Conversation
from synth.rundir import CONVERSATIONS, read_jsonl
from synth.scenarios.runplan import open_run

ROOT = Path(__file__).parents[1]


@pytest.mark.parametrize(
    ("servers", "packed"),
    [(ROOT / "registry", True), (ROOT / "tests" / "fixtures" / "fallback", False)],
    ids=["shipped-with-packs", "without-packs"],
)
def test_the_dry_run_prices_the_scenarios_the_run_makes(servers: Path, packed: bool, tmp_path: Path):
    # allow_fallback: the registry without packs is written by the fallback on purpose (issue 39)
    settings = Settings(servers=servers, out=tmp_path / "run", n=12, seed=9, allow_fallback=True)
    manifest = generate(settings)
    made = [Conversation.model_validate(c).scenario for c in read_jsonl(settings.out / CONVERSATIONS)]
    # the dry run of a run 4 times larger: scenario i depends on (registry, packs, seed, i) alone
    dry = settings.model_copy(update={"n": 48})
    priced = [scenario for scenario, _ in planned(open_run(dry), dry)]
    assert len(made) == manifest["counts"]["conversations"] == 12 and max(sc.index for sc in made) < len(priced)
    for sc in made:
        same = priced[sc.index]
        assert (same.id, same.server, same.tools, same.decision, same.turns) == (
            sc.id,
            sc.server,
            sc.tools,
            sc.decision,
            sc.turns,
        )
        assert same == sc  # every field: links, persona, multi_turn, failures too
    assert any(sc.turns for sc in made) == packed  # the planner saw the packs, where there are any
