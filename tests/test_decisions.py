"""The four decisions (call, ask, decline, answer): in the data, in the eval set and its grader, in the judge
rows and in the preference pairs."""

from __future__ import annotations

import json
import random
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.export.card.build import write_card
from synth.export.card.realism import report
from synth.offline.decisions import POOLS, Declined, add_answer, decline_reply, declines_for
from synth.pipeline import generate
from synth.records import DECISIONS, Decision, Message, ToolCall, Trajectory
from synth.registry import load_registry
from synth.rundir import read_jsonl
from synth.stages import gates

ROOT = Path(__file__).parents[1]
FALLBACK = Path(__file__).parent / "fixtures" / "fallback"
runner = CliRunner()


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """A default run on the shipped registry (n 500, seed 0)."""
    out = tmp_path_factory.mktemp("decisions") / "run"
    generate(Settings(servers=ROOT / "registry", out=out))
    return out


def _moves(conv: dict) -> set[str]:
    moves = {d["kind"] for d in conv.get("decisions") or ()}
    return moves | ({"call"} if any(m.get("tool_calls") for m in conv["messages"]) else set())


def test_a_default_run_holds_all_four_decisions(run):
    convs = list(read_jsonl(run / "conversations.jsonl"))
    share = Counter(move for conv in convs for move in _moves(conv))
    assert all(share[move] >= 0.03 * len(convs) for move in DECISIONS), share
    for conv in convs:
        for d in conv.get("decisions") or ():
            said = conv["messages"][d["message"]]
            assert said["role"] == "assistant" and said["content"] and not said.get("tool_calls")
            if d["kind"] in ("decline", "answer"):  # what the user asked just before, and no call after it
                assert conv["messages"][d["message"] - 1]["role"] == "user"
                assert d["wrong"]["name"] in conv["tools"]
        if not any(m.get("tool_calls") for m in conv["messages"]):  # only a decline goes without a call
            assert [d["kind"] for d in conv["decisions"]] == ["decline"]
    kinds = Counter(line["item"]["metadata"].get("decision", "call") for line in read_jsonl(run / "eval.jsonl"))
    assert all(kinds[move] for move in DECISIONS), kinds
    # the manifest, the card and the realism report say how many of each the run holds
    assert json.loads((run / "manifest.json").read_text())["counts"]["decisions"] == {m: share[m] for m in DECISIONS}
    card = write_card(run).read_text()
    assert "## Decisions" in card and f"| decline | {share['decline']} |" in card
    realism = report(run)["decisions"]
    assert {m: realism[m]["conversations"] for m in DECISIONS} == {m: share[m] for m in DECISIONS}


def test_a_value_asked_for_once_is_not_asked_for_again_in_the_same_turn(run):
    """Read in a run: "Sure. Which coin?" "It's Monero." "Which coin?" "Monero." (two requests of one turn,
    each leaving the coin out). One question; its answer holds for both calls. Two questions stay only where
    the two calls take two values (a file to identify, another to convert)."""
    asked, repeated = Counter(), []
    for conv in read_jsonl(run / "conversations.jsonl"):
        messages = conv["messages"]
        calls = [i for i, m in enumerate(messages) if m.get("tool_calls")]
        for d in conv.get("decisions") or ():
            if d["kind"] == "ask":
                param = re.search(r"guessed '([^']+)'", d["why"]).group(1)
                turn = next((i for i in calls if i > d["message"]), None)
                asked[(conv["id"], turn, param)] += 1
                if asked[(conv["id"], turn, param)] == 2 and turn is not None:
                    values = [json.dumps(c["arguments"].get(param)) for c in messages[turn]["tool_calls"]]
                    if len(set(values)) < len(values):
                        repeated.append((conv["id"], param, values))
    assert sum(asked.values()) > 50 and not repeated, repeated[:5]


def test_an_answer_states_what_an_earlier_result_holds_and_a_decline_names_what_it_can_do(run):
    for conv in read_jsonl(run / "conversations.jsonl"):
        for d in conv.get("decisions") or ():
            said = conv["messages"][d["message"]]["content"]
            if d["kind"] == "decline":
                assert "can't" in said or "not able" in said or "no way" in said
                assert " I can " in said or "I could" in said or "What I can do" in said
            if d["kind"] == "answer":  # the call that would be wrong is the one whose result holds the answer
                calls = [c for m in conv["messages"][: d["message"]] for c in m.get("tool_calls", [])]
                assert (d["wrong"]["name"], d["wrong"]["arguments"]) in [(c["name"], c["arguments"]) for c in calls]


