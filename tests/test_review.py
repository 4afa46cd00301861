"""The human review queue end to end: what goes in and why, a terminal session driven by keystrokes
and a fake $EDITOR, and ``synth review apply`` folding the decisions back in (splits, rejected
items, re-derived negatives, the audit trail), idempotently."""

from __future__ import annotations

import copy
import hashlib
import io
import json
import shutil
import sys
from pathlib import Path

import pytest
from fake_agents import respond, role_of
from rich.console import Console
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import ROLES, Settings
from synth.llm.scripted import ScriptedBackend
from synth.pipeline import generate
from synth.records import LABELS, Conversation
from synth.review.manifest import recount
from synth.review.queue import QueueItem, Rules, read_queue, rebuild
from synth.review.session import Session
from synth.rundir import FILES, read_json, read_jsonl, stored

runner = CliRunner()

EDITOR = r"""
import json, pathlib, sys
path = pathlib.Path(sys.argv[1])
data = json.loads(path.read_text(encoding="utf-8"))
modes_file = pathlib.Path(__file__).with_name("modes.json")
modes = json.loads(modes_file.read_text())
kind = "conversation" if "messages" in data else "scored"
mode = modes[kind].pop(0)
modes_file.write_text(json.dumps(modes))
if mode == "malformed":
    path.write_text('{"messages": [{"role": "user", "content": ', encoding="utf-8")
    sys.exit(0)
if mode == "answer":
    data["messages"][-1]["content"] = "Checked by a person. " + data["messages"][-1]["content"]
elif mode == "ungrounded":
    call = next(c for m in data["messages"] for c in m.get("tool_calls", []))
    key = next(k for k, v in call["arguments"].items() if isinstance(v, str))
    call["arguments"][key] = "ZZZ invented by nobody"
elif mode == "reason":
    data["failure_reason"] = "Reviewer: " + data["failure_reason"]
elif mode == "mislabel":
    data["score"] = "correct"
path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
"""


def lines(path: Path) -> list[dict]:
    """The rows of a run file as published, whatever its storage (synth.rundir reads it)."""
    return list(read_jsonl(path))


def digest(run: Path) -> dict[str, str]:
    return {
        p.relative_to(run).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(run.rglob("*"))
        if p.is_file()
    }


AUDIT = ("audit",)


