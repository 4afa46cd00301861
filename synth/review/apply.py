"""``synth review apply``: fold a person's decisions back into the run.

- accept: a held conversation joins the split it was given (its negatives are derived then); an item
  already in the data stays.
- reject: the conversation (with everything derived from it) or the scored call leaves the data
  and goes to rejected.jsonl with stage ``human_review``, reason ``human``.
- edit: the edited conversation goes through the gates again and its negatives are re-derived
  (synth.stages.gates.review and synth.stages.inject.negatives, as the pipeline does); an edited
  scored call replaces its line. An edit that no longer passes is refused and goes back to the queue.

Exports, T-Eval subsets, manifest and card are rebuilt; ``review_log.jsonl`` records who decided
what, when, and what it changed. Decisions already in the log are skipped, so applying twice
changes nothing the second time. Lines of untouched conversations are copied as they were, and
every file is replaced whole (written beside, then renamed).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.export.chat import ToolNames
from synth.export.outputs import OUTPUTS, rows_by_file
from synth.records import Conversation, Message, Registry, ScoredCall, ServerSpec, StageFailure, ToolCall
from synth.registry import load_registry
from synth.review.edit import EditError
from synth.review.manifest import update_manifest
from synth.review.plan import Changes, decide
from synth.review.queue import QueueItem, iter_queue, write_queue
from synth.rundir import (
    CHAT,
    CONVERSATIONS,
    EVAL,
    EXPORTS,
    LOG,
    REJECTED,
    SCORED,
    TEVAL,
    Replacing,
    RunDir,
    append_jsonl,
    is_compact,
    other_spelling,
    read_jsonl,
    read_jsonl_text,
    stored,
)
from synth.rundir.output import Accepted
from synth.stages.inject import kin, negatives


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()


def read_manifest(run: Path) -> dict[str, Any]:
    return RunDir(run).manifest()


def run_registry(run: Path, manifest: dict[str, Any], servers: Path | None, needed: set[str]) -> Registry:
    """The registry the run was made from, checked against the manifest's snapshot for the servers needed."""
    path = servers or Path(manifest["config"]["servers"])
    if not path.is_dir():
        raise ConfigError(
            f"the registry this run was made from ({path}) is not here; pass --servers with the folder "
            "of server files the run was generated from"
        )
    registry = load_registry(path)
    check_snapshot(manifest, registry, needed, path)
    return registry


def check_snapshot(manifest: dict[str, Any], registry: Registry, needed: set[str], path: Path | str) -> None:
    """A ConfigError unless each needed server has the same tools and schemas as when the run was made."""
    snapshot = {s["id"]: {t["name"]: t["schema_hash"] for t in s["tools"]} for s in manifest["registry"]["snapshot"]}
    now = {s.id: {t.name: t.schema_hash for t in s.tools} for s in registry.servers}
    changed = sorted(s for s in needed if snapshot.get(s) != now.get(s))
    if changed:
        raise ConfigError(
            f"the registry at {path} is not the one this run was made from: server(s) "
            f"{', '.join(changed[:5])} differ (missing, or tools and schemas changed); pass --servers "
            "with the original folder"
        )


def derive(
    conv: Conversation, servers: dict[str, ServerSpec], seed: int
) -> tuple[list[ScoredCall], list[StageFailure]]:
    """The conversation's scored calls, exactly as the pipeline derives them (its server's kin included)."""
    server = servers[conv.server]
    return negatives(conv, server, seed, kin(server, servers.values()))


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


def apply(run: Path, servers: Path | None = None, now: Callable[[], str] = utc_now) -> Applied:
    """Apply every decided, not yet applied queue item of ``run``."""
    manifest = read_manifest(run)
    done = {entry["queue_id"] for entry in read_jsonl(run / LOG)}
    # streamed: only the decided items are held (a person's work), not the queue's conversations
    todo = sorted(
        (i for i in iter_queue(run) if i.decision is not None and i.id not in done),
        key=lambda i: i.kind != "conversation",
    )  # a conversation's fate first, then its calls
    report = Applied()
    if not todo:
        return report
    plan = Changes()
    needed = {i.server for i in todo if i.decision == "edit" or (i.held and i.decision != "reject")}
    registry = run_registry(run, manifest, servers, needed) if needed else None
    by_id = {s.id: s for s in registry.servers} if registry else {}
    refused: dict[str, str] = {}
    for item in todo:
        try:
            decide(item, plan, by_id)
        except EditError as exc:
            refused[item.id] = str(exc)
    teval = (run / TEVAL).is_dir() and plan.touches_test()
    if teval:  # T-Eval subsets are made from every test conversation: the whole registry must match
        registry = _whole_registry(run, manifest, servers, registry)
        by_id = {s.id: s for s in registry.servers}
    seed = manifest["config"]["seed"]
    derived = {c.id: derive(c, by_id, seed) for c in [*plan.replace_convs.values(), *plan.add_convs]}
    names = ToolNames(registry.servers) if registry else ToolNames(())
    seen_rows = _rewrite(run, plan, derived, by_id, names)
    if teval:
        rebuild_teval(run, manifest, by_id)
    applied = _log(run, todo, plan, refused, seen_rows, now(), report)
    report.applied = len(applied)
    report.joined = len(plan.add_convs)
    report.removed = len(plan.remove_convs) + len(plan.remove_rows)
    if refused:
        _requeue(run, refused)
    update_manifest(run, manifest, applied, report.applied, report.decisions)
    _rebuild_card(run)
    return report