def _predictions(items: list[dict], call_everything: bool) -> list[dict]:
    out = []
    for item in items:
        expected = item["expected_output"]["tool_calls"]
        if expected:  # call items: the gold call, in both files
            out.append({"id": item["metadata"]["id"], "tool_calls": expected})
        elif call_everything:
            name = item["tools"][0]["function"]["name"]
            call = {"id": "c", "type": "function", "function": {"name": name, "arguments": "{}"}}
            out.append({"id": item["metadata"]["id"], "tool_calls": [call]})
        else:
            out.append({"id": item["metadata"]["id"], "content": "Sure, here you go."})
    return out


def test_grade_scores_a_call_where_none_is_right_zero_and_text_one(run, tmp_path):
    assert runner.invoke(app, ["export", str(run), "--format", "jsonl", "--out", str(tmp_path / "pub")]).exit_code == 0
    items = [json.loads(line)["item"] for line in (tmp_path / "pub" / "eval.jsonl").read_text().splitlines()]
    graded = {}
    for mode in (True, False):
        preds = tmp_path / f"preds-{mode}.jsonl"
        preds.write_text("".join(json.dumps(p) + "\n" for p in _predictions(items, mode)))
        out = tmp_path / f"report-{mode}.json"
        done = runner.invoke(
            app,
            ["grade", "--eval", str(tmp_path / "pub" / "eval.jsonl"), "--predictions", str(preds), "--out", str(out)],
        )
        assert done.exit_code == 0, done.output
        assert "decisions (rows: right move" in done.output
        graded[mode] = json.loads(out.read_text())
    calling, texting = graded[True], graded[False]
    for move in ("ask", "decline", "answer"):
        assert calling["by_decision"][move]["score"] == 0.0 and calling["confusion"][move]["call"] > 0
        assert texting["by_decision"][move]["score"] == 1.0 and texting["confusion"][move]["call"] == 0
    assert calling["by_diagnosis"]["unnecessary_call"] == sum(not i["expected_output"]["tool_calls"] for i in items)
    assert "unnecessary_call" not in texting["by_diagnosis"]
    assert (
        calling["by_decision"]["call"]
        == texting["by_decision"]["call"]
        == {
            "items": sum(bool(i["expected_output"]["tool_calls"]) for i in items),
            "score": 1.0,
        }
    )  # call items score what they scored before decisions existed


def test_judge_rows_for_decisions_keep_their_own_labels(run):
    scored = {r["score"] for r in read_jsonl(run / "scored.jsonl")}
    assert scored == {"correct", "incorrect_tool", "incorrect_parameter_names", "incorrect_parameter_values"}
    rows = list(read_jsonl(run / "scored_decisions.jsonl"))
    assert {(r["decision"], r["score"]) for r in rows} == {
        ("ask", "guessed_value"),
        ("decline", "unnecessary_call"),
        ("answer", "unnecessary_call"),
    }
    for r in rows:
        assert r["tool_call"]["function"]["name"] in {t["name"] for t in r["available_tools"]}
        assert r["gold_response"]["content"] and r["failure_reason"]
        assert r["message_history"][-1]["role"] in ("user", "tool")


