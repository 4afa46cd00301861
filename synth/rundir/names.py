"""The run folder's file names, which of them are stored compressed, and what --outputs may leave out.

A file is named here once; everything else spells it through these names (``synth.rundir`` re-exports them).
"""

from __future__ import annotations

from pathlib import Path

MANIFEST = "manifest.json"
CONVERSATIONS = "conversations.jsonl"
TRAIN = "train.jsonl"
VALID = "valid.jsonl"
EVAL = "eval.jsonl"
SCORED = "scored.jsonl"
PREFERENCE = "preference.jsonl"  # chosen and rejected calls in TRL's layout (an output off by default)
DECIDED = "scored_decisions.jsonl"  # judge rows for the no-call decisions: a call where none should be, a guess
REJECTED = "rejected.jsonl"
QUEUE = "review_queue.jsonl"
LOG = "review_log.jsonl"
CARD = "README.md"
REQUESTS = (
    "requests.json"  # what getting the answers took, per process (retries, 429s, waits): timing, so not in the manifest
)
LOCK = ".synth.lock"  # held (flock) by the one process writing the run; holds its pid and command
RUNNING, COMPLETE = "running", "complete"  # the manifest's status: written "running" first, "complete" last
STOPPED = "stopped"  # the run ended part way on an error or Ctrl-C (the manifest says why); --resume finishes it
TOOLS = "tools.jsonl"  # each tool and each tool list once; rows refer to a list as "tools:<id>"
TEVAL = "teval"  # the T-Eval subsets' folder
TASKS = "tasks"  # live store runs: one MCPMark-style task folder per conversation
PLOTS = "plots"  # the card's figures
CACHE = "cache.sqlite"  # LLM runs: every model call, keyed by what decides its answer
EXPORTS = (CONVERSATIONS, TRAIN, VALID, EVAL, SCORED, DECIDED, REJECTED)
FILES = (*EXPORTS, QUEUE)  # what generate writes, and what the manifest lists with line counts and hashes
CHAT = {"train": TRAIN, "valid": VALID}  # split -> its chat file
GZ = ".gz"
COMPRESSED = frozenset(
    (CONVERSATIONS, TRAIN, VALID, EVAL, SCORED, DECIDED, TOOLS)
)  # stored as <name>.gz in a compact run folder
# (rejected, the review queue and log stay plain: small, and read or edited by people)
READY = frozenset((TRAIN, VALID, EVAL))  # what users upload or load: plain public rows unless --storage compact
STORAGES = ("ready", "compact", "plain")  # --storage: READY plain and the rest compact; all compact; all plain
TOOL_FIELDS: dict[str, tuple[str, ...]] = {
    TRAIN: ("tools",),
    VALID: ("tools",),
    EVAL: ("item", "tools"),
    SCORED: ("available_tools",),  # where each file's rows keep a tool list
    DECIDED: ("available_tools",),
    QUEUE: ("record", "available_tools"),
}  # a queued scored row
REF = "tools:"


def public_name(path: Path) -> str:
    """A file's name without the storage suffix (``scored.jsonl.gz`` -> ``scored.jsonl``)."""
    return path.name[: -len(GZ)] if path.name.endswith(GZ) else path.name


def storage_name(name: str, compact: bool = True) -> str:
    """The name ``name`` is written under in a run folder (``scored.jsonl`` -> ``scored.jsonl.gz``)."""
    return name + GZ if compact and (name in COMPRESSED or name.startswith(TEVAL + "/")) else name


def kept_plain(name: str, storage: str) -> bool:
    """Whether a run of ``storage`` (STORAGES) writes ``name`` as plain public rows (no gzip, tool lists
    inline): every file in a plain run, the READY files in a ready one (the default)."""
    return storage == "plain" or (storage == "ready" and name in READY)
