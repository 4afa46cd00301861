"""``synth review apply``: fold a person's decisions back into the run.

- accept: a held conversation joins its hashed split (its negatives are derived then); an item
  already in the data stays.
- reject: the conversation (with everything derived from it) or the scored call leaves the data
  and goes to rejected.jsonl with stage ``human_review``, reason ``human``.
- edit: the edited conversation goes through the gates again and its negatives are re-derived
  (synth.stages.gates.review, synth.stages.inject.inject_call, as in the pipeline); an edited
  scored call replaces the old line. An edit that no longer passes is refused and stays queued.

Exports, T-Eval subsets, manifest and card are rebuilt; ``review_log.jsonl`` records who decided
what, when, and what it changed. Decisions already in the log are skipped, so applying twice
changes nothing the second time. Files are replaced whole (write, then rename).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from synth.errors import ConfigError
from synth.export.chat import ToolNames, chat_line, eval_items
from synth.export.scored import scored_line
from synth.records import Conversation, Registry, ScoredCall, ServerSpec, StageFailure
from synth.registry import load_registry
from synth.review.edit import EditError, check_messages, check_scored, edited_conversation
from synth.review.queue import QUEUE, QueueItem, dump_line, read_queue, write_atomic, write_queue
from synth.stages.inject import inject_call

LOG = "review_log.jsonl"
STAGE = "human_review"


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def lines(path: Path) -> Iterator[dict[str, Any]]:
    if path.exists():
        with open(path, encoding="utf-8") as f:
            for text in f:
                if text.strip():
                    yield json.loads(text)


def read_manifest(run: Path) -> dict[str, Any]:
    path = run / "manifest.json"
    if not path.exists():
        raise ConfigError(f"{run} is not a run folder (no manifest.json); pass the --out folder of synth generate")
    return json.loads(path.read_text(encoding="utf-8"))


def run_registry(run: Path, manifest: dict[str, Any], servers: Path | None, needed: set[str]) -> Registry:
    """The registry the run was made from, checked against the manifest's snapshot for the servers needed."""
    path = servers or Path(manifest["config"]["servers"])
    if not path.is_dir():
        raise ConfigError(f"the registry this run was made from ({path}) is not here; pass --servers with the folder "
                          "of server files the run was generated from")
    registry = load_registry(path)
    snapshot = {s["id"]: {t["name"]: t["schema_hash"] for t in s["tools"]} for s in manifest["registry"]["snapshot"]}
    now = {s.id: {t.name: t.schema_hash for t in s.tools} for s in registry.servers}
    changed = sorted(s for s in needed if snapshot.get(s) != now.get(s))
    if changed:
        raise ConfigError(f"the registry at {path} is not the one this run was made from: server(s) "
                          f"{', '.join(changed[:5])} differ (missing, or tools and schemas changed); pass --servers "
                          "with the original folder")
    return registry


def derive(conv: Conversation, server: ServerSpec, seed: int) -> tuple[list[ScoredCall], list[StageFailure]]:
    """The conversation's scored calls, exactly as the pipeline derives them."""
    used = {c.name for c in conv.calls}
    siblings_of = {t.name: [s for s in server.tools if s.name != t.name and s.name in conv.tools]
                   for t in server.tools if t.name in used}
    scored: list[ScoredCall] = []
    missed: list[StageFailure] = []
    index = 0
    for position, message in enumerate(conv.messages):
        for call in message.tool_calls:
            tool = server.tool(call.name)
            assert tool is not None  # the gates checked it
            made, failed = inject_call(tool, siblings_of[call.name], call, conv.messages[:position],
                                       conversation_id=conv.id, call_index=index, seed=seed)
            scored.extend(made)
            missed.extend(failed)
            index += 1
    return scored, missed


@dataclass
class Applied:
    """What one ``synth review apply`` did."""

    applied: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    joined: int = 0  # held conversations that joined a split
    removed: int = 0  # conversations and scored calls taken out of the data
    refused: list[str] = field(default_factory=list)  # edits that no longer pass, with why

    @property
    def nothing(self) -> bool:
        return not self.applied and not self.refused


