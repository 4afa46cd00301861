"""The world's rules (issue 42), one test each, on packs written as a model writes them for servers synth had
not seen (tests/fixtures/world_rules: a docker server, LeetCode, Data.gov, a chess board): writes are seen,
searches match, relations hold, order is computed, a one-object state is followed, and ``pack check`` names a
tool that describes world entities outside the world. The figures of synth.export.card.worlds are read off a
real run of those packs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from synth.config import Settings
from synth.export.card.worlds import figures
from synth.packs.check import check_pack
from synth.packs.load import usable_packs
from synth.packs.model import Pack, Touch
from synth.pipeline import generate
from synth.records import Scenario, ServerSpec
from synth.registry import load_registry
from synth.runtime.pack import PackRuntime
from synth.runtime.pick import offline_runtime

FIXTURE = Path(__file__).parent / "fixtures" / "world_rules"


@pytest.fixture(scope="module")
def packed() -> dict[str, tuple[ServerSpec, Pack]]:
    registry = load_registry(FIXTURE)
    packs = usable_packs(registry, FIXTURE)
    assert not [p for p in packs.problems if p.severity != "info"], [p.line() for p in packs.problems]
    return {s.id.split("/")[-1]: (s, packs.by_server[s.id]) for s in registry.servers}


class Conversation:
    """One scenario's calls on the real pack runtime over a fresh world."""

    def __init__(self, server: ServerSpec, pack: Pack, scenario: str = "scn_rules"):
        sc = Scenario(id=scenario, index=0, server=server.id, tools=(), persona="", turns=((0,),), fail=())
        runtime = offline_runtime(sc, pack, "general", 0)
        assert isinstance(runtime, PackRuntime) and runtime.world is not None
        self.server, self.runtime = server, runtime

    def __call__(self, tool: str, **args: Any) -> Any:
        spec = self.server.tool(tool)
        assert spec is not None
        done = self.runtime.call(spec, args)
        return json.loads(done.content) if not done.is_error else {"error": done.content}


def _with(pack: Pack, tool: str, **touch: Any) -> Pack:
    entry = pack.tools[tool]
    assert entry.world is not None
    changed = entry.model_copy(update={"world": entry.world.model_copy(update=touch)})
    return pack.model_copy(update={"tools": {**pack.tools, tool: changed}})


# --- writes are seen -----------------------------------------------------------------------------


def test_a_create_reports_only_what_the_call_sent_and_the_next_list_shows_it(packed) -> None:
    server, pack = packed["docker-mcp"]
    call = Conversation(server, pack)
    made = call("create-container", image="adminer:latest")
    assert made["image"] == "adminer:latest" and made["ports"] == {}  # no pool port nobody asked for
    assert made["name"] not in pack.tools["create-container"].values["name"]  # type: ignore[operator]
    assert made["name"].count("-") == 1  # a name the service assigns, shaped like the ones it holds
    listed = call("list-containers")["containers"]
    assert listed[0]["name"] == made["name"] and listed[0]["image"] == "adminer:latest"  # newest first
    assert len(listed) == 11  # every container: the tool has no page size (the template shows four to six)
    named = call("create-container", image="mysql:8.0", name="staging-db", ports={"3307": "3306"})
    assert (named["name"], named["ports"]) == ("staging-db", {"3307": "3306"})
    assert call("get-logs", container_name="staging-db")["name"] == "staging-db"
    assert {c["name"] for c in call("list-containers")["containers"][:2]} == {"staging-db", made["name"]}


def test_a_write_the_pack_says_the_service_fills_uses_its_assign(packed) -> None:
    server, pack = packed["docker-mcp"]
    pack = _with(pack, "create-container", assign={"ports": {"32768": "80"}})
    made = Conversation(server, pack)("create-container", image="nginx:latest", name="web-2")
    assert made["ports"] == {"32768": "80"}


def test_a_failed_write_changes_nothing(packed) -> None:
    server, pack = packed["docker-mcp"]
    call = Conversation(server, pack)
    assert call.runtime.world is not None
    before = call.runtime.world.snapshot()
    assert "not found" in call("get-logs", container_name="no-such-box")["error"]
    assert call.runtime.world.snapshot() == before


# --- searches match ------------------------------------------------------------------------------


def _filler(pack: Pack) -> Pack:
    """The Data.gov pack as a model wrote it before the rule: its made-up datasets' titles and notes are Faker."""
    entry = pack.tools["package_search"]
    item = {"id": "{id:****-****}", "name": "{fake:word}-{fake:word}", "title": "{fake:catch_phrase}"}
    item |= {"organization": {"title": "{fake:company}"}, "num_resources": "{int:1-9}", "notes": "{fake:sentence}"}
    results = [{"success": True, "result": {"count": "{int:10-900}", "results": [{"$repeat": "3-5", "$item": item}]}}]
    return pack.model_copy(
        update={"tools": {**pack.tools, "package_search": entry.model_copy(update={"results": results})}}
    )


