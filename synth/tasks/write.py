"""MCPMark-style tasks from store conversations: ``description.md``, ``meta.json`` and a standalone ``verify.py``.

Every accepted conversation on a stateful store server (its connection runs ``synth serve store``)
whose tool messages are live becomes a task under ``tasks/<server>/<easy|standard>/<category>/<id>/``,
laid out as MCPMark lays out its own (``tasks/<service>/<suite>/<category_id>/<task_id>/``).

A task is scored by the store's final state, not by how the calls look. So the exporter replays the
conversation's gold calls on a fresh copy of the seed database, through the store's real MCP server
in process, and asserts that every result is the tool message the conversation holds: a conversation
that does not replay exactly is dropped to ``rejected.jsonl`` with the difference, never written as a
wrong task. Diffing the seed state against the replayed state gives the checks ``verify.py`` makes
(each changed field's new value, each new row), and the canonical hash of ``synth.store.state``,
inlined, says that nothing else changed.

``synth tasks check RUN`` (``check_tasks``) replays each task again and runs its ``verify.py`` the
way MCPMark does: on the replayed database it must pass, on an untouched seed database it must fail
whenever the task changes the state.

Here: one task and the run's task writer. The replay and the state diff are in synth.tasks.replay, the
words (description, title) in synth.tasks.text, verify.py and its runs in synth.tasks.verify.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.records import Conversation, ScoredCall, ServerSpec, StageFailure
from synth.rundir import TASKS, sync_tree, write_atomic, write_json
from synth.rundir.output import Accepted, Closed, Place
from synth.store import state as state_module
from synth.tasks import world as world_tasks
from synth.tasks.replay import (
    READS,
    WRITES,
    SeedStores,
    indexed_state,
    one_customer_problem,
    primary_keys,
    replay,
    state_checks,
    store_seed,
    unidentified_writes,
)
from synth.tasks.text import (
    CATEGORY_NAMES,
    asks_questions,
    description_md,
    known_facts,
    leaked_names,
    objective,
    task_title,
)
from synth.tasks.verify import verify_source
from synth.tasks.world import Dropped

# Deterministic: the same run gives the same bytes. MCPMark dates its tasks; ours are dated by the
# exporter's format, so a changed date means a changed layout.
CREATED_AT = "2026-01-01"
AUTHOR = "synth"
# A task is easy (MCPMark's L1) with at most one write and this many calls; else standard (L3).
EASY_CALLS = 3


# --- one task -----------------------------------------------------------------------------------


@dataclass
class Task:
    folder: Path  # relative to tasks/
    meta: dict[str, Any]
    description: str
    verify: str


def gold_calls(conv: Conversation) -> tuple[list[dict[str, Any]], list[str]]:
    """The conversation's calls as ``{"name", "arguments"}`` and the tool message each got, in order."""
    texts = {m.tool_call_id: m for m in conv.messages if m.role == "tool"}
    calls, results = [], []
    for call in conv.calls:
        message = texts.get(call.id)
        if message is None:
            raise Dropped("task_no_result", f"call {call.id} ({call.name}) has no tool message")
        if message.source != "live":
            raise Dropped(
                "task_not_live",
                f"the result of call {call.id} ({call.name}) is {message.source or 'unknown'}, "
                "not live: only real store results can be replayed",
            )
        unknown = call.name not in READS and call.name not in WRITES
        if unknown:
            raise Dropped("task_unknown_tool", f"{call.name} is not a tool of the store this exporter knows")
        calls.append({"name": call.name, "arguments": call.arguments})
        results.append(message.content or "")
    if not calls:
        raise Dropped("task_no_calls", "the conversation makes no tool call, so there is nothing to replay or verify")
    return calls, results


def check_replay(calls: list[dict[str, Any]], expected: list[str], got: list[dict[str, Any]]) -> None:
    """Every replayed result must be the tool message the conversation holds (else its task would be wrong)."""
    from synth.live.client import result_text

    for i, (call, want, wire) in enumerate(zip(calls, expected, got)):
        text = result_text(wire)
        if text != want:
            at = next((j for j, (a, b) in enumerate(zip(text, want)) if a != b), min(len(text), len(want)))
            raise Dropped(
                "task_replay_differs",
                f"call {i} ({call['name']}) replays to a different result at "
                f"character {at}: {text[at : at + 60]!r} instead of {want[at : at + 60]!r}",
            )


@dataclass
class Replayed:
    """A conversation's gold calls replayed on a fresh store: their results, the checks and the final hash."""

    calls: list[dict[str, Any]]
    results: list[dict[str, Any]]
    checks: list[dict[str, Any]]
    final_hash: str
    seed_hash: str
    intent: str = ""  # the write the customer asked for (the scenario's first tool), done or not

    @property
    def writes(self) -> list[tuple[dict[str, Any], bool]]:
        """(write call, refused) in order."""
        return [(c, bool(r.get("isError"))) for c, r in zip(self.calls, self.results) if c["name"] in WRITES]

    @property
    def category(self) -> str:
        done = [c for c, refused in self.writes if not refused]
        if done:
            return WRITES[done[0]["name"]]
        return "refused" if self.writes or self.refused_by_policy else "lookup"

    @property
    def refused_by_policy(self) -> bool:
        """The customer asked for a change and no write was made: the policy said no."""
        return not self.writes and self.intent in WRITES

    @property
    def easy(self) -> bool:
        return len(self.writes) <= 1 and len(self.calls) <= EASY_CALLS


