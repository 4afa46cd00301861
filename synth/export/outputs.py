"""Every output a run can write, registered in one place: its ``--outputs`` name, the run files its rows
go to, and, for an output with a writer of its own, how that writer is made.

A writer has one shape: ``add`` each accepted conversation (with its server and scored calls) in order,
then ``close`` once, which returns what it wrote for the manifest. The row files (train, valid, eval,
scored, decisions) get their rows from ``synth.export.rows``, one place for what a conversation gives;
the T-Eval subsets and the store's tasks are writers. A new format is one module and one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from synth.export.teval import TevalWriter
from synth.records import Conversation, ScoredCall, ServerSpec
from synth.rundir import DECIDED, EVAL, SCORED, TEVAL, TRAIN, VALID
from synth.tasks.write import TASKS, TaskWriter

Reject = Callable[[dict[str, Any]], None]  # a rejected.jsonl line (an output that drops a conversation says why)


class Output(Protocol):
    """One output's writer: told each accepted conversation, closed once with what it counted."""

    def add(self, conv: Conversation, server: ServerSpec, scored: Sequence[ScoredCall]) -> None: ...

    def close(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Kind:
    """What one output writes: run files filled from the rows, or a folder its own writer fills."""

    files: tuple[str, ...] = ()
    folder: str | None = None
    make: Callable[[Path, str, Reject], Output] | None = None  # (run folder, storage, reject) -> writer


class _TestSplit:
    """The T-Eval subsets: made from the test split's gold conversations only."""

    def __init__(self, out: Path, storage: str):
        self.writer = TevalWriter(out, compact=storage != "plain")

    def add(self, conv: Conversation, server: ServerSpec, scored: Sequence[ScoredCall]) -> None:
        if (conv.split or "train") == "test":
            self.writer.add(conv, server, list(scored))

    def close(self) -> dict[str, Any]:
        return dict(self.writer.close())


OUTPUTS: dict[str, Kind] = {
    "train": Kind(files=(TRAIN,)),
    "valid": Kind(files=(VALID,)),
    "eval": Kind(files=(EVAL,)),
    "scored": Kind(files=(SCORED,)),
    "decisions": Kind(files=(DECIDED,)),
    "teval": Kind(folder=TEVAL, make=lambda out, storage, reject: _TestSplit(out, storage)),
    "tasks": Kind(folder=TASKS, make=lambda out, storage, reject: TaskWriter(out, reject)),
}


def files_off(outputs: Sequence[str]) -> set[str]:
    """The run files of the outputs not asked for (``--outputs``)."""
    return {name for output, kind in OUTPUTS.items() if output not in outputs for name in kind.files}


def folders_off(outputs: Sequence[str]) -> list[str]:
    return [kind.folder for output, kind in OUTPUTS.items() if output not in outputs and kind.folder]


def writers(outputs: Sequence[str], out: Path, storage: str, reject: Reject) -> dict[str, Output]:
    """The writers of the outputs asked for, in registry order (the order they are told each conversation)."""
    return {
        output: kind.make(out, storage, reject)
        for output, kind in OUTPUTS.items()
        if kind.make is not None and output in outputs
    }
