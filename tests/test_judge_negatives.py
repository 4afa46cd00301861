"""Negatives a judge must read for (issue 29), measured on a run of the shipped registry: wrong values mostly
drawn from the conversation, extra parameters borrowed from the server's own tools, and T-Eval review
responses whose wording alone does not give the label away (synth.export.card.realism measures all three)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.config import Settings
from synth.export.card.realism import CUES, _changed, negatives, review
from synth.grade import loose
from synth.pipeline import generate
from synth.records import Message
from synth.registry import load_registry
from synth.rundir import read_jsonl, teval_rows
from synth.stages.candidates import tool_info
from synth.stages.extras import _fits
from synth.stages.inject import FROM_CONTEXT
from synth.stages.names import EXTRAS
from synth.stages.scalars import Scalars

REGISTRY = Path(__file__).parents[1] / "registry"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("judge") / "run"
    generate(Settings(servers=REGISTRY, out=out, n=160, seed=11))
    return out


def test_wrong_values_come_from_the_conversation(run):
    figures = negatives(run)
    assert figures["wrong_value_negatives"] > 150
    assert figures["wrong_values_absent"] <= 0.12  # 15.1% on the shipped registry's -n 500 run before issue 29's fix
    # a kind that says it comes from the conversation never carries a value found nowhere in it
    for row in read_jsonl(run / "scored.jsonl"):
        if row["subtype"] in FROM_CONTEXT:
            gold = json.loads(row["gold_call"]["function"]["arguments"])
            call = json.loads(row["tool_call"]["function"]["arguments"])
            history = json.dumps(row["message_history"], ensure_ascii=False).lower()
            changed = _changed(gold, call)
            assert any(json.dumps(v, ensure_ascii=False).strip('"').lower() in history for v in changed), row


def test_extras_are_borrowed_coined_or_habits_and_fit_the_tool(run):
    """Each added name is a parameter of another tool of the registry (in the tool's own spelling when it
    comes from another server), a cap coined from the tool's plural, or a habit; a listing's control is added
    only to a tool that lists, and every name has a word of the tool or a listing's."""
    habits = {loose(n) for _, n, _ in EXTRAS}
    registry = load_registry(REGISTRY)
    params = {loose(p) for t in registry.tools for p in t.properties}
    tools = {(t.server, t.name): t for t in registry.tools}
    names, borrowed = set(), 0
    for row in read_jsonl(run / "scored.jsonl"):
        if row["subtype"] != "unexpected_extra":
            continue
        gold = json.loads(row["gold_call"]["function"]["arguments"])
        call = json.loads(row["tool_call"]["function"]["arguments"])
        (extra,) = [k for k in call if k not in gold]
        names.add(extra)
        tool = tools[(row["server"], row["tool_call"]["function"]["name"])]
        coined = loose(extra).startswith("max") and loose(extra)[3:] in loose(tool.name)
        assert loose(extra) in params | habits or coined, extra
        assert extra not in tool.properties
        borrowed += loose(extra) in params
        if not (loose(extra) in habits or coined):
            assert _fits(extra, tool_info(tool))[0], (extra, tool.name)
    assert borrowed > len(names) / 2 and len(names) > 50  # the old stock list had 16 names (24 spellings)


@pytest.mark.parametrize(
    ("param", "server", "tool", "fits"),
    [
        ("referencesLimit", "@hamid-vakilzadeh/mcpsemanticscholar", "papers-references", True),
        ("citationsLimit", "@hamid-vakilzadeh/mcpsemanticscholar", "papers-references", False),  # cited, not citations
        ("limit", "@mongodb-js/mongodb-mcp-server", "list-collections", True),
        ("include_historical", "@yongkangc/scry-mcp-raw-js", "get_historical_tvl", True),
        ("limit", "@jxnl/python-apple-mcp", "send_email", False),  # sending lists nothing
        ("rec", "@bitrefill/bitrefill-mcp-server", "ping", False),
        ("CPUPercentage", "@agentesq/postman-weaviate-mcp-server", "delete_tenants", False),  # one word fit before
        ("createdb", "@aashari/mcp-server-atlassian-bitbucket", "add_pr_comment", False),  # 'create' is not 'createdb'
        ("parameters", "@vitaldb/medcalc", "map_calculator", False),  # "Parameters:" is the docstring's layout
        ("limit", "synth/store", "modify_user_address", False),  # 'address' is no plural
    ],
)
def test_a_borrowed_name_fits_only_where_each_word_does(param, server, tool, fits):
    spec = next(t for t in load_registry(REGISTRY).tools if t.server == server and t.name == tool)
    assert _fits(param, tool_info(spec))[0] is fits


def test_the_other_name_the_user_gave_is_a_wrong_value_to_read_for():
    """ "PepsiCo (PEP)": the company for the ticker is the mistake a model makes, and a judge must read the
    request to see it; a path the user gave for another file is another."""
    history = [
        Message(role="user", content="How is PepsiCo (PEP) doing? Also convert /home/maria/Documents/cv.odt."),
    ]
    seen = Scalars(history)
    assert ("PepsiCo", "the name the user gave beside 'PEP'") in list(seen.others("symbol", "PEP", {"symbol": "PEP"}))
    paths = [v for v, _ in seen.others("file_path", "/home/maria/Downloads/scan.pdf", {})]
    assert "/home/maria/Documents/cv.odt" in paths and "PepsiCo" not in paths


def test_a_text_only_rule_cannot_tell_the_review_labels(run):
    """What a response says decides only what it can (issue 38): a 5xx or a timeout is the tool's failure (B), so
    B is read from the text; a not-found is the call's fault or the world's (C or E) and a result answers or
    not (A or D) by the call against the conversation. So the best rule over regex cues of the response text
    gets at most 80% of the labels of items it was not fitted on (the shipped registry's -n 500 run: 61.3%, this
    run 74.6%; 31.3% when B also came as 400s and not-founds)."""
    figures = review(run)
    assert figures["review_labels_used"] == 5 and figures["review_items"] > 30
    assert figures["review_regex_heldout"] <= 0.8
    # and each outcome the call decides is written in more than one kind of wording
    wordings: dict[str, set] = {}
    for item in teval_rows(run / "teval" / "review_str.json"):
        prompt = item["origin_prompt"][-1]["content"]
        response = prompt.split("got this response:\n", 1)[-1].rsplit("\nWhich describes it?", 1)[0]
        label = item["ground_truth"]["answer"]
        wordings.setdefault(label, set()).add(tuple(bool(rx.search(response)) for rx in CUES.values()))
    assert all(len(wordings[label]) >= 3 for label in "CE"), wordings
    assert all(server for _, server, _, _ in wordings["B"]), wordings  # B only in a failing server's words
