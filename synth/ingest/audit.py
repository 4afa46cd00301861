"""``synth audit``: what is wrong with a tool-use file, without writing a dataset.

Reads any format synth.ingest.formats knows and runs the same three gates as ``synth derive``
(tool offered, arguments valid, every value grounded), then counts: lines, conversations,
messages and calls per conversation, tools used and unused, calls naming a tool not offered,
arguments failing the schema (with JSON pointers), ungrounded values, duplicate and near-duplicate
first requests, and answers given right after a tool error; the ten worst lines are listed with
their numbers. ``rates`` are what ``--fail-on`` thresholds compare against. The dataset card shows
the same figures for a run's train.jsonl, which is why this lives in export.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.ingest.formats import FORMATS, read
from synth.ingest.samples import Sample
from synth.records import ServerSpec, StageFailure
from synth.rundir import stored
from synth.stages import gates
from synth.stages.dedup import Dedup

EXAMPLES = 10  # examples kept per problem, and worst lines listed
# Problems that make a file not clean; near-duplicates and answers after an error are reported, not failed
# (a request can be close to another on purpose, and telling the user that a tool failed is often right).
PROBLEMS = ("unreadable", "unknown_tool", "schema", "grounding", "duplicates")
RATES = {
    "unreadable": "unreadable lines / lines",
    "unknown_tool": "calls naming a tool not in the line's tools / calls",
    "schema": "calls whose arguments fail the schema / calls",
    "grounding": "calls with a value grounded nowhere earlier / calls",
    "duplicates": "conversations whose first request repeats an earlier one / conversations",
    "near_duplicates": "conversations whose first request nearly repeats an earlier one / conversations",
    "answer_after_error": "conversations answered right after a tool error / conversations",
}
_WEIGHT = {"tool_exists": 3, "schema_valid": 2, "grounding": 1}


def _is_error(content: str | None) -> bool:
    """A tool result that reports a failure: an error object, or text that starts by saying so."""
    text = (content or "").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return bool(re.match(r"(error|exception|traceback|failed)\b", text, re.IGNORECASE))
    return isinstance(data, dict) and (
        "error" in data
        or data.get("isError") is True
        or data.get("is_error") is True
        or str(data.get("status", "")).lower() in ("error", "failed")
    )


def _spread(values: list[int]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "min": 0, "max": 0}
    return {"mean": round(sum(values) / len(values), 2), "min": min(values), "max": max(values)}


def bucket(sample: Sample) -> str:
    """Near-duplicates are looked for among lines offering the same tools (as the generator's dedup
    looks within one server), which keeps the search linear in practice on large files."""
    return "\n".join(sorted(t.name for t in sample.tools))


def audit(source: Path, server_id: str | None = None) -> dict[str, Any]:
    """The audit report of one file as a JSON-able dict (see the module docstring)."""
    if not stored(source).is_file():  # a run's train.jsonl is stored as train.jsonl.gz
        raise ConfigError(f"{source} does not exist; pass a tool-use JSONL file (OpenAI chat, ShareGPT or APIGen)")
    findings = _Findings(server_id or source.stem)
    for sample in read(source, findings.sid):
        findings.add(sample)
    return findings.report(source)


@dataclass
class _Findings:
    """What ``audit`` finds, line by line."""

    sid: str
    formats: Counter[str] = field(default_factory=Counter)
    unreadable: Counter[str] = field(default_factory=Counter)
    unreadable_lines: list[dict[str, Any]] = field(default_factory=list)
    offered: Counter[str] = field(default_factory=Counter)
    used: Counter[str] = field(default_factory=Counter)
    messages_per: list[int] = field(default_factory=list)
    calls_per: list[int] = field(default_factory=list)
    found: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {
            "unknown_tool": [],
            "schema": [],
            "grounding": [],
            "duplicates": [],
            "near_duplicates": [],
            "answer_after_error": [],
        }
    )
    counts: Counter[str] = field(default_factory=Counter)
    worst: dict[int, dict[str, Any]] = field(default_factory=dict)
    dedup: Dedup = field(default_factory=Dedup)
    lines: int = 0
    tool_problems: list[dict[str, Any]] = field(
        default_factory=list
    )  # tool definitions that cannot be used (read with an empty schema)

    def add(self, sample: Sample | StageFailure) -> None:
        found = self.found
        self.lines += 1
        if isinstance(sample, StageFailure):
            self.unreadable[sample.reason] += 1
            self.unreadable_lines.append(
                {"line": (sample.raw or {}).get("line"), "reason": sample.reason, "why": sample.detail}
            )
            return
        self.formats[sample.format] += 1
        self.tool_problems += [{"line": sample.line, "why": p} for p in sample.problems]
        self.messages_per.append(len(sample.messages))
        self.calls_per.append(len(sample.calls))
        self.offered.update({t.name for t in sample.tools})
        line_problems = _line(sample, self.sid, self.used, found, self.counts)
        request = next((m.content or "" for m in sample.messages if m.role == "user"), "")
        seen = self.dedup.check(bucket(sample), request, str(sample.line)) if request.strip() else None
        if seen is not None:
            kind = "duplicates" if seen[0] == "exact_duplicate" else "near_duplicates"
            found[kind].append({"line": sample.line, "same_as_line": int(seen[1]), "request": request[:160]})
            line_problems.append((2 if kind == "duplicates" else 1, f"{kind.replace('_', '-')[:-1]} of line {seen[1]}"))
        if any(
            m.role == "tool" and _is_error(m.content) and nxt.role == "assistant" and not nxt.tool_calls
            for m, nxt in zip(sample.messages, sample.messages[1:])
        ):
            found["answer_after_error"].append({"line": sample.line})
        if line_problems:
            self.worst[sample.line] = {
                "line": sample.line,
                "score": sum(w for w, _ in line_problems),
                "problems": [p for _, p in line_problems],
            }

    def report(self, source: Path) -> dict[str, Any]:
        found, counts, lines = self.found, self.counts, self.lines
        conversations = sum(self.formats.values())
        calls = sum(self.calls_per)
        flagged = {"unknown_tool": counts["unknown_tool"], "schema": counts["schema"], "grounding": counts["grounding"]}
        per_conv = {
            "duplicates": len(found["duplicates"]),
            "near_duplicates": len(found["near_duplicates"]),
            "answer_after_error": len(found["answer_after_error"]),
        }
        rates = {"unreadable": round(sum(self.unreadable.values()) / lines, 4) if lines else 0.0}
        rates.update({k: round(v / calls, 4) if calls else 0.0 for k, v in flagged.items()})
        rates.update({k: round(v / conversations, 4) if conversations else 0.0 for k, v in per_conv.items()})
        offered, used = self.offered, self.used
        return {
            "source": source.as_posix(),
            "formats": {FORMATS[k]: v for k, v in sorted(self.formats.items())},
            "lines": lines,
            "unreadable": dict(sorted(self.unreadable.items())),
            "conversations": conversations,
            "messages_per_conversation": _spread(self.messages_per),
            "tool_calls": calls,
            "tool_calls_per_conversation": _spread(self.calls_per),
            "tools": {
                "offered": len(offered),
                "used": len(set(used) & set(offered)),
                "unused": sorted(set(offered) - set(used)),
                "most_used": used.most_common(10),
            },
            "unusable_tool_definitions": len(self.tool_problems),
            "counts": {**flagged, "ungrounded_values": counts["ungrounded_values"], **per_conv},
            "rates": rates,
            "clean": all(rates[k] == 0 for k in PROBLEMS),
            "examples": {
                "unreadable": self.unreadable_lines[:EXAMPLES],
                "unusable_tool_definitions": self.tool_problems[:EXAMPLES],
                **{k: v[:EXAMPLES] for k, v in found.items()},
            },
            "worst": sorted(self.worst.values(), key=lambda w: (-w["score"], w["line"]))[:EXAMPLES],
        }


def _line(
    sample: Sample, sid: str, used: Counter[str], found: dict[str, list[dict[str, Any]]], counts: Counter[str]
) -> list[tuple[int, str]]:
    """Count one line's calls and their flags; (weight, phrase) of each problem, for the worst list."""
    server = ServerSpec(id=sid, name=sid, source="audit", tools=sample.tools)
    flags = gates.call_flags(list(sample.messages), server)
    calls = [c for m in sample.messages for c in m.tool_calls]
    problems: list[tuple[int, str]] = []
    for k, (call, gate_flags) in enumerate(zip(calls, flags)):
        used[call.name] += 1
        all_flags = sample.call_flags.get(k, []) + gate_flags
        kinds = {f["gate"] for f in all_flags}
        where = {"line": sample.line, "call_index": k, "tool": call.name}
        if "tool_exists" in kinds:
            counts["unknown_tool"] += 1
            found["unknown_tool"].append(where)
        if "schema_valid" in kinds:
            counts["schema"] += 1
            f = next(f for f in all_flags if f["gate"] == "schema_valid")
            found["schema"].append({**where, "pointer": f.get("pointer", ""), "why": f["why"]})
        ungrounded = [f for f in all_flags if f["gate"] == "grounding"]
        if ungrounded:
            counts["grounding"] += 1
            counts["ungrounded_values"] += len(ungrounded)
            found["grounding"].append({**where, "values": {f["argument"]: f["value"] for f in ungrounded}})
        for f in all_flags:
            what = {
                "tool_exists": f"unknown tool {call.name}",
                "schema_valid": f"{call.name} {f.get('pointer') or '/'}: {f['why']}",
                "grounding": f"{call.name} {f['argument']}={json.dumps(f['value'], ensure_ascii=False)[:40]} ungrounded",  # noqa: E501
            }
            problems.append((_WEIGHT[f["gate"]], what[f["gate"]]))
    return problems


