"""A request knows what it asks, and its answer is written from those items (issue 44).

The periods, the number of things wanted, a verdict: read from a request's words (synth.asks) for the realism
figures and the reader gate; declared by a pack goal (``items``) and said by the pack author each from the
result, or why not; checked by ``synth pack check``; told to the LLM executor and reviewer.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from synth.agents import roles
from synth.asks import count_asked, named_fewer, periods, unsaid_periods
from synth.config import Settings
from synth.export.card.realism import conversations
from synth.packs.check import check_pack
from synth.packs.items import answer
from synth.packs.load import load_packs
from synth.packs.model import Goal
from synth.packs.template import Expander, Missing, answer_slot
from synth.pipeline import generate
from synth.records import Message, Scenario, ToolCall
from synth.registry import load_registry
from synth.rundir import read_jsonl
from synth.runtime.pack import PackRuntime, _identifies
from synth.runtime.pick import offline_runtime
from synth.stages.reader import dropped, turns

ROOT = Path(__file__).parents[1]
DEFILLAMA = "nic0xflamel__defillama-mcp"
FEES = {"total24h": 4430000, "total7d": 27970000, "total30d": 51160000, "totalAllTime": 2400000000}


def test_a_request_names_the_periods_it_asks_together_and_how_many_things():
    assert periods("Give me that protocol's fee history: week, month and all time.") == ["week", "month", "all time"]
    assert periods("I need the aggregate TVL for a slide: today's number and last week's.") == ["day", "week"]
    # when the person acts, an age, a span, a quoted body: no periods asked
    assert periods("I'm in Porto next week. What's the weather like today?") == []
    assert periods("Paediatric clinic: female, 6 years and 2 months, 115 cm.") == []
    assert periods('Send it, saying: "we renew for another 12 months, a year from today".') == []
    assert unsaid_periods(
        "Give me its fee history: week, month and all time.",
        "$4.43 million over 24 hours, $27.97 million this week and $2.4 billion since launch.",
    ) == ["month"]
    assert count_asked("Grab the top story on HN and show me its first 5 comments.") == 5
    assert count_asked("Give me the usual top ten.") == 10
    assert count_asked("Give me page 7 of protocols sorted by name.") == 0
    assert count_asked("Show me how its TVL moved over the last 30 days.") == 0
    # a number asked for with no noun after it (a shipped run answered each with two)
    assert count_asked("What has Circulation published on heart failure recently? Show me 5.") == 5
    assert count_asked("Sort by the 7-day change, best first, 3 of them.") == 3
    assert count_asked("Give me 3 days of forecast.") == count_asked("Show me page 2 of the results.") == 0
    result = json.dumps([{"title": t} for t in ("Alpha one", "Beta two", "Gamma three")])
    assert named_fewer(3, 'Top: "Alpha one" and "Beta two".', [result])
    assert not named_fewer(3, 'The first 2 of 3: "Alpha one" and "Beta two".', [result])  # says why
    assert not named_fewer(3, '"Alpha one", "Beta two" and "Gamma three".', [result])


def _said(goal: Goal, result: object, args: dict | None = None) -> str:
    args = args or {"protocol": "hyperliquid"}
    return answer(goal, lambda slot: answer_slot(slot, args, result), args, result)


def test_a_goals_answer_says_each_item_from_the_result_or_why_not():
    goal = Goal.model_validate(
        {
            "text": "Give me {protocol}'s fees: week, month and all time.",
            "answer": "{protocol} took {items} in fees.",
            "items": [
                {"ask": "week", "say": "${r.total7d} over the week"},
                {"ask": "month", "say": "${r.total30d} over 30 days", "missing": "no 30-day figure"},
                {"ask": "all time", "say": "${r.totalAllTime} all time"},
            ],
        }
    )
    assert _said(goal, FEES) == (
        "Hyperliquid took $27.97 million over the week, $51.16 million over 30 days and $2.4 billion all time in fees."
    )
    without = {k: v for k, v in FEES.items() if k != "total30d"}
    assert "no 30-day figure" in _said(goal, without)  # why not, never a silent gap
    from synth.packs.items import joined

    assert joined(["Uniswap leads.", "$14.7 billion over the week,"]) == "Uniswap leads. $14.7 billion over the week."
    # a verdict says yes or no by the data, with the figure that decides
    verdict = Goal.model_validate(
        {
            "text": "Did {protocol}'s fees go up or down today?",
            "items": [
                {
                    "ask": "up or down",
                    "when": "r.change_1d >= 0",
                    "say": "Up: {r.change_1d}% on the day.",
                    "otherwise": "Down: {r.change_1d}% on the day.",
                }
            ],
        }
    )
    assert _said(verdict, {"change_1d": 4.2}) == "Up: 4.2% on the day."
    assert _said(verdict, {"change_1d": -3.1}) == "Down: -3.1% on the day."
    hours = Goal.model_validate(
        {
            "text": "Is it still business hours in {timezone}?",
            "items": [
                {
                    "ask": "business hours",
                    "when": "r.datetime >= 2026-05-04T09:00 and r.datetime < 2026-05-04T18:00",
                    "say": "Yes, it's {r.datetime}.",
                    "otherwise": "No, it's {r.datetime}.",
                }
            ],
        }
    )
    assert _said(hours, {"datetime": "2026-05-04T11:04:09"}).startswith("Yes")
    assert _said(hours, {"datetime": "2026-05-04T21:04:09"}).startswith("No")
    # "Does the 2F go anywhere near Mong Kok?": a list (or a text) holding a value
    near = Goal.model_validate(
        {
            "text": "Does the {route} go anywhere near Mong Kok?",
            "items": [{"ask": "near", "when": "r.stops has Mong Kok", "say": "Yes.", "otherwise": "No."}],
        }
    )
    assert _said(near, {"stops": [{"name": "WONG TAI SIN"}, {"name": "MONG KOK STATION"}]}) == "Yes."
    assert _said(near, {"stops": [{"name": "WONG TAI SIN"}, {"name": "LOK FU"}]}) == "No."
    # the store said "Name first_name Adam, ..." to "How much is left on my gift card?": a list's items of one kind
    wallet = {"methods": [{"source": "card", "id": "cc_1"}, {"source": "gift_card", "id": "gc_7", "balance": 67.5}]}
    assert answer_slot("each:r.methods[source=gift_card]|$id has $$balance left", {}, wallet) == "gc_7 has $67.5 left"
    try:
        answer_slot("each:r.methods[source=paypal]|$id", {}, wallet)
        raise AssertionError("no paypal method, yet said")
    except Missing:
        pass
    # every item of a list, each said by its form; a list's length
    stories = [{"title": f"Story {n}", "score": 100 + n} for n in range(5)]
    assert answer_slot('each:r|"$title" ($score points)', {}, stories).count("points") == 5
    assert answer_slot("count:r", {}, stories) == "5"
    # an amount under a key that names one, or in a column named by its date, is said as a person writes it;
    # a time, an id or a rank stays whole
    cash = {"cashflow": [{"index": "Free Cash Flow", "2025-12-31": 14009241473}], "tvl": [{"date": 1777852800}]}
    assert answer_slot("r.cashflow.0.2025-12-31", {}, cash) == "14.01 billion"
    assert "billion" not in answer_slot("r.tvl.0.date", {}, cash)  # a time (said as a date), never an amount
    assert answer_slot("r.totalAllTime", {}, FEES) == "2.4 billion"
    assert answer_slot("each:r.cashflow|$index $$2025-12-31", {}, cash) == "Free Cash Flow $14.01 billion"
    try:
        answer_slot("each:r.missing|$title", {}, {"items": []})
        raise AssertionError("a missing list is Missing")
    except Missing:
        pass


def _pack(tmp_path: Path) -> Path:
    reg = tmp_path / "reg"
    (reg / "packs").mkdir(parents=True)
    shutil.copy(ROOT / "registry" / f"{DEFILLAMA}.json", reg)
    shutil.copy(ROOT / "registry" / "packs" / f"{DEFILLAMA}.pack.yaml", reg / "packs")
    return reg


def _problems(reg: Path) -> list[str]:
    pack = load_packs(reg).by_server["@nic0xflamel/defillama-mcp"]
    server = load_registry(reg).servers[0]
    return [f"{p.severity} {p.what}" for p in check_pack(pack, server, "x")]


def test_pack_check_holds_a_goal_to_its_items(tmp_path: Path):
    reg = _pack(tmp_path)
    assert not [p for p in _problems(reg) if p.startswith("error")]
    path = reg / "packs" / f"{DEFILLAMA}.pack.yaml"
    text = path.read_text("utf-8")
    # a goal asking three periods with no items, and an item whose slot no result fills
    text = text.replace(
        '      - "How much in fees does {protocol} make per day?"',
        '      - "What did {protocol} make in fees: week, month and all time?"\n'
        '      - {text: "How much in fees does {protocol} make per day?", items: [{ask: day, say: "{r.total1d}"}]}',
    )
    path.write_text(text, "utf-8")
    found = _problems(reg)
    assert any(p.startswith("error") and "periods week, month, all time" in p and "[goal-items]" in p for p in found)
    assert any(p.startswith("error") and "{r.total1d}" in p and "[item-slots]" in p for p in found)
    # an item has no other wording to fall back on: every result template must fill it (unless it says why not)
    from synth.packs.check import _check_items

    tool = load_registry(reg).servers[0].tool("get_summary_fees__by_protocol")
    said: list[str] = []
    item = {"ask": "week", "say": "${r.total7d} over the week"}
    goals = [Goal.model_validate({"text": "Fees for {protocol}: the week?", "items": [item]})]
    templates = [{"total7d": 5}, {"total24h": 3}]
    _check_items(tool, goals, templates, [{"protocol": "aave"}], "/g", lambda *a, **k: said.append(a[2]))
    assert said and "not every result template" in said[0]
    said.clear()
    excused = [goals[0].model_copy(update={"items": [goals[0].items[0].model_copy(update={"missing": "no week"})]})]
    _check_items(tool, excused, templates, [{"protocol": "aave"}], "/g", lambda *a, **k: said.append(a[2]))
    assert not said


def test_the_pack_author_answers_every_item_and_a_read_already_made_is_not_made_again(tmp_path: Path):
    reg = _pack(tmp_path)
    out = tmp_path / "run"
    generate(Settings(servers=reg, out=out, n=120, seed=0))
    asked = 0
    for conv in read_jsonl(out / "conversations.jsonl"):
        messages = [Message.model_validate({k: m[k] for k in m if k != "source"}) for m in conv["messages"]]
        for turn in turns(messages):
            if turn.answer is None or not turn.calls or any(c[3] for c in turn.calls):
                continue
            request = " ".join(turn.user)
            if periods(request):
                asked += 1
                assert not unsaid_periods(request, turn.answer), (request, turn.answer)
            wanted = count_asked(request)
            assert not named_fewer(wanted, turn.answer, [c[2] for c in turn.calls]), (request, turn.answer)
        made = [json.dumps([c["name"], c["arguments"]]) for m in conv["messages"] for c in m.get("tool_calls", [])]
        assert len(made) == len(set(made)), made  # defillama's tools only read: one call serves every request
        assert len(conv["plan"]["steps"]) == len(made)
    assert asked >= 10
    figures = conversations(out, {})
    assert figures["periods_unsaid"]["turns"] >= 10 and figures["periods_unsaid"]["share"] == 0.0


def test_one_customer_per_conversation_in_pack_results():
    """The store's world holds its customers and their own orders: the account an email looks up is the one
    the email belongs to, an order read is that customer's, and a call about someone it names stays theirs."""
    pack = load_packs(ROOT / "registry").by_server["synth/store"]
    server = next(s for s in load_registry(ROOT / "registry").servers if s.id == "synth/store")
    scenario = Scenario(id="scn_one", index=0, server=server.id, tools=(), persona="", turns=((0,),), fail=())
    runtime = offline_runtime(scenario, pack, "shop", 0)
    assert isinstance(runtime, PackRuntime) and runtime.world is not None
    customer, other = list(runtime.world.state["user"].values())[:2]
    first = runtime.call(server.tool("find_user_id_by_email"), {"email": customer["email"]})
    owner = first.data["user_id"]
    assert owner == customer["user_id"]  # the account the email belongs to, not a draw
    for _ in range(5):
        order = runtime.call(server.tool("get_order_details"), {"order_id": customer["orders"][0]})
        assert order.data["user_id"] == owner
    named = runtime.call(server.tool("get_user_details"), {"user_id": other["user_id"]})
    assert named.data["user_id"] == other["user_id"]  # a call about someone it names stays about them


