"""A world's searches and lists keep what the call asked for: a search looks only at the fields it names
(``within``); a filter keeps entities holding the value or named in a list of values (``where``: a value the
touch fixes); a sort field the call names without a direction sorts the way the list does (``order``) or
``sort_dir`` says; ``page`` skips the pages before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synth.export.card.worlds import Op, Tally, add
from synth.packs.check import check_pack
from synth.packs.load import usable_packs
from synth.packs.model import Touch, World
from synth.packs.world import WorldState, serve
from synth.registry import load_registry

WIKI = Path(__file__).parent / "fixtures" / "worlds"

ROUTES = World.model_validate(
    {
        "entities": {
            "route": {
                "id": "route",
                "seed": [
                    {"route": "1", "origin": "CHUK YUEN ESTATE", "destination": "STAR FERRY", "stops": ["LOK FU"]},
                    {"route": "2", "origin": "STAR FERRY", "destination": "MEI FOO", "stops": ["JORDAN ROAD"]},
                    {"route": "5C", "origin": "TSZ WAN SHAN", "destination": "STAR FERRY", "stops": ["STAR FERRY"]},
                ],
            },
            "coin": {
                "id": "id",
                "seed": [
                    {"id": "bitcoin", "symbol": "BTC", "price": 101000.5, "chains": ["Bitcoin"]},
                    {"id": "ethereum", "symbol": "ETH", "price": 3160.2, "chains": ["Ethereum", "Base"]},
                    {"id": "solana", "symbol": "SOL", "price": 217.4, "chains": ["Solana"]},
                    {"id": "aave", "symbol": "AAVE", "price": 176.1, "chains": ["Ethereum", "Base"]},
                ],
            },
        }
    }
)
LIST = {"items": [{"route": "", "origin": "", "destination": ""}] * 3}
COINS = {"coins": [{"symbol": "", "price": 0}]}


def _serve(touch: Touch, template: Any, **given: Any) -> Any:
    return serve(WorldState(ROUTES, "k"), touch, template, given, given).data


def test_a_search_within_a_field_finds_only_what_that_field_says() -> None:
    to = Touch(op="search", entity="route", match=["destination"], within=["destination"], path="items")
    assert [r["route"] for r in _serve(to, LIST, destination="Star Ferry")["items"]] == ["1", "5C"]
    anywhere = Touch(op="search", entity="route", match=["destination"], path="items")  # origin and stops too
    assert [r["route"] for r in _serve(anywhere, LIST, destination="Star Ferry")["items"]] == ["1", "2", "5C"]


def test_a_list_field_is_searched_item_by_item_and_two_letter_words_count() -> None:
    stops = Touch(op="search", entity="route", match=["stop"], within=["stops"], path="items")
    spec = World.model_validate(
        {
            "entities": {
                "route": {
                    "id": "route",
                    "seed": [
                        {"route": "2F", "stops": ["TSZ WAN SHAN (CENTRAL)", "WONG TAI SIN STATION"]},
                        {"route": "74B", "stops": ["TAI WAI STATION", "TAI PO CENTRAL"]},
                        {"route": "1A", "stops": ["SAN PO KONG", "STAR FERRY"]},
                    ],
                }
            }
        }
    )
    found = serve(WorldState(spec, "k"), stops, LIST, {"stop": "Tai Po Central"}, {"stop": "Tai Po Central"}).data
    assert [r["route"] for r in found["items"]] == ["74B"]  # not 2F, whose two stops hold the three words
    found = serve(WorldState(spec, "k"), stops, LIST, {"stop": "Tai Po"}, {"stop": "Tai Po"}).data
    assert [r["route"] for r in found["items"]] == ["74B"]  # "po" counts, and only whole: not "pokong"


def test_a_search_can_return_bare_ids() -> None:
    ids = Touch(op="search", entity="route", match=["stop"], within=["stops"], path="ids", fields={"": "route"})
    found = serve(
        WorldState(ROUTES, "k"), ids, {"total": 9, "ids": [1, 2, 3]}, {"stop": "Star Ferry"}, {"stop": "Star Ferry"}
    )
    assert found.data == {"total": 1, "ids": ["5C"]}  # the one route whose stops hold it, and a total that agrees


def test_a_filter_keeps_entities_holding_the_value_or_named_in_the_values_sent() -> None:
    on = Touch(op="list", entity="coin", filter={"chain": "chains"}, path="coins")
    assert [c["symbol"] for c in _serve(on, COINS, chain="base")["coins"]] == ["ETH", "AAVE"]
    layer_one = Touch(op="list", entity="coin", where={"chains": ["Ethereum", "Base"]}, path="coins")
    assert [c["symbol"] for c in _serve(layer_one, COINS)["coins"]] == ["ETH", "AAVE"]  # whatever the call says
    some = Touch(op="list", entity="coin", filter={"assets": "symbol"}, path="coins")
    assert [c["symbol"] for c in _serve(some, COINS, assets=["SOL", "BTC"])["coins"]] == ["BTC", "SOL"]


def test_a_sort_field_sent_bare_sorts_the_way_the_list_does() -> None:
    ranked = Touch(op="list", entity="coin", sort="sort_by", order="-price", path="coins")
    assert [c["symbol"] for c in _serve(ranked, COINS, sort_by="price")["coins"]] == ["BTC", "ETH", "SOL", "AAVE"]
    assert [c["symbol"] for c in _serve(ranked, COINS, sort_by="price asc")["coins"]] == ["AAVE", "SOL", "ETH", "BTC"]
    paged = Touch(op="list", entity="coin", sort="sort_by", sort_dir="way", limit="n", page="page", path="coins")
    assert [c["symbol"] for c in _serve(paged, COINS, sort_by="price", way="desc", n=3, page=1)["coins"]] == [
        "BTC",
        "ETH",
        "SOL",
    ]
    assert [c["symbol"] for c in _serve(paged, COINS, sort_by="price", way="desc", n=3, page=2)["coins"]] == ["AAVE"]
    plain = Touch(op="list", entity="coin", sort="sort_by", path="coins")  # no order: a bare field is ascending
    assert [c["symbol"] for c in _serve(plain, COINS, sort_by="price")["coins"]] == ["AAVE", "SOL", "ETH", "BTC"]


def test_the_checker_names_a_within_field_the_kind_lacks() -> None:
    registry = load_registry(WIKI)
    (server,) = registry.servers
    pack = usable_packs(registry, WIKI).by_server[server.id]
    search = pack.tools["search_docs"]
    assert search.world is not None
    within = search.model_copy(update={"world": search.world.model_copy(update={"within": ["headline"]})})
    problems = check_pack(pack.model_copy(update={"tools": {**pack.tools, "search_docs": within}}), server, "x")
    assert any("doc has no field 'headline'" in p.line() for p in problems if p.severity == "error"), problems


def test_search_filler_judges_only_items_that_show_what_the_search_read() -> None:
    """The routes at a stop are found by their stops, which the items do not show: not filler; a search whose
    items show the field it read and hold none of the query's words is."""
    conv = {
        "scenario": {"server": "@t/bus"},
        "messages": [
            {"role": "assistant", "tool_calls": [{"id": "a", "name": "at_stop", "arguments": {"stop": "Lok Fu"}}]},
            {
                "role": "tool",
                "tool_call_id": "a",
                "content": '{"routes": [{"route": "1", "destination": "STAR FERRY"}]}',
            },
            {"role": "assistant", "tool_calls": [{"id": "b", "name": "to", "arguments": {"destination": "Mei Foo"}}]},
            {
                "role": "tool",
                "tool_call_id": "b",
                "content": '{"routes": [{"route": "2", "destination": "STAR FERRY"}]}',
            },
        ],
    }
    touches = {
        ("@t/bus", "at_stop"): Op("search", "route", ("stop",), "routes", within=("stop_names",)),
        ("@t/bus", "to"): Op("search", "route", ("destination",), "routes", within=("destination",)),
    }
    tally = Tally()
    add(conv, touches, {}, tally)
    assert (tally.search_items, tally.filler) == (1, 1)  # only the destination search is judged, and it is filler