@dataclass
class _Plan:
    remove_convs: set[str] = field(default_factory=set)
    replace_convs: dict[str, Conversation] = field(default_factory=dict)  # old id -> edited
    add_convs: list[Conversation] = field(default_factory=list)
    remove_rows: set[str] = field(default_factory=set)
    replace_rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, dict[str, Any]] = field(default_factory=dict)  # queue id -> what it changed


def apply(run: Path, servers: Path | None = None, now: Callable[[], str] = utc_now) -> Applied:
    """Apply every decided, not yet applied queue item of ``run``."""
    manifest = read_manifest(run)
    items = read_queue(run)
    done = {entry["queue_id"] for entry in lines(run / LOG)}
    todo = [i for i in items if i.decision is not None and i.id not in done]
    report = Applied()
    if not todo:
        return report
    todo.sort(key=lambda i: i.kind != "conversation")  # a conversation's fate first, then its calls
    needed = {i.server for i in todo if i.decision == "edit" or (i.held and i.decision == "accept")}
    registry = run_registry(run, manifest, servers, needed)
    by_id = {s.id: s for s in registry.servers}
    seed = manifest["config"]["seed"]
    plan, refused = _Plan(), {}
    for item in todo:
        try:
            _decide(item, plan, by_id)
        except EditError as exc:
            refused[item.id] = str(exc)
    derived = {}
    for conv in [*plan.replace_convs.values(), *plan.add_convs]:
        derived[conv.id] = derive(conv, by_id[conv.server], seed)
    names = ToolNames(registry.servers)
    seen_rows = _rewrite(run, plan, derived, by_id, names)
    _rebuild_teval(run, manifest, by_id, seed, plan, registry)
    stamp = now()
    log = []
    for item in todo:
        if item.id in refused:
            report.refused.append(f"{item.id}: {refused[item.id]}")
            continue
        outcome = plan.outcome[item.id]
        if item.kind == "scored" and outcome.get("row") and outcome["row"] not in seen_rows:
            outcome = {"outcome": "no change: the call is no longer in the data (its conversation left or was edited)"}
        log.append({"queue_id": item.id, "kind": item.kind, "record_id": item.record_id,
                    "conversation_id": item.conversation_id, "server": item.server, "split": item.split,
                    "why": item.why, "decision": item.decision, "reviewer": item.reviewer, "note": item.note,
                    "decided_at": item.decided_at, "applied_at": stamp,
                    **{k: v for k, v in outcome.items() if k != "row"}})
        report.decisions[item.decision or ""] = report.decisions.get(item.decision or "", 0) + 1
    report.applied = len(log)
    report.joined = len(plan.add_convs)
    report.removed = len(plan.remove_convs) + len(plan.remove_rows)
    if refused:  # the item goes back to the queue undecided, with why
        write_queue(run, [i.model_copy(update={"decision": None, "edited": None, "decided_at": None,
                                               "note": f"edit refused by synth review apply: {refused[i.id]}"})
                          if i.id in refused else i for i in items])
    with open(run / LOG, "a", encoding="utf-8") as f:
        for entry in log:
            f.write(dump_line(entry))
    _update_manifest(run, manifest, plan, report)
    from synth.export.card import write_card

    if any((run / c).is_dir() for c in ("chat", "eval", "scored")):  # a Hub layout lives here: rebuild it too
        from synth.export.hf import export

        export(run)
    else:
        write_card(run)
    return report