def replay_conversation(conv: Conversation, seed: int, stores: SeedStores) -> Replayed:
    """Replay ``conv`` on a fresh seed store, assert it gives the conversation's results, and diff the states."""
    calls, expected = gold_calls(conv)
    db = stores.fresh(seed, "replay")
    try:
        results = replay(db, calls)
    except Exception as exc:  # noqa: BLE001 - a replay that breaks drops this task, never the run
        raise Dropped("task_replay_failed", f"replaying the calls failed: {type(exc).__name__}: {exc}") from None
    check_replay(calls, expected, results)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        keys, final_hash = primary_keys(conn), state_module.state_hash(conn)
    finally:
        conn.close()
    checks = state_checks(stores.state(seed), indexed_state(db), keys)
    return Replayed(calls, results, checks, final_hash, stores.hash(seed))


def build_task(conv: Conversation, server: ServerSpec, seed: int, stores: SeedStores) -> Task:
    """The task of one store conversation, or Dropped with the reason."""
    done = replay_conversation(conv, seed, stores)
    problem = one_customer_problem(done.calls, done.results)
    if problem:
        raise Dropped("task_other_customer", problem)
    done.intent = conv.scenario.tools[0] if conv.scenario.tools else ""
    category, writes = done.category, [c for c, _ in done.writes]
    said = [m.content or "" for m in conv.messages if m.role == "user"]
    title = task_title(writes, done.calls)
    verified = unidentified_writes(done.calls, done.results)
    objectives = [objective(c, "\n".join(said)) for c in writes]
    refused_by_policy = done.refused_by_policy
    if refused_by_policy:
        order = next((c["arguments"]["order_id"] for c in done.calls if c["name"] == "get_order_details"), "")
        title = task_title(
            [{"name": done.intent, "arguments": {"order_id": order}}], done.calls
        )  # the request, not the outcome
        objectives = [
            "Do what the customer asks if the shop's rules allow it for this order; if they do not, "
            "find that out from the store, explain it, and change nothing."
        ]
    text = description_md(
        title,
        said,
        known_facts(done.calls, "\n".join(said)),
        objectives,
        questions=(not writes and not refused_by_policy) or asks_questions(conv),
        verified=verified,
    )
    leaked = leaked_names(text, server)
    if leaked:
        raise Dropped(
            "task_names_in_description",
            f"the customer's words name tools or parameters ({', '.join(leaked)}), "
            "which an instruction to an agent must not",
        )
    task_id = f"{category}_{conv.id.removeprefix('conv_')[:10]}"
    meta = task_meta(task_id, title, conv, server, seed, done, verified, objectives)
    facts = [] if meta["synth"]["changes_state"] else world_tasks.answer_facts(conv)
    if not meta["synth"]["changes_state"] and not facts:  # the state alone cannot tell doing nothing from doing it
        raise Dropped("task_no_facts", "the task changes nothing and its answers state no fact of the store's results")
    meta["synth"]["checks"] += len(facts)
    folder = Path(server.id.replace("/", "__")) / ("easy" if done.easy else "standard") / category / task_id
    return Task(folder, meta, text, verify_source(task_id, title, done.final_hash, done.checks, facts))


def task_meta(
    task_id: str,
    title: str,
    conv: Conversation,
    server: ServerSpec,
    seed: int,
    done: Replayed,
    verified: bool,
    objectives: list[str],
) -> dict[str, Any]:
    """MCPMark's meta.json keys, then ``synth``: what replays and verifies the task."""
    changes = done.final_hash != done.seed_hash
    tags = (
        {WRITES[c["name"]] for c, _ in done.writes}
        | ({"refusal"} if any(r for _, r in done.writes) or done.refused_by_policy else set())
        | ({"multi-turn"} if conv.query.withheld else set())
        | ({"read-only"} if not changes else set())
        | ({"pre-verified"} if verified else set())
    )
    return {
        "task_id": task_id,
        "task_name": title,
        "category_id": done.category,
        "category_name": CATEGORY_NAMES[done.category],
        "description": " ".join(objectives)
        or "Answer the customer's questions with facts from the store; change nothing.",
        "author": AUTHOR,
        "created_at": CREATED_AT,
        "difficulty": "L1" if done.easy else "L3",
        "tags": sorted(tags) or ["lookup"],
        "mcp": ["store"],
        "meta_data": {
            "stateType": "text",
            "stateContent": f"A fresh synth store database: `synth serve store --seed {seed}` "
            f"(state hash {done.seed_hash[:12]}).",
            "stateUrl": None,
            "stateOriginalUrl": None,
        },
        "synth": {
            "server": server.id,
            "conversation_id": conv.id,
            "split": conv.split,
            "seed": seed,
            "gold_calls": done.calls,
            "gold_answer": "\n".join(m.content or "" for m in conv.messages if m.role == "assistant" and m.content),
            "failed_calls": [i for i, r in enumerate(done.results) if r.get("isError")],
            "seed_state_hash": done.seed_hash,
            "expected_state_hash": done.final_hash,
            "changes_state": changes,
            "checks": len(done.checks) + 1,
        },
    }


