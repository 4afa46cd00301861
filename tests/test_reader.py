"""The reader gates (synth.stages.reader, synth.stages.consistency): each finds the defect a careful reader
finds, passes the conversation that is right, and a default run counts them in the manifest and the card
and puts what it keeps for a person first in the review queue, with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.config import Settings
from synth.export.card.build import write_card
from synth.offline.packed import unpromised
from synth.pipeline import generate
from synth.records import Message, ServerSpec, ToolCall, ToolSpec
from synth.review.queue import read_queue
from synth.stages.consistency import conflicting_ids, derived_mismatch, mixed_owners
from synth.stages.reader import DECISIONS, decide, dropped, read, turns

REGISTRY = Path(__file__).parents[1] / "registry"


def _tool(name: str, **props: dict) -> ToolSpec:
    schema = {"type": "object", "properties": props, "required": list(props)}
    return ToolSpec(server="s", name=name, input_schema=schema, schema_hash="h")


SERVER = ServerSpec(
    id="s",
    name="s",
    source="s.json",
    tools=(
        _tool("get_order", order_id={"type": "string"}),
        _tool("list_orders"),
        _tool("update_order", order_id={"type": "string"}, status={"type": "string"}),
        _tool("fetch_article", pmid={"type": "string"}, call_benefit={"type": "string"}),
        _tool("search_stays", checkin={"type": "string"}, checkout={"type": "string"}),
    ),
)


def call(cid: str, name: str, **args: object) -> Message:
    return Message(role="assistant", tool_calls=(ToolCall(id=cid, name=name, arguments=args),))


def result(cid: str, data: object) -> Message:
    return Message(role="tool", tool_call_id=cid, content=json.dumps(data))


def user(text: str) -> Message:
    return Message(role="user", content=text)


def said(text: str) -> Message:
    return Message(role="assistant", content=text)


ORDER = {"id": "A-4512", "status": "shipped", "item": "kettle"}


def test_a_record_that_changes_between_two_reads_conflicts_unless_a_write_changed_it():
    both = [
        user("Where is order A-4512, and what else have I ordered?"),
        call("c1", "get_order", order_id="A-4512"),
        result("c1", ORDER),
        call("c2", "list_orders"),
        result("c2", {"orders": [{**ORDER, "status": "pending"}]}),
    ]
    assert conflicting_ids(both) == ["id A-4512: status 'shipped' then 'pending' (get_order, then list_orders)"]
    changed = [*both[:3], call("c3", "update_order", order_id="A-4512", status="pending"), *both[3:]]
    assert conflicting_ids(changed) == []
    assert conflicting_ids([*both[:3], call("c2", "list_orders"), result("c2", {"orders": [ORDER]})]) == []


def test_an_answer_that_names_fewer_items_than_were_asked_dropped_part_of_the_request():
    """ "Pull 3 stories": the call asks for 3, the result holds 3, and an answer naming 2 of them dropped one
    (read in the shipped registry's default run); naming all, or saying why fewer, passes."""
    stories = {
        "articles": [{"title": t, "url": f"https://news.example/{i}"} for i, t in enumerate(("Rain", "Sun", "Fog"))]
    }
    conversation = [
        user("Can you pull 3 stories for the weather section?"),
        call("c1", "get_news_by_topic", topic="weather", max_results=3),
        result("c1", stories),
        said('I pulled 3 articles: "Rain" leads, then "Sun".'),
    ]
    (line,) = dropped(turns(conversation))
    assert line == "turn 1: get_news_by_topic: 3 asked, the result holds 3 and the answer names 2"
    assert dropped(turns([*conversation[:3], said('Three stories: "Rain", "Sun" and "Fog".')])) == []
    assert dropped(turns([*conversation[:3], said('The first two: "Rain" and "Sun"; only those are new.')])) == []
    chained = [
        *conversation[:3],
        call("c2", "get_article", url="https://news.example/0"),
        result("c2", {"body": "Wet week"}),
    ]
    assert dropped(turns([*chained, said('"Rain" says: wet week.')])) == []  # a list searched to pick one
    fewer = {"articles": stories["articles"][:2]}  # the tool found 2: naming both is the whole answer
    assert dropped(turns([*conversation[:2], result("c1", fewer), conversation[3]])) == []


def test_an_id_written_as_a_number_and_as_a_string_is_one_record():
    """40076541 in one result and "40076541" in another are one story: a title that changes between them
    conflicts, and a write naming the id in either form clears it."""
    reads = [
        user("What's story 40076541 about, and who posted it?"),
        call("c1", "getStory", id=40076541),
        result("c1", {"id": 40076541, "title": "Show HN: a search engine", "by": "ingve"}),
        call("c2", "getItem", id="40076541"),
        result("c2", {"id": "40076541", "title": "Ask HN: reading?", "by": "ingve"}),
    ]
    assert conflicting_ids(reads) == [
        "id 40076541: title 'Show HN: a search engine' then 'Ask HN: reading?' (getStory, then getItem)"
    ]
    edited = [*reads[:3], call("c3", "updateStory", id="40076541", title="Ask HN: reading?"), *reads[3:]]
    assert conflicting_ids(edited) == []


def test_checkout_before_checkin_is_a_derived_mismatch():
    wrong = [user("A stay in Lisbon"), call("c1", "search_stays", checkin="2026-07-20", checkout="2026-07-08")]
    assert derived_mismatch(wrong) == ["search_stays: checkout '2026-07-08' is before checkin '2026-07-20'"]
    right = [user("A stay in Lisbon"), call("c1", "search_stays", checkin="2026-07-08", checkout="2026-07-20")]
    assert derived_mismatch(right) == []


def test_an_amount_lower_at_the_end_of_its_window_is_no_mismatch():
    """A TVL that fell over the window (start_tvl above end_tvl) is data, not an end before its start; a
    timestamp window that ends before it starts still is one, and so is a minimum above its maximum."""
    fell = {"protocol": "compound-v3", "summary": {"start_tvl": 2148000000, "end_tvl": 2012870505}}
    assert derived_mismatch([call("c1", "get_historical_tvl"), result("c1", fell)]) == []
    window = call("c2", "get_chain_tvl", start_timestamp=1775001600, end_timestamp=1767225600)
    assert derived_mismatch([window]) == [
        "get_chain_tvl: end_timestamp 1767225600 is before start_timestamp 1775001600"
    ]
    assert derived_mismatch([call("c3", "search", min_tvl=500, max_tvl=100)]) == [
        "search: max_tvl 100 is before min_tvl 500"
    ]


def test_an_event_that_ends_before_it_starts_on_the_same_day_is_a_derived_mismatch():
    """The fallback's calendar once ended a 23:42 event at 00:42 of the same day; the gate compared days only."""
    event = {"eventId": "e1", "start": "2026-06-03T23:42:23Z", "end": "2026-06-03T00:42:23Z"}
    assert derived_mismatch([call("c1", "list_events"), result("c1", {"events": [event]})]) == [
        "result: end '2026-06-03T00:42:23Z' is before start '2026-06-03T23:42:23Z'"
    ]
    fixed = {**event, "end": "2026-06-04T00:42:23Z"}
    assert derived_mismatch([call("c1", "list_events"), result("c1", {"events": [fixed]})]) == []


def test_an_answer_that_says_nothing_of_one_request_drops_it():
    messages = (
        user("What's the status of A-4512, and list my orders?"),
        Message(
            role="assistant",
            tool_calls=(
                ToolCall(id="c1", name="get_order", arguments={"order_id": "A-4512"}),
                ToolCall(id="c2", name="list_orders", arguments={}),
            ),
        ),
        result("c1", ORDER),
        result("c2", {"orders": [{"id": "B-0099", "status": "delivered", "item": "toaster"}]}),
    )
    dropped = read((*messages, said("Your orders: B-0099, a toaster, delivered.")), SERVER)["dropped_request"]
    assert dropped == ["turn 1: the answer says nothing of get_order's result"]
    whole = said("A-4512 (the kettle) has shipped. Your other order, B-0099, was delivered.")
    assert read((*messages, whole), SERVER)["dropped_request"] == []


def test_an_answer_that_speaks_of_the_result_but_not_of_the_fields_asked_drops_the_request():
    """The registry's Ping An Bank turn: total assets and shareholders' equity asked, deposits answered."""
    sheet = {"report_date": "2026-03-31", "total_assets": 5912340000000.0, "shareholders_equity": 513580000000.0}
    sheet["deposit_liabilities"] = 3745210000000.0
    messages = (
        user("What were total assets and shareholders' equity at Ping An Bank (000001) in the latest report?"),
        call("c1", "get_order", order_id="000001"),
        result("c1", [sheet]),
    )
    off = said("Deposits at 000001 reached 3745210000000 yuan on 2026-03-31.")
    assert read((*messages, off), SERVER)["dropped_request"] == [
        "turn 1: the request asks for total_assets, shareholders_equity and the answer gives none"
    ]
    right = said("On 2026-03-31: total assets 5,912,340,000,000 yuan, shareholders' equity 513,580,000,000.")
    assert read((*messages, right), SERVER)["dropped_request"] == []
    # a field the user gave is not asked for: the answer need not repeat "an albumin of 3"
    echo = (user("Correct a calcium of 8.4 for a patient albumin of 3."), call("c2", "get_order", order_id="x"))
    calcium = result("c2", {"corrected_calcium": 9.2, "patient_albumin": 3.0})
    assert read((*echo, calcium, said("Corrected calcium: 9.2 mg/dL.")), SERVER)["dropped_request"] == []


def test_a_conversation_about_two_customers_records_mixes_owners():
    """The store's defect: the user identified as one customer, and the return made on another's order."""
    found = call("c1", "get_order", order_id="me@example.com")
    messages = [
        user("Return the kettle from #W1; I'm me@example.com."),
        Message(role="assistant", tool_calls=(ToolCall(id="c1", name="find_user_id_by_email", arguments={}),)),
        Message(role="tool", tool_call_id="c1", content=json.dumps("jay_thompson_1022")),
        call("c2", "update_order", order_id="#W1", status="return requested"),
        result("c2", {"order_id": "#W1", "user_id": "aaron_cordova_7181", "status": "return requested"}),
    ]
    assert mixed_owners(messages) == [
        "user_id 'jay_thompson_1022' (find_user_id_by_email), then 'aaron_cordova_7181' (update_order)"
    ]
    own = {"order_id": "#W1", "user_id": "jay_thompson_1022", "status": "return requested"}
    assert mixed_owners([*messages[:4], result("c2", own)]) == [] and found.tool_calls
    assert DECISIONS["mixed_owners"] == "reject"


def test_asking_the_user_for_a_value_the_model_writes_or_a_tool_returned():
    found = read((user("x"),), SERVER, withheld=("0.call_benefit",), tools=("fetch_article",))
    assert found["asks_internal"] == ["asked the user for fetch_article's call_benefit, which the model writes"]
    messages = (
        user("List my orders"),
        call("c1", "list_orders"),
        result("c1", {"orders": [ORDER]}),
        said("You have one order, A-4512 (a kettle), shipped."),
        user("Can you check on an order for me?"),
        said("Which order number?"),
        user("A-4512."),
        call("c2", "get_order", order_id="A-4512"),
        result("c2", ORDER),
        said("A-4512 has shipped."),
    )
    assert read(messages, SERVER)["asks_internal"] == [
        "turn 2: asked the user for A-4512, which a tool returned earlier"
    ]


def test_a_value_from_an_earlier_turn_needs_a_pointer():
    start = (
        user("What's the status of order A-4512?"),
        call("c1", "get_order", order_id="A-4512"),
        result("c1", ORDER),
        said("A-4512 has shipped."),
    )
    later = (call("c2", "update_order", order_id="A-4512", status="cancelled"), result("c2", ORDER), said("Done."))
    unpointed = read((*start, user("Please cancel an order for me."), *later), SERVER)["unpointed_reuse"]
    assert unpointed == ["turn 2: update_order.order_id='A-4512' comes from an earlier turn, unasked"]
    assert read((*start, user("Please cancel that same order."), *later), SERVER)["unpointed_reuse"] == []


def test_a_request_for_what_the_person_holds_is_an_ask_and_its_reply_stays_in_the_request():
    """'Paste the SQL.' has no question mark: the reply is still part of the request it answers, so a value of that
    request is not 'from an earlier turn'."""
    start = (
        user("What's the status of order A-4512?"),
        call("c1", "get_order", order_id="A-4512"),
        result("c1", ORDER),
    )
    asked = (said("A-4512 has shipped."), user("I have an order to cancel."), said("Paste the order number."))
    later = (user("A-4512"), call("c2", "update_order", order_id="A-4512", status="cancelled"), result("c2", ORDER))
    messages = (*start, *asked, *later, said("Done."))
    assert [len(t.questions) for t in turns(messages)] == [0, 1]
    assert read(messages, SERVER)["unpointed_reuse"] == []


def test_repeats_and_success_claimed_after_an_error():
    ask = "Can you pull up order A-4512 and tell me where it is right now?"
    turn = (user(ask), call("c1", "get_order", order_id="A-4512"), result("c1", ORDER), said("A-4512 has shipped."))
    again = (user(ask), call("c2", "get_order", order_id="A-4512"), result("c2", ORDER), said("A-4512 has shipped."))
    found = read((*turn, *again), SERVER)
    assert found["repeated_request"] and found["repeated_call"] == ["get_order called twice with the same arguments"]
    error = Message(role="tool", tool_call_id="c1", content='{"error": "order A-4512 not found"}')
    claimed = read((user(ask), call("c1", "get_order", order_id="A-4512"), error, said("Done: here it is.")), SERVER)
    assert claimed["success_after_error"] == ["turn 1: get_order failed and the answer reads as success"]
    honest = said("I couldn't find order A-4512: the store says it does not exist.")
    assert read((user(ask), call("c1", "get_order", order_id="A-4512"), error, honest), SERVER) == dict.fromkeys(
        DECISIONS, []
    )


def test_a_repeated_request_names_the_first_sentence_said_again():
    """The sentences are read in the order said (they were a set, whose order follows the process's string hashing,
    so rejected.jsonl named one sentence or another from run to run)."""
    parts = [f"Can you look up the shipping status of order A-45{i} for me please?" for i in range(6)]
    first = (user(" ".join(parts)), said("Done."))
    found = read((*first, user(" ".join(reversed(parts))), said("Done.")), SERVER)["repeated_request"]
    assert found == [f"turn 2 asks again: {parts[-1][:80]!r}"]


def test_decide_rejects_on_a_reject_gate_and_flags_the_rest():
    failure = decide({"dropped_request": ["turn 1: x"], "unpointed_reuse": ["turn 2: y"]}, "scn_1")
    assert not isinstance(failure, tuple) and (failure.stage, failure.reason) == ("reader", "dropped_request")
    assert decide({"unpointed_reuse": ["turn 2: y"]}, "scn_1") == ("unpointed_reuse: turn 2: y",)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Can you check the size of a doc in fe-team/handbook for me? I'll send the slug.", "Can you check the size"),
        ("I need to fix one row: it should become done. I'll tell you which table it's in.", "I need to fix one row"),
    ],
)
def test_a_request_never_announces_the_value_it_leaves_out(text, kept):
    out = unpromised(text)
    assert out.startswith(kept) and "I'll" not in out