def test_a_read_whose_record_names_entity_fields_its_own_way_passes_the_path_rule() -> None:
    """{"document_id", "meta": {...}} with fields {document_id: id} shows the doc at the top: no world-path error;
    without fields the doc's fields are only under "meta", which the rule names."""
    registry = load_registry(WIKI)
    (server,) = registry.servers
    pack = usable_packs(registry, WIKI).by_server[server.id]
    get = pack.tools["get_doc"]
    assert get.world is not None
    renamed = get.model_copy(
        update={
            "results": [{"document_id": "{doc_id}", "meta": {"title": "...", "status": "draft"}}],
            "answers": ["It is {r.meta.title}.", "That doc is {r.meta.title}."],
            "world": get.world.model_copy(update={"fields": {"document_id": "id"}}),
        }
    )
    problems = check_pack(pack.model_copy(update={"tools": {**pack.tools, "get_doc": renamed}}), server, "x")
    assert not [p for p in problems if p.severity == "error" and "world-path" in p.line()], problems
    unnamed = renamed.model_copy(update={"world": get.world})
    problems = check_pack(pack.model_copy(update={"tools": {**pack.tools, "get_doc": unnamed}}), server, "x")
    assert any("world-path" in p.line() for p in problems if p.severity == "error"), problems


BARS = World.model_validate(
    {
        "entities": {
            "bar": {
                "id": "id",
                "seed": [
                    {"id": f"{s} 2026-03-{d:02d}", "symbol": s, "Date": f"2026-03-{d:02d}", "Close": c + d}
                    for s, c in (("AAPL", 250.0), ("HON", 190.0))
                    for d in (9, 10, 11, 12, 13, 16)
                ],
            }
        }
    }
)


