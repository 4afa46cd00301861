"""The human review queue (``review_queue.jsonl``): which items a person should look at, and why.

Rules (``Rules``, from Settings or ``synth review queue`` flags) put an item in the queue:

- ``human``: the reviewer model's verdict was "human". The conversation is *held*: it is not in
  the exports until a person accepts it (then it joins the split it was given).
- ``flagged``: a reader gate (synth.stages.reader) found something it keeps for a person to judge; the
  item's ``why`` names the gate (``unpointed_reuse``) and ``detail`` says what it found. Flagged and held
  items come first in the file, audited ones last.
- ``low_confidence``: the reviewer accepted it with confidence below ``min_confidence``.
- ``disagree``: every gate passed but the reviewer model labelled a step as an error whose result was not
  one (a result the server marked isError is labelled so by the gates; an offline run has no reviewer model).
- ``audit``: a random share of accepted items (conversations and negatives), drawn from a hash of
  (seed, item id), so the same run always audits the same items, in any order.

Each line holds the item rendered for reading, the record itself (so ``synth review apply`` can
fold it back without the generator), the suggested label, and empty decision fields.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from synth.config import REVIEW_RULES
from synth.errors import ConfigError
from synth.export import scored
from synth.records import Conversation, content_hash, make_id
from synth.rundir import CONVERSATIONS, QUEUE, SCORED, inflater, lines, parse_line, read_jsonl, write_jsonl
from synth.rundir.output import Accepted, Closed, Place

Decision = Literal["accept", "reject", "edit"]


@dataclass(frozen=True)
class Rules:
    """What sends an item to a person."""

    audit: float = 0.02
    min_confidence: float = 0.7
    rules: tuple[str, ...] = REVIEW_RULES
    seed: int = 0
    reviewer: Literal["model", "gates"] = "model"  # who decided the verdicts: a reviewer model, or the gates alone

    @classmethod
    def from_settings(cls, settings: Any) -> Rules:
        return cls(
            audit=settings.audit,
            min_confidence=settings.review_below,
            rules=tuple(settings.review_rules),
            seed=settings.seed,
            reviewer="gates" if settings.backend == "offline" else "model",
        )

    def audited(self, record_id: str) -> bool:
        """A fixed share of ids, chosen by hash: the same ids whatever the order or the run size."""
        if "audit" not in self.rules or self.audit <= 0:
            return False
        return int(content_hash([self.seed, "audit", record_id]), 16) / 16**16 < self.audit


class QueueItem(BaseModel):
    """One line of review_queue.jsonl."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: Literal["conversation", "scored"]
    why: list[str]
    detail: list[str] = []  # what a reader gate found, one line each (a flagged item)
    held: bool  # True: not in the exports until a person accepts it
    server: str
    split: str
    conversation_id: str
    record_id: str
    suggested_label: str
    model_review: dict[str, Any] | None = None  # the reviewer model's verdict; None when no model reviewed
    decided_by: Literal["model", "gates"] | None = None  # a conversation's verdict: a reviewer model's, or the gates'
    item: dict[str, Any]  # rendered for reading
    record: dict[str, Any]  # the conversation record or the scored line, as exported
    # filled in by the person (synth review)
    decision: Decision | None = None
    edited: dict[str, Any] | None = None
    reviewer: str | None = None
    note: str | None = None
    decided_at: str | None = None

    def line(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


# --- what goes in ------------------------------------------------------------------------------


def conversation_reasons(conv: Conversation, rules: Rules) -> list[str]:
    """Why a conversation should be looked at, in rule order; empty when it need not be."""
    review = conv.review
    why = []
    if review.verdict == "human":
        why.append("human")
    if "flagged" in rules.rules:
        why += list(dict.fromkeys(f.split(":", 1)[0] for f in review.flags))
    if review.confidence < rules.min_confidence:
        why.append("low_confidence")
    if rules.reviewer == "model" and review.gates and all(g.passed for g in review.gates) and _doubted(conv):
        why.append("disagree")
    if review.verdict == "accept" and rules.audited(conv.id):
        why.append("audit")
    return [w for w in why if w in rules.rules or any(f.startswith(w + ":") for f in review.flags)]


def first(why: list[str]) -> bool:
    """Whether an item goes before the audited ones: anything but a random audit sent it."""
    return any(w != "audit" for w in why)


def _doubted(conv: Conversation) -> bool:
    """Whether a step is labelled an error although its result was not one (isError)."""
    errored = {m.tool_call_id for m in conv.messages if m.role == "tool" and m.is_error}
    return any(label != "success" and c.id not in errored for c, label in zip(conv.calls, conv.review.step_labels))


def conversation_item(
    conv: Conversation, why: list[str], *, held: bool, reviewer: Literal["model", "gates"] = "model"
) -> dict[str, Any]:
    """The queue line for one conversation; ``reviewer``: who gave its verdict (an offline run's is the gates')."""
    review = conv.review
    model_review = {
        "verdict": review.verdict,
        "confidence": review.confidence,
        "step_labels": list(review.step_labels),
        "reasons": list(review.reasons),
    }
    return QueueItem(
        id=make_id("review", "conversation", conv.id),
        kind="conversation",
        why=why,
        detail=list(review.flags),
        held=held,
        server=conv.server,
        split=conv.split or "train",
        conversation_id=conv.id,
        record_id=conv.id,
        suggested_label="accept" if review.verdict in ("accept", "human") else review.verdict,
        model_review=model_review if reviewer == "model" else None,
        decided_by=reviewer,
        item=render_conversation(conv),
        record=conv.to_json(),
    ).line()


def scored_reasons(row: dict[str, Any], rules: Rules) -> list[str]:
    """Negatives are audited at the same share as conversations (the gold call is audited with its conversation)."""
    return ["audit"] if row["score"] != "correct" and rules.audited(row["id"]) else []


def scored_item(row: dict[str, Any], why: list[str]) -> dict[str, Any]:
    """The queue line for one scored call (a line of scored.jsonl)."""
    return QueueItem(
        id=make_id("review", "scored", row["id"]),
        kind="scored",
        why=why,
        held=False,
        server=row["server"],
        split=row["split"],
        conversation_id=row["conversation_id"],
        record_id=row["id"],
        suggested_label=row["score"],
        item=render_scored(row),
        record=row,
    ).line()


def lines_for(conv: Conversation, rows: Iterable[dict[str, Any]], rules: Rules) -> Iterator[dict[str, Any]]:
    """Queue lines for an accepted conversation and its scored lines (in the data already)."""
    why = conversation_reasons(conv, rules)
    if why:
        yield conversation_item(conv, why, held=False, reviewer=rules.reviewer)
    for row in rows:
        why = scored_reasons(row, rules)
        if why:
            yield scored_item(row, why)


class Queue:
    """The queue as a run writes it, in an output writer's shape (synth.rundir.output): each accepted
    conversation's lines, made from the rows the scored output wrote (flagged ones first, audited ones after
    every other line), and each held conversation (``hold``). It is the review stage's file, so it sits here,
    above the outputs' registry (synth.export.outputs), and the pipeline runs it after the registry's writers."""

    def __init__(self, place: Place, rules: Rules):
        self.stream, self.rules = place.files.stream(QUEUE), rules

    def add(self, item: Accepted) -> None:
        for line in lines_for(item.conv, scored.rows(item), self.rules):
            (self.stream.write if first(line["why"]) else self.stream.defer)(line)

    def hold(self, conv: Conversation) -> None:
        """A conversation held for a person: not in the data until one accepts it."""
        why = conversation_reasons(conv, self.rules)
        self.stream.write(conversation_item(conv, why, held=True, reviewer=self.rules.reviewer))

    def close(self) -> Closed:
        return Closed(files={QUEUE: self.stream.close()})


# --- rendered for reading ----------------------------------------------------------------------


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _result(content: str | None) -> Any:
    try:
        return json.loads(content or "")
    except ValueError:
        return content or ""


def render_messages(messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages (records or OpenAI lines) as turns a person reads: calls with object arguments,
    results parsed and named after the call they answer."""
    names: dict[str, str] = {}
    turns: list[dict[str, Any]] = []
    for m in messages:
        role = m["role"]
        if role == "tool":
            turns.append(
                {
                    "role": "tool",
                    "name": names.get(m.get("tool_call_id") or "", "?"),
                    "result": _result(m.get("content")),
                }
            )
            continue
        turn: dict[str, Any] = {"role": role}
        if m.get("content"):
            turn["text"] = m["content"]
        calls = []
        for c in m.get("tool_calls") or ():
            fn = c.get("function") or c
            names[c["id"]] = fn["name"]
            calls.append({"name": fn["name"], "arguments": _arguments(fn["arguments"])})
        if calls:
            turn["calls"] = calls
        turns.append(turn)
    return turns


def render_conversation(conv: Conversation) -> dict[str, Any]:
    return {
        "server": conv.server,
        "request": conv.query.text,
        "offered_tools": list(conv.tools),
        "turns": render_messages(m.to_json() for m in conv.messages),
    }


def _call(call: dict[str, Any]) -> dict[str, Any]:
    fn = call.get("function") or call
    return {"name": fn["name"], "arguments": _arguments(fn["arguments"])}


def render_scored(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "server": row["server"],
        "turns": render_messages(row["message_history"]),
        "call": _call(row["tool_call"]),
        "gold_call": _call(row["gold_call"]),
        "label": row["score"],
        "subtype": row["subtype"],
        "failure_reason": row["failure_reason"],
    }


# --- the file ----------------------------------------------------------------------------------


def read_queue(run: Path) -> list[QueueItem]:
    return list(iter_queue(run))


def iter_queue(run: Path) -> Iterator[QueueItem]:
    """The queue's items one at a time (the queue holds whole conversations); a bad line is a ConfigError."""
    path = run / QUEUE
    if not path.exists():
        raise ConfigError(
            f"{path} does not exist: make the run with a synth that writes the review queue, "
            f"or build it with `synth review queue {run}`"
        )
    return _items(path)


def _items(path: Path) -> Iterator[QueueItem]:
    inflate = inflater(path)  # a queued scored row refers to its tool list (synth.rundir)
    for number, text in lines(path):
        data = parse_line(path, number, text, "review queue")
        try:
            yield QueueItem.model_validate(inflate(data) if inflate is not None else data)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(line)"
            raise ConfigError(f"{path}:{number}: {where}: {first['msg']}; fix or remove that line") from None


def write_queue(run: Path, items: Iterable[QueueItem]) -> None:
    write_jsonl(run / QUEUE, (i.line() for i in items))


@dataclass
class Rebuilt:
    kept: int = 0
    added: int = 0
    by_reason: dict[str, int] = field(default_factory=dict)


def rebuild(run: Path, rules: Rules) -> Rebuilt:
    """Select the queue again from the run's data with other rules.

    Held items (not in the data) and items a person already decided are kept as they are; the rest
    is chosen anew from conversations.jsonl and scored.jsonl.
    """
    old = read_queue(run) if (run / QUEUE).exists() else []
    keep = {i.id: i for i in old if i.held or i.decision is not None}
    out: list[QueueItem] = [i for i in old if i.id in keep]
    report = Rebuilt(kept=len(out))
    for _, text in lines(run / CONVERSATIONS):
        conv = Conversation.model_validate_json(text)
        why = conversation_reasons(conv, rules)
        line = conversation_item(conv, why, held=False, reviewer=rules.reviewer) if why else None
        if line and line["id"] not in keep:
            out.append(QueueItem.model_validate(line))
    for row in read_jsonl(run / SCORED):
        why = scored_reasons(row, rules)
        line = scored_item(row, why) if why else None
        if line and line["id"] not in keep:
            out.append(QueueItem.model_validate(line))
    report.added = len(out) - report.kept
    out.sort(key=lambda i: not (i.held or first(i.why)))  # flagged first, audited last (a stable sort)
    for item in out:
        for w in item.why:
            report.by_reason[w] = report.by_reason.get(w, 0) + 1
    write_queue(run, out)
    return report
