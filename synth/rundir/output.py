"""What an output's writer is: made once for a run from its ``Place``, told each accepted conversation in
order (``add``, an ``Accepted``), closed once (``close``, a ``Closed``: what the manifest says of it).

The outputs themselves are registered in synth.export.outputs. This seam sits with the run folder, below
the writers (synth.export, synth.tasks), so every writer speaks it, and below synth.review, whose queue
reads the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from synth.messages import ToolNames
from synth.records import Conversation, ScoredCall, ServerSpec
from synth.rundir.writing import RunWriter, Stream

T = TypeVar("T")
Reject = Callable[[dict[str, Any]], None]  # a rejected.jsonl line (an output that drops a conversation says why)


@dataclass(frozen=True)
class Accepted:
    """One accepted conversation as every writer gets it: with its server, its scored calls and the run's
    tool names. Rows two outputs share (the scored rows the scored file and the review queue both use) are
    made once, by ``shared``."""

    conv: Conversation
    server: ServerSpec
    scored: Sequence[ScoredCall]
    names: ToolNames
    _made: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def split(self) -> str:
        return self.conv.split or "train"

    def shared(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, once per conversation whoever asks for ``key``."""
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]


@dataclass(frozen=True)
class Closed:
    """What a writer wrote: each run file's facts (the manifest's ``files``: lines, sha256), and what it
    counted (the manifest's section of the output's name, or ``counts``' parts)."""

    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Place:
    """What a writer is made with: the run folder, its storage, its open files (one ``Stream`` per run file
    an output names), where a dropped conversation goes, and the run's world replays (synth.runtime.replay:
    conversation, server -> its replay on a fresh world, for the tasks)."""

    out: Path
    storage: str
    files: RunWriter
    reject: Reject
    worlds: Callable[[Conversation, ServerSpec], Any] | None = None


class Output(Protocol):
    """One output's writer."""

    def add(self, item: Accepted) -> None: ...

    def close(self) -> Closed: ...


Rows = Callable[[Accepted], Iterable[Any]]  # the rows one conversation gives a file, in order


class RowWriter:
    """An output that is one run file of rows: each conversation's ``rows`` written as they come."""

    def __init__(self, stream: Stream, rows: Rows):
        self.stream, self.rows, self.count = stream, rows, 0

    def add(self, item: Accepted) -> None:
        for row in self.rows(item):
            self.stream.write(row)
            self.count += 1

    def close(self) -> Closed:
        return Closed(files={self.stream.name: self.stream.close()}, report={"rows": self.count})