def test_the_preference_export_loads_with_datasets_in_trls_layout(run, tmp_path):
    """TRL's dataset formats guide, preference type, conversational format (explicit prompt): columns
    ``prompt`` (the conversation so far), ``chosen`` and ``rejected`` (lists of assistant messages), and a
    ``tools`` column of OpenAI function definitions that TRL hands to the chat template."""
    from datasets import load_dataset

    done = runner.invoke(app, ["export", str(run), "--format", "dpo", "--out", str(tmp_path / "dpo")])
    assert done.exit_code == 0, done.output
    pairs = load_dataset("parquet", data_dir=str(tmp_path / "dpo" / "preference"), cache_dir=str(tmp_path / "c"))
    assert set(pairs) == {"train", "validation", "test"}
    train = pairs["train"]
    assert {"prompt", "chosen", "rejected", "tools"} <= set(train.column_names)
    labels = Counter((r["label"], r["decision"]) for r in train)
    assert {label for label, _ in labels} == {
        "incorrect_tool",
        "incorrect_parameter_names",
        "incorrect_parameter_values",
        "unnecessary_call",
        "guessed_value",
    }
    assert {d for _, d in labels} == set(DECISIONS)
    for row in train:
        assert row["prompt"] and all(m["role"] in ("system", "user", "assistant", "tool") for m in row["prompt"])
        assert row["prompt"][-1]["role"] in ("user", "tool")  # the two answers reply to it
        assert [m["role"] for m in row["chosen"]] == [m["role"] for m in row["rejected"]] == ["assistant"]
        rejected = row["rejected"][0]["tool_calls"][0]["function"]
        assert isinstance(rejected["arguments"], dict)  # objects, as chat templates take them
        if row["label"] != "incorrect_tool":  # a wrong tool may be one the server lacks (a made-up name)
            assert rejected["name"] in {t["function"]["name"] for t in row["tools"]}
        assert all(t["type"] == "function" and isinstance(t["function"]["parameters"], dict) for t in row["tools"])
        if row["decision"] == "call":  # the gold call over the labelled negative
            assert row["chosen"][0]["tool_calls"] and row["chosen"][0]["tool_calls"] != row["rejected"][0]["tool_calls"]
        else:  # the right words over the call
            assert row["chosen"][0]["content"] and not row["chosen"][0]["tool_calls"]


def test_pool_declines_never_ask_what_a_tool_of_the_server_does():
    registry = load_registry(ROOT / "registry")
    jinko = registry.server("@jinkoso/jinko-mcp")  # it books hotels: "book" is in its tools' words
    offered = declines_for(jinko.tools, jinko, None)
    assert offered and not any("book" in d.needs for d in offered)
    assert any("book" in d.needs for d in POOLS["maps"])  # the pool has them; the check left them out


def test_a_decline_offers_what_a_person_would_say_or_other_help():
    wiki = load_registry(Path(__file__).parent / "fixtures" / "worlds").servers[0]
    declined = Declined("Please order me a coffee.", "place food orders", ())
    said = {decline_reply(declined, list(wiki.tools), random.Random(i)) for i in range(40)}
    assert not any("doc in one status" in s or "newest first" in s for s in said), said  # list_docs' description
    assert any("look up docs" in s for s in said) and any("create a doc" in s for s in said), said
    vague = [t for t in wiki.tools if t.name == "list_docs"]  # "Docs in one status, newest first."
    nothing = [t.model_copy(update={"name": "docs_by_status"}) for t in vague]  # a name without a verb either
    other = decline_reply(declined, nothing, random.Random(0))
    assert other.startswith(("Sorry, I can't place food orders", "That's not something I can do")) and "?" in other


def test_a_decline_offer_never_reads_out_a_tool_description():
    """On every shipped server the offer says what the assistant can do in plain words ("look up the weather
    forecast", "search news"), never five words in a row of a tool's description ("calculate MELD 3.0 Score for
    liver disease transplant planning")."""
    from synth.export.card.realism import _spans
    from synth.wording import words

    declined = Declined("Please order me a coffee.", "place food orders", ())
    for server in load_registry(ROOT / "registry").servers:
        for i in range(6):
            tools = random.Random(i).sample(list(server.tools), min(4, len(server.tools)))
            said = decline_reply(declined, tools, random.Random(i))
            quoted = [  # a span of the description that is not the tool's own name in words
                t.name for t in server.tools if _spans(said) & (_spans(t.description) - _spans(" ".join(words(t.name))))
            ]
            assert not quoted, (server.name, said, quoted)
            assert " a many" not in said and " an one" not in said, said  # update-many is no thing to offer


def test_a_follow_up_asks_about_the_latest_request_and_is_answered_from_its_result():
    cola = {"product_name": "Coca-Cola", "serving_size": "330 ml", "per_100ml": {"sugars_g": 10.6}}
    bar = {"status": "success", "product": {"product_name": "Lindt Excellence", "serving_size": "15 g"}}
    messages = [
        Message(role="user", content="What's in the can I had at lunch?"),
        Message(role="assistant", tool_calls=(ToolCall(id="a", name="analyze", arguments={"barcode": "544"}),)),
        Message(role="tool", tool_call_id="a", content=json.dumps(cola)),
        Message(role="assistant", content="Coca-Cola has 10.6 g of sugar per 100 ml."),
        Message(role="user", content="And barcode 304?"),
        Message(role="assistant", tool_calls=(ToolCall(id="b", name="by_barcode", arguments={"barcode": "304"}),)),
        Message(role="tool", tool_call_id="b", content=json.dumps(bar)),
        Message(role="assistant", content="That's Lindt Excellence."),
    ]
    for i in range(12):
        done = list(messages)
        decision = add_answer(done, random.Random(i), lambda name: None)
        assert decision is not None and decision.wrong is not None and decision.wrong.name == "by_barcode"
        assert "330 ml" not in (done[-1].content or ""), done[-2:]  # the can of the request before is not asked of
    nothing = [*messages[:6], Message(role="tool", tool_call_id="b", content="not JSON"), messages[7]]
    assert add_answer(nothing, random.Random(0), lambda name: None) is None  # not the cola result instead