@pytest.fixture(scope="module")
def offline_run(tiny_registry, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("review") / "run"
    # seed 5: its audit share holds a test conversation and a test negative, which the session test edits
    # (GENERATOR_VERSION 4 changed the fallback's data; seed 2 no longer queued a test conversation)
    # the audit rule alone: what a reader gate flags (unpointed_reuse) is queued too by default, and these tests
    # are about the audit share and what a person does with it
    generate(
        Settings(servers=tiny_registry, allow_fallback=True, out=out, n=40, seed=5, audit=0.25, review_rules=AUDIT)
    )
    return out


@pytest.fixture
def run(offline_run, tmp_path) -> Path:
    copy_ = tmp_path / "run"
    shutil.copytree(offline_run, copy_)
    return copy_


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """$EDITOR is a script that makes the next edit listed for the kind of item it is given."""
    script = tmp_path / "editor" / "fake_editor.py"
    script.parent.mkdir()
    script.write_text(EDITOR, encoding="utf-8")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")

    def modes(conversation: list[str], scored: list[str]) -> None:
        (script.parent / "modes.json").write_text(json.dumps({"conversation": conversation, "scored": scored}))

    return modes


def test_offline_queue_holds_the_audit_share_with_empty_decisions(offline_run):
    items = read_queue(offline_run)
    kinds = {i.kind for i in items}
    assert kinds == {"conversation", "scored"}
    convs = {c["id"]: c for c in lines(offline_run / "conversations.jsonl")}
    rows = {r["id"]: r for r in lines(offline_run / "scored.jsonl")}
    for item in items:
        assert item.why == ["audit"] and not item.held  # offline: no reviewer model, so only the audit share
        assert item.decision is item.edited is item.reviewer is item.note is item.decided_at is None
        if item.kind == "conversation":
            assert item.record == convs[item.record_id] and item.suggested_label == "accept"
            assert item.decided_by == "gates" and item.model_review is None  # no reviewer model ran
            calls = [c for t in item.item["turns"] for c in t.get("calls", [])]
            if not calls:  # every conversation calls, but one that declines a request no tool serves
                assert [d["kind"] for d in item.record["decisions"]] == ["decline"]
                continue
            assert all(isinstance(c["arguments"], dict) for c in calls)  # rendered for reading
            assert any(t["role"] == "tool" and t["name"] == calls[0]["name"] for t in item.item["turns"])
        else:
            assert item.record == rows[item.record_id] and item.suggested_label == item.record["score"] != "correct"
            assert item.item["gold_call"]["name"] and item.item["failure_reason"]
    # the share is drawn from (seed, id), so it holds whatever the order or the size of the run
    share = len([i for i in items if i.kind == "conversation"]) / len(convs)
    assert 0.05 < share < 0.5
    rules = Rules(audit=0.25, seed=5)
    assert all(rules.audited(i.record_id) for i in items)
    assert not any(rules.audited(c) for c in convs if c not in {i.record_id for i in items})


def test_a_recount_of_an_untouched_run_is_the_manifest_the_pipeline_wrote(offline_run):
    """One Counts counts both (synth.export.card.counts): a review's recount changes nothing a generate wrote."""
    manifest = json.loads((offline_run / "manifest.json").read_text())
    fresh = copy.deepcopy(manifest)
    recount(offline_run, fresh)
    assert fresh == manifest and sum(manifest["counts"]["decisions"].values()) >= manifest["counts"]["conversations"]


def test_queue_bytes_are_reproducible_and_rules_can_be_set(tiny_registry, offline_run, tmp_path):
    again = tmp_path / "again"
    generate(
        Settings(servers=tiny_registry, allow_fallback=True, out=again, n=40, seed=5, audit=0.25, review_rules=AUDIT)
    )
    assert (again / "review_queue.jsonl").read_bytes() == (offline_run / "review_queue.jsonl").read_bytes()
    none = tmp_path / "none"
    generate(
        Settings(servers=tiny_registry, allow_fallback=True, out=none, n=40, seed=5, audit=0.0, review_rules=AUDIT)
    )
    assert (none / "review_queue.jsonl").read_bytes() == b""
    for name in ("conversations.jsonl", "scored.jsonl", "train.jsonl", "eval.jsonl"):  # the queue changes no data
        assert stored(none / name).read_bytes() == stored(offline_run / name).read_bytes()
    result = runner.invoke(app, ["review", "queue", str(none), "--audit", "0.25"])
    assert result.exit_code == 0, result.output
    assert sorted(i.id for i in read_queue(none)) == sorted(i.id for i in read_queue(offline_run))
    with pytest.raises(ValueError, match="unknown review rules"):
        Settings(servers=tiny_registry, allow_fallback=True, out=none, review_rules=("audit", "vibes"))


def _keys_for(items: list[QueueItem]) -> tuple[str, dict[str, QueueItem]]:
    """Keystrokes: edit the first conversation (a malformed edit first, refused), reject the second,
    reject one negative, edit another, accept a third, skip the rest."""
    convs = sorted((i for i in items if i.kind == "conversation"), key=lambda i: i.split != "test")
    chosen = {"edit_conv": convs[0], "reject_conv": convs[1]}  # a test conversation first: T-Eval is made again
    free = sorted(
        (i for i in items if i.kind == "scored" and i.conversation_id not in {c.record_id for c in convs[:2]}),
        key=lambda i: i.split != "test",
    )
    chosen.update(reject_row=free[0], edit_row=free[1], accept_row=free[2])
    action = {
        chosen["edit_conv"].id: "ee",
        chosen["reject_conv"].id: "r",
        chosen["reject_row"].id: "r",
        chosen["edit_row"].id: "e",
        chosen["accept_row"].id: "a",
    }
    return "".join(action.get(i.id, "s") + "\n" for i in items), chosen


def test_review_session_then_apply(run, editor):
    items = read_queue(run)
    keys, chosen = _keys_for(items)
    editor(conversation=["malformed", "answer"], scored=["reason"])
    result = runner.invoke(app, ["review", str(run), "--reviewer", "ann"], input=keys)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "edit refused" in out and "not valid JSON" in out  # the malformed edit, refused with why
    assert f"item 1 of {len(items)} to review" in out and "gold call" in out and "why it is wrong" in out
    after = {i.id: i for i in read_queue(run)}
    assert after[chosen["edit_conv"].id].decision == "edit"
    assert after[chosen["edit_conv"].id].edited["messages"][-1]["content"].startswith("Checked by a person.")
    assert after[chosen["reject_conv"].id].decision == "reject" and after[chosen["accept_row"].id].decision == "accept"
    assert all(i.reviewer == "ann" and i.decided_at for i in after.values() if i.decision)
    assert sum(i.decision is not None for i in after.values()) == 5  # skipped items stay undecided

    old_convs = {c["id"]: c for c in lines(run / "conversations.jsonl")}
    old_rows = {r["id"]: r for r in lines(run / "scored.jsonl")}
    result = runner.invoke(app, ["review", "apply", str(run)])
    assert result.exit_code == 0, result.output
    assert "applied 5 decisions" in result.output

    convs = {c["id"]: c for c in lines(run / "conversations.jsonl")}
    rows = {r["id"]: r for r in lines(run / "scored.jsonl")}
    rejected = lines(run / "rejected.jsonl")
    # the rejected conversation left the data with everything derived from it
    gone = chosen["reject_conv"].record_id
    assert gone not in convs and not any(r["conversation_id"] == gone for r in rows.values())
    assert not any(i["item"]["metadata"]["conversation_id"] == gone for i in lines(run / "eval.jsonl"))
    assert any(r["stage"] == "human_review" and r["reason"] == "human" and r["item_id"] == gone for r in rejected)
    # the edited conversation passed the gates again, kept its split, and its negatives were re-derived
    old = old_convs[chosen["edit_conv"].record_id]
    assert old["id"] not in convs and not any(r["conversation_id"] == old["id"] for r in rows.values())
    new = next(c for c in convs.values() if c["messages"][-1]["content"].startswith("Checked by a person."))
    assert new["split"] == old["split"] and new["review"]["verdict"] == "accept"
    assert all(g["passed"] for g in new["review"]["gates"])
    new_rows = [r for r in rows.values() if r["conversation_id"] == new["id"]]
    old_new_rows = [r for r in old_rows.values() if r["conversation_id"] == old["id"]]
    assert {r["score"] for r in new_rows} == {r["score"] for r in old_new_rows} and "correct" in {
        r["score"] for r in new_rows
    }
    assert [r["gold_call"] for r in new_rows] == [r["gold_call"] for r in old_new_rows]
    # scored calls: one rejected, one edited, one accepted
    assert chosen["reject_row"].record_id not in rows
    assert any(r["stage"] == "human_review" and r["item_id"] == chosen["reject_row"].record_id for r in rejected)
    edited = [r for r in rows.values() if r["failure_reason"].startswith("Reviewer: ")]
    assert len(edited) == 1 and edited[0]["score"] == chosen["edit_row"].record["score"]
    assert chosen["accept_row"].record_id in rows
    # exports agree with the conversations
    splits = {s: sum(c["split"] == s for c in convs.values()) for s in ("train", "valid", "test")}
    assert len(lines(run / "train.jsonl")) == splits["train"] and len(lines(run / "valid.jsonl")) == splits["valid"]
    assert {i["item"]["metadata"]["conversation_id"] for i in lines(run / "eval.jsonl")} == {
        c for c, v in convs.items() if v["split"] == "test"
    }
    # T-Eval subsets follow the test split as it is now
    assert chosen["edit_conv"].split == "test" and chosen["reject_row"].split == "test"
    plan = read_json(run / "teval" / "plan_json.json")
    assert set(plan) == {c for c, v in convs.items() if v["split"] == "test"} and new["id"] in plan
    review = read_json(run / "teval" / "review_str.json")
    assert not any(key.startswith(old["id"]) for key in review)
    # the audit trail
    log = lines(run / "review_log.jsonl")
    assert len(log) == 5 and {e["decision"] for e in log} == {"accept", "reject", "edit"}
    assert all(e["reviewer"] == "ann" and e["decided_at"] and e["applied_at"] and e["outcome"] for e in log)
    assert next(e for e in log if e["queue_id"] == chosen["edit_conv"].id)["new_id"] == new["id"]
    # manifest and card rebuilt from the files
    manifest = json.loads((run / "manifest.json").read_text())
    fresh = copy.deepcopy(manifest)
    recount(run, fresh)
    assert fresh == manifest and manifest["counts"]["conversations"] == len(convs) == manifest["funnel"]["accepted"]
    assert manifest["funnel"]["dropped"]["human_review"] == {"human": 1}
    assert manifest["review"] == {"applied": 5, "decisions": {"accept": 1, "edit": 2, "reject": 2}}
    assert "Decisions applied (`review_log.jsonl`): 5" in (run / "README.md").read_text()
    # applying twice changes nothing the second time
    before = digest(run)
    result = runner.invoke(app, ["review", "apply", str(run)])
    assert result.exit_code == 0 and "nothing to apply" in result.output
    assert digest(run) == before


def test_quitting_loses_nothing_and_the_next_session_goes_on(run, tmp_path):
    items = read_queue(run)
    console = Console(file=io.StringIO(), width=100)
    keys = iter("aq")
    session = Session(
        run=run, console=console, reviewer="bo", read_key=lambda: next(keys), now=lambda: "2026-01-01T00:00:00+00:00"
    )
    assert session.start()["accept"] == 1
    saved = read_queue(run)
    assert saved[0].decision == "accept" and saved[0].decided_at == "2026-01-01T00:00:00+00:00"
    assert all(i.decision is None for i in saved[1:])
    keys = iter("q")
    screen = io.StringIO()
    Session(run=run, console=Console(file=screen, width=100), reviewer="bo", read_key=lambda: next(keys)).start()
    assert f"item 1 of {len(items) - 1} to review" in screen.getvalue() and "1/" in screen.getvalue()


def test_an_offline_conversation_shows_the_gates_that_decided_it_not_a_model(run):
    items = read_queue(run)
    first = next(i for i, item in enumerate(items) if item.kind == "conversation")
    keys = iter("s" * first + "q")  # skip to the first conversation, then quit
    screen = io.StringIO()
    Session(run=run, console=Console(file=screen, width=200), reviewer="bo", read_key=lambda: next(keys)).start()
    shown = screen.getvalue()
    assert "decided by the gates (no reviewer model ran): accept; tool_exists" in shown
    assert "grounded" in shown and "reviewer model:" not in shown


def test_an_edit_that_fails_the_gates_is_refused_and_stays_queued(run, editor):
    items = read_queue(run)
    calls = lambda i: [c for m in i.record["messages"] for c in m.get("tool_calls", [])]  # noqa: E731
    # a conversation with a string argument to make up (ping {} has none)
    first_conv = next(
        i
        for i in items
        if i.kind == "conversation" and any(isinstance(v, str) for c in calls(i) for v in c["arguments"].values())
    )
    first_row = next(i for i in items if i.kind == "scored")
    keys = "".join(("es" if i.id in (first_conv.id, first_row.id) else "s") for i in items)
    editor(conversation=["ungrounded"], scored=["mislabel"])
    result = runner.invoke(app, ["review", str(run)], input=keys)
    assert result.exit_code == 0, result.output
    assert "edit refused" in result.output and "fails the gates" in result.output
    assert "the grader labels this call" in result.output
    assert all(i.decision is None for i in read_queue(run))
    # a bad edit that reaches the queue file anyway is refused by apply and goes back to the queue
    bad = first_conv.model_copy(
        update={
            "decision": "edit",
            "reviewer": "cy",
            "decided_at": "now",
            "edited": {
                "messages": [m | {"content": "hi"} if m["role"] == "user" else m for m in first_conv.record["messages"]]
            },
        }
    )
    queue = [bad if i.id == bad.id else i for i in read_queue(run)]
    (run / "review_queue.jsonl").write_text("".join(json.dumps(i.line()) + "\n" for i in queue))
    before = {n: stored(run / n).read_bytes() for n in ("conversations.jsonl", "scored.jsonl", "train.jsonl")}
    result = runner.invoke(app, ["review", "apply", str(run)])
    assert result.exit_code == 1 and "refused" in result.output and "gates" in result.output
    back = next(i for i in read_queue(run) if i.id == bad.id)
    assert back.decision is None and back.note.startswith("edit refused by synth review apply")
    assert {n: stored(run / n).read_bytes() for n in before} == before
    assert not (run / "review_log.jsonl").exists() or not lines(run / "review_log.jsonl")


def _reviewer(body: dict) -> dict:
    """The fake agents, with a reviewer that sends a quarter of the conversations to a person, is unsure of a
    quarter, and labels a step an input error (while the gates passed) in another quarter."""
    answer = respond(body)
    if role_of(body) != "review":
        return answer
    verdict = json.loads(answer["content"])
    # by the conversation alone (not the reviewer prompt's wording, which changes with the prompts)
    said = body["messages"][-1]["content"].rpartition("<conversation>")[2]
    pick = int(hashlib.sha256(said.encode()).hexdigest(), 16) % 4
    if pick == 0:
        verdict.update(verdict="human", reasons=["the final answer may not follow from the tool result"])
    elif pick == 1:
        verdict["confidence"] = 0.4
    elif pick == 2:
        verdict["step_labels"] = ["input_error"] * len(verdict["step_labels"])
    return {"content": json.dumps(verdict)}


def _llm_run(tiny_registry: Path, out: Path, **extra) -> dict:
    # seed 2: its 12 accepted conversations hold every pick of `_reviewer` (seed 5 stopped holding an unsure one
    # when the writer's words changed)
    backend = ScriptedBackend(_reviewer)
    settings = Settings(
        servers=tiny_registry, out=out, n=12, seed=2, backend="openai", concurrency=4, audit=0.0, **extra
    )
    return generate(settings, backends={role: backend for role in ROLES})


def test_reviewer_doubts_are_queued_and_held_items_join_when_accepted(tiny_registry, tmp_path):
    run = tmp_path / "llm"
    manifest = _llm_run(tiny_registry, run)
    items = read_queue(run)
    held = [i for i in items if i.held]
    convs = {c["id"] for c in lines(run / "conversations.jsonl")}
    rejected = lines(run / "rejected.jsonl")
    assert len(held) >= 2 and all(i.why == ["human"] and i.kind == "conversation" for i in held)
    assert not any(i.record_id in convs for i in held)  # held out of the data ...
    assert not any(r["stage"] == "review" for r in rejected)  # ... and not rejected
    assert manifest["funnel"]["entered"]["human_review"] == len(held)
    assert manifest["funnel"]["accepted"] == 12 and len(convs) == 12
    in_data = [i for i in items if not i.held]
    assert {w for i in in_data for w in i.why} == {"low_confidence", "disagree"}
    assert all(i.record_id in convs for i in in_data)

    accept, reject = held[0], held[1]
    keys = "".join("a" if i.id == accept.id else "r" if i.id == reject.id else "s" for i in items)
    result = runner.invoke(app, ["review", str(run), "--reviewer", "dee"], input=keys)
    assert result.exit_code == 0, result.output
    assert "held out of the data until accepted" in result.output
    result = runner.invoke(app, ["review", "apply", str(run)])
    assert result.exit_code == 0, result.output
    assert "1 held conversations joined their split" in result.output

    convs = {c["id"]: c for c in lines(run / "conversations.jsonl")}
    joined = convs[accept.record_id]
    assert joined["split"] == accept.split and joined["review"]["verdict"] == "accept"
    rows = [r for r in lines(run / "scored.jsonl") if r["conversation_id"] == joined["id"]]
    calls = len(Conversation.model_validate(joined).calls)
    assert sum(r["subtype"] == "gold" for r in rows) == calls and {r["score"] for r in rows} <= set(LABELS)
    assert all(r["split"] == joined["split"] for r in rows)
    if joined["split"] == "test":
        assert any(i["item"]["metadata"]["conversation_id"] == joined["id"] for i in lines(run / "eval.jsonl"))
    else:
        assert len(lines(run / f"{joined['split']}.jsonl")) == sum(
            c["split"] == joined["split"] for c in convs.values()
        )
    assert reject.record_id not in convs
    assert any(r["stage"] == "human_review" and r["item_id"] == reject.record_id for r in lines(run / "rejected.jsonl"))
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["funnel"]["accepted"] == 13
    assert manifest["funnel"]["left"]["human_review"] == 1 and manifest["funnel"]["dropped"]["human_review"] == {
        "human": 1
    }
    # choosing the queue again keeps held and decided items
    report = rebuild(run, Rules(audit=0.0, rules=("human",), seed=2))
    assert report.kept == len(held) and report.added == 0


def test_without_the_human_rule_a_human_verdict_is_rejected(tiny_registry, tmp_path):
    manifest = _llm_run(tiny_registry, tmp_path / "strict", review_rules=("low_confidence", "disagree", "audit"))
    assert manifest["funnel"]["dropped"]["review"]["reviewer_human"] >= 2
    assert not any(i.held for i in read_queue(tmp_path / "strict"))


def test_every_run_file_is_listed(offline_run):
    assert "review_queue.jsonl" in FILES
    manifest = json.loads((offline_run / "manifest.json").read_text())
    assert manifest["files"]["review_queue.jsonl"]["lines"] == len(read_queue(offline_run))
    assert manifest["config"]["review"] == {
        "audit": 0.25,
        "below": 0.7,
        "rules": list(AUDIT),
    }


def test_a_conversation_gives_the_rows_the_pipeline_wrote(tiny_registry, tmp_path):
    """``rows_by_file`` (what ``review apply`` writes for an edited or accepted conversation, from the outputs'
    registry) gives, row for row, what the pipeline wrote for the same conversation in every file."""
    from synth.export.outputs import rows_by_file
    from synth.messages import ToolNames
    from synth.registry import load_registry
    from synth.review.apply import derive
    from synth.rundir import CHAT, CONVERSATIONS, DECIDED, EVAL, SCORED
    from synth.rundir.output import Accepted

    out = tmp_path / "run"
    generate(
        Settings(servers=tiny_registry, allow_fallback=True, out=out, n=12, seed=4)
    )  # a seed whose 12 reach train and test
    registry = load_registry(tiny_registry)
    servers, names = {s.id: s for s in registry.servers}, ToolNames(registry.servers)
    written = {name: list(read_jsonl(out / name)) for name in (CONVERSATIONS, *CHAT.values(), EVAL, SCORED, DECIDED)}
    made: dict[str, list] = {name: [] for name in written}
    for record in written[CONVERSATIONS]:
        conv = Conversation.model_validate(record)
        scored, _ = derive(conv, servers, 4)  # as review apply derives them: the server's kin included
        for name, rows in rows_by_file(Accepted(conv, servers[conv.server], scored, names)).items():
            if name in made:  # preference.jsonl is off by default
                made[name].extend(rows)
    splits = {c["split"] for c in written[CONVERSATIONS]}
    assert {"train", "test"} <= splits and all(written[n] for n in (EVAL, SCORED))  # every routing is exercised
    assert {n: [json.dumps(r, ensure_ascii=False) for r in rows] for n, rows in made.items()} == {
        n: [json.dumps(r, ensure_ascii=False) for r in rows] for n, rows in written.items()
    }


def test_apply_keeps_the_decision_rows_of_the_conversations_that_stay(tiny_registry, tmp_path):
    """A rejected conversation's rows leave every file of rows, scored_decisions.jsonl too (apply used to
    rewrite it empty), and the other conversations' rows stay as they were."""
    from synth.review.apply import apply
    from synth.review.queue import iter_queue, write_queue
    from synth.rundir import DECIDED, SCORED

    out = tmp_path / "run"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=30, seed=5))
    before = {name: list(read_jsonl(out / name)) for name in (SCORED, DECIDED)}
    items = list(iter_queue(out))
    with_decisions = {row["conversation_id"] for row in before[DECIDED]}
    gone = next(i for i in items if i.kind == "conversation" and not i.held and i.record_id in with_decisions)
    decided = {"decision": "reject", "reviewer": "me", "decided_at": "2026-11-26T00:00:00+00:00"}
    write_queue(out, (i.model_copy(update=decided) if i.id == gone.id else i for i in items))
    assert apply(out, tiny_registry).removed == 1
    for name, rows in before.items():
        kept = [r for r in rows if r["conversation_id"] != gone.record_id]
        assert list(read_jsonl(out / name)) == kept and len(kept) < len(rows), name
