"""MCPMark-style tasks from conversations on a server with a world (papers, docs, events, ...).

The exporter is given the conversation's gold calls replayed on a fresh copy of its world (the pack
runtime, outside this layer: see ``synth.runtime.replay``): every replayed result must be the tool
message the conversation holds, or the conversation is dropped with the difference. Diffing the
world before and after gives what a write task's verify.py checks; a read-only task checks that the
answer carries the facts its results gave and its request did not (a do-nothing agent fails it).
Tasks go under ``tasks/<server>/<easy|standard>/<category>/<id>/`` as the store's do, with
``world.json`` (the state the task starts from) beside them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from synth.records import Conversation, ServerSpec
from synth.tasks.world_verify import digest, verify_source

CREATED_AT, AUTHOR, EASY_CALLS = "2026-01-01", "synth", 3
MAX_FACTS = 4


class Dropped(Exception):
    """A conversation that cannot become a correct task (store or world): (reason code, detail) for rejected.jsonl."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


@dataclass
class Replay:
    """A conversation's gold calls on a fresh world: each result's text, the world before and after."""

    results: list[str]
    before: dict[str, list[dict[str, Any]]]
    after: dict[str, list[dict[str, Any]]]
    id_fields: dict[str, str]  # kind -> its id field
    writes: list[str]  # the gold calls that change the world (tool names), in order
    created: list[tuple[str, dict[str, Any]]]  # (kind, the fields the request set) per entity made


@dataclass
class WorldTask:
    folder: Path
    meta: dict[str, Any]
    description: str
    verify: str
    world: dict[str, Any]


def _calls(conv: Conversation) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": c.arguments} for c in conv.calls]