def test_a_lookup_result_follows_what_it_looked_up():
    expander = Expander(random.Random(0), {"email": "b@x.io"})
    assert expander.value("{table:email|a@x.io=ann_1|b@x.io=bob_2}") == "bob_2"
    assert Expander(random.Random(0), {"email": "c@x.io"}).value("{table:email|a@x.io=ann_1}") == "ann_1"


def test_a_one_digit_result_said_is_a_result_spoken_of():
    call = ToolCall(id="c1", name="child_pugh_score", arguments={"bilirubin": 1.8})
    messages = [
        Message(role="user", content="Child-Pugh for bilirubin 1.8, please."),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1", content='{"result": 8}'),
        Message(role="assistant", content="The Child-Pugh score is 8, class B."),
    ]
    assert dropped(turns(messages)) == []
    wrong = [*messages[:3], Message(role="assistant", content="The Child-Pugh score is 18, class C.")]
    assert dropped(turns(wrong))


def test_the_llm_path_is_told_the_items_and_checked_against_them():
    items = ["the 30-day fee total", "is it maintained?"]
    note = roles.plan_note([roles.PlanItem(tool="get_fees")], items)
    assert '"the 30-day fee total"' in note and "says every one of them" in note
    assert "<items>" not in roles.plan_note([roles.PlanItem(tool="get_fees")])  # no items, no note about them
    review = roles.review_request("m", 0, "user: ...", 0, items)
    assert '"is it maintained?"' in review.messages[1]["content"] and "reject" in review.messages[1]["content"]
    assert roles.Draft.model_validate({"request": "Fees for aave: week and month?", "items": items}).items == items


def test_a_detail_agrees_with_the_search_item_it_opened():
    """Korea Tourism's search items carry ``contentid``: the detail call for one repeats its title and address
    (a beach listed as 함덕해수욕장 was described as 곽지해수욕장)."""
    assert _identifies("contentid") and _identifies("contentId") and _identifies("content_id")
    assert not _identifies("valid") and not _identifies("paid")


def test_answers_joined_in_one_message_end_as_sentences():
    """A read found "... has been downloaded as PMID_39328108_PMC_PMC15887492.pdf Here are the top hits": the
    download's answer ended with the server's words, and the next answer ran on from it."""
    from synth.offline.language import told

    said = told(["The PDF was saved as PMID_1.pdf", "Here are the top hits."], "Save it. Find papers.")
    assert said == "The PDF was saved as PMID_1.pdf. Here are the top hits."
    tree = "Directory structure:\n└── celery/\n    └── README.md"
    assert told([tree, "Next."], "x") == tree + " Next."  # a block ends as it is
    linked = told(["Done: it reads (see https://x.org/a)", "Next."], "x")
    assert linked == "Done: it reads (see https://x.org/a). Next."
