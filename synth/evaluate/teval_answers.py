"""Answers for checking a T-Eval evaluator: the ground truth written as the answer each prompt asks for
(it scores 1.0 on every metric, here and in T-Eval's evaluators), and deterministic wrong answers."""

from __future__ import annotations

import json
from typing import Any

from synth.evaluate.teval import FINISH, subset_kind


def reference_answer(name: str, record: dict[str, Any]) -> str:
    """The ground truth written as the answer the record's prompt asks for: it scores 1.0 on every
    metric, here and in T-Eval's evaluators."""
    subset, fmt = subset_kind(name)
    truth = record["ground_truth"]
    if subset == "instruct":
        goal = f"call {truth['action']}"
        if fmt == "json":
            return json.dumps({"goal": goal, "name": truth["action"], "args": truth["args"]}, ensure_ascii=False)
        return f"goal: {goal}\nname: {truth['action']}\nargs: {truth['args']!r}\n"
    if subset == "plan":
        if fmt == "json":
            return json.dumps(truth, ensure_ascii=False)
        return "\n".join(
            f"{n}. {s['name']}" + ("" if s["name"] == FINISH else f": {json.dumps(s['args'], ensure_ascii=False)}")
            for n, s in enumerate(truth, 1)
        )
    if subset == "review":
        return f"Answer: {truth['answer']}"
    if subset == "reason_retrieve_understand":
        return json.dumps(
            {"thought": truth["thought"], "name": truth["name"], "args": truth["args"]}, ensure_ascii=False
        )
    ability = record.get("meta_data", {}).get("ability", subset)
    return {"reason": truth["thought"], "retrieve": truth["name"], "understand": str(truth["args"])}[ability]


def _other(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return value + " (other)"
    if isinstance(value, list):
        return value[:-1] if value else ["other"]
    if isinstance(value, dict):
        return {k: _other(v) for k, v in value.items()} or {"other": 1}
    return "other"


def wrong_answer(name: str, record: dict[str, Any], key: str) -> str:
    """A deterministic wrong answer of one of a few kinds, chosen by ``key``: a wrong tool, wrong
    argument values, steps out of order or missing, a wrong letter, text that does not parse."""
    subset, fmt = subset_kind(name)
    truth = record["ground_truth"]
    kind = sum(key.encode()) % 3
    if subset == "instruct":
        if kind == 2:
            return f"I would call {truth['action']} now."
        action = truth["action"] + "_v2" if kind == 0 else truth["action"]
        args = truth["args"] if kind == 0 else _other(truth["args"])
        if fmt == "json":
            return json.dumps({"goal": "g", "name": action, "args": args}, ensure_ascii=False)
        return f"goal: g\nname: {action}\nargs: {args!r}\n"
    if subset == "plan":
        calls, finish = [s for s in truth if s["name"] != FINISH], [s for s in truth if s["name"] == FINISH]
        if kind == 0 and len(calls) > 1:
            steps = calls[::-1]
        elif kind == 1 and len(calls) > 1:
            steps = calls[:-1]
        else:  # one step kept, and a tool that is not there
            steps = calls[:1] + [{"name": calls[0]["name"].split(".")[0] + ".unrelated_tool", "args": {"other": 1}}]
        steps = [{**s, "id": i, "prev": []} for i, s in enumerate(steps + finish)]
        return reference_answer(name, {**record, "ground_truth": steps})
    if subset == "review":
        return "Answer: " + "ABCDE"[("ABCDE".index(truth["answer"]) + 1 + kind % 2) % 5]
    if subset == "reason_retrieve_understand":
        if kind == 2:
            return "I would call " + truth["name"]
        wrong = {
            "thought": "I should answer the user now.",
            "name": truth["name"] + ("_v2" if kind == 0 else ""),
            "args": _other(truth["args"]),
        }
        return json.dumps(wrong, ensure_ascii=False)
    ability = record.get("meta_data", {}).get("ability", subset)
    if ability == "reason":
        return "I should answer the user now."
    if ability == "retrieve":
        return [truth["name"] + "_v2", f"{truth['name']}, then FinishAction", "I would answer without a tool."][kind]
    wrong = _other(truth["args"])
    return json.dumps(wrong, ensure_ascii=False) if kind == 2 else str(wrong)