def parse_fail_on(specs: list[str]) -> list[tuple[str, str, float]]:
    """``grounding>0.1`` (also ``>=``, ``<``, ``<=``; several joined by commas) as (rate, operator, value)."""
    out = []
    for spec in (s.strip() for text in specs for s in text.split(",") if s.strip()):
        m = re.fullmatch(r"([a-z_]+)\s*(>=|<=|>|<)\s*([0-9.]+)", spec)
        if not m or m.group(1) not in RATES:
            raise ConfigError(
                f"--fail-on {spec!r}: write RATE>VALUE with RATE one of {', '.join(RATES)} "
                "(each a fraction from 0 to 1), e.g. --fail-on 'grounding>0.1' (quoted, so the shell does "
                "not read > as a redirect)"
            )
        out.append((m.group(1), m.group(2), float(m.group(3))))
    return out


def failures(report: dict[str, Any], thresholds: list[tuple[str, str, float]]) -> list[str]:
    """The thresholds a report breaks, each as a phrase."""
    compare = {">": float.__gt__, ">=": float.__ge__, "<": float.__lt__, "<=": float.__le__}
    return [
        f"{rate} is {report['rates'][rate]:.4f} ({op}{value})"
        for rate, op, value in thresholds
        if compare[op](float(report["rates"][rate]), value)
    ]