def test_a_read_names_one_of_the_entities_its_filter_keeps() -> None:
    """A day's close of one stock: named by its date among that stock's sessions; a day with no session fails."""
    on = Touch(op="read", entity="bar", by="date", key="Date", filter={"symbol": "symbol"}, fields={"close": "Close"})
    shape = {"symbol": "", "date": "{date}", "close": 0.0}
    got = serve(
        WorldState(BARS, "k"),
        on,
        shape,
        {"symbol": "HON", "date": "2026-03-12"},
        {"symbol": "HON", "date": "2026-03-12"},
    )
    assert got.data == {"symbol": "HON", "date": "2026-03-12", "close": 202.0}  # HON's, not AAPL's 262.0
    weekend = {"symbol": "HON", "date": "2026-03-14"}
    assert serve(WorldState(BARS, "k"), on, shape, weekend, weekend).missing == "2026-03-14"


def test_a_range_through_an_end_date_includes_it_and_shows_the_whole_range() -> None:
    """An inclusive end (``through``) keeps the end date's session; a tool with no page size shows every session
    of the range, however few the template shows."""
    span = Touch(
        op="list",
        entity="bar",
        filter={"symbol": "symbol"},
        since={"start": "Date"},
        through={"end": "Date"},
        path="prices",
    )
    shape = {"prices": [{"Date": "", "Close": 0.0}] * 2}
    asked = {"symbol": "AAPL", "start": "2026-03-10", "end": "2026-03-13"}
    got = serve(WorldState(BARS, "k"), span, shape, asked, asked).data
    assert [p["Date"] for p in got["prices"]] == ["2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13"]
    assert [p["Close"] for p in got["prices"]] == [260.0, 261.0, 262.0, 263.0]
