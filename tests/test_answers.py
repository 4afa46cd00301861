"""What the assistant says after its calls, as a reader checks it: nothing told twice in one answer, one
match said as one thing, a named record said by its name, a count asked for as a person asks.

The texts are answers the shipped packs wrote before the fix (PubMed: the search answer and the record
answer told the same paper twice in one message); the run is the shipped registry's PubMed server.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from synth.cli.app import app
from synth.offline.language import summarise, told, unrepeated
from synth.offline.packed import unpromised
from synth.records import Message, ToolCall, ToolSpec
from synth.wording import PROMISE

REGISTRY = Path(__file__).parent.parent / "registry"

SEARCH = (
    'The best match is "Association between colorectal cancer and frailty: a systematic review and meta-analysis" '
    "(PMID 40024001, Circulation). Its authors are Morgan, Nguyen T, Morris, and the abstract says: We randomized "
    "97908 participants, the intervention reduced the primary endpoint."
)
RECORD = (
    'That\'s "Association between colorectal cancer and frailty: a systematic review and meta-analysis" by Morgan, '
    "Nguyen T, Morris, in Circulation. In brief: We randomized 97908 participants, the intervention reduced the "
    "primary endpoint."
)


def test_an_answer_that_only_repeats_another_is_told_once():
    assert unrepeated([SEARCH, RECORD]) == [SEARCH]
    assert unrepeated([RECORD, SEARCH]) == [SEARCH]  # the search answer tells more (the PMID): it stays


def test_an_answer_that_adds_a_fact_or_words_stays():
    stops = (
        "There are 3 matches. Chuk Yuen Station is at 22.327495, 114.191276; Chuk Yuen Bus Terminus at "
        "22.343448, 114.178342; and Chuk Yuen Road at 22.321239, 114.194971."
    )
    routes = "From Chuk Yuen Station you can take the 1A, 2X or 74B. The 1A runs to STAR FERRY."
    assert unrepeated([stops, routes]) == [stops, routes]
    related = "People also search for: EU AI Act enforcement latest news; EU AI Act enforcement timeline."
    news = 'Here\'s the latest on EU AI Act enforcement: "Live updates: EU AI Act enforcement" (2026-05-03).'
    assert unrepeated([related, news]) == [related, news]
    assert unrepeated(["Done.", "Done."]) == ["Done.", "Done."]  # nothing told: nothing to weigh


def test_a_later_answer_keeps_only_its_news():
    abstract = "We randomized 86252 patients, findings were consistent across analyses."
    search = f'Two hits: "Sleep in older adults" (Lancet, PMID 40807827). The abstract: {abstract}'
    record = f'That\'s "Sleep in older adults" by Martinez, Kim H, in Lancet. In brief: {abstract}'
    assert unrepeated([search, record]) == [search, 'That\'s "Sleep in older adults" by Martinez, Kim H, in Lancet.']


def test_one_match_is_one_thing_said_by_its_name():
    tool = ToolSpec(server="notes", name="search_notes", description="Search notes", input_schema={}, schema_hash="x")
    one = {"results": [{"title": "Landlord contacts", "folder": "Home"}], "total": 1}
    text = summarise(tool, {"query": "landlord"}, one)
    assert "1 result" not in text and "one result" in text
    assert "Landlord contacts (folder Home)" in text and "title Landlord" not in text
    two = {"results": [{"title": "A plan", "folder": "Home"}, {"title": "B plan", "folder": "Work"}], "total": 2}
    assert "2 results" in summarise(tool, {"query": "plan"}, two)


def test_the_pubmed_pack_tells_each_paper_once(tmp_path):
    """A request that searches and then reads the best paper's record is answered without saying it twice."""
    registry = tmp_path / "registry"
    (registry / "packs").mkdir(parents=True)
    shutil.copy(REGISTRY / "JackKuo666__pubmed-mcp-server.json", registry)
    shutil.copy(REGISTRY / "packs" / "JackKuo666__pubmed-mcp-server.pack.yaml", registry / "packs")
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["generate", "--servers", str(registry), "-n", "40", "--out", str(out), "--storage", "plain"]
    )
    assert result.exit_code == 0, result.output
    answers, abstracts = [], []
    for line in (out / "conversations.jsonl").read_text().splitlines():
        for m in json.loads(line)["messages"]:
            if m["role"] == "tool" and "Abstract" in m["content"]:
                abstracts += re.findall(r'"Abstract": "([^"]+)"', m["content"])
            elif m["role"] == "assistant" and m.get("content"):
                answers.append(m["content"])
    quoted = [a for a in answers if any(x in a for x in abstracts)]
    assert quoted, "the run made no answer that quotes an abstract"
    for answer in quoted:
        assert all(answer.count(x) <= 1 for x in abstracts), answer  # an abstract is told once


