"""The offline fallback (a server without a pack) is plain but correct (issue 10, point 4).

Every case is a real server from the Toucan crawl of Smithery (tests/fixtures/fallback), and each test
pins a defect found by reading fallback conversations: a value that does not fit its parameter, an
optional value nobody asked for, a result that does not fit its tool or is borrowed from another.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from synth.offline.writer import write
from synth.records import Scenario, ServerSpec
from synth.registry import load_registry
from synth.simulator.values.params import arg_docs, documented
from synth.wording import intent

FIXTURES = Path(__file__).parent / "fixtures"
SEEDS = range(12)


@pytest.fixture(scope="module")
def servers() -> dict[str, ServerSpec]:
    return {s.id: s for s in load_registry(FIXTURES / "fallback").servers}


def calls(server: ServerSpec, tool: str, seeds=SEEDS) -> list[tuple[dict[str, Any], Any]]:
    """(arguments, parsed result) of one call of ``tool`` per seed, as the fallback writes it."""
    out = []
    for seed in seeds:
        scenario = Scenario(id=f"scn_{tool}_{seed}", index=seed, server=server.id, tools=(tool,), persona="")
        _, plan, trajectory = write(scenario, server, "general", seed)
        result = next(m.content for m in trajectory.messages if m.role == "tool")
        try:
            data = json.loads(result)
        except ValueError:
            data = result
        out.append((plan.steps[0].arguments, data))
    return out


def test_parameters_documented_only_in_the_docstring_get_that_meaning(servers):
    """FastMCP servers describe parameters under ``Args:``; a bare ``{"type": "integer"}`` then has a range."""
    quran = servers["@HarunGuclu/mcp_quran"]
    juz = quran.tool("get_quran_juz")
    assert arg_docs(juz.description, frozenset(juz.properties))["juz_no"] == "Cüz numarası (1-30) / Juz number (1-30)"
    props = documented(juz, quran.tools)
    assert "(1-30)" in props["juz_no"]["description"]
    # the edition is documented with an example in a sibling tool only; it is the value, not a stock title
    assert "ben-muhiuddinkhan" in props["edition_name"]["description"]
    for args, _ in calls(quran, "get_quran_juz"):
        assert 1 <= args["juz_no"] <= 30
        assert args["edition_name"] == "ben-muhiuddinkhan"
    for args, _ in calls(quran, "get_quran_verse"):
        assert 1 <= args["chapter_no"] <= 114


def test_the_descriptions_examples_win_over_the_name_and_format(servers):
    ig = servers["@handoing/ig-download-mcp-server"]
    for args, _ in calls(ig, "download"):
        assert args["url"].startswith("https://www.instagram.com/p/"), args  # not any URL from a stock list
        assert args["path"] in ("/Users/project/vue", "/Users/download"), args
    mysql = servers["@ojihmkn/mysql_mcp"]
    for args, _ in calls(mysql, "connect_database"):
        assert args["host"] in ("localhost", "127.0.0.1"), args  # "例如：localhost 或 127.0.0.1"
        assert " " not in args["user"], args  # a database login, not a person's full name
    for _, data in calls(mysql, "connect_database", range(4)):
        assert data["server_version"].startswith("MySQL"), data  # the engine the tool names


def test_a_name_to_greet_is_a_persons_name(servers):
    for args, data in calls(servers["@huangtan007/smithery-hello"], "hello"):
        assert args["name"] in data["message"], data  # "Said hello to Ana Reis", not "to someone"
        assert re.fullmatch(r"(?:Mrs?\. |Dr\. |Ms\. )?[A-Z][a-z'.]+(?: [A-Z][A-Za-z'.-]+)+", args["name"]), args


def test_optional_values_only_when_the_request_asks_for_them(servers):
    """Optional parameters stay at their defaults unless the person brings one up; never one equal to its default."""
    optional = total = 0
    for server in servers.values():
        for tool in server.tools:
            for args, _ in calls(server, tool.name, range(6)):
                extra = [p for p in args if p not in tool.required]
                assert len(extra) <= 1, (tool.name, args)
                for p in extra:
                    assert args[p] != (tool.properties.get(p) or {}).get("default"), (tool.name, p, args)
                optional += bool(extra)
                total += 1
    assert optional / total <= 0.3, (optional, total)


def test_counting_formulas_are_computed(servers):
    pymcp = servers["@anirbanbasu/pymcp"]
    for args, data in calls(pymcp, "permutations"):
        assert args.get("k", 0) <= args["n"], args  # "k items from n items": nobody asks for more than there are
        assert data["result"] == math.perm(args["n"], args.get("k", args["n"])), (args, data)
    for args, data in calls(servers["@chuanmingliu/servers"], "add"):
        assert data["result"] == args["a"] + args["b"], (args, data)  # adding numbers creates nothing


def test_a_draw_claims_no_bounds_the_call_did_not_give(servers):
    for _args, data in calls(servers["@anirbanbasu/pymcp"], "vonmises_random"):
        assert set(data) >= {"value"} and "min" not in data and "max" not in data, data
        assert 0 <= data["value"] < 2 * math.pi, data  # an angle in radians


def _records(value: Any):
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _records(v)
    elif isinstance(value, list):
        for v in value:
            yield from _records(v)


@pytest.mark.parametrize("folder", ["fallback", "registry/real"])
def test_no_tool_returns_the_catch_all_record(folder):
    """An unknown tool's result says what any such thing has, not owners and dates borrowed from nowhere."""
    for server in load_registry(FIXTURES / folder).servers:
        for tool in server.tools:
            for _args, data in calls(server, tool.name, range(3)):
                for record in _records(data):
                    assert not {"name", "owner", "created_at", "updated_at"} <= set(record), (tool.name, record)
                    if "period_start" in record:  # usage statistics for a month belong to tools about usage
                        assert re.search(
                            r"usage|visit|view|daily|weekly|monthly|period|analytics|activity|trend",
                            f"{tool.name} {tool.description}".lower(),
                        ), (tool.name, record)