def _decide(item: QueueItem, plan: _Plan, servers: dict[str, ServerSpec]) -> None:
    """Record what one decision changes; an edit that does not pass raises EditError."""
    why = f"{item.note} ({item.reviewer})" if item.note else f"rejected by {item.reviewer or 'a person'} in synth review"
    if item.kind == "conversation":
        conv = Conversation.model_validate(item.record)
        if item.decision == "accept":
            if item.held:
                accepted = conv.model_copy(update={"review": conv.review.model_copy(update={
                    "verdict": "accept", "reasons": (*conv.review.reasons, f"accepted by {item.reviewer or 'a person'}")})})
                plan.add_convs.append(accepted)
                plan.outcome[item.id] = {"outcome": f"joined {conv.split}"}
            else:
                plan.outcome[item.id] = {"outcome": "kept"}
        elif item.decision == "reject":
            if not item.held:
                plan.remove_convs.add(conv.id)
            plan.rejected.append(StageFailure(stage=STAGE, item_id=conv.id, reason="human", detail=why,
                                              raw={"queue_id": item.id, "server": conv.server, "split": conv.split,
                                                   "held": item.held}).to_json())
            plan.outcome[item.id] = {"outcome": "rejected" + ("" if item.held else f", removed from {conv.split}")}
        else:
            server = servers[conv.server]
            messages = check_messages(item.edited, server)
            new = edited_conversation(conv, messages, server, item.reviewer)
            if item.held:
                plan.add_convs.append(new)
            else:
                plan.replace_convs[conv.id] = new
            plan.outcome[item.id] = {"outcome": f"edited, joined {new.split}, negatives re-derived", "new_id": new.id}
        return
    row = item.record
    gone = row["conversation_id"] in plan.remove_convs or row["conversation_id"] in plan.replace_convs
    if gone:
        plan.outcome[item.id] = {"outcome": "no change: its conversation was rejected or edited in this apply"}
    elif item.decision == "accept":
        plan.outcome[item.id] = {"outcome": "kept", "row": row["id"]}
    elif item.decision == "reject":
        plan.remove_rows.add(row["id"])
        plan.rejected.append(StageFailure(stage=STAGE, item_id=row["id"], reason="human", detail=why,
                                          raw={"queue_id": item.id, "conversation_id": row["conversation_id"],
                                               "call_index": row["call_index"], "score": row["score"],
                                               "subtype": row["subtype"]}).to_json())
        plan.outcome[item.id] = {"outcome": f"rejected, removed from scored {row['split']}", "row": row["id"]}
    else:
        new = check_scored(item.edited, row, servers[row["server"]]) if row["server"] in servers else None
        if new is None:
            raise EditError(f"server {row['server']} is not in the registry")
        plan.replace_rows[row["id"]] = new
        plan.outcome[item.id] = {"outcome": f"edited, now {new['score']}/{new['subtype']}", "new_id": new["id"],
                                 "row": row["id"]}


