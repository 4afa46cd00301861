"""Packs a model wrote for servers synth had not seen (tests/fixtures/model_packs: arXiv, a memory store and a
crypto price server, written through tests/relay.py), served by the world engine: what a template adds to an
entity agrees with it (issue 42), a PDF link names the paper's own id, nothing is updated before it was
published, and a memory made now was last changed when it was made.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from synth.packs.load import usable_packs
from synth.packs.model import Pack
from synth.records import Scenario, ServerSpec
from synth.registry import load_registry
from synth.runtime.pack import PackRuntime
from synth.runtime.pick import offline_runtime

FIXTURE = Path(__file__).parent / "fixtures" / "model_packs"


@pytest.fixture(scope="module")
def packed() -> dict[str, tuple[ServerSpec, Pack]]:
    registry = load_registry(FIXTURE)
    packs = usable_packs(registry, FIXTURE)
    return {s.id.split("/")[-1]: (s, packs.by_server[s.id]) for s in registry.servers}


def _caller(server: ServerSpec, pack: Pack, scenario: str):
    sc = Scenario(id=scenario, index=0, server=server.id, tools=(), persona="", turns=((0,),), fail=())
    runtime = offline_runtime(sc, pack, "general", 0)
    assert isinstance(runtime, PackRuntime) and runtime.world is not None

    def call(tool: str, **args: Any) -> Any:
        spec = server.tool(tool)
        assert spec is not None
        done = runtime.call(spec, args)
        assert not done.is_error, done.content
        return json.loads(done.content)

    return call


def test_a_link_in_a_made_field_names_the_papers_own_id(packed) -> None:
    server, pack = packed["arxiv-mcp-server"]
    for scenario in ("scn_a", "scn_b", "scn_c"):
        call = _caller(server, pack, scenario)
        papers = call("find_papers_by_author", author_name="Pieter Abbeel", max_results=5)["papers"]
        papers += call("search_papers", query="dark energy", max_results=5)["papers"]
        assert len(papers) == 10
        # the templates draw pdf_url's number apart from the id: 'https://arxiv.org/pdf/2604.{int:10000-29999}'
        assert all(p["pdf_url"] == f"https://arxiv.org/pdf/{p['arxiv_id']}" for p in papers), papers
        read = call("get_paper_by_id", arxiv_id=papers[2]["arxiv_id"])
        assert read["pdf_url"].endswith(papers[2]["arxiv_id"]) and read["title"] == papers[2]["title"]


def test_nothing_is_updated_before_it_was_published(packed) -> None:
    server, pack = packed["arxiv-mcp-server"]
    reads = []
    for scenario in ("scn_a", "scn_b", "scn_c", "scn_d"):
        call = _caller(server, pack, scenario)
        for paper in call("find_papers_by_author", author_name="Geoffrey Hinton", max_results=5)["papers"]:
            reads.append(call("get_paper_by_id", arxiv_id=paper["arxiv_id"]))
        reads.append(call("get_paper_by_id", arxiv_id="2605.01187"))  # one no result showed: made on the spot
    # the read template draws 'updated: 2026-04-{int:10-28}' apart from the paper's 'published'
    assert len(reads) == 24 and all(r["updated"] >= r["published"] for r in reads), [
        (r["published"], r["updated"]) for r in reads
    ]


def test_a_new_memory_was_last_changed_when_it_was_made_and_the_next_list_shows_it(packed) -> None:
    server, pack = packed["memory-mcp"]
    for scenario in ("scn_a", "scn_b", "scn_c"):
        call = _caller(server, pack, scenario)
        made = call("remember", title="Bike lock", content="The grey U-lock is 4-7-1-9.")["memory"]
        # the template draws created_at and updated_at apart: 'T{int:10-18}:{int:10-59}:{int:10-59}Z' each
        assert made["updated_at"] == made["created_at"]
        listed = call("list_memories")["memories"]
        assert (listed[0]["id"], listed[0]["title"]) == (made["id"], "Bike lock")
        read = call("get_memory", title="Bike lock")
        stamps = (made["id"], made["created_at"], made["created_at"])
        assert (read["id"], read["created_at"], read["updated_at"]) == stamps


# --- made-up matches of an open kind -----------------------------------------------------------------


def test_pack_build_sends_back_made_up_matches_that_read_as_one_formula(packed) -> None:
    from synth.llm.base import ChatResponse
    from synth.packs.build import _Server, parse_answer
    from synth.packs.check import check_pack

    server, pack = packed["arxiv-mcp-server"]
    assert pack.world is not None
    # as the model wrote it: 'Revisiting|Scaling|Rethinking {query}', 'We study {query} and report results ...'
    entry = pack.tools["search_papers"].model_dump(mode="json", exclude_defaults=True)
    world = {"entities": {k: v.model_dump(mode="json", exclude_defaults=True) for k, v in pack.world.entities.items()}}
    found = [p.line() for p in check_pack(pack, server, "x") if "[world-made]" in p.what]
    assert len(found) == 4 and all(": warning: " in line for line in found)  # packs written before still load
    state = _Server(server)
    kept, messages = parse_answer(
        ChatResponse(content=json.dumps({"tools": {"search_papers": entry}, "world": world})), ["search_papers"], state
    )
    (line,) = messages["search_papers"]
    assert kept == {} and "summary, title read as one formula in every list" in line and "[world-made]" in line
    item = entry["results"][0]["papers"][0]["$item"]
    item["title"] = {
        "$pick": ["{query}: a survey", "Towards robust {query} under distribution shift", "What limits {query}?"]
    }
    item["summary"] = {
        "$pick": [
            "We benchmark {query} on six datasets.",
            "A review of {query} since 2020, with open problems.",
            "{query} in three observatories' data, 2015-2025.",
        ]
    }
    kept, messages = parse_answer(
        ChatResponse(content=json.dumps({"tools": {"search_papers": entry}, "world": world})), ["search_papers"], state
    )
    assert messages == {} and list(kept) == ["search_papers"]
    fixed = pack.model_copy(update={"tools": {**pack.tools, "search_papers": kept["search_papers"]}})
    titles = set()
    for scenario in ("scn_a", "scn_b", "scn_c", "scn_d"):
        papers = _caller(server, fixed, scenario)("search_papers", query="gravitational waves", max_results=6)["papers"]
        assert all("gravitational waves" in p["title"].lower() for p in papers), papers
        titles |= {p["title"].lower().replace("gravitational waves", "q") for p in papers}
    assert {"q: a survey", "towards robust q under distribution shift", "what limits q?"} <= titles


def test_an_answer_from_items_ends_as_a_sentence_once(packed) -> None:
    from synth.packs import items
    from synth.packs.model import goal_of
    from synth.packs.template import answer_slot

    server, pack = packed["memory-mcp"]
    goal = goal_of(pack.tools["get_memory"].goals[2])  # 'Your '{r.title}' note: {items}.'
    result = {"title": "Sourdough", "content": "Bake 20 min lid on, 25 off.", "updated_at": "2026-04-02T10:05:12Z"}
    said = items.answer(goal, lambda s: answer_slot(s, {}, result), {}, result)
    assert (
        said == "Your 'Sourdough' note: it says: Bake 20 min lid on, 25 off. You last changed it on 2 April at 10:05."
    )
    server, pack = packed["arxiv-mcp-server"]
    goal = goal_of(pack.tools["get_papers_by_ids"].goals[0])  # no frame; its item ends '... (20 December 2013)'
    papers = [
        {"title": t, "authors": ["D. Kingma"], "published": d}
        for t, d in (("Adam", "2014-12-22"), ("VAE", "2013-12-20"))
    ]
    said = items.answer(goal, lambda s: answer_slot(s, {}, {"papers": papers}), {}, {"papers": papers})
    assert said.endswith("(20 December 2013).")  # another answer after it in the turn no longer runs on