def check_replay(conv: Conversation, replay: Replay) -> None:
    texts = {m.tool_call_id: m.content or "" for m in conv.messages if m.role == "tool"}
    for i, (call, got) in enumerate(zip(conv.calls, replay.results)):
        want = texts.get(call.id, "")
        if got != want:
            at = next((j for j, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            raise Dropped(
                "task_replay_differs",
                f"call {i} ({call.name}) replays to {got[at : at + 60]!r} instead of {want[at : at + 60]!r}",
            )


def state_checks(replay: Replay) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """What changed between the worlds (as verify.py's checks), and a hash of every other entity per kind."""
    checks: list[dict[str, Any]] = []
    untouched: dict[str, str] = {}
    made = {kind: [fields for k, fields in replay.created if k == kind] for kind in replay.id_fields}
    for kind, key in replay.id_fields.items():
        before = {str(r.get(key)): r for r in replay.before.get(kind, [])}
        after = {str(r.get(key)): r for r in replay.after.get(kind, [])}
        named: set[str] = set()
        for ident, record in before.items():
            if ident not in after:
                checks.append({"kind": kind, "id": ident, "absent": True})
                named.add(ident)
            elif after[ident] != record:
                changed = {k: v for k, v in after[ident].items() if record.get(k) != v}
                checks.append({"kind": kind, "id": ident, "expect": changed})
                named.add(ident)
        new = [(ident, record) for ident, record in after.items() if ident not in before]
        for (ident, record), asked in zip(new, made[kind]):  # in the order they were made
            # found by what the request set, as the world holds it now (a later rename of it included)
            fields = {k: record[k] for k in asked if k in record}
            if not fields:
                raise Dropped("task_unidentified_entity", f"a new {kind} {ident!r} that no request describes")
            checks.append({"kind": kind, "fields": fields, "expect": fields})
        if len(new) > len(made[kind]):
            raise Dropped("task_unidentified_entity", f"{len(new)} new {kind} entities, {len(made[kind])} made")
        untouched[kind] = digest([r for i, r in before.items() if i not in named])
    return checks, untouched


def _scalars(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for v in data.values() for s in _scalars(v)]
    if isinstance(data, list):
        return [s for v in data for s in _scalars(v)]
    if isinstance(data, bool) or data is None:
        return []
    if isinstance(data, str) and not _whole(data):  # a sentence's quoted values: "Order #W1 is 'delivered': ..."
        return [data, *(a or b for a, b in _QUOTED.findall(data))]
    return [str(data)]


_QUOTED = re.compile(r"'([^'\n]{1,80})'|\"([^\"\n]{1,80})\"")


def _plain(text: str) -> str:
    return " ".join(text.lower().replace(",", "").split())


MAX_FACT = 80  # characters: a fact is a whole value (a title, a name, a number, a date), never a text cut short
_ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")


def forms(value: str) -> list[str]:
    """The ways a person writes a value: a number to one decimal or whole, a date in words ("March 2, 2026",
    "2 March 2026", "March 2"); the value itself first."""
    out = [value]
    if re.fullmatch(r"-?\d+\.\d+", value):
        number = float(value)
        out += [f"{number:.1f}"] + ([str(round(number))] if abs(number) >= 100 else [])
    if (iso := _ISO_DAY.fullmatch(value)) is not None:
        try:
            day = date(*map(int, iso.groups()))
        except ValueError:
            return out
        out += [day.isoformat(), f"{day:%B} {day.day}, {day.year}", f"{day.day} {day:%B} {day.year}"]
        out += [f"{day:%B} {day.day}", f"{day.day} {day:%B}"]
    return list(dict.fromkeys(out))


def _whole(value: str) -> bool:
    """A value an answer in its own words still says as it is: not a sentence ("PDF for PMID 39328108 has been
    downloaded as ..."), not a long text."""
    if not 4 <= len(value) <= MAX_FACT or len(value.split()) > 10:
        return False
    return not re.search(r"[.!?](\s|$)|[。！？，；]|\b(?:is|are|was|were|has|have|been|will)\b", value)


def answer_facts(conv: Conversation) -> list[dict[str, Any]]:
    """Facts each answer took from its results and the person never said: whole values (synth.tasks.world.MAX_FACT),
    the longest per answer, each with the forms a person writes it in."""
    said = _plain(" ".join(m.content or "" for m in conv.messages if m.role == "user"))
    facts: list[dict[str, Any]] = []
    results: list[Any] = []
    for m in conv.messages:
        if m.role == "tool":
            try:
                results.append(json.loads(m.content or ""))
            except ValueError:
                results.append(m.content or "")
        elif m.role == "assistant" and m.content and results:
            answer = _plain(m.content)
            found = sorted(
                {
                    v
                    for v in _scalars(results)
                    if _whole(v)
                    and any(_plain(f) in answer for f in forms(v))
                    and _plain(v) not in said
                    and re.search(r"\w", v)
                },
                key=lambda v: (-len(v), v),
            )
            if found:
                facts.append({"what": "a fact of the result", "forms": forms(found[0])})
            results = []
    return facts[:MAX_FACTS]


def build(conv: Conversation, server: ServerSpec, replay: Replay, meta_extra: dict[str, Any]) -> WorldTask:
    """The task of one world conversation, or Dropped with the reason."""
    check_replay(conv, replay)
    checks, untouched = state_checks(replay)
    writes = bool(checks)
    facts = [] if writes else answer_facts(conv)
    if not writes and not facts:
        raise Dropped("task_no_facts", "a read-only conversation whose answers state no fact of its results")
    calls = _calls(conv)
    said = [m.content or "" for m in conv.messages if m.role == "user"]
    category = replay.writes[0] if writes and replay.writes else "lookup"
    easy = len(replay.writes) <= 1 and len(calls) <= EASY_CALLS
    task_id = f"{category}_{conv.id.removeprefix('conv_')[:10]}"
    title = _title(server, said, writes)
    folder = Path(server.id.replace("/", "__").lstrip("@")) / ("easy" if easy else "standard") / category / task_id
    text = _description(title, server, said, writes)
    meta = {
        "task_id": task_id,
        "task_name": title,
        "category_id": category,
        "category_name": category.replace("_", " ").title(),
        "description": "Do what the person asks with the server's tools; the world's final state is checked."
        if writes
        else "Answer the person's questions with facts from the server; change nothing.",
        "author": AUTHOR,
        "created_at": CREATED_AT,
        "difficulty": "L1" if easy else "L3",
        "tags": sorted(
            {"world", "writes" if writes else "read-only"} | ({"multi-turn"} if conv.query.withheld else set())
        ),
        "mcp": [server.id],
        "meta_data": {
            "stateType": "json",
            "stateContent": "world.json: the server's world as the task starts (kind -> entities).",
            "stateUrl": None,
            "stateOriginalUrl": None,
        },
        "synth": {
            "server": server.id,
            "conversation_id": conv.id,
            "split": conv.split,
            "gold_calls": calls,
            "gold_answer": "\n".join(m.content or "" for m in conv.messages if m.role == "assistant" and m.content),
            "changes_state": writes,
            "checks": len(checks) + len(untouched) * writes + len(facts),
            **meta_extra,
        },
    }
    source = verify_source(task_id, title, replay.id_fields, checks, untouched if writes else {}, facts)
    return WorldTask(folder, meta, text, source, replay.before)


def _title(server: ServerSpec, said: list[str], writes: bool) -> str:
    sentences = re.split(r"(?<=[.!?])\s+", (said[0] if said else "").strip())
    first = next((x for x in sentences if len(x.split()) >= 4 or len(x) >= 12), sentences[0])[:80]
    return f"{server.name or server.id}: {first}".strip()


def _description(title: str, server: ServerSpec, said: list[str], writes: bool) -> str:
    lines = [
        f"# {title}",
        "",
        "## 📋 Task Description",
        "",
        f"You are an assistant with the tools of {server.name or server.id}. A person writes to you; "
        "here is everything they say, in order:",
        "",
    ]
    lines += [f"> {text.strip()}" + ("\n>" if i < len(said) - 1 else "") for i, text in enumerate(said)]
    lines += ["", "## 🎯 Task Objectives", ""]
    steps = (
        ["Make the changes the person asks for with the server's tools, and only those."]
        if writes
        else ["Find what the person asks for with the server's tools."]
    )
    steps.append("Answer every question with the facts the server gives; the answer and the final state are checked.")
    lines += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    return "\n".join(lines) + "\n"
