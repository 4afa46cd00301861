"""Grade predictions against an eval file and report: overall, per server, per tool, per diagnosis.

An eval file is what ``synth generate`` writes as ``eval.jsonl`` (Foundry's item layout: one line
``{"item": {"messages", "tools", "expected_output", "metadata"}}``). A predictions file has one line
per item: ``{"id": <item metadata id>, "content": ..., "tool_calls": [OpenAI tool calls]}`` (or the
assistant message under ``"message"``), which is what ``synth eval`` writes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.grade import DIAGNOSES, Call, Leniency, TurnScore, score_turn, text_decision, without
from synth.records import DECISIONS
from synth.rundir import EVAL, read_jsonl


def eval_items(path: Path) -> list[dict[str, Any]]:
    """The items of an eval file (or of a run folder's eval.jsonl), each with an id."""
    file = path / EVAL if path.is_dir() else path
    items = []
    for number, line in enumerate(read_jsonl(file, "eval file", required=True), 1):
        item = line.get("item", line)
        if not isinstance(item, dict) or "messages" not in item or "expected_output" not in item:
            raise ConfigError(
                f'{file}:{number}: not an eval item; expected {{"item": {{"messages", "tools", '
                '"expected_output"}}}} as synth generate writes it'
            )
        item.setdefault("metadata", {}).setdefault("id", f"line{number}")
        items.append(item)
    return items


def predicted_calls(prediction: dict[str, Any]) -> list[Call]:
    message = prediction.get("message", prediction)
    return [Call.from_openai(c) for c in message.get("tool_calls") or []]


def predicted_decision(prediction: dict[str, Any] | None) -> str:
    """The move a prediction made: ``call``, or the no-call move its text reads as (synth.grade.text_decision)."""
    if prediction is None:
        return "none"
    message = prediction.get("message", prediction)
    return "call" if message.get("tool_calls") else text_decision(message.get("content"))


def schemas_of(item: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        t["function"]["name"]: t["function"].get("parameters") or {}
        for t in item.get("tools") or []
        if isinstance(t, dict) and "function" in t
    }


def grade(
    items: list[dict[str, Any]], predictions: Iterable[dict[str, Any]], lenient: Leniency = Leniency()
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(report, one graded row per item). An item without a prediction scores 0 as ``wrong_count``."""
    by_id = {str(p.get("id")): p for p in predictions}
    rows = []
    for item in items:
        meta = item["metadata"]
        expected = [Call.from_openai(c) for c in item["expected_output"].get("tool_calls") or []]
        prediction = by_id.get(str(meta["id"]))
        if prediction is not None and prediction.get("error"):  # the request failed: an outage, not an answer
            rows.append(
                {
                    "id": meta["id"],
                    "server": meta.get("server", ""),
                    "tool": meta.get("tool", expected[0].name if expected else ""),
                    "score": None,
                    "diagnosis": "error",
                    "details": [str(prediction["error"])],
                    "missing": False,
                    "error": True,
                }
            )
            continue
        parallel = [Call.from_openai(c) for c in meta.get("parallel_calls") or []]
        schemas = schemas_of(item)
        turn = (
            score_turn(expected, without(parallel, predicted_calls(prediction), schemas, lenient), schemas, lenient)
            if prediction is not None
            else TurnScore(0.0, "wrong_count", details=["no prediction for this item"])
        )
        rows.append(
            {
                "id": meta["id"],
                "server": meta.get("server", ""),
                "tool": meta.get("tool", expected[0].name if expected else ""),
                "decision": meta.get("decision", "call"),
                "predicted": predicted_decision(prediction),
                "score": turn.score,
                "diagnosis": turn.diagnosis,
                "details": turn.details,
                "missing": prediction is None,
            }
        )
    return summarise(rows, lenient), rows


def decisions(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The four decisions apart: score per expected move, and the confusion table (expected -> the move made;
    a text's move read by its words). Empty for an eval file with call items only."""
    graded = [r for r in rows if not r.get("error")]
    if all(r.get("decision", "call") == "call" for r in graded):
        return {}
    made = [*DECISIONS, "none"]
    confusion = {e: {p: 0 for p in made} for e in DECISIONS}
    for r in graded:
        confusion[r.get("decision", "call")][r.get("predicted", "none")] += 1
    return {
        "by_decision": _group(graded, "decision"),
        "confusion": {e: {p: n for p, n in row.items() if n or p != "none"} for e, row in confusion.items()},
    }


def _group(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    for r in rows:
        if r.get("error"):
            errors[r[key]] += 1
        else:
            groups[r[key]].append(r["score"])
    return {
        k: {
            "items": len(groups[k]),
            "score": round(sum(groups[k]) / len(groups[k]), 4) if groups[k] else 0.0,
            **({"errors": errors[k]} if errors[k] else {}),
        }
        for k in sorted(set(groups) | set(errors))
    }


def summarise(rows: list[dict[str, Any]], lenient: Leniency) -> dict[str, Any]:
    """Scores over the graded items; items whose request failed are counted as ``errors`` and left out."""
    graded = [r for r in rows if not r.get("error")]
    n = len(graded)
    diagnoses = {d: sum(r["diagnosis"] == d for r in graded) for d in DIAGNOSES}
    return {
        "items": n,
        "errors": len(rows) - n,
        "score": round(sum(r["score"] for r in graded) / n, 4) if n else 0.0,
        "exact": round(sum(r["score"] == 1.0 for r in graded) / n, 4) if n else 0.0,
        "missing_predictions": sum(r["missing"] for r in graded),
        "leniency": {"defaults": lenient.defaults, "int_float": lenient.int_float, "strings": lenient.strings},
        "by_diagnosis": {k: v for k, v in diagnoses.items() if v},
        "by_server": _group(rows, "server"),
        "by_tool": _group(rows, "tool"),
        **decisions(rows),
    }


def _confusion(report: dict[str, Any]) -> Any:
    """The four decisions as a table: rows the right move, columns the move made, and the score per row."""
    from rich.table import Table

    table = Table(title="decisions (rows: right move; columns: move made)", header_style="bold")
    table.add_column("")
    made = [*DECISIONS, *(["none"] if any("none" in r for r in report["confusion"].values()) else [])]
    for p in made:
        table.add_column(p, justify="right")
    table.add_column("score", justify="right")
    for e, row in report["confusion"].items():
        group = report["by_decision"].get(e, {"items": 0, "score": 0.0})
        table.add_row(e, *(str(row.get(p, 0)) for p in made), f"{group['score']:.3f}" if group["items"] else "-")
    return table


def print_report(
    report: dict[str, Any], other: dict[str, Any] | None = None, title: str = "", other_title: str = ""
) -> None:
    """The report as tables; with ``other``, two models side by side and the per-tool differences."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    head = Table(title=title or "tool-call accuracy", header_style="bold")
    head.add_column("")
    head.add_column(report.get("model") or "this", justify="right")
    if other:
        head.add_column(other_title or other.get("model") or "other", justify="right")
        head.add_column("change", justify="right")
    for key in ("items", "score", "exact"):
        row = [key, str(report[key])]
        if other:
            row += [str(other[key]), f"{report[key] - other[key]:+.4f}" if key != "items" else ""]
        head.add_row(*row)
    for d in DIAGNOSES:
        a, b = report["by_diagnosis"].get(d, 0), (other or {}).get("by_diagnosis", {}).get(d, 0)
        if a or b:
            head.add_row(f"  {d}", str(a), *([str(b), f"{a - b:+d}"] if other else []))
    errors, other_errors = report.get("errors", 0), (other or {}).get("errors", 0)
    if errors or other_errors:
        head.add_row("[red]errors[/]", str(errors), *([str(other_errors), ""] if other else []))
    console.print(head)
    if report.get("confusion"):
        console.print(_confusion(report))
    if errors or other_errors:
        console.print(
            f"[red]{errors or other_errors} item(s) not graded: the request failed (an outage or a refused "
            "call, not a wrong answer); they are left out of the scores above, details in graded.jsonl[/]",
            highlight=False,
        )
    tools = Table(title="by tool" + (" (largest changes first)" if other else ""), header_style="bold")
    tools.add_column("tool")
    tools.add_column("items", justify="right")
    tools.add_column("score", justify="right")
    names = list(report["by_tool"])
    if other:
        tools.add_column("other", justify="right")
        tools.add_column("change", justify="right")
        names += [t for t in other["by_tool"] if t not in report["by_tool"]]
        delta = {
            t: report["by_tool"].get(t, {}).get("score", 0) - other["by_tool"].get(t, {}).get("score", 0) for t in names
        }
        names.sort(key=lambda t: (-abs(delta[t]), t))
    for t in names[:25]:
        mine = report["by_tool"].get(t, {"items": 0, "score": 0.0})
        row = [t, str(mine["items"]), f"{mine['score']:.3f}"]
        if other:
            row += [f"{other['by_tool'].get(t, {}).get('score', 0.0):.3f}", f"{delta[t]:+.3f}"]
        tools.add_row(*row)
    console.print(tools)