def _requeue(run: Path, refused: dict[str, str]) -> None:
    """Refused edits go back to the queue, undecided, with why."""
    write_queue(
        run,
        (
            i.model_copy(
                update={
                    "decision": None,
                    "edited": None,
                    "decided_at": None,
                    "note": f"edit refused by synth review apply: {refused[i.id]}",
                }
            )
            if i.id in refused
            else i
            for i in iter_queue(run)
        ),
    )


def _rebuild_card(run: Path) -> None:
    """The card, or the whole Hub layout when one lives in the run folder."""
    from synth.export.card.build import write_card
    from synth.export.repo import export

    if any((run / c).is_dir() for c in ("chat", "eval", "scored")):
        export(run)
    else:
        write_card(run)


def _whole_registry(run: Path, manifest: dict[str, Any], servers: Path | None, loaded: Registry | None) -> Registry:
    """The run's registry with every server of its snapshot unchanged (T-Eval subsets read them all)."""
    registry = loaded or run_registry(run, manifest, servers, set())
    check_snapshot(
        manifest,
        registry,
        {s["id"] for s in manifest["registry"]["snapshot"]},
        servers or manifest["config"]["servers"],
    )
    return registry


def _log(
    run: Path,
    todo: list[QueueItem],
    plan: Changes,
    refused: dict[str, str],
    seen_rows: set[str],
    stamp: str,
    report: Applied,
) -> list[QueueItem]:
    """Add each applied decision to review_log.jsonl with what it changed; the items applied."""
    applied: list[QueueItem] = []
    entries: list[dict[str, Any]] = []
    for item in todo:
        if item.id in refused:
            report.refused.append(f"{item.id}: {refused[item.id]}")
            continue
        outcome = dict(plan.outcome[item.id])
        row = outcome.pop("row", None)
        if row is not None and row not in seen_rows:
            outcome = {"outcome": "no change: the call had already left the data"}
        entries.append(
            {
                "queue_id": item.id,
                "kind": item.kind,
                "record_id": item.record_id,
                "conversation_id": item.conversation_id,
                "server": item.server,
                "split": item.split,
                "why": item.why,
                "decision": item.decision,
                "reviewer": item.reviewer,
                "note": item.note,
                "decided_at": item.decided_at,
                "applied_at": stamp,
                **outcome,
            }
        )
        applied.append(item)
        report.decisions[item.decision or ""] = report.decisions.get(item.decision or "", 0) + 1
    append_jsonl(run / LOG, entries)
    return applied


# --- the files ---------------------------------------------------------------------------------


def _rewrite(
    run: Path,
    plan: Changes,
    derived: dict[str, tuple[list[ScoredCall], list[StageFailure]]],
    servers: dict[str, ServerSpec],
    names: ToolNames,
) -> set[str]:
    """Every export streamed once: dropped, replaced and appended lines as the plan says. Returns the
    scored ids that were in the data before."""
    seen: set[str] = set()  # the scored rows there before
    changed = {**dict.fromkeys(plan.remove_convs, "removed"), **dict.fromkeys(plan.replace_convs, "replaced")}
    new = {
        c.id: rows_by_file(Accepted(c, servers[c.server], derived[c.id][0], names))  # the rows each new version gives
        for c in [*plan.replace_convs.values(), *plan.add_convs]
    }
    keyed = [  # every other file of rows: its rows carry their conversation_id (scored, decisions, preference, ...)
        k.files[0]
        for k in OUTPUTS.values()
        if k.rows is not None and k.files[0] not in (CONVERSATIONS, *CHAT.values(), EVAL)
    ]
    there = [n for n in (*EXPORTS, *keyed) if n in (CONVERSATIONS, REJECTED) or stored(run / n).exists()]
    off = [n for n in (*EXPORTS, *keyed) if n not in there]  # outputs the run did not write: their rows dropped
    with Replacing(run, there, skip=off) as files:  # all or nothing: an error leaves every file as it was
        _conversations(run, files, plan, new)
        for text, item in read_jsonl_text(run / EVAL):
            if item["item"]["metadata"]["conversation_id"] not in changed:
                files.write(EVAL, text)
        for conv in [*plan.replace_convs.values(), *plan.add_convs]:
            _write(files, new[conv.id], EVAL)
        for name in keyed:
            _rows(run, files, name, plan, new, changed, seen if name == SCORED else set())
        for text, record in read_jsonl_text(run / REJECTED):
            if record.get("stage") == "inject" and (record.get("raw") or {}).get("conversation_id") in changed:
                continue  # negatives that could not be made for a conversation that left or changed
            files.write(REJECTED, text)
        for line in plan.rejected:
            files.write(REJECTED, line)
        for conv in [*plan.replace_convs.values(), *plan.add_convs]:
            for failure in derived[conv.id][1]:
                files.write(REJECTED, failure.to_json())
    return seen