def test_servers_without_a_pack_get_declines_and_answers_too(tmp_path):
    servers = tmp_path / "servers"
    shutil.copytree(FALLBACK, servers)
    # the fallback is what this tests (issue 39: it writes only when allowed)
    generate(Settings(servers=servers, out=tmp_path / "run", n=120, seed=1, decisions=0.5, allow_fallback=True))
    moves = Counter(m for conv in read_jsonl(tmp_path / "run" / "conversations.jsonl") for m in _moves(conv))
    assert moves["decline"] >= 10 and moves["answer"] >= 5 and moves["ask"] and moves["call"], moves


def _trajectory(messages: list[Message], decisions: list[Decision]) -> Trajectory:
    return Trajectory(id="t", scenario_id="s", messages=tuple(messages), decisions=tuple(decisions) or None)


def test_the_gate_keeps_call_conversations_to_their_rules_and_checks_each_decision():
    server = load_registry(ROOT / "registry").server("@HarunGuclu/weather_mcp")
    system = Message(role="system", content="You help with the weather.")
    ask = Message(role="user", content="Can you book me a taxi to the airport?")
    no = Message(role="assistant", content="Sorry, I can't book rides; I can check the forecast for your trip.")
    declined = Decision(kind="decline", message=2)
    assert gates.review(_trajectory([system, ask, no], [declined]), server).verdict == "accept"
    # the same words without the decline are a conversation without a call: rejected as before
    review = gates.review(_trajectory([system, ask, no], []), server)
    assert review.verdict == "reject" and gates.failure(review, "s").reason == "no_tool_calls"
    # an answer "from context" that states nothing any earlier result holds
    call = ToolCall(id="c1", name="get_live_temp", arguments={"city": "Porto"})
    messages = [
        system,
        Message(role="user", content="How warm is it in Porto?"),
        Message(role="assistant", tool_calls=(call,)),
        Message(role="tool", tool_call_id="c1", content='{"city": "Porto", "temperature_c": 17.5}'),
        Message(role="assistant", content="Porto is at 17.5°C."),
        Message(role="user", content="Sorry, what was the temperature again?"),
        Message(role="assistant", content="It is pleasant."),
    ]
    review = gates.review(_trajectory(messages, [Decision(kind="answer", message=6)]), server)
    assert review.verdict == "reject" and "states no value of an earlier tool result" in review.reasons[0]
    messages[-1] = Message(role="assistant", content="It was 17.5°C.")
    assert gates.review(_trajectory(messages, [Decision(kind="answer", message=6)]), server).verdict == "accept"
    # a decision turn that calls is not a decision
    called = Message(role="assistant", content="Let me check.", tool_calls=(call,))
    review = gates.review(_trajectory([*messages[:6], called], [Decision(kind="answer", message=6)]), server)
    assert review.verdict == "reject"


def test_a_follow_up_asks_what_a_person_asks_and_is_answered_in_their_words():
    """No raw field name asked back ("what was the datetime again?", "the created", "the total records"), no
    "Field: value." answer; a time is said in words, a count as a count, an amount rounded; an abbreviation
    ("php") or a machine's word ("uuid") is not asked about at all."""
    from synth.export.card.realism import FIELD_VALUE, RAW_FIELD
    from synth.offline.followups import _asked

    rng = random.Random(0)
    said = {
        k: _asked(k, v, "", rng)
        for k, v in (
            ("datetime", "2026-05-04T16:04:09"),
            ("created", "2026-05-01T10:00:00Z"),
            ("updated", 1714780800),
            ("total_records", 1523),
            ("volume", 1368420.0),
            ("total_distance_miles", 12.345),
            ("uuid", "0f075fc8"),
            ("php", "Philippine Peso"),
        )
    }
    assert said["uuid"] is None and said["php"] is None
    for key, (ask, answer) in [(k, v) for k, v in said.items() if v is not None]:
        assert not RAW_FIELD.search(ask) and not FIELD_VALUE.match(answer), (key, ask, answer)
        assert not re.search(r"\d{4}-\d{2}-\d{2}|1714780800|1368420", answer), (key, answer)
    assert said["created"][0].lower().endswith("when was it created?") and "1 May at 10:00" in said["created"][1]
    assert "4 May 2024" in said["updated"][1] and "4 May at 16:04" in said["datetime"][1]
    assert "records" in said["total_records"][0] and "1.37 million" in said["volume"][1]
    assert "12.35 miles" in said["total_distance_miles"][1] and "miles" not in said["total_distance_miles"][0]


