"""Worlds: one state behind every result of a conversation (synth.packs.world, synth.runtime.pack), and the
detectors that measure it (synth.stages.consistency).

The world is the test registry's wiki (tests/fixtures/worlds: a server and its pack with a ``world``), served
by the real pack runtime; the shipped registry's figures come from a real run of it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from synth.config import Settings
from synth.export.card.realism import report
from synth.packs.check import check_pack
from synth.packs.load import usable_packs
from synth.packs.model import Draw, Pack, Touch, World
from synth.packs.world import WorldState, drawn, overlay, serve
from synth.pipeline import generate
from synth.records import Scenario, ServerSpec
from synth.registry import load_registry
from synth.runtime.pack import PackRuntime
from synth.runtime.pick import offline_runtime
from synth.stages.consistency import conflicting_ids, limit_mismatches
from synth.stages.order import claims_and_contradictions, contradicted_claims

FIXTURE = Path(__file__).parent / "fixtures" / "worlds"
ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def wiki() -> tuple[ServerSpec, Pack]:
    registry = load_registry(FIXTURE)
    packs = usable_packs(registry, FIXTURE)
    assert not [p for p in packs.problems if p.severity == "error"], packs.problems
    (server,) = registry.servers
    return server, packs.by_server[server.id]


def _runtime(server: ServerSpec, pack: Pack, scenario: str = "scn_a", seed: int = 0) -> PackRuntime:
    sc = Scenario(id=scenario, index=0, server=server.id, tools=("get_doc",), persona="", turns=((0,),), fail=())
    runtime = offline_runtime(sc, pack, "general", seed)
    assert isinstance(runtime, PackRuntime) and runtime.world is not None
    return runtime


def _call(runtime: PackRuntime, server: ServerSpec, tool: str, **args: Any) -> Any:
    spec = server.tool(tool)
    assert spec is not None
    done = runtime.call(spec, args)
    return json.loads(done.content) if not done.is_error else {"error": done.content}


# --- the detectors ---------------------------------------------------------------------------


def _tool(content: Any, call_id: str = "c") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(content)}


def _calls(name: str, args: dict[str, Any], call_id: str = "c") -> dict[str, Any]:
    return {"role": "assistant", "tool_calls": [{"id": call_id, "name": name, "arguments": args}]}


def test_an_id_with_two_titles_is_found_and_one_with_one_is_not() -> None:
    search = [_calls("search_papers", {"q": "frailty"}, "a")]
    search.append(_tool([{"PMID": "40076541", "Title": "Frailty in colorectal cancer", "Journal": "Circulation"}], "a"))
    same = [_calls("get_paper", {"pmid": "40076541"}, "b")]
    same.append(_tool({"PMID": "40076541", "Title": "Frailty in colorectal cancer", "Journal": "Circulation"}, "b"))
    other = [_calls("get_paper", {"pmid": "40076541"}, "b")]
    other.append(_tool({"PMID": "40076541", "Title": "Time-restricted eating", "Journal": "The Lancet"}, "b"))
    found = conflicting_ids([*search, *other])
    assert len(found) == 2 and "Title 'Frailty in colorectal cancer' then 'Time-restricted eating'" in found[0]
    assert conflicting_ids([*search, *same]) == []


def test_a_renamed_record_is_not_a_conflict() -> None:
    before = [_calls("get_doc", {"doc_id": "DOC-1001"}, "a"), _tool({"id": "DOC-1001", "title": "Checklist"}, "a")]
    rename = [_calls("rename_doc", {"doc_id": "DOC-1001", "title": "Guide"}, "b"), _tool({"ok": True}, "b")]
    after = [_calls("get_doc", {"doc_id": "DOC-1001"}, "c"), _tool({"id": "DOC-1001", "title": "Guide"}, "c")]
    assert conflicting_ids([*before, *rename, *after]) == []
    assert len(conflicting_ids([*before, *after])) == 1  # without the rename call, the two titles contradict


def test_a_list_off_its_limit_is_found() -> None:
    three = [{"id": f"D{i}", "title": str(i)} for i in range(3)]
    short = [_calls("search_docs", {"query": "x", "limit": 5}), _tool({"results": three})]
    assert limit_mismatches(short) == ["search_docs: limit=5 but the result lists 3 items"]
    exact = [_calls("search_docs", {"query": "x", "limit": 3}), _tool({"results": three})]
    nothing = [_calls("search_docs", {"query": "x", "limit": 3}), _tool({"results": []})]  # not found: a failure
    assert limit_mismatches(exact) == [] and limit_mismatches(nothing) == []
    all_there_is = [_calls("search_docs", {"query": "x", "limit": 5}), _tool({"total": 3, "results": three})]
    assert limit_mismatches(all_there_is) == []  # three match in all: a shorter list is right
    more = [_calls("search_docs", {"query": "x", "limit": 5}), _tool({"total": 9, "results": three})]
    assert limit_mismatches(more) == ["search_docs: limit=5 but the result lists 3 items"]


def _answered(result: Any, answer: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Which doc is read most?"},
        _calls("list_docs", {}),
        _tool(result),
        {"role": "assistant", "content": answer},
    ]


def test_an_order_claim_its_result_contradicts_is_found() -> None:
    docs = [
        {"slug": "a1", "title": "Onboarding", "read_count": 483},
        {"slug": "b2", "title": "Release", "read_count": 3033},
    ]
    wrong = _answered(docs, 'The most-read doc is "Onboarding" with 483 reads. Next: "Release" (3033 reads).')
    assert claims_and_contradictions(wrong) == (
        1,
        [
            "'Onboarding' is called top: read_count 483, but 'Release' has 3033"
            " ('The most-read doc is \"Onboarding\" with 483 reads.')"
        ],
    )
    right = _answered(docs, 'The most-read doc is "Release" with 3033 reads; "Onboarding" has 483.')
    assert claims_and_contradictions(right) == (1, [])
    titled = _answered(docs, 'First in the list: "Onboarding" (483 reads).')  # no claim of order
    assert claims_and_contradictions(titled) == (0, [])
    newest = [
        {"number": "6.0.0", "created_at": "2026-04-01"},
        {"number": "6.1.0", "name": "6.1", "created_at": "2026-05-01"},
    ]
    stale = _answered([{"name": "6.0", **newest[0]}, newest[1]], "The newest release is 6.0 (2026-04-01).")
    assert contradicted_claims(stale) == [
        "'6.0' is called top: created_at '2026-04-01', but '6.1' has '2026-05-01'"
        " ('The newest release is 6.0 (2026-04-01).')"
    ]
    near = [{"name": "Yerba Buena", "distance_m": 109}, {"name": "Embarcadero", "distance_m": 335}]
    assert contradicted_claims(_answered(near, "Yerba Buena is your best bet, 109 m away.")) == []  # less is better
    assert len(contradicted_claims(_answered(near, "The nearest is Embarcadero, 335 m away."))) == 1
    pools = [
        {"symbol": "STETH", "tvlUsd": 25400000000, "apy": 2.93},
        {"symbol": "USDC", "tvlUsd": 4400000000, "apy": 4.94},
    ]
    biggest = "The biggest pool is STETH with $25.4 billion and 2.93% APY."  # biggest by size: its APY is no claim
    assert contradicted_claims(_answered(pools, biggest)) == []
    assert len(contradicted_claims(_answered(pools, "The biggest pool is USDC, 4400000000 deposited."))) == 1


# --- the world behind the runtime ----------------------------------------------------------


def test_a_search_and_a_detail_call_describe_one_doc(wiki) -> None:
    server, pack = wiki
    runtime = _runtime(server, pack)
    found = _call(runtime, server, "search_docs", query="checkout", limit=3)
    assert len(found["results"]) == found["total"] == 2  # the two docs that match: fewer than the limit
    first = found["results"][0]
    assert "checkout" in first["title"].lower()  # the best match first
    detail = _call(runtime, server, "get_doc", doc_id=first["id"])
    assert (detail["title"], detail["owner"], detail["status"]) == (first["title"], first["owner"], first["status"])
    assert detail["body"] != "..."  # the entity's own body, not the template's


def test_a_search_returns_the_docs_that_match_and_a_total_that_counts_them(wiki) -> None:
    server, pack = wiki
    runtime = _runtime(server, pack)
    security = _call(runtime, server, "search_docs", query="security", limit=4)
    assert [d["title"] for d in security["results"]] == ["Security review checklist"] and security["total"] == 1
    onboarding = _call(runtime, server, "search_docs", query="onboarding", limit=3)
    assert [d["title"] for d in onboarding["results"]] == ["Onboarding checklist"] and onboarding["total"] == 1
    drafts = _call(runtime, server, "search_docs", query="draft", limit=2)  # three match: the limit cuts
    assert len(drafts["results"]) == 2 and drafts["total"] == 3
    assert all("draft" in json.dumps(d).lower() for d in drafts["results"])
    two_words = _call(runtime, server, "search_docs", query="the onboarding checklists", limit=4)
    assert [d["title"] for d in two_words["results"]] == ["Onboarding checklist"]  # every word, not just one
    none = _call(runtime, server, "search_docs", query="kubernetes", limit=3)
    assert none["results"] == [] and none["total"] == 0


def test_a_fuzzy_search_ranks_every_doc(wiki) -> None:
    server, pack = wiki
    touch = pack.tools["search_docs"].world
    assert touch is not None
    fuzzy = pack.model_copy(
        update={
            "tools": {
                **pack.tools,
                "search_docs": pack.tools["search_docs"].model_copy(
                    update={"world": touch.model_copy(update={"fuzzy": True})}
                ),
            }
        }
    )
    found = _call(_runtime(server, fuzzy), server, "search_docs", query="security", limit=3)
    assert found["results"][0]["title"] == "Security review checklist" and len(found["results"]) == 3


def test_lists_follow_the_limit_and_the_enum_value(wiki) -> None:
    server, pack = wiki
    runtime = _runtime(server, pack)
    for status in ("draft", "published", "archived"):
        for size in (1, 2, 3):
            docs = _call(runtime, server, "list_docs", status=status, page_size=size)["docs"]
            assert {d["status"] for d in docs} == {status}
            assert len(docs) == min(size, {"draft": 3, "published": 7, "archived": 2}[status])


def test_writes_are_seen_by_later_reads_and_unknown_ids_fail(wiki) -> None:
    server, pack = wiki
    runtime = _runtime(server, pack)
    _call(runtime, server, "rename_doc", doc_id="DOC-1002", title="Release runbook v2")
    assert _call(runtime, server, "get_doc", doc_id="DOC-1002")["title"] == "Release runbook v2"
    made = _call(runtime, server, "create_doc", title="Vendor shortlist", body="Acme, Northwind.")
    assert _call(runtime, server, "get_doc", doc_id=made["id"])["body"] == "Acme, Northwind."
    assert _call(runtime, server, "search_docs", query="vendor shortlist", limit=1)["results"][0]["id"] == made["id"]
    _call(runtime, server, "delete_doc", doc_id="DOC-1003")
    assert "not found" in _call(runtime, server, "get_doc", doc_id="DOC-1003")["error"]
    assert "not found" in _call(runtime, server, "get_doc", doc_id="DOC-4040")["error"]  # never in the world
    assert runtime.world is not None
    ids = [d["id"] for d in runtime.world.snapshot()["doc"]]
    assert "DOC-1003" not in ids and made["id"] in ids and len(ids) == 12


def test_each_conversation_starts_from_a_fresh_world_made_from_seed_and_scenario(wiki) -> None:
    server, pack = wiki
    first = _runtime(server, pack, "scn_a")
    _call(first, server, "delete_doc", doc_id="DOC-1001")
    again = _runtime(server, pack, "scn_a")
    assert _call(again, server, "get_doc", doc_id="DOC-1001")["title"] == "Onboarding checklist"
    assert pack.world is not None
    same = WorldState.fresh(pack.world, 0, "scn_a").snapshot()
    assert same == WorldState.fresh(pack.world, 0, "scn_a").snapshot() == again.world.snapshot()  # type: ignore[union-attr]


def test_the_checker_names_a_broken_world(wiki) -> None:
    server, pack = wiki
    assert pack.world is not None
    doc = pack.world.entities["doc"]
    broken_seed = [*doc.seed, doc.seed[0]]  # an id twice
    world = pack.world.model_copy(update={"entities": {"doc": doc.model_copy(update={"seed": broken_seed})}})
    tools = dict(pack.tools)
    get = tools["get_doc"]
    assert get.world is not None
    tools["get_doc"] = get.model_copy(update={"world": get.world.model_copy(update={"by": "id", "entity": "page"})})
    problems = check_pack(pack.model_copy(update={"world": world, "tools": tools}), server, "docs.pack.yaml")
    lines = [p.line() for p in problems if p.severity == "error"]
    assert any("ids seeded twice: DOC-1001" in line for line in lines), lines
    assert any("'page' is not a kind of the world" in line for line in lines), lines
    assert check_pack(pack, server, "docs.pack.yaml") == []


def test_the_checker_warns_of_a_search_value_no_seeded_entity_matches(wiki) -> None:
    server, pack = wiki
    search = pack.tools["search_docs"]
    assert search.world is not None
    values = {**search.values, "query": ["checkout", "kubernetes"]}
    tools = {**pack.tools, "search_docs": search.model_copy(update={"values": values})}
    problems = check_pack(pack.model_copy(update={"tools": tools}), server, "docs.pack.yaml")
    found = [p.line() for p in problems if "world-search" in p.line()]
    assert len(found) == 1 and "'kubernetes' finds no seeded doc" in found[0], found
    fuzzy = search.model_copy(update={"values": values, "world": search.world.model_copy(update={"fuzzy": True})})
    assert check_pack(pack.model_copy(update={"tools": {**pack.tools, "search_docs": fuzzy}}), server, "x") == []


# --- the shipped registry ------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shipped")
    generate(Settings(servers=ROOT / "registry", out=out, n=500, seed=0))
    return out


def test_the_shipped_registry_keeps_ids_and_limits(shipped: Path) -> None:
    figures = report(shipped, ROOT / "registry")
    assert figures["conversations"] == 500
    assert figures["ids_described_two_ways"] == 0.0  # accepted: the reader gate rejects the rest
    gate = json.loads((shipped / "manifest.json").read_text())["reader_gates"]["gates"]["conflicting_ids"]
    assert gate["rate"] <= 0.005, gate  # of every conversation written, before the gate
    assert figures["lists_off_limit"] == 0.0
    assert figures["order_claims_contradicted"]["count"] == 0, figures["order_claims_contradicted"]


def test_derived_fields_are_computed_from_the_entities_that_name_them() -> None:
    spec = World.model_validate(
        {
            "entities": {
                "repo": {
                    "id": "slug",
                    "seed": [{"slug": "infra", "name": "Infra"}, {"slug": "hr", "name": "HR"}],
                    "derived": {
                        "items_count": {"entity": "doc", "by": "repo", "op": "count"},
                        "reads": {"entity": "doc", "by": "repo", "op": "sum", "field": "read_count"},
                        "latest": {"entity": "doc", "by": "repo", "op": "first", "field": "title", "order": "-updated"},
                        "docs": {"entity": "doc", "by": "repo", "order": "-read_count"},
                    },
                },
                "doc": {
                    "id": "id",
                    "seed": [
                        {"id": 1, "repo": "infra", "title": "Runbook", "read_count": 483, "updated": "2026-04-01"},
                        {"id": 2, "repo": "infra", "title": "Checklist", "read_count": 3033, "updated": "2026-03-01"},
                        {"id": 3, "repo": "hr", "title": "Holidays", "read_count": 12, "updated": "2026-02-01"},
                    ],
                },
            }
        }
    )
    world = WorldState(spec, "k")
    infra = world.view("repo", world.state["repo"]["infra"])
    assert (infra["items_count"], infra["reads"], infra["latest"]) == (2, 3516, "Runbook")
    assert [d["title"] for d in infra["docs"]] == ["Checklist", "Runbook"]  # most read first
    shape = {"slug": "", "items_count": 0, "docs": [{"id": 0, "title": ""}]}
    assert overlay(shape, infra, "slug")["docs"] == [{"id": 2, "title": "Checklist"}, {"id": 1, "title": "Runbook"}]
    create = Touch(op="create", entity="doc", set={"repo": "repo", "title": "title"})
    serve(world, create, {"id": "{int:10-99}"}, {}, {"repo": "infra", "title": "Onboarding"})
    read = Touch(op="read", entity="repo", by="slug")
    assert serve(world, read, {"slug": "", "items_count": 0}, {}, {"slug": "infra"}).data["items_count"] == 3


def test_a_conversation_is_with_one_person_and_draws_of_them_are_theirs() -> None:
    spec = World.model_validate(
        {
            "person": "user",
            "entities": {
                "user": {"id": "user_id", "seed": [{"user_id": f"u{i}"} for i in range(6)]},
                "order": {
                    "id": "order_id",
                    "seed": [
                        {"order_id": f"#W{i}{s[0]}", "user_id": f"u{i}", "status": s}
                        for i in range(6)
                        for s in ("pending", "delivered")
                    ],
                },
            },
        }
    )
    world = WorldState(spec, "k")
    rng = random.Random(3)
    users = {drawn(world, Draw(entity="user"), rng, {}) for _ in range(20)}
    assert len(users) == 1  # every call's draw: the same customer
    pending = Draw(entity="order", of="user_id", where={"status": "pending"})
    orders = {drawn(world, pending, rng, {}) for _ in range(20)}
    assert orders == {f"#W{users.pop()[1:]}p"}  # their pending order, never another customer's


def test_an_update_keeps_the_change_its_result_shows() -> None:
    spec = World.model_validate(
        {"entities": {"order": {"id": "order_id", "seed": [{"order_id": "#W1", "status": "pending"}]}}}
    )
    world = WorldState(spec, "k")
    cancel = Touch(op="update", entity="order", by="order_id", changes=["status"])
    shape = {"order_id": "{order_id}", "status": "cancelled"}
    assert serve(world, cancel, shape, {"order_id": "#W1"}, {"order_id": "#W1"}).data["status"] == "cancelled"
    read = Touch(op="read", entity="order", by="order_id")
    assert serve(world, read, {"order_id": "", "status": ""}, {}, {"order_id": "#W1"}).data["status"] == "cancelled"


def test_a_planned_failure_never_says_not_found_for_what_the_world_holds(wiki) -> None:
    """A scenario's planned failure on a tool with a world: a "not found" for a doc an earlier result showed
    (memory 90 read back, then "Memory with ID 90 not found" on the next call) contradicts the state, so it is
    not served; a planned failure on something not shown yet still is, and an id the world lacks gets the
    tool's own not-found."""
    server, pack = wiki
    sc = Scenario(id="scn_f", index=0, server=server.id, tools=("get_doc",), persona="", turns=((0,),), fail=(0, 2))
    runtime = offline_runtime(sc, pack, "general", 0)
    assert "not found" in _call(runtime, server, "get_doc", doc_id="DOC-1002")["error"]  # planned, nothing shown
    assert _call(runtime, server, "get_doc", doc_id="DOC-1003")["title"]  # step 1: read, so now shown
    assert _call(runtime, server, "get_doc", doc_id="DOC-1003")["title"]  # step 2 planned to fail: it was shown
    assert "not found" in _call(runtime, server, "get_doc", doc_id="DOC-4040")["error"]  # not in the world


