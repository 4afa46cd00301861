"""The run's manifest after a review: counts, coverage, file hashes and the funnel, read again from the files.

``recount`` counts with the run's own counts output (synth.export.card.counts), so it gives exactly what the
pipeline wrote for an untouched run (tests/test_review.py holds it to that), and the manifest of a reviewed
run reads like one that was generated that way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from synth.export.card.counts import Counts, counts_section, coverage_section
from synth.records import Conversation
from synth.review.queue import QueueItem
from synth.rundir import CONVERSATIONS, EVAL, REJECTED, SCORED, RunDir, count_lines, file_facts, read_jsonl, stored

STAGE = "human_review"


def recount(run: Path, manifest: dict[str, Any]) -> None:
    """Counts, coverage, file facts and the inject stage of the manifest, read again from the run's files."""
    counts = Counts()
    for conv in read_jsonl(run / CONVERSATIONS):
        counts.count(Conversation.model_validate(conv))
    counts.score((row["score"], row["subtype"]) for row in read_jsonl(run / SCORED))
    counted = counts.close().report
    manifest["counts"] = counts_section(counted["counts"], count_lines(run / EVAL))
    usable = [f"{s['id']}/{t['name']}" for s in manifest["registry"]["snapshot"] for t in s["tools"]]
    manifest["coverage"] = coverage_section(usable, counted["used_tools"])
    conversations, calls = counted["counts"]["conversations"], counts.calls
    manifest["files"] = {name: file_facts(run / name) for name in manifest["files"] if stored(run / name).exists()}
    # the inject stage counts the gold calls of the conversations in the data and the negatives it could not make
    funnel = manifest["funnel"]
    funnel["accepted"] = conversations
    if calls or "inject" in funnel["entered"]:
        funnel["entered"]["inject"] = funnel["left"]["inject"] = calls
    missed: dict[str, int] = {}
    for record in read_jsonl(run / REJECTED):
        if record.get("stage") == "inject":
            missed[record["reason"]] = missed.get(record["reason"], 0) + 1
    if missed:
        funnel["dropped"]["inject"] = missed  # in the order rejected.jsonl has them, as the pipeline counts
    else:
        funnel["dropped"].pop("inject", None)


def update_manifest(
    run: Path, manifest: dict[str, Any], applied: list[QueueItem], count: int, decisions: dict[str, int]
) -> None:
    """Held conversations entered the human_review stage when generated, the others when decided;
    accepted and edited ones pass it, rejected ones are dropped with reason ``human``."""
    funnel = manifest["funnel"]
    convs = [i for i in applied if i.kind == "conversation"]
    entered = sum(not i.held for i in convs)
    if entered:
        funnel["entered"][STAGE] = funnel["entered"].get(STAGE, 0) + entered
    passed = sum(i.decision in ("accept", "edit") for i in convs)
    if passed:
        funnel["left"][STAGE] = funnel["left"].get(STAGE, 0) + passed
    rejected = sum(i.decision == "reject" for i in convs)
    if rejected:
        dropped = funnel["dropped"].setdefault(STAGE, {})
        dropped["human"] = dropped.get("human", 0) + rejected
    recount(run, manifest)
    review = manifest.setdefault("review", {"applied": 0, "decisions": {}})
    review["applied"] += count
    for decision, n in sorted(decisions.items()):
        review["decisions"][decision] = review["decisions"].get(decision, 0) + n
    RunDir(run).write_manifest(manifest)