def test_dates_and_unix_times_are_said_as_a_person_writes_them():
    from synth.packs.template import answer_slot
    from synth.wording import timed, when

    assert when("2026-05-18 17:30:00") == "18 May at 17:30"
    assert when("2026-05-04T14:47:05.118000+08:00") == "4 May at 14:47"
    assert when("2024-03-05") == "5 March 2024" and when("2026-05-04T00:00:00Z") == "4 May"
    assert when(1718504400, "start") == "16 June 2024 at 02:20" and when(1718504400, "id") is None
    assert when(1714780800000, "created_at") == "4 May 2024" and when("v2026-05") is None
    assert answer_slot("r.due", {}, {"due": "2026-05-18 17:30:00"}) == "18 May at 17:30"
    assert timed("10.2°C (measured at 4 May at 14:00), from 5 June 2024 at 09:00") == (
        "10.2°C (measured at 14:00 on 4 May), from 09:00 on 5 June 2024"
    )
    assert timed("It's due 18 May at 17:30.") == "It's due 18 May at 17:30."
    assert answer_slot("r.id", {}, {"id": 1718504400}) == "1718504400"  # an id stays whole
    assert when(2024851828, "start_tvl") is None and when(1718504400, "created_at") == "16 June 2024 at 02:20"
    assert answer_slot("r.s.start_tvl", {}, {"s": {"start_tvl": 2024851828}}) == "2.02 billion"


def test_realism_counts_the_devices_a_real_user_never_meets():
    """raw_field_followups, pointer_sentences, decline_offers_quoting, raw_stamps_in_answers and system_prompts
    read what today's data did, one handmade conversation at a time."""
    from synth.export.card.realism import _shares, _Tally

    def conv(messages, decisions=(), system="You help with Acme Weather."):
        head = [{"role": "system", "content": system}] if system else []
        scenario = {"server": "acme", "turns": [], "tools": []}
        return {"scenario": scenario, "messages": head + messages, "decisions": list(decisions)}

    call = {"role": "assistant", "tool_calls": [{"id": "c1", "name": "get_repo", "arguments": {"repo": "tox"}}]}
    tool = {"role": "tool", "tool_call_id": "c1", "content": '{"created": "2026-05-04T16:04:09"}'}
    pointed = [
        {"role": "user", "content": "Show tox."},
        call,
        tool,
        {"role": "assistant", "content": "Made 2026-05-04T16:04:09."},
        {"role": "user", "content": "List its issues. (tox again.)"},
        {"role": "assistant", "content": "Sure."},
    ]
    raw = [
        {"role": "user", "content": "Show tox."},
        call,
        tool,
        {"role": "assistant", "content": "Found it."},
        {"role": "user", "content": "Did it say what the created is?"},
        {"role": "assistant", "content": "Created: 2026-05-04T16:04:09."},
        {"role": "user", "content": "Book me a taxi."},
        {"role": "assistant", "content": "I can't. I can get the weather forecast for a city."},
    ]
    descriptions = {("acme", ""): "Acme Weather", ("acme", "forecast"): "Get the weather forecast for a city."}
    tally = _Tally()
    tally.add(conv(pointed, system=""), descriptions)
    tally.add(conv(raw, [{"kind": "answer", "message": 6}, {"kind": "decline", "message": 8}]), descriptions)
    shares = _shares(tally)
    assert shares["pointer_sentences"] == 0.5 and shares["raw_field_followups"] == 0.5
    assert shares["decline_offers_quoting"] == 1.0 and shares["raw_stamps_in_answers"] == 0.5
    assert shares["system_prompts"] == {"distinct": 2, "top_share": 0.5}