def test_a_search_of_things_returns_those_things(servers):
    for _args, data in calls(servers["@ceydasimsekk/open_book_mcp"], "search_books_tool"):
        assert "wikipedia" not in json.dumps(data).lower(), data
        assert data["books"] and all("title" in b for b in data["books"]), data


@pytest.mark.parametrize(
    "server, tool, expected",
    [
        (
            "@HarunGuclu/mcp_quran",
            "get_quran_verse",
            "get the specified verse",
        ),  # not "look up belirtilen ayeti getirir"
        ("@handoing/ig-download-mcp-server", "download", "download"),  # not "look up instagram downloader"
        ("@huangtan007/smithery-hello", "hello", "say hello to someone"),
        ("@mcp2everything/mcp2serial", "led_control", "execute led control command"),  # no tool name in a request
    ],
)
def test_a_requests_intent_is_what_the_tool_does(servers, server, tool, expected):
    assert intent(servers[server].tool(tool)) == expected


def test_a_result_that_reports_success_is_said_as_done_not_dumped(servers):
    """Read in a run of After Effects' server: "Message Applied an effect to a layer in After Effects and
    completed at 2026-06-01T09:00:14Z." A person says it worked, in the service's words, without the flag
    and the time of the change; two tools that do the same thing are never one request said twice."""
    server = servers["@Dakkshin/after-effects-mcp"]
    for tool in ("apply-effect", "setLayerExpression", "mcp_aftereffects_applyEffect"):
        for seed in SEEDS:
            scenario = Scenario(id=f"scn_{tool}_{seed}", index=seed, server=server.id, tools=(tool,), persona="")
            _, _, trajectory = write(scenario, server, "general", seed)
            answer = trajectory.messages[-1].content or ""
            assert not re.search(r"\b(message|status|success|completed at|updated at)\b", answer, re.I), answer
            assert "T09:" not in answer and answer.strip()


def test_tools_that_do_the_same_thing_are_not_asked_for_in_one_scenario():
    from synth.scenarios.planner import Planner

    registry = load_registry(FIXTURES / "fallback")
    server = next(s for s in registry.servers if s.id == "@Dakkshin/after-effects-mcp")
    said = {t.name: intent(t) for t in server.tools}
    registry = registry.model_copy(update={"servers": (server,)})
    planner = Planner(registry, seed=3)
    planned = [planner.scenario(i).tools for i in range(600)]
    assert sum(len(tools) > 1 for tools in planned) > 50
    for tools in planned:
        intents = [said[t] for t in tools]
        assert len(intents) == len(set(intents)), tools


def test_a_simulated_event_ends_after_it_starts():
    """An event starting late in the day ended "at 00:42" of the same day: an hour later rolls into the next."""
    gcal = {s.id: s for s in load_registry(FIXTURES / "tiny_registry").servers}["@MaheshtheDev/gcal-mcp"]
    events = [
        e
        for _, data in calls(gcal, "list-events", range(40))
        for e in (data.get("events", []) if isinstance(data, dict) else [])
    ]
    assert any(e["start"][11:13] == "23" for e in events), "no late event drawn: the test checks nothing"
    assert all(e["start"] < e["end"] for e in events)


def test_a_natural_language_query_is_a_question_and_a_filtered_result_agrees_with_the_filter(servers):
    """Read in a run without a pack: SQL about customers sent to "a natural language query about Pokémon",
    and a random Pokémon "of type fire" that came back water and ice."""
    poke = servers["@NaveenBandarage/poke-mcp"]
    for args, _ in calls(poke, "pokemon-query"):
        assert "select" not in args["query"].lower() and "pokémon" in args["query"].lower(), args
        assert args["query"].rstrip().endswith(("?", ".")), args
    for args, data in calls(poke, "random-pokemon-by-type"):
        assert args["type"].lower() in [t.lower() for t in data["types"]], (args, data)


def test_a_unit_in_a_field_name_is_said_after_the_number():
    from synth.offline.language import fact

    assert fact("duration_s", 300) == "duration 300 s"
    assert fact("sample_rate_hz", 44100) == "sample rate 44100 Hz"
    assert fact("bitrate_kbps", 128) == "bitrate 128 kbps"
