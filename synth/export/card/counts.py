"""The card's inputs: what the manifest says about the accepted conversations (its ``counts``, the tools they
used for ``coverage``, where each tool result came from for ``execute``), counted as they are written.

Every run writes it (it is no ``--outputs`` choice): the manifest and the card read these numbers, and
``synth review``'s recount counts the run's files again with the same ``Counts`` (synth.review.manifest), so a
reviewed run's manifest reads like a generated one. ``eval_items`` is the eval output's own row count.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from synth.records import DECISIONS, Conversation, moves
from synth.rundir.output import Accepted, Closed, Place

SPLITS = ("train", "valid", "test")


class Counts:
    """The counts of the accepted conversations; ``close`` gives the manifest's parts of them."""

    def __init__(self, place: Place | None = None):
        self.splits = dict.fromkeys(SPLITS, 0)
        self.labels: dict[str, int] = {}
        self.subtypes: dict[str, int] = {}
        self.used_tools: set[str] = set()
        self.sources: dict[str, dict[str, int]] = {}  # server -> tool-message origin -> count
        self.errors: dict[str, dict[str, int]] = {}  # server -> origin -> results that were errors
        self.turns = self.calls = self.multi_turn = 0
        self.decisions: dict[str, int] = {}  # move -> conversations holding it (call, ask, ...)

    def add(self, item: Accepted) -> None:
        self.score((r.score, r.subtype) for r in item.scored)
        self.count(item.conv)

    def score(self, scores: Iterable[tuple[str, str]]) -> None:
        """Scored calls, each as its (label, subtype)."""
        for label, subtype in scores:
            self.labels[label] = self.labels.get(label, 0) + 1
            key = f"{label}/{subtype}"
            self.subtypes[key] = self.subtypes.get(key, 0) + 1

    def count(self, conv: Conversation) -> None:
        """One accepted conversation."""
        server = conv.scenario.server
        self.splits[conv.split or "train"] += 1
        self.used_tools.update(f"{server}/{c.name}" for c in conv.calls)
        sources = self.sources.setdefault(server, {})
        errors = self.errors.setdefault(server, {})
        for m in conv.messages:
            if m.role == "tool":
                sources[m.source or "unknown"] = sources.get(m.source or "unknown", 0) + 1
                if m.is_error:
                    errors[m.source or "unknown"] = errors.get(m.source or "unknown", 0) + 1
        self.turns += len(conv.messages)
        self.calls += len(conv.calls)
        self.multi_turn += bool(conv.query.withheld)
        for move in moves(conv):
            self.decisions[move] = self.decisions.get(move, 0) + 1

    def close(self) -> Closed:
        return Closed(
            report={
                "counts": {
                    "conversations": sum(self.splits.values()),
                    "splits": self.splits,
                    "multi_turn": self.multi_turn,
                    "tool_calls": self.calls,
                    "messages": self.turns,
                    "decisions": {move: self.decisions.get(move, 0) for move in DECISIONS},
                    "scored": dict(sorted(self.labels.items())),
                    "scored_subtypes": dict(sorted(self.subtypes.items())),
                },
                "used_tools": sorted(self.used_tools),
                "results": {k: dict(sorted(v.items())) for k, v in sorted(self.sources.items())},
                "errors": {k: dict(sorted(v.items())) for k, v in sorted(self.errors.items()) if v},
            }
        )


def counts_section(counts: dict[str, Any], eval_items: int) -> dict[str, Any]:
    """The manifest's ``counts``: what ``Counts`` counted, with the eval output's rows, in the manifest's order."""
    return {
        "conversations": counts["conversations"],
        "splits": counts["splits"],
        "multi_turn": counts["multi_turn"],
        "tool_calls": counts["tool_calls"],
        "messages": counts["messages"],
        "eval_items": eval_items,
        "decisions": counts["decisions"],
        "scored": counts["scored"],
        "scored_subtypes": counts["scored_subtypes"],
    }


def coverage_section(usable: list[str], used: Iterable[str]) -> dict[str, Any]:
    """The manifest's ``coverage``: which of the ``usable`` tools ("server/tool") the data calls."""
    unused = sorted(set(usable) - set(used))
    return {
        "usable_tools": len(usable),
        "used_tools": len(usable) - len(unused),
        "share": round((len(usable) - len(unused)) / len(usable), 4) if usable else 0.0,
        "unused": unused,
    }
