"""``synth eval``: ask a model for each eval item's next tool call, grade it; or judge scored calls.

Calls go through the same engine as generation (native tool calling, bounded retries, AIMD
concurrency, the SQLite cache), so re-grading with other leniency or rerunning costs nothing.
A model that answers with text, calls a tool that does not exist or sends arguments that are
not JSON gets 0.0 and its diagnosis; a request that fails past its retries is recorded as an
error, shown as one and left out of the scores (an outage is not a wrong answer), never a crash.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from synth import templates
from synth.errors import BackendError
from synth.evaluate.report import eval_items, grade
from synth.grade import Leniency
from synth.llm.base import ChatBackend, ChatRequest
from synth.llm.structured import ask
from synth.records import LABELS, StageFailure
from synth.rundir import SCORED, read_jsonl, write_json, write_jsonl

JUDGE_LABELS = LABELS


Tell = Callable[[int], None]  # how many jobs are done so far (a progress bar)


async def bounded(jobs: list[Any], limit: int, tell: Tell | None = None) -> list[Any]:
    """Await ``jobs`` at most ``limit`` at a time; their results in job order. ``tell(done)`` hears
    each one that ends."""
    gate = asyncio.Semaphore(limit)
    done = 0

    async def run(job: Any) -> Any:
        nonlocal done
        try:
            async with gate:
                result = await job
            done += 1
            if tell:
                tell(done)
            return result
        finally:
            job.close()  # a job cancelled before it started (the endpoint is down) is closed, not left unawaited

    return await asyncio.gather(*(run(j) for j in jobs))


async def predict(
    items: list[dict[str, Any]], backend: ChatBackend, model: str, limit: int, tell: Tell | None = None
) -> list[dict[str, Any]]:
    """One prediction per item, in item order."""

    async def one(item: dict[str, Any]) -> dict[str, Any]:
        request = ChatRequest(
            role="eval",
            model=model,
            messages=tuple(item["messages"]),
            tools=tuple(item.get("tools") or ()),
            temperature=0.0,
            seed=0,
        )
        try:
            response = await backend.complete(request)
        except BackendError as exc:
            return {"id": item["metadata"]["id"], "content": None, "tool_calls": [], "error": str(exc)[:300]}
        return {"id": item["metadata"]["id"], "content": response.content, "tool_calls": list(response.tool_calls)}

    return await bounded([one(i) for i in items], limit, tell)


def evaluate(
    source: Path,
    backend: ChatBackend,
    model: str,
    out: Path,
    limit: int,
    lenient: Leniency = Leniency(),
    progress: Callable[[int], Tell] | None = None,
) -> dict[str, Any]:
    """Predict, grade, and write predictions.jsonl, graded.jsonl and report.json into ``out``.
    ``progress(total)`` gives the callback that hears each answered item."""
    items = eval_items(source)
    tell = progress(len(items)) if progress else None
    predictions = asyncio.run(closing(backend, predict(items, backend, model, limit, tell)))
    report, rows = grade(items, predictions, lenient)
    report = {"model": model, "source": source.as_posix(), **report}
    write_jsonl(out / "predictions.jsonl", predictions)
    write_jsonl(out / "graded.jsonl", rows)
    write_json(out / "report.json", report)
    return report


async def closing(backend: ChatBackend, job: Any) -> Any:
    """Await ``job``, then close the backend's connections (in the same event loop that opened them)."""
    try:
        return await job
    finally:
        close = getattr(backend, "aclose", None)
        if close:
            await close()


class JudgeAnswer(BaseModel):
    label: Literal["correct", "incorrect_tool", "incorrect_parameter_names", "incorrect_parameter_values"]
    reason: str = ""


def judge_request(model: str, record: dict[str, Any]) -> ChatRequest:
    from synth.agents.roles import transcript

    render = {
        "tools_json": json.dumps(record["available_tools"], ensure_ascii=False, sort_keys=True),
        "transcript": transcript(record["message_history"]),
        "call_json": json.dumps(record["tool_call"]["function"], ensure_ascii=False),
    }
    return ChatRequest(
        role="judge",
        model=model,
        temperature=0.0,
        seed=0,
        template_hash=templates.template_hash("judge.system.j2") + templates.template_hash("judge.user.j2"),
        messages=(
            {"role": "system", "content": templates.render("judge.system.j2", **render)},
            {"role": "user", "content": templates.render("judge.user.j2", **render)},
        ),
    )


def judge(
    source: Path,
    backend: ChatBackend,
    model: str,
    out: Path,
    limit: int,
    progress: Callable[[int], Tell] | None = None,
) -> dict[str, Any]:
    """Classify each scored call into the four labels; accuracy, per-label precision/recall, confusion matrix."""
    file = source / SCORED if source.is_dir() else source
    records = list(read_jsonl(file, "scored file", required=True))

    async def one(record: dict[str, Any]) -> dict[str, Any]:
        answer = await ask(backend, judge_request(model, record), JudgeAnswer, "judge", record.get("id", ""), [])
        label = None if isinstance(answer, StageFailure) else answer.label
        row = {
            "id": record.get("id"),
            "expected": record["score"],
            "predicted": label,
            "reason": answer.detail if isinstance(answer, StageFailure) else answer.reason,
        }
        if isinstance(answer, StageFailure) and answer.reason in ("backend_error", "budget"):
            row["error"] = True  # the request failed: not a wrong or unparsed answer
        return row

    tell = progress(len(records)) if progress else None
    rows = asyncio.run(closing(backend, bounded([one(r) for r in records], limit, tell)))
    report = {"model": model, "source": file.as_posix(), **judge_report(rows)}
    write_jsonl(out / "judge_predictions.jsonl", rows)
    write_json(out / "judge_report.json", report)
    return report


def judge_report(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy, per-label precision and recall, and the confusion matrix (expected -> predicted)."""
    errors = sum(1 for r in rows if r.get("error"))
    rows = [r for r in rows if not r.get("error")]  # failed requests are not graded
    labels = list(JUDGE_LABELS)
    matrix = {e: {p: 0 for p in [*labels, "unparsed"]} for e in labels}
    for r in rows:
        matrix[r["expected"]][r["predicted"] or "unparsed"] += 1
    per_label = {}
    for label in labels:
        tp = matrix[label][label]
        predicted = sum(matrix[e][label] for e in labels)
        actual = sum(matrix[label].values())
        per_label[label] = {
            "precision": round(tp / predicted, 4) if predicted else 0.0,
            "recall": round(tp / actual, 4) if actual else 0.0,
            "support": actual,
        }
    n = len(rows)
    return {
        "items": n,
        "errors": errors,
        "accuracy": round(sum(r["expected"] == r["predicted"] for r in rows) / n, 4) if n else 0.0,
        "unparsed": sum(r["predicted"] is None for r in rows),
        "per_label": per_label,
        "confusion": matrix,
    }
