"""Negatives a judge must read for (issue 29), measured on a run of the shipped registry: wrong values mostly
drawn from the conversation, extra parameters borrowed from the server's own tools, and T-Eval review
responses whose wording alone does not give the label away (synth.export.card.realism measures all three)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.config import Settings
from synth.export.card.realism import CUES, negatives, review
from synth.pipeline import generate
from synth.registry import load_registry
from synth.rundir import read_jsonl, teval_rows
from synth.stages.names import EXTRAS

REGISTRY = Path(__file__).parents[1] / "registry"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("judge") / "run"
    generate(Settings(servers=REGISTRY, out=out, n=160, seed=11))
    return out


def test_wrong_values_come_from_the_conversation(run):
    figures = negatives(run)
    assert figures["wrong_value_negatives"] > 150
    assert figures["wrong_values_absent"] <= 0.15


def test_extras_are_parameters_of_the_offered_tools_or_fit_the_tool(run):
    """Each added name is a parameter of another tool offered on that line, or a habit that fits the tool."""
    habits = {n for _, n, _ in EXTRAS}
    tools = {(t.server, t.name): t for t in load_registry(REGISTRY).tools}
    borrowed = 0
    names = set()
    for row in read_jsonl(run / "scored.jsonl"):
        if row["subtype"] != "unexpected_extra":
            continue
        gold = json.loads(row["gold_call"]["function"]["arguments"])
        call = json.loads(row["tool_call"]["function"]["arguments"])
        (extra,) = [k for k in call if k not in gold]
        names.add(extra)
        offered = {t["name"] for t in row["available_tools"]}
        owners = [n for n in offered if extra in tools[(row["server"], n)].properties]
        assert owners or extra.replace("_", "").lower() in {h.replace("_", "").lower() for h in habits}, extra
        assert row["tool_call"]["function"]["name"] not in owners
        borrowed += bool(owners)
    assert borrowed > len(names) / 2 and len(names) > 40  # the old stock list had 16 names (24 spellings)


def test_a_text_only_rule_cannot_tell_the_review_labels(run):
    """The best rule over regex cues of the response text gets at most half of the labels of items it was not
    fitted on. Fitted on the labels themselves it is an upper bound that a small run inflates: this run's 62
    items give 54.8% fitted, 41.9% held out; the shipped registry's -n 500 run (171 items) 45.6% and 40.4%."""
    figures = review(run)
    assert figures["review_labels_used"] == 5 and figures["review_items"] > 30
    assert figures["review_regex_heldout"] <= 0.5
    # and each failing outcome is written in more than one kind of wording
    wordings: dict[str, set] = {}
    for item in teval_rows(run / "teval" / "review_str.json"):
        prompt = item["origin_prompt"][-1]["content"]
        response = prompt.split("got this response:\n", 1)[-1].rsplit("\nWhich describes it?", 1)[0]
        label = item["ground_truth"]["answer"]
        wordings.setdefault(label, set()).add(tuple(bool(rx.search(response)) for rx in CUES.values()))
    assert all(len(wordings[label]) >= 3 for label in "BCE"), wordings
