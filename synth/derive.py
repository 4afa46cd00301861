"""``synth derive``: eval items, scored calls and T-Eval subsets from anyone's tool-use file.

Every call is kept. Each assistant tool call gives one eval item, in order: the messages before
it exactly as the file has them (the JSON text of each message is copied, never re-serialised),
the line's tools, and the call as ``expected_output.tool_calls``, which is the per-call expansion
Foundry documents for OpenAI chat files. What the gates find (the tool is not offered, the
arguments fail the schema, a value was said by no one) becomes ``flags`` on the item, not a
reason to drop it; ``strict`` drops flagged items and counts them. Negatives are injected only
from calls that pass the gates: a flagged gold call is not a safe source of labels. A line that
cannot be read is counted with its reason in rejected.jsonl.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.export.scored import available_tools, scored_line
from synth.export.teval import TevalWriter
from synth.ingest.formats import FORMATS, read
from synth.ingest.samples import Sample
from synth.records import (
    Conversation,
    Plan,
    PlanStep,
    Query,
    Review,
    Scenario,
    ScoredCall,
    ServerSpec,
    StageFailure,
    conversation_id,
    make_id,
)
from synth.rundir import EVAL, REJECTED, SCORED, RunWriter, stored, write_json
from synth.stages import gates
from synth.stages.inject import inject_call, still_needed

SCORED_NOTE = (
    "negatives are injected only from calls that pass the gates (a flagged gold call is not a safe "
    "source of labels); flagged calls give eval items but no scored calls"
)


def item_line(sample: Sample, index: int, metadata: dict[str, Any], flags: list[dict[str, Any]]) -> str:
    """One eval item as JSONL text: the user's messages, tools and call copied as written."""
    position, call = sample.calls[index]
    return (
        '{"item": {"messages": ['
        + ", ".join(sample.chat[:position])
        + '], "tools": '
        + sample.tools_json
        + ', "expected_output": {"role": "assistant", "tool_calls": ['
        + call
        + ']}, "metadata": '
        + json.dumps(metadata, ensure_ascii=False)
        + ', "flags": '
        + json.dumps(flags, ensure_ascii=False)
        + "}}\n"
    )


def flags_of(sample: Sample, server: ServerSpec) -> list[list[dict[str, Any]]]:
    """Per call: problems found reading it, then what the gates find."""
    found = gates.call_flags(list(sample.messages), server)
    return [sample.call_flags.get(k, []) + f for k, f in enumerate(found)]


def _conversation(sample: Sample, server: ServerSpec, conv_id: str, clean: bool) -> Conversation:
    calls = [c for m in sample.messages for c in m.tool_calls]
    scenario = Scenario(
        id=make_id("scn", "derive", conv_id),
        index=sample.line,
        server=server.id,
        tools=tuple(dict.fromkeys(c.name for c in calls)),
        persona="",
    )
    request = next((m.content or "" for m in sample.messages if m.role == "user"), "")
    return Conversation(
        id=conv_id,
        scenario=scenario,
        split="test",
        review=Review(trajectory_id=make_id("traj", conv_id), gates=(), verdict="accept" if clean else "reject"),
        query=Query(id=make_id("query", conv_id, request), scenario_id=scenario.id, text=request),
        plan=Plan(
            id=make_id("plan", conv_id),
            scenario_id=scenario.id,
            steps=tuple(PlanStep(step=i, tool=c.name, arguments=c.arguments) for i, c in enumerate(calls)),
        ),
        messages=sample.messages,
        tools=tuple(t.name for t in server.tools),
    )


@dataclass
class _Tally:
    """What ``derive`` counts on its way through the file, for derive_report.json."""

    counts: Counter[str] = field(default_factory=Counter)
    formats: Counter[str] = field(default_factory=Counter)
    unreadable: Counter[str] = field(default_factory=Counter)
    by_gate: Counter[str] = field(default_factory=Counter)
    scored: Counter[str] = field(default_factory=Counter)