def test_a_create_sets_a_field_from_inside_an_argument() -> None:
    """A collection created with a vector config lists with the vectorizer that config names, not the template's."""
    spec = World.model_validate(
        {"entities": {"collection": {"id": "class", "seed": [{"class": "Article", "vectorizer": "text2vec-openai"}]}}}
    )
    world = WorldState(spec, "k")
    create = Touch(
        op="create", entity="collection", set={"class": "class", "vectorConfig.vector_name.vectorizer": "vectorizer"}
    )
    config = {"vector_name": {"vectorizer": "text2vec-cohere"}}
    for sent in ({"class": "LegalClause", "vectorConfig": config}, {"class": "Recipe", "vectorConfig": {}}):
        serve(world, create, {"class": "{class}"}, sent, sent)  # Recipe's config names no vectorizer: none set
    listing = Touch(op="list", entity="collection", path="classes")
    shape = {"classes": [{"class": "", "vectorizer": "text2vec-openai"}]}
    shown = {c["class"]: c["vectorizer"] for c in serve(world, listing, shape, {}, {}).data["classes"]}
    assert shown["LegalClause"] == "text2vec-cohere"
    assert "vectorizer" not in world.state["collection"]["Recipe"]


def test_an_update_sent_as_json_text_keeps_the_record_structured() -> None:
    """A storage write sends its value as JSON text; the record a later read shows is still an object, with it."""
    seed = [{"key": "user_1", "value": {"content": {"coins": 10, "level": 2}}}]
    world = WorldState(World.model_validate({"entities": {"record": {"id": "key", "seed": seed}}}), "k")
    write = Touch(op="update", entity="record", by="key", set={"value": "value"})
    sent = {"key": "user_1", "value": '{"content": {"coins": 1500, "level": 8}}'}
    serve(world, write, {"key": "{key}"}, sent, sent)
    read = Touch(op="read", entity="record", by="key")
    shown = serve(world, read, {"key": "", "value": {}}, {}, {"key": "user_1"}).data
    assert shown["value"] == {"content": {"coins": 1500, "level": 8}}
    text = {"key": "user_1", "value": "not json"}  # text that is no object is written as it came
    serve(world, write, {"key": "{key}"}, text, text)
    assert world.state["record"]["user_1"]["value"] == "not json"