def test_an_open_search_makes_up_matches_about_the_query(packed) -> None:
    server, pack = packed["datagov-mcp-server"]
    for made in (pack, _filler(pack)):  # a filler template too: the engine titles its matches from the query
        found = Conversation(server, made)("package_search", q="earthquake", rows=5)["result"]
        titles = [d["title"] for d in found["results"]]
        assert len(titles) == 5 and titles[0] == "Earthquake Catalog"  # the seeded match first
        assert all("earthquake" in t.lower() for t in titles), titles  # never a catch phrase shown as a match
        again = Conversation(server, made)("package_search", q="earthquake", rows=5)["result"]
        assert again == found  # the same made-up datasets every time
    slugs = Conversation(server, _filler(pack))("package_search", q="earthquake", rows=5)["result"]["results"]
    assert all(d["name"].startswith("earthquake") for d in slugs)  # a made-up slug reads as its title


def test_the_checker_sends_back_filler_an_open_search_would_show_as_matches(packed) -> None:
    server, pack = packed["datagov-mcp-server"]
    lines = [p.line() for p in check_pack(_filler(pack), server, "x") if p.severity == "error"]
    assert len(lines) == 1 and "notes, title are a Faker phrase [world-search]" in lines[0], lines
    assert check_pack(pack, server, "x") == []


# --- relations hold ------------------------------------------------------------------------------


def test_a_field_naming_another_entity_agrees_with_it(packed) -> None:
    server, pack = packed["mcp-server-leetcode"]
    call = Conversation(server, pack)
    for user in ("lee215", "uwi", "tourist"):
        for sub in call("get-user-submissions", username=user, limit=6)["submissions"]:
            assert call("get-problem", titleSlug=sub["titleSlug"])["title"] == sub["title"]
    daily = call("get-daily-challenge")["question"]
    problem = call("get-problem", titleSlug=daily["titleSlug"])
    assert (
        (daily["title"], daily["difficulty"])
        == (problem["title"], problem["difficulty"])
        == (
            "Trapping Rain Water",
            "Hard",
        )
    )


def test_the_checker_names_a_ref_to_nothing(packed) -> None:
    server, pack = packed["mcp-server-leetcode"]
    assert pack.world is not None
    sub = pack.world.entities["submission"]
    broken = pack.world.model_copy(
        update={
            "entities": {**pack.world.entities, "submission": sub.model_copy(update={"refs": {"titleSlug": "quiz"}})}
        }
    )
    lines = [p.line() for p in check_pack(pack.model_copy(update={"world": broken}), server, "x")]
    assert any("'quiz' is not a kind of the world [world-refs]" in line for line in lines), lines


# --- order is computed ---------------------------------------------------------------------------


def test_a_list_that_claims_an_order_is_sorted_by_its_field(packed) -> None:
    server, pack = packed["mcp-server-leetcode"]
    subs = Conversation(server, pack)("get-user-submissions", username="lee215", limit=6)["submissions"]
    stamps = [s["timestamp"] for s in subs]
    assert len(stamps) > 2 and stamps == sorted(stamps, reverse=True)
    server, pack = packed["datagov-mcp-server"]
    call = Conversation(server, pack)
    counts = [g["package_count"] for g in call("group_list", order_by="package_count desc", limit=5)["result"]]
    assert counts == sorted(counts, reverse=True) and counts[0] == 2290
    names = [g["name"] for g in call("group_list", order_by="name", limit=12)["result"]]
    assert names == sorted(names)
    files = [
        d["num_resources"]
        for d in call("package_search", q="data", rows=4, sort="num_resources desc")["result"]["results"]
    ]
    assert files == sorted(files, reverse=True)


def test_the_checker_asks_for_the_order_a_description_claims(packed) -> None:
    server, pack = packed["docker-mcp"]
    spec = server.tool("list-containers")
    assert spec is not None
    claiming = spec.model_copy(update={"description": "List all Docker containers, newest first"})
    server = server.model_copy(update={"tools": tuple(claiming if t.name == spec.name else t for t in server.tools)})
    assert check_pack(pack, server, "x") == []  # the pack says "order": "-created"
    lines = [p.line() for p in check_pack(_with(pack, "list-containers", order=None), server, "x")]
    assert any("'newest first' but the list names no order [world-order]" in line for line in lines), lines


# --- one-object state ----------------------------------------------------------------------------