def derive(
    source: Path, out: Path, seed: int = 0, server_id: str | None = None, strict: bool = False
) -> dict[str, Any]:
    """Write eval.jsonl, scored.jsonl, teval/, rejected.jsonl and derive_report.json into ``out``."""
    if not stored(source).is_file():  # a run's train.jsonl is stored as train.jsonl.gz
        raise ConfigError(f"{source} does not exist; pass a tool-use JSONL file (OpenAI chat, ShareGPT or APIGen)")
    out.mkdir(parents=True, exist_ok=True)
    sid = server_id or source.stem
    tally = _Tally()
    teval = TevalWriter(out)
    with RunWriter(out, (EVAL, SCORED, REJECTED), storage="plain") as files:  # files for people: plain public rows
        for sample in read(source, sid):
            if isinstance(sample, StageFailure):
                tally.unreadable[sample.reason] += 1
                files.write(REJECTED, sample.to_json())
                continue
            tally.formats[sample.format] += 1
            tally.counts["conversations"] += 1
            if not sample.calls:
                tally.counts["conversations_without_calls"] += 1
                continue
            server = ServerSpec(id=sid, name=sid, source=source.name, tools=sample.tools)
            flags = flags_of(sample, server)
            conv_id = conversation_id(sample.messages)
            scored = _calls(sample, server, flags, conv_id, files, tally, seed, strict)
            flagged = any(flags)
            if not (strict and flagged) and not any(f["gate"] == "tool_exists" for found in flags for f in found):
                teval.add(_conversation(sample, server, conv_id, not flagged), server, scored)
                tally.counts["teval_conversations"] += 1
    report = _report(source, tally, strict, teval.close())
    write_json(out / "derive_report.json", report)
    return report


def _calls(
    sample: Sample,
    server: ServerSpec,
    flags: list[list[dict[str, Any]]],
    conv_id: str,
    files: RunWriter,
    tally: _Tally,
    seed: int,
    strict: bool,
) -> list[ScoredCall]:
    """One eval item per call (flags on it), and the scored calls injected from each unflagged one."""
    calls = [(p, c) for p, m in enumerate(sample.messages) for c in m.tool_calls]
    scored_all: list[ScoredCall] = []
    for k, ((position, call), found) in enumerate(zip(calls, flags)):
        tally.counts["tool_calls"] += 1
        tally.by_gate.update({f["gate"] for f in found})
        if found:
            tally.counts["flagged_calls"] += 1
        if found and strict:
            tally.counts["dropped_flagged"] += 1
            continue
        metadata = {
            "id": f"{conv_id}:{k}",
            "conversation_id": conv_id,
            "call_index": k,
            "server": server.id,
            "tool": call.name,
            "split": "test",
            "line": sample.line,
            "format": sample.format,
        }
        files.write(EVAL, item_line(sample, k, metadata, found))
        tally.counts["eval_items"] += 1
        tool = server.tool(call.name)
        if found or tool is None:
            continue
        scored, missed = inject_call(
            tool,
            [t for t in server.tools if t.name != tool.name],
            call,
            sample.messages[:position],
            conversation_id=conv_id,
            call_index=k,
            seed=seed,
            needed=[(server.tool(c.name), c) for c in still_needed(sample.messages, position, call)],
        )
        offered = tuple(t.name for t in server.tools)
        tools = available_tools(server, offered)  # one list for the call's rows, referenced once when stored
        for record in scored:
            files.write(SCORED, scored_line(record, server, offered, "test", tools))
            tally.scored[record.score] += 1
        for failure in missed:
            files.write(REJECTED, {**failure.to_json(), "line": sample.line})
        scored_all += scored
        tally.counts["scored_from"] += 1
    return scored_all


def _report(source: Path, tally: _Tally, strict: bool, teval: dict[str, Any]) -> dict[str, Any]:
    counts = tally.counts
    return {
        "source": source.as_posix(),
        "formats": {FORMATS[k]: v for k, v in sorted(tally.formats.items())},
        "lines": counts["conversations"] + sum(tally.unreadable.values()),
        "conversations": counts["conversations"],
        "conversations_without_calls": counts["conversations_without_calls"],
        "tool_calls": counts["tool_calls"],
        "eval_items": counts["eval_items"],
        "flagged_calls": counts["flagged_calls"],
        "flags_by_gate": dict(sorted(tally.by_gate.items())),
        "strict": strict,
        "dropped_flagged": counts["dropped_flagged"],
        "unreadable": dict(sorted(tally.unreadable.items())),
        "scored": dict(sorted(tally.scored.items())),
        "scored_from_calls": counts["scored_from"],
        "scored_note": SCORED_NOTE,
        "teval_conversations": counts["teval_conversations"],
        "teval_note": "T-Eval subsets cover every conversation whose calls name offered tools"
        + (" and carry no flag" if strict else "; flagged calls keep their values as ground truth"),
        "teval": teval,
    }
