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