def test_a_one_object_world_is_followed_by_every_tool(packed) -> None:
    server, pack = packed["mcp-chess"]
    call = Conversation(server, pack)
    assert call("get_turn")["turn"] == "white"
    moved = call("make_move", move_san="e4")
    assert (moved["last_move"], moved["turn"], moved["history"]) == ("e4", "black", ["e4"])
    assert call("get_turn")["turn"] == "black"
    call("make_move", move_san="e5")
    board = call("get_board_visualization")
    assert (board["turn"], board["history"]) == ("white", ["e4", "e5"])
    call("new_game", user_plays_white=False)
    assert (call("get_turn")["turn"], call("get_board_visualization")["history"]) == ("white", [])
    assert "" not in board  # no id field on one object


# --- pack check ----------------------------------------------------------------------------------


def test_a_tool_describing_world_entities_outside_the_world_is_an_error(packed) -> None:
    server, pack = packed["mcp-server-leetcode"]
    outside = pack.tools["get-user-submissions"].model_copy(update={"world": None})
    lines = [
        p.line()
        for p in check_pack(
            pack.model_copy(update={"tools": {**pack.tools, "get-user-submissions": outside}}), server, "x"
        )
        if p.severity == "error"
    ]
    assert any(
        "describes problem entities (title, titleSlug) without the world" in ln and "[world-touch]" in ln
        for ln in lines
    )


def test_packs_written_for_the_old_format_still_load() -> None:
    touch = Touch.model_validate({"op": "read", "entity": "doc", "by": "doc_id"})
    assert touch.order is None and touch.assign == {} and touch.cycle == {}


# --- the figures, on a real run ------------------------------------------------------------------


def test_a_run_of_the_model_written_packs_keeps_one_state(tmp_path: Path) -> None:
    generate(Settings(servers=FIXTURE, out=tmp_path, n=60, seed=0))
    got = figures(tmp_path, FIXTURE)
    assert got["search_filler"]["of"] > 20 and got["search_filler"]["share"] == 0.0
    assert got["invented_echoes"]["of"] > 5 and got["invented_echoes"]["share"] == 0.0
    assert got["created_missing"]["share"] == 0.0


def test_pack_build_sends_a_tool_outside_the_world_back_and_takes_the_kind_its_fix_adds(packed) -> None:
    from synth.llm.base import ChatResponse
    from synth.packs.build import _Server, parse_answer

    server, pack = packed["mcp-server-leetcode"]
    assert pack.world is not None
    entries = {name: pack.tools[name].model_dump(mode="json", exclude_defaults=True) for name in ("get-problem",)}
    outside = pack.tools["get-user-submissions"].model_dump(mode="json", exclude_defaults=True)
    del outside["world"]
    del outside["values"]["username"]  # drawn from the user kind the first answer does not declare yet
    outside["values"]["username"] = ["lee215", "uwi"]
    problems = {"problem": pack.world.entities["problem"].model_dump(mode="json", exclude_defaults=True)}
    state = _Server(server)
    first = json.dumps({"tools": {**entries, "get-user-submissions": outside}, "world": {"entities": problems}})
    kept, messages = parse_answer(ChatResponse(content=first), ["get-problem", "get-user-submissions"], state)
    assert list(kept) == ["get-problem"]
    (line,) = messages["get-user-submissions"]
    assert "describes problem entities (title, titleSlug) without the world" in line and "[world-touch]" in line
    state.kept.update(kept)
    fixed = {**outside, "world": pack.tools["get-user-submissions"].model_dump(mode="json")["world"]}
    subs = pack.world.entities["submission"].model_dump(mode="json", exclude_defaults=True)
    second = json.dumps({"tools": {"get-user-submissions": fixed}, "world": {"entities": {"submission": subs}}})
    kept, messages = parse_answer(ChatResponse(content=second), ["get-user-submissions"], state)
    assert messages == {} and list(kept) == ["get-user-submissions"]
    assert state.world is not None and set(state.world.entities) == {"problem", "submission"}


def test_a_window_keeps_the_events_inside_it_in_start_order() -> None:
    root = Path(__file__).parents[1] / "registry"
    registry = load_registry(root)
    server = next(s for s in registry.servers if s.id == "@MaheshtheDev/gcal-mcp")
    pack = usable_packs(registry.model_copy(update={"servers": (server,)}), root).by_server[server.id]
    call = Conversation(server, pack)
    token = "ya29.a0ARW5m7uskz3lwati9y1kgcow7uuvb2dk1d"
    week = call("list-events", accessToken=token, timeMin="2026-05-05T00:00:00Z", timeMax="2026-05-12T00:00:00Z")
    starts = [e["start"]["dateTime"] for e in week["items"]]
    assert starts and starts == sorted(starts) and all("2026-05-05" <= s < "2026-05-12" for s in starts)
    month = call("list-events", accessToken=token, timeMin="2026-05-01T00:00:00Z", timeMax="2026-05-31T23:59:59Z")
    assert len(month["items"]) > len(starts)  # the tool has no page size unless maxResults is sent: every event
