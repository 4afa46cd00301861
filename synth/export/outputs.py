"""Every output a run writes, registered in one place: ``OUTPUTS``, in the order each conversation reaches them.

An output is one module and one entry here. Its writer has one shape (synth.rundir.output): made once from the
run's ``Place``, told each accepted conversation in order (``add``), closed once (``close``), which gives the
facts of the files it wrote and what it counted: the manifest's ``files`` and its sections come from there, and
nowhere else. An output that is one run file of rows only says which rows a conversation gives it (``rows``);
``synth review apply`` writes an edited or newly accepted conversation's rows from the same functions.

``--outputs`` names the optional ones (its help and its check are read from here); ``conversations.jsonl``
(the source of every other output) and the counts the manifest and the card read are always written.

    OUTPUTS["jokes"] = Kind(files=("jokes.jsonl",), rows=jokes.rows, help="one joke per conversation")
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from synth.errors import ConfigError
from synth.rundir.names import CONVERSATIONS, DECIDED, EVAL, PREFERENCE, SCORED, TASKS, TEVAL, TRAIN, VALID

if TYPE_CHECKING:
    from synth.rundir.output import Accepted, Output, Place, Rows


def _later(module: str, name: str, *made: Any) -> Callable[..., Any]:
    """``module.name`` (called with ``made`` first, when given: a factory), imported when first called, so naming
    the outputs (``--outputs``' help, ``synth --help``) does not import every writer."""

    @functools.cache
    def target() -> Callable[..., Any]:
        found = getattr(importlib.import_module(module), name)
        return found(*made) if made else found

    return lambda *args: target()(*args)


@dataclass(frozen=True)
class Kind:
    """One output: the run files it writes (``rows`` for a file of rows, or its own writer, ``make``), the folder
    its writer fills, whether a run writes it unless told otherwise, and its line in ``--outputs``' help."""

    files: tuple[str, ...] = ()
    rows: Rows | None = None
    make: Callable[[Place], Output] | None = None
    folder: str | None = None
    default: bool = True
    always: bool = False  # no --outputs choice: every run writes it
    help: str = ""

    def writer(self, place: Place) -> Output:
        if self.make is not None:
            return self.make(place)
        from synth.rundir.output import RowWriter

        assert self.rows is not None and len(self.files) == 1, "an output of rows writes one file"
        return RowWriter(place.files.stream(self.files[0]), self.rows)


OUTPUTS: dict[str, Kind] = {
    "conversations": Kind(files=(CONVERSATIONS,), rows=lambda item: [item.conv.to_json()], always=True),
    "train": Kind(files=(TRAIN,), rows=_later("synth.export.chat", "rows", "train"), help="chat fine-tuning lines"),
    "valid": Kind(
        files=(VALID,), rows=_later("synth.export.chat", "rows", "valid"), help="chat lines held out for validation"
    ),
    "eval": Kind(
        files=(EVAL,),
        rows=_later("synth.export.evalset", "rows"),
        help="eval items, one per gold call and no-call turn",
    ),
    "scored": Kind(
        files=(SCORED,), rows=_later("synth.export.scored", "rows"), help="labelled calls: gold and injected errors"
    ),
    "decisions": Kind(
        files=(DECIDED,), rows=_later("synth.export.decisions", "rows"), help="a call or a guess where none was right"
    ),
    "preference": Kind(
        files=(PREFERENCE,),
        rows=_later("synth.export.preference", "rows"),
        default=False,
        help="preference pairs (TRL, DPO)",
    ),
    "teval": Kind(make=_later("synth.export.teval", "Teval"), folder=TEVAL, help="T-Eval subsets"),
    "tasks": Kind(
        make=_later("synth.tasks.write", "Tasks"), folder=TASKS, help="MCPMark-style tasks of store and world servers"
    ),
    # the card's inputs: the manifest's counts, coverage and results
    "counts": Kind(make=_later("synth.export.card.counts", "Counts"), always=True),
}


def choices() -> list[str]:
    """The names ``--outputs`` takes, in registry order."""
    return [name for name, kind in OUTPUTS.items() if not kind.always]


def defaults() -> tuple[str, ...]:
    return tuple(name for name in choices() if OUTPUTS[name].default)


def describe() -> str:
    """``--outputs``' help: every choice with what it writes, the ones off by default said so."""
    parts = [
        f"{name} ({OUTPUTS[name].help}{'' if OUTPUTS[name].default else '; off by default'})" for name in choices()
    ]
    return "Which outputs to write, comma-separated (conversations.jsonl always is): " + ", ".join(parts) + "."


def parse(text: str | None) -> tuple[str, ...] | None:
    """``"train,valid,eval"`` -> the outputs to write (None: the default ones), with an error naming the known ones."""
    if text is None:
        return None
    asked = tuple(dict.fromkeys(x.strip() for x in text.split(",") if x.strip()))
    unknown = [x for x in asked if x not in choices()]
    if unknown:
        raise ConfigError(
            f"--outputs {text!r}: {', '.join(unknown)} is not an output; choose from {','.join(choices())}"
        )
    return None if set(asked) == set(defaults()) else asked


def chosen(outputs: Sequence[str] | None) -> tuple[str, ...]:
    """The outputs a run writes (Settings.outputs; None: the default ones), as the manifest lists them."""
    return defaults() if outputs is None else tuple(outputs)


def run_files(outputs: Sequence[str] | None) -> list[str]:
    """The run files the outputs write, in registry order (every run's own ones included)."""
    on = set(chosen(outputs))
    return [name for output, kind in OUTPUTS.items() if kind.always or output in on for name in kind.files]


def left_off(outputs: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """The run files and folders of the outputs this run does not write (an earlier run's would read as this one's)."""
    on = set(chosen(outputs))
    off = [kind for output, kind in OUTPUTS.items() if not kind.always and output not in on]
    return [name for kind in off for name in kind.files], [kind.folder for kind in off if kind.folder]


def writers(outputs: Sequence[str] | None, place: Place) -> dict[str, Output]:
    """The writers of a run's outputs, in registry order (the order each conversation reaches them)."""
    on = set(chosen(outputs))
    return {name: kind.writer(place) for name, kind in OUTPUTS.items() if kind.always or name in on}


def rows_by_file(item: Accepted) -> dict[str, list[Any]]:
    """The rows one conversation gives each run file of rows (for ``synth review apply``, which places them itself)."""
    return {kind.files[0]: list(kind.rows(item)) for kind in OUTPUTS.values() if kind.rows is not None}