def test_a_turn_answer_asks_nothing_the_next_part_answers_and_says_no_yes_to_no_question():
    """Read in the shipped registry's run: "Want me to pull the full details? Here's Steam-AT: ..." and
    "Check the global log" answered "Yes: among 3683 messages ..."."""
    offer = "Steam is available for AT. Want me to pull the full details and denominations?"
    details = "Here's Steam-AT: a PIN card, in 10, 25, 50 or 100 EUR."
    assert told([offer, details], "Find the Steam card for Austria.") == f"Steam is available for AT. {details}"
    assert told([details, offer], "Find it.") == f"{details} {offer}"  # the last part may ask
    log = "Yes: there's a slow query at 09:02 on shop.orders."
    assert told([log], "Check the global log for anything unusual.") == "There's a slow query at 09:02 on shop.orders."
    assert told([log], "Anything unusual in the log?") == log


def test_a_request_announces_no_value_to_come():
    """Pack goals said "I'll look up its ID" or "I'll think of an id"; the user leaves the value out and the
    assistant's question is cued by the gap, not by the phrase."""
    for text in ("I'll look up its ID.", "I'll think of an id.", "I'll confirm the name first.", "I'll name it."):
        assert PROMISE.search(text), text
    for text in ("I'll be driving.", "I'll weigh them on Monday.", "I'll add both in the next push."):
        assert not PROMISE.search(text), text
    assert unpromised("Can you delete an old doc from infra/runbooks? I'll look up its ID.") == (
        "Can you delete an old doc from infra/runbooks?"
    )


def test_a_large_amount_is_said_rounded_and_an_id_as_it_is():
    """DefiLlama answers said "$21375055345 of TVL"; a person writes "$21.38 billion". An id stays whole."""
    from synth.packs.template import answer_slot
    from synth.stages.reader import dropped, turns

    pools = [{"tvlUsd": 21375055345, "pool": "747c1d2a", "pmid": 40024001, "volume": 870210000, "downloads": 640042}]
    assert answer_slot("r.0.tvlUsd", {}, pools) == "21.38 billion"
    assert answer_slot("r.0.volume", {}, pools) == "870.21 million"
    assert answer_slot("r.0.pmid", {}, pools) == "40024001"
    assert answer_slot("r.0.downloads", {}, pools) == "640042"  # under a million: as it is
    result = json.dumps({"data": [{"tvlUsd": 21375055345}]})
    messages = [
        Message(role="user", content="What's the biggest pool?"),
        Message(role="assistant", tool_calls=(ToolCall(id="c1", name="get_pools", arguments={}),)),
        Message(role="tool", tool_call_id="c1", content=result),
        Message(role="assistant", content="The biggest holds $21.38 billion."),
    ]
    assert dropped(turns(messages)) == []  # the reader gate reads the rounded amount as the result's
    wrong = [*messages[:3], Message(role="assistant", content="The biggest holds a lot.")]
    assert dropped(turns(wrong)) != []


def test_a_state_is_said_in_words_and_a_symbol_as_it_is():
    """BioMCP answers said "All are PHASE2 and RECRUITING."; a person writes "phase 2" and "recruiting"."""
    from synth.packs.template import answer_slot

    trials = {
        "trials": [{"nct_id": "NCT06117579", "phase": "PHASE2", "status": "NOT_YET_RECRUITING", "symbol": "USDC"}]
    }
    assert answer_slot("each:r.trials|$nct_id ($phase, $status)", {}, trials) == (
        "NCT06117579 (phase 2, not yet recruiting)"
    )
    assert answer_slot("r.trials.0.symbol", {}, trials) == "USDC"  # a ticker is no state
    assert answer_slot("r.status", {}, {"status": "ACTIVE_NOT_RECRUITING"}) == "active, not recruiting"