class _Files:
    """New versions of run files, written beside the old ones and swapped in together."""

    def __init__(self, run: Path, names: list[str]):
        self.run = run
        self.tmp = Path(tempfile.mkdtemp(prefix=".apply-", dir=run))
        self.out = {n: open(self.tmp / n, "w", encoding="utf-8") for n in names}

    def write(self, name: str, line: dict[str, Any] | str) -> None:
        self.out[name].write(line if isinstance(line, str) else dump_line(line))

    def commit(self) -> None:
        for name, f in self.out.items():
            f.close()
            (self.tmp / name).replace(self.run / name)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def abort(self) -> None:
        for f in self.out.values():
            f.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def _rewrite(run: Path, plan: _Plan, derived: dict[str, tuple[list[ScoredCall], list[StageFailure]]],
             servers: dict[str, ServerSpec], names: ToolNames) -> set[str]:
    """Stream every export once, dropping, replacing and appending what the plan says. Lines of
    conversations nobody touched are copied as they were. Returns the scored ids seen."""
    files = _Files(run, ["conversations.jsonl", "train.jsonl", "valid.jsonl", "eval.jsonl", "scored.jsonl",
                         "rejected.jsonl"])
    seen: set[str] = set()
    try:
        chat = {s: open(run / f"{s}.jsonl", encoding="utf-8") for s in ("train", "valid")}
        try:
            changed: dict[str, str] = {}  # conversation id -> "removed" | "replaced"
            for text in open(run / "conversations.jsonl", encoding="utf-8"):
                conv_id, split = _id_and_split(text)
                old_chat = chat[split].readline() if split in chat else None
                if conv_id in plan.remove_convs:
                    changed[conv_id] = "removed"
                    continue
                if conv_id in plan.replace_convs:
                    changed[conv_id] = "replaced"
                    _export_conv(files, plan.replace_convs[conv_id], servers, names)
                    continue
                files.write("conversations.jsonl", text)
                if old_chat is not None:
                    files.write(f"{split}.jsonl", old_chat)
        finally:
            for f in chat.values():
                f.close()
        for conv in plan.add_convs:
            _export_conv(files, conv, servers, names)
        for item in lines(run / "eval.jsonl"):
            if item["item"]["metadata"]["conversation_id"] not in changed:
                files.write("eval.jsonl", item)
        _reorder_eval(files, run, plan, servers, names)
        emitted: set[str] = set()
        for text in open(run / "scored.jsonl", encoding="utf-8"):
            row = json.loads(text)
            seen.add(row["id"])
            cid = row["conversation_id"]
            if changed.get(cid) == "removed" or row["id"] in plan.remove_rows:
                continue
            if changed.get(cid) == "replaced":
                if cid not in emitted:
                    emitted.add(cid)
                    _scored_rows(files, plan.replace_convs[cid], derived, servers)
                continue
            files.write("scored.jsonl", plan.replace_rows.get(row["id"], text) if row["id"] in plan.replace_rows else text)
        for cid, new in plan.replace_convs.items():
            if cid not in emitted:
                _scored_rows(files, new, derived, servers)
        for conv in plan.add_convs:
            _scored_rows(files, conv, derived, servers)
        for text in open(run / "rejected.jsonl", encoding="utf-8"):
            record = json.loads(text)
            if record.get("stage") == "inject" and (record.get("raw") or {}).get("conversation_id") in changed:
                continue  # negatives that could not be made for a conversation that left or changed
            files.write("rejected.jsonl", text)
        for line in plan.rejected:
            files.write("rejected.jsonl", line)
        for conv in [*plan.replace_convs.values(), *plan.add_convs]:
            for failure in derived[conv.id][1]:
                files.write("rejected.jsonl", failure.to_json())
    except BaseException:
        files.abort()
        raise
    files.commit()
    return seen


def _reorder_eval(files: _Files, run: Path, plan: _Plan, servers: dict[str, ServerSpec], names: ToolNames) -> None:
    for conv in [*plan.replace_convs.values(), *plan.add_convs]:
        if conv.split == "test":
            for item in eval_items(conv, servers[conv.server], names):
                files.write("eval.jsonl", item)


def _id_and_split(text: str) -> tuple[str, str]:
    record = json.loads(text)
    return record["id"], record.get("split") or "train"


def _export_conv(files: _Files, conv: Conversation, servers: dict[str, ServerSpec], names: ToolNames) -> None:
    files.write("conversations.jsonl", conv.to_json())
    if conv.split in ("train", "valid"):
        files.write(f"{conv.split}.jsonl", chat_line(conv, servers[conv.server], names))


def _scored_rows(files: _Files, conv: Conversation, derived: dict[str, Any], servers: dict[str, ServerSpec]) -> None:
    for record in derived[conv.id][0]:
        files.write("scored.jsonl", scored_line(record, servers[conv.server], conv.tools, conv.split or "train"))