def test_a_write_of_several_writes_each_item() -> None:
    """Tenants created, updated and deleted in lists are each seen by the next list; an unknown one fails the call and
    changes nothing."""
    seed = [{"name": "acme", "activityStatus": "ACTIVE"}, {"name": "globex", "activityStatus": "ACTIVE"}]
    world = WorldState(World.model_validate({"entities": {"tenant": {"id": "name", "seed": seed}}}), "k")
    status = {"activityStatus": "activityStatus"}
    fill = {"activityStatus": "ACTIVE"}  # what the service gives a tenant created without a status
    create = Touch(op="create", entity="tenant", each="tenants", set={"name": "name", **status}, assign=fill)
    update = Touch(op="update", entity="tenant", each="tenants", by="name", set=status)
    delete = Touch(op="delete", entity="tenant", each="tenantIds", by="tenantIds")
    echo = "{tenants}"
    for touch, sent in [
        (create, {"tenants": [{"name": "hooli"}, {"name": "initech", "activityStatus": "COLD"}]}),
        (update, {"tenants": [{"name": "acme", "activityStatus": "INACTIVE"}]}),
    ]:
        assert serve(world, touch, echo, sent, sent).data == sent["tenants"]  # the batch echoed
    assert serve(world, delete, {"deleted": "{tenantIds}"}, *[{"tenantIds": ["globex"]}] * 2).missing is None
    lost = {"tenantIds": ["hooli", "nobody"]}
    assert serve(world, delete, {"deleted": "{tenantIds}"}, lost, lost).missing == "nobody"
    listing = Touch(op="list", entity="tenant")
    shown = serve(world, listing, [{"name": "", "activityStatus": ""}], {}, {}).data
    assert {t["name"]: t["activityStatus"] for t in shown} == {"acme": "INACTIVE", "hooli": "ACTIVE", "initech": "COLD"}


def test_a_read_shows_the_record_its_argument_names_and_the_default_one_unsent() -> None:
    fees = {"dailyFees": {"total_24h": 900, "total_7d": 6300}, "dailyRevenue": {"total_24h": 150, "total_7d": 1050}}
    spec = World.model_validate({"entities": {"fees": {"id": "slug", "seed": [{"slug": "uniswap", **fees}]}}})
    world = WorldState(spec, "k")
    read = Touch(op="read", entity="fees", by="protocol", part="data_type")
    shape = {"protocol": "{protocol}", "data_type": "{data_type}", "total_24h": 0, "total_7d": 0}
    revenue = {"protocol": "uniswap", "data_type": "dailyRevenue"}
    assert serve(world, read, shape, revenue, revenue).data["total_7d"] == 1050
    unsent = {"protocol": "uniswap"}  # the runtime's args hold the schema default
    got = serve(world, read, shape, {**unsent, "data_type": "dailyFees"}, unsent).data
    assert (got["total_24h"], got["total_7d"], got["data_type"]) == (900, 6300, "dailyFees")