def test_one_token_opens_a_whole_conversation(tmp_path):
    """Google Calendar conversations carried two tokens: "Schedule ... Here's my token: T1. Show me ..." asked for
    a token for the first part and got T2; a request repeating a call was asked for a token again."""
    registry = tmp_path / "registry"
    (registry / "packs").mkdir(parents=True)
    shutil.copy(REGISTRY / "MaheshtheDev__gcal-mcp.json", registry)
    shutil.copy(REGISTRY / "packs" / "MaheshtheDev__gcal-mcp.pack.yaml", registry / "packs")
    out = tmp_path / "run"
    args = ["generate", "--servers", str(registry), "-n", "40", "--seed", "11", "--out", str(out), "--storage", "plain"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    many = 0
    for line in (out / "conversations.jsonl").read_text().splitlines():
        messages = json.loads(line)["messages"]
        tokens = {
            json.loads(c["arguments"]).get("accessToken")
            if isinstance(c["arguments"], str)
            else c["arguments"].get("accessToken")
            for m in messages
            for c in m.get("tool_calls") or []
        } - {None}
        many += len(tokens) > 1
    assert many == 0


def test_a_flat_record_of_options_is_said_in_words_and_a_document_stays_whole():
    """A variant's options ({"color": "grey", "resolution": "4K"}) read in an answer as a person says them,
    never as JSON; a nested document (a filter, a schema) is still pasted as it is."""
    from synth.packs.template import answer_slot, each

    variants = {"variants": [{"options": {"color": "grey", "resolution": "4K"}, "price": "435.96", "available": True}]}
    said = each("each:r.variants|($options) at $price dollars (in stock: $available)", variants)
    assert said == "(color grey, resolution 4K) at 435.96 dollars (in stock: yes)"
    nested = {"filter": {"status": {"$in": ["open", "closed"]}}}
    assert answer_slot("r.filter", {}, nested) == json.dumps(nested["filter"])


def test_an_amount_that_rounds_to_itself_is_said_to_hold():
    """DefiLlama: "TVL went from $4.56 billion to $4.56 billion." said nothing a person would say."""
    from synth.wording import timed

    assert timed("TVL went from $4.56 billion to $4.56 billion.") == "TVL held at about $4.56 billion."
    assert timed("TVL went from $4.56 billion to $4.58 billion.") == "TVL went from $4.56 billion to $4.58 billion."
    assert timed("It went from 12 to 12.5 points.") == "It went from 12 to 12.5 points."


def test_a_plural_field_is_asked_back_as_plural_and_a_state_sent_is_said_in_words():
    """Read: "What's the authors, by the way?" -> "It's Mensah JB, ..."; "PRs ... in state DECLINED"."""
    import random

    from synth.offline.followups import _asked
    from synth.packs.template import answer_slot

    for seed in range(6):
        asked = _asked("authors", ["Mensah JB", "Keller E"], "", random.Random(seed))
        assert asked is not None
        ask, say = asked
        assert not ask.startswith("What's") and not say.startswith("It's"), (ask, say)
    asked = _asked("title", "Ketamine versus ECT", "", random.Random(0))
    assert asked is not None
    ask, say = asked
    assert "are" not in ask.split() and "They're" not in say
    assert answer_slot("state", {"state": "DECLINED"}, {}) == "declined"
    assert answer_slot("query", {"query": "USDC"}, {}) == "USDC"


def test_an_initial_in_a_name_ends_no_sentence():
    """A model-written arXiv pack's answer lost half a sentence: "New work by Diederik P. Kingma and co-authors"
    was cut at "P." and its first half dropped as a repeat, leaving "Kingma and co-authors, submitted in ..."."""
    listed = 'I found 2 papers by Diederik P. Kingma: "Equivariant Networks" (26 April) and "Adam" (22 December 2014).'
    read = (
        '2604.29431 is "Equivariant Networks" by Diederik P. Kingma et al., submitted 26 April in cs.LG. '
        "New work by Diederik P. Kingma and co-authors, submitted in April 2026."
    )
    assert unrepeated([listed, read])[1] == read
