"""What a person's decisions change (``Changes``), worked out before any file of the run is touched."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from synth.records import Conversation, ServerSpec, StageFailure
from synth.review.edit import EditError, check_messages, check_scored, edited_conversation
from synth.review.manifest import STAGE
from synth.review.queue import QueueItem


@dataclass
class Changes:
    """What the decisions change, before any file is touched."""

    remove_convs: dict[str, str] = field(default_factory=dict)  # id -> split
    replace_convs: dict[str, Conversation] = field(default_factory=dict)  # old id -> edited
    add_convs: list[Conversation] = field(default_factory=list)
    remove_rows: dict[str, str] = field(default_factory=dict)  # scored id -> split
    replace_rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # scored id -> edited line
    rejected: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, dict[str, Any]] = field(default_factory=dict)  # queue id -> what it changed

    def touches_test(self) -> bool:
        return (
            "test" in self.remove_convs.values()
            or "test" in self.remove_rows.values()
            or any(c.split == "test" for c in [*self.replace_convs.values(), *self.add_convs])
            or any(r["split"] == "test" for r in self.replace_rows.values())
        )


def decide(item: QueueItem, plan: Changes, servers: dict[str, ServerSpec]) -> None:
    """Record what one decision changes; an edit that does not pass raises EditError."""
    by = item.reviewer or "a person"
    detail = f"{item.note} ({by})" if item.note else f"rejected by {by} in synth review"
    if item.kind == "conversation":
        _decide_conversation(item, plan, servers, by, detail)
    else:
        _decide_call(item, plan, servers, detail)


def _decide_conversation(item: QueueItem, plan: Changes, servers: dict[str, ServerSpec], by: str, detail: str) -> None:
    """A whole conversation accepted (a held one joins its split), rejected, or edited."""
    conv = Conversation.model_validate(item.record)
    split = conv.split or "train"
    if item.decision == "accept" and item.held:
        review = conv.review.model_copy(
            update={"verdict": "accept", "reasons": (*conv.review.reasons, f"accepted by {by}")}
        )
        plan.add_convs.append(conv.model_copy(update={"review": review}))
        plan.outcome[item.id] = {"outcome": f"joined {split}"}
    elif item.decision == "accept":
        plan.outcome[item.id] = {"outcome": "kept"}
    elif item.decision == "reject":
        if not item.held:
            plan.remove_convs[conv.id] = split
        plan.rejected.append(
            StageFailure(
                stage=STAGE,
                item_id=conv.id,
                reason="human",
                detail=detail,
                raw={"queue_id": item.id, "server": conv.server, "split": split, "held": item.held},
            ).to_json()
        )
        plan.outcome[item.id] = {"outcome": "rejected" if item.held else f"rejected, removed from {split}"}
    else:
        if conv.server not in servers:
            raise EditError(f"server {conv.server} is not in the registry")
        server = servers[conv.server]
        new = edited_conversation(conv, check_messages(item.edited, server), server, item.reviewer)
        if item.held:
            plan.add_convs.append(new)
        else:
            plan.replace_convs[conv.id] = new
        plan.outcome[item.id] = {
            "outcome": f"edited: gates passed, joined {split}, negatives re-derived",
            "new_id": new.id,
        }


def _decide_call(item: QueueItem, plan: Changes, servers: dict[str, ServerSpec], detail: str) -> None:
    """One scored call kept, rejected or edited (nothing, when its conversation already changed)."""
    row = item.record
    if row["conversation_id"] in plan.remove_convs or row["conversation_id"] in plan.replace_convs:
        plan.outcome[item.id] = {"outcome": "no change: its conversation was rejected or edited"}
    elif item.decision == "accept":
        plan.outcome[item.id] = {"outcome": "kept", "row": row["id"]}
    elif item.decision == "reject":
        plan.remove_rows[row["id"]] = row["split"]
        plan.rejected.append(
            StageFailure(
                stage=STAGE,
                item_id=row["id"],
                reason="human",
                detail=detail,
                raw={
                    "queue_id": item.id,
                    "conversation_id": row["conversation_id"],
                    "call_index": row["call_index"],
                    "score": row["score"],
                    "subtype": row["subtype"],
                },
            ).to_json()
        )
        plan.outcome[item.id] = {"outcome": f"rejected, removed from scored {row['split']}", "row": row["id"]}
    else:
        if row["server"] not in servers:
            raise EditError(f"server {row['server']} is not in the registry")
        line = check_scored(item.edited, row, servers[row["server"]])
        plan.replace_rows[row["id"]] = line
        plan.outcome[item.id] = {
            "outcome": f"edited: now {line['score']}/{line['subtype']}",
            "new_id": line["id"],
            "row": row["id"],
        }