@pytest.fixture(scope="module")
def registry_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reader") / "run"
    generate(Settings(servers=REGISTRY, out=out, n=120, seed=3, audit=0.05))
    return out


def test_a_default_run_counts_every_gate_and_queues_flagged_items_first(registry_run):
    manifest = json.loads((registry_run / "manifest.json").read_text())
    section = manifest["reader_gates"]
    assert set(section["gates"]) == set(DECISIONS) and section["checked"] >= 120
    rejected = [json.loads(line) for line in (registry_run / "rejected.jsonl").read_text().splitlines()]
    for gate, facts in section["gates"].items():
        assert facts["decision"] == DECISIONS[gate]
        if facts["decision"] == "reject":  # every finding of a reject gate is in rejected.jsonl under its name
            assert sum(r["stage"] == "reader" and r["reason"] == gate for r in rejected) <= facts["found"]
    for gate in ("dropped_request", "repeated_call", "mixed_owners", "unpointed_reuse"):  # the generator is the cure,
        assert section["gates"][gate]["found"] <= max(1, section["checked"] // 100), gate  # the gates only a net
    card = write_card(registry_run).read_text()
    assert "## Reader gates" in card and "`dropped_request`" in card
    queue = read_queue(registry_run)
    audited = [i for i, item in enumerate(queue) if item.why == ["audit"]]
    flagged = [i for i, item in enumerate(queue) if item.why != ["audit"]]
    assert audited and (not flagged or max(flagged) < min(audited))
    for i in flagged:  # a reader gate's item says what it found; other reasons (disagree, human) need not
        gates = [w for w in queue[i].why if w in DECISIONS]
        assert all(line.split(":")[0] in gates for line in queue[i].detail)
        assert bool(gates) == bool(queue[i].detail)


def test_an_answer_that_says_a_date_in_words_speaks_of_the_result():
    """dropped_request reads "due 18 May at 17:30" as the result's "2026-05-18 17:30:00", and "started 16 June
    2024" as its unix time; a session's token reused by a later request is no unpointed reuse."""
    from synth.stages.reader import _covered, credential

    result = json.dumps({"task": "Pay rent", "due": "2026-05-18 17:30:00", "start": 1718504400})
    assert _covered("It's due 18 May at 17:30.", "get_task", {}, result, False)
    assert _covered("It started on 16 June 2024 at 02:20.", "get_task", {}, result, False)
    assert _covered("It's due at 17:30 on 18 May.", "get_task", {}, result, False)
    assert not _covered("It's due soon.", "get_task", {}, result, False)
    assert credential("token") and credential("accessToken") and credential("api_key") and credential("userAgent")
    assert not credential("key") and not credential("workspaceSlug")


def test_an_answer_that_says_nothing_was_found_speaks_of_the_failed_call():
    """The weather pack's own failure ({"message": "No active weather alerts found for ..."}, flagged an error)
    answered as its pack says ("there are no active weather alerts") or as the result words it: both say the
    outcome; an answer that only claims success still drops it."""
    messages = (
        user("Any weather alerts for Denver?"),
        call("c1", "get_order", order_id="Denver"),
        Message(
            role="tool",
            tool_call_id="c1",
            is_error=True,
            content=json.dumps({"message": "No active weather alerts found for Denver."}),
        ),
    )
    for answer in (
        "Good news: there are no active weather alerts matching that for Denver right now.",
        "All done. No active weather alerts found for Denver.",
    ):
        found = read((*messages, said(answer)), SERVER)
        assert found["dropped_request"] == found["success_after_error"] == [], answer
    found = read((*messages, said("All done: I checked the alerts.")), SERVER)
    assert found["dropped_request"] and found["success_after_error"]


def test_an_answer_that_names_two_character_places_speaks_of_the_result():
    """The Korean tourism pack's area codes are two-character names ("서울", "부산"): an answer naming them says
    what the result holds; one naming none of them still drops it."""
    messages = (
        user("Which area codes can I search tours by?"),
        call("c1", "list_orders"),
        result("c1", {"items": [{"code": "1", "name": "서울"}, {"code": "6", "name": "부산"}]}),
    )
    assert read((*messages, said("You can use 서울 and 부산.")), SERVER)["dropped_request"] == []
    assert read((*messages, said("You can search by area.")), SERVER)["dropped_request"]