def _rows(
    run: Path,
    files: Replacing,
    name: str,
    plan: Changes,
    new: dict[str, dict[str, list[Any]]],
    changed: dict[str, str],
    seen: set[str],
) -> None:
    """A file of rows keyed by their conversation (scored, decisions, preference): a replaced conversation's
    new rows where its old ones were, a new one's at the end; a scored row a person rejected or edited
    (``plan.remove_rows``, ``plan.replace_rows``: ids of scored rows) dropped or replaced."""
    emitted: set[str] = set()
    for text, row in read_jsonl_text(run / name):
        seen.add(row["id"])
        cid = row["conversation_id"]
        if changed.get(cid) == "replaced" and cid not in emitted:
            emitted.add(cid)
            _write(files, new[plan.replace_convs[cid].id], name)
        if cid in changed or row["id"] in plan.remove_rows:
            continue
        files.write(name, plan.replace_rows.get(row["id"], text))
    for conv in [*(c for k, c in plan.replace_convs.items() if k not in emitted), *plan.add_convs]:
        _write(files, new[conv.id], name)


def _conversations(run: Path, files: Replacing, plan: Changes, new: dict[str, dict[str, list[Any]]]) -> None:
    """conversations.jsonl with train/valid.jsonl beside it: their lines come in the same order, so an
    untouched conversation's chat line is copied as it was."""
    chat = {split: read_jsonl_text(run / name) for split, name in CHAT.items()}
    for text, record in read_jsonl_text(run / CONVERSATIONS):
        split = record.get("split") or "train"
        old_chat = next(chat[split])[0] if split in chat else None
        if record["id"] in plan.remove_convs:
            continue
        if record["id"] in plan.replace_convs:
            _write(files, new[plan.replace_convs[record["id"]].id], CONVERSATIONS, *CHAT.values())
            continue
        files.write(CONVERSATIONS, text)
        if old_chat is not None:
            files.write(CHAT[split], old_chat)
    for conv in plan.add_convs:
        _write(files, new[conv.id], CONVERSATIONS, *CHAT.values())


def _write(files: Replacing, rows: dict[str, list[Any]], *names: str) -> None:
    """A new conversation's rows (synth.export.outputs.rows_by_file) for the files ``names``, where the rewrite
    has come to them."""
    for name in names:
        for row in rows.get(name, ()):
            files.write(name, row)


def scored_records(conv: Conversation, rows: list[dict[str, Any]]) -> list[ScoredCall]:
    """Scored lines of one conversation as records again (each history cut at the call it scores)."""
    before: list[tuple[Message, ...]] = []
    for position, message in enumerate(conv.messages):
        before.extend(conv.messages[:position] for _ in message.tool_calls)

    def call(raw: dict[str, Any]) -> ToolCall:
        fn = raw["function"]
        return ToolCall(id=raw["id"], name=fn["name"], arguments=json.loads(fn["arguments"]))

    return [
        ScoredCall(
            id=r["id"],
            conversation_id=r["conversation_id"],
            server=r["server"],
            call_index=r["call_index"],
            history=before[r["call_index"]],
            tool_call=call(r["tool_call"]),
            gold_call=call(r["gold_call"]),
            score=r["score"],
            subtype=r["subtype"],
            failure_reason=r["failure_reason"],
        )
        for r in rows
    ]


def rebuild_teval(run: Path, manifest: dict[str, Any], servers: dict[str, ServerSpec]) -> None:
    """T-Eval subsets made again from the test split as it is now (its conversations and scored lines)."""
    from synth.export.teval import TevalWriter

    rows: dict[str, list[dict[str, Any]]] = {}
    for row in read_jsonl(run / SCORED):
        if row["split"] == "test":
            rows.setdefault(row["conversation_id"], []).append(row)
    tmp = Path(tempfile.mkdtemp(prefix=".teval-", dir=run))
    try:
        writer = TevalWriter(tmp, compact=is_compact(run))
        try:
            for record in read_jsonl(run / CONVERSATIONS):
                if record.get("split") == "test":
                    conv = Conversation.model_validate(record)
                    writer.add(conv, servers[conv.server], scored_records(conv, rows.get(conv.id, [])))
        finally:
            counts = writer.close()
        manifest["teval"] = counts
        (run / TEVAL).mkdir(exist_ok=True)
        for path in sorted((tmp / TEVAL).iterdir()):
            path.replace(run / TEVAL / path.name)
            other_spelling(run / TEVAL, path.name).unlink(
                missing_ok=True
            )  # the subset in the other storage would shadow it
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