def _rebuild_teval(run: Path, manifest: dict[str, Any], servers: dict[str, ServerSpec], seed: int, plan: _Plan,
                   registry: Registry) -> None:
    """T-Eval subsets come from the test split: made again when a test conversation came, went or changed."""
    touched = {c.split for c in [*plan.replace_convs.values(), *plan.add_convs]}
    if not (run / "teval").is_dir() or ("test" not in touched and not plan.remove_convs):
        return
    try:
        from synth.export.teval import TevalWriter
    except ImportError:  # pragma: no cover - a synth without T-Eval export
        return
    all_servers = {s.id: s for s in registry.servers}
    tmp = Path(tempfile.mkdtemp(prefix=".teval-", dir=run))
    try:
        writer = TevalWriter(tmp)
        for record in lines(run / "conversations.jsonl"):
            if record.get("split") != "test":
                continue
            conv = Conversation.model_validate(record)
            server = all_servers.get(conv.server)
            if server is None:
                raise ConfigError(f"server {conv.server} of {conv.id} is not in the registry; pass --servers")
            writer.add(conv, server, derive(conv, server, seed)[0])
        manifest["teval"] = writer.close()
        for path in (tmp / "teval").iterdir():
            path.replace(run / "teval" / path.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- the manifest ------------------------------------------------------------------------------

def file_facts(path: Path) -> dict[str, Any]:
    digest, count = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
            count += chunk.count(b"\n")
    return {"lines": count, "sha256": digest.hexdigest()}


def recount(run: Path, manifest: dict[str, Any]) -> None:
    """Counts, coverage and file facts of the manifest, read again from the run's files."""
    splits = dict.fromkeys(("train", "valid", "test"), 0)
    used: set[str] = set()
    multi = calls = messages = conversations = 0
    for conv in lines(run / "conversations.jsonl"):
        conversations += 1
        splits[conv.get("split") or "train"] += 1
        conv_calls = [c["name"] for m in conv["messages"] for c in m.get("tool_calls", [])]
        used.update(f"{conv['scenario']['server']}/{name}" for name in conv_calls)
        calls += len(conv_calls)
        messages += len(conv["messages"])
        multi += bool(conv["query"].get("withheld"))
    labels: dict[str, int] = {}
    subtypes: dict[str, int] = {}
    for row in lines(run / "scored.jsonl"):
        labels[row["score"]] = labels.get(row["score"], 0) + 1
        key = f"{row['score']}/{row['subtype']}"
        subtypes[key] = subtypes.get(key, 0) + 1
    eval_count = file_facts(run / "eval.jsonl")["lines"]
    manifest["counts"] = {"conversations": conversations, "splits": splits, "multi_turn": multi, "tool_calls": calls,
                          "messages": messages, "eval_items": eval_count, "scored": dict(sorted(labels.items())),
                          "scored_subtypes": dict(sorted(subtypes.items()))}
    usable = [f"{s['id']}/{t['name']}" for s in manifest["registry"]["snapshot"] for t in s["tools"]]
    unused = sorted(set(usable) - used)
    manifest["coverage"] = {"usable_tools": len(usable), "used_tools": len(usable) - len(unused),
                            "share": round((len(usable) - len(unused)) / len(usable), 4) if usable else 0.0,
                            "unused": unused}
    manifest["files"] = {name: file_facts(run / name) for name in manifest["files"] if (run / name).exists()}


def _update_manifest(run: Path, manifest: dict[str, Any], plan: _Plan, report: Applied) -> None:
    funnel = manifest["funnel"]
    reviewed_in_data = sum(1 for o in plan.outcome.values() if o.get("outcome") == "kept") * 0  # not a stage change
    del reviewed_in_data
    joined = len(plan.add_convs)
    rejected_convs = sum(1 for r in plan.rejected if (r.get("raw") or {}).get("split") is not None)
    held_rejected = sum(1 for r in plan.rejected if (r.get("raw") or {}).get("held"))
    in_data_changed = len(plan.remove_convs) + len(plan.replace_convs)
    funnel["entered"][STAGE] = funnel["entered"].get(STAGE, 0) + in_data_changed
    funnel["left"][STAGE] = funnel["left"].get(STAGE, 0) + joined + len(plan.replace_convs)
    if rejected_convs:
        dropped = funnel["dropped"].setdefault(STAGE, {})
        dropped["human"] = dropped.get("human", 0) + rejected_convs
    del held_rejected
    for conv in [*plan.replace_convs.values(), *plan.add_convs]:
        funnel["entered"]["inject"] = funnel["entered"].get("inject", 0) + len(conv.calls)
        funnel["left"]["inject"] = funnel["left"].get("inject", 0) + len(conv.calls)
    recount(run, manifest)
    funnel["accepted"] = manifest["counts"]["conversations"]
    review = manifest.setdefault("review", {"applied": 0, "decisions": {}})
    review["applied"] += report.applied
    for decision, n in report.decisions.items():
        review["decisions"][decision] = review["decisions"].get(decision, 0) + n
    write_atomic(run / "manifest.json", [json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"])