# --- the run's tasks ----------------------------------------------------------------------------


class Tasks:
    """The tasks output: a ``TaskWriter`` told each accepted conversation (synth.rundir.output's shape)."""

    def __init__(self, place: Place):
        self.writer = TaskWriter(place.out, place.reject, worlds=place.worlds)

    def add(self, item: Accepted) -> None:
        self.writer.add(item.conv, item.server, item.scored)

    def close(self) -> Closed:
        return Closed(report=self.writer.close())


@dataclass
class TaskWriter:
    """Writes the tasks of a run's store conversations as they are accepted; ``close`` gives the counts."""

    out: Path
    reject: Callable[[dict[str, Any]], None]
    written: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)
    difficulty: dict[str, int] = field(default_factory=dict)
    _stores: SeedStores | None = None
    # conversation, server -> its replay on a fresh world and the meta it needs, or None (synth.runtime.replay)
    worlds: Callable[[Conversation, ServerSpec], Any] | None = None

    def __post_init__(self) -> None:
        shutil.rmtree(self.out / TASKS, ignore_errors=True)  # tasks of an earlier run in this folder are not this run's

    def add(self, conv: Conversation, server: ServerSpec, scored: Sequence[ScoredCall] = ()) -> None:
        """Write ``conv``'s task when it is a live store conversation; a failed one goes to rejected.jsonl."""
        seed = store_seed(server.connection)
        if seed is None:
            self._add_world(conv, server)
            return
        self._stores = self._stores or SeedStores()
        try:
            task = build_task(conv, server, seed, self._stores)
        except Dropped as drop:
            self._drop(conv, server, drop.reason, drop.detail)
            return
        write_task(self.out / TASKS, task)
        self._count(task.meta, task.folder)

    def _drop(self, conv: Conversation, server: ServerSpec, reason: str, detail: str) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + 1
        failure = StageFailure(
            stage="tasks", item_id=conv.id, reason=reason, detail=detail[:500], raw={"server": server.id}
        )
        self.reject(failure.to_json())

    def _count(self, meta: dict[str, Any], folder: Path) -> None:
        self.written += 1
        self.categories[meta["category_id"]] = self.categories.get(meta["category_id"], 0) + 1
        suite = folder.parts[1]
        self.difficulty[suite] = self.difficulty.get(suite, 0) + 1

    def _add_world(self, conv: Conversation, server: ServerSpec) -> None:
        """``conv``'s task when its server has a world (synth.tasks.world); a failed one is counted."""
        found = self.worlds(conv, server) if self.worlds is not None else None
        if found is None:
            return
        if isinstance(found[0], str):  # a world conversation that cannot be a task: counted with its reason
            self._drop(conv, server, found[0], found[1])
            return
        replay, extra = found
        try:
            task = world_tasks.build(conv, server, replay, extra)
        except Dropped as drop:
            self._drop(conv, server, drop.reason, drop.detail)
            return
        folder = self.out / TASKS / task.folder
        write_task(self.out / TASKS, Task(task.folder, task.meta, task.description, task.verify))
        write_json(folder / "world.json", task.world, sync=False)
        self._count(task.meta, task.folder)

    def close(self) -> dict[str, Any]:
        if self._stores is not None:
            self._stores.close()
            self._stores = None
        sync_tree(self.out / TASKS)
        return {
            "written": self.written,
            "folder": TASKS,
            "dropped": dict(sorted(self.dropped.items())),
            "categories": dict(sorted(self.categories.items())),
            "difficulty": dict(sorted(self.difficulty.items())),
            "sha256": tasks_digest(self.out / TASKS),
        }


def tasks_digest(root: Path) -> str:
    """One sha256 over every task file (path and bytes, sorted), so two runs' tasks compare in the manifest."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")) if root.is_dir() else []:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def write_task(root: Path, task: Task) -> None:
    folder = root / task.folder
    folder.mkdir(parents=True, exist_ok=True)
    # through rundir, as every run file: whole or not at all; flushed to disk once, when the writer closes
    write_atomic(folder / "description.md", [task.description], sync=False)
    write_json(folder / "meta.json", task.meta, sync=False)
    write_atomic(folder / "verify.py", [task.verify], sync=False)