def card_lines(report: dict[str, Any], name: str) -> list[str]:
    """The card's short audit section: the same figures ``synth audit`` prints."""
    r, c = report["rates"], report["counts"]
    rows = [
        ("unreadable lines", sum(report["unreadable"].values()), r["unreadable"]),
        ("calls naming a tool not offered", c["unknown_tool"], r["unknown_tool"]),
        ("calls whose arguments fail the schema", c["schema"], r["schema"]),
        ("calls with an ungrounded value", c["grounding"], r["grounding"]),
        ("duplicate first requests", c["duplicates"], r["duplicates"]),
        ("near-duplicate first requests", c["near_duplicates"], r["near_duplicates"]),
        ("answers right after a tool error", c["answer_after_error"], r["answer_after_error"]),
    ]
    return [
        f"`synth audit {name}`: {report['lines']} lines, {report['conversations']} conversations, "
        f"{report['tool_calls']} tool calls ({report['tool_calls_per_conversation']['mean']} a conversation), "
        f"{report['tools']['used']} of {report['tools']['offered']} offered tools used; "
        + ("clean." if report["clean"] else "not clean."),
        "",
        "| check | count | rate |",
        "| --- | --- | --- |",
        *[f"| {a} | {b} | {x:.2%} |" for a, b, x in rows],
    ]
