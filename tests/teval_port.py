"""T-Eval's evaluators, ported for the tests: the parsing and scoring rules of open-compass/T-Eval's
``teval/evaluators`` followed step by step, so a test can score synth's T-Eval files as T-Eval does
without T-Eval (not on PyPI) or its similarity model (a Hub download).

Ported from open-compass/T-Eval:
- teval/evaluators/instruct_evaluator.py and review_evaluator.py at f8df1757e21f6b36d548f7c52c97b416da5625b9
- teval/evaluators/planning_evaluator.py at e8bdd3a83ce619ea74b0efef4a10731aa5ff24b5 (bertscore match)
- teval/evaluators/reason_retrieve_understand_evaluator.py at 56e21210bd0d451f654051002c81cdfae714ea19
  (ReasonRetrieveUnderstandEvaluator, the "more strict" v2 args rule)
- teval/utils/format_load.py, utils/template.py (parse_string), at bab869616dee4cb55a2a04390efb93c008b70896

The one thing swapped is the sentence model (``similarity`` below, synth's own), which sets the plan
metrics' step matching and reason's ``thought``. The maximum-weight matching is networkx's, as in
T-Eval. ``benchmarks/teval_agreement.py`` runs the real evaluators on a checkout.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from string import Formatter
from typing import Any

import networkx as nx

from synth.evaluate.teval import similarity


def format_load(raw_data: Any, start_character: str = "", end_character: str = "") -> Any:
    if not isinstance(raw_data, str):
        return raw_data
    if "```json" in raw_data:
        raw_data = raw_data[raw_data.find("```json") + len("```json") :]
        raw_data = raw_data.strip("`")
    if start_character != "":
        raw_data = raw_data[raw_data.find(start_character) :]
    if end_character != "":
        raw_data = raw_data[: raw_data.rfind(end_character) + len(end_character)]
    for parse in (ast.literal_eval, json.loads, lambda t: json.loads(t.replace("'", '"'))):
        try:
            return parse(raw_data)
        except Exception:  # noqa: BLE001
            pass
    raise Exception("Cannot parse raw data")  # noqa: TRY002


def parse_string(template: str, input_string: str, allow_newline: bool = False) -> dict | None:
    keys = [v[1] for v in Formatter().parse(template) if v[1] is not None]
    pattern = template
    for k in keys:
        pattern = pattern.replace("{" + k + "}", "(.*)")
    values = re.findall(pattern, input_string, re.S if allow_newline else 0)
    if len(values) < 1:
        return None
    data: dict[str, Any] = {}
    for k, v in zip(keys, values[0]):
        data[k] = v
    return data


# --- InstructEvaluator -------------------------------------------------------------------------------


def instruct(datum: dict[str, Any]) -> dict[str, float]:
    template, pred, gt = datum["template"], datum["prediction"], datum["ground_truth"]
    response_format = datum["meta_data"]["response_format"]
    if response_format == "json":
        try:
            data = format_load(pred)
            parsed = {"thought": data[template["thought"]], "action": data[template["action"]]}
            args = data[template["args"]]
            parsed["args"] = args if isinstance(args, dict) else {}
        except Exception:  # noqa: BLE001
            parsed = None
    else:
        parse_template = (
            template["thought_start"]
            + "{thought}"
            + template["thought_end"]
            + template["action_start"]
            + "{action}"
            + template["action_end"]
            + template["args_start"]
            + "{args}"
            + template["args_end"]
        )
        parsed = parse_string(parse_template, pred, allow_newline=True)
        try:
            if parsed is not None:
                args = ast.literal_eval(parsed["args"].strip())
                parsed["args"] = args if isinstance(args, dict) else {}
                parsed["action"] = parsed["action"].strip()
        except Exception:  # noqa: BLE001
            parsed = dict(thought=parsed["thought"], action=parsed["action"].strip(), args={})
    if parsed is None:
        return {f"{response_format}_format_metric": 0, f"{response_format}_args_em_metric": 0}
    cnt = 1.0 if gt["action"] == parsed["action"] else 0.0
    for key in gt["args"]:
        if parsed["args"].get(key, "") == gt["args"][key]:
            cnt += 1.0
    return {f"{response_format}_format_metric": 1, f"{response_format}_args_em_metric": cnt / (len(gt["args"]) + 1)}


# --- PlanningEvaluator (bertscore match) ---------------------------------------------------------------


def _plan_load(data: Any) -> list[dict[str, Any]]:
    try:
        steps = format_load(data, start_character="[", end_character="]")
    except Exception:  # noqa: BLE001
        return []
    if type(steps) is not list:
        return []
    steps = list(steps)
    for i in range(len(steps)):
        try:
            steps[i] = {"name": str(steps[i]["name"]), "id": int(steps[i]["id"]), "args": str(steps[i]["args"])}
        except Exception:  # noqa: BLE001
            return []
    return steps


def plan_str_steps(prediction: str, api_list: list[str]) -> list[dict[str, Any]]:
    pred_plan: list[dict[str, Any]] = []
    for step in prediction.replace(". ", "\n").split("\n"):
        first, action = 1e9, ""
        for api_name in api_list:
            at = step.find(api_name)
            if at != -1 and at < first:
                first, action = at, api_name
        if action != "":
            pred_plan.append({"id": len(pred_plan), "name": action, "args": step})
    return pred_plan


def plan(datum: dict[str, Any], sim: Callable[[str, str], float] = similarity) -> dict[str, float]:
    """Raises ValueError, as T-Eval does, on a prediction of FinishAction alone."""
    prompt_type = datum.get("meta", {}).get("prompt_type", "json")
    gt_plan = _plan_load(json.loads(json.dumps(datum["ground_truth"])))
    if prompt_type == "json":
        pred_plan = _plan_load(datum["prediction"])
    else:
        pred_plan = plan_str_steps(datum["prediction"], datum["meta"]["API_list"])
    parse_rate = 0 if not pred_plan or not gt_plan else 1
    if not pred_plan or not gt_plan:
        return {"precision": 0, "recall": 0, "f1_score": 0, "parse_rate": parse_rate}
    pred_plan, gt_plan = sorted(pred_plan, key=lambda x: x["id"]), sorted(gt_plan, key=lambda x: x["id"])
    if pred_plan[-1]["name"] == "FinishAction":
        pred_plan = pred_plan[:-1]
    if gt_plan[-1]["name"] == "FinishAction":
        gt_plan = gt_plan[:-1]
    graph = nx.Graph()
    for i, p in enumerate(pred_plan):
        for j, g in enumerate(gt_plan):
            score = max(sim(p["name"], g["name"]), 0) * 0.75 + max(sim(str(p["args"]), str(g["args"])), 0) * 0.25
            if score > 0.8:
                graph.add_edge(i, str(j), weight=score)
    mapping = {}
    for a, b in nx.max_weight_matching(graph):
        if type(a) is int:
            mapping[a] = int(b)
        else:
            mapping[b] = int(a)
    dp = [1] * len(pred_plan)
    for i in range(len(pred_plan)):
        for j in range(i):
            if mapping.get(i, -1) == -1 or mapping.get(j, -1) == -1:
                continue
            if mapping[i] > mapping[j]:
                dp[i] = max(dp[i], dp[j] + 1)
    correct = max(dp)  # ValueError on an empty plan, as np's max in T-Eval
    recall, precision = correct / len(gt_plan), correct / len(pred_plan)
    return {
        "precision": precision,
        "recall": recall,
        "f1_score": 2 * recall * precision / (recall + precision),
        "parse_rate": parse_rate,
    }


# --- ReasonRetrieveUnderstandEvaluator -------------------------------------------------------------------


def _rru_load(data: Any, prompt_type: str) -> dict[str, Any]:
    try:
        loaded = format_load(data, start_character="{", end_character="}")
    except Exception:  # noqa: BLE001
        return {}
    if type(loaded) is not dict:
        return {}
    out = {
        "thought": str(loaded["thought"]) if "thought" in loaded else "",
        "name": str(loaded["name"]) if "name" in loaded else "",
    }
    if prompt_type == "json":
        out["args"] = loaded["args"] if isinstance(loaded.get("args"), dict) else {}
    else:
        out["args"] = str(loaded["args"]) if "args" in loaded else ""
    return out


def rru(
    datum: dict[str, Any], prompt_type: str, eval_type: str, sim: Callable[[str, str], float] = similarity
) -> dict[str, float]:
    """One item, as ``_post_process`` of a one-item list gives it (``prompt_type`` is test.py's)."""
    response_format = datum.get("meta_data", {}).get("response_format", prompt_type)
    gt = _rru_load(datum["ground_truth"], prompt_type)
    if response_format == "json":
        pred = _rru_load(datum["prediction"], prompt_type)
        if pred == {} or gt == {}:
            pred = {}
    else:
        pred = {{"reason": "thought", "retrieve": "name", "understand": "args"}[eval_type]: datum["prediction"]}
    keys = (
        ["thought", "name", "args"]
        if prompt_type == "json"
        else [{"reason": "thought", "retrieve": "name", "understand": "args"}[eval_type]]
    ) + ["parse_rate"]
    m = dict.fromkeys(keys, 0.0)
    if pred:
        m["parse_rate"] = 1
    if "thought" in pred and "thought" in gt:
        m["thought"] = max(sim(pred["thought"], gt["thought"]), 0)
    if "name" in pred and "name" in gt:
        if prompt_type == "json":
            m["name"] = float(pred["name"] == gt["name"])
        else:
            m["name"] = float(gt["name"] in pred["name"])
            found = re.findall(r"\w+\.\w+", pred["name"]) + re.findall(r"FinishAction", pred["name"])
            if any(name != gt["name"] for name in found):
                m["name"] = 0
    if "args" in pred and "args" in gt:
        if isinstance(gt["args"], dict):
            for key in gt["args"]:
                if key in pred["args"] and str(pred["args"][key]) == str(gt["args"][key]):
                    m["args"] += 1
            m["args"] /= len(gt["args"]) + 1e-5
            if len(gt["args"]) == 0:
                m["args"] = 1 if len(pred["args"]) == 0 else 0
        else:
            m["args"] = float(gt["args"] == pred["args"].strip("'").strip('"'))
    return m


# --- ReviewEvaluator ------------------------------------------------------------------------------------


def review(datum: dict[str, Any]) -> dict[str, float]:
    pred = datum["prediction"]
    pred = pred[pred.find(":") + 1 :].strip()
    letter = pred[0] if len(pred) > 0 and pred[0] in ["A", "B", "C", "D", "E"] else None
    if letter is None:
        return {"parse_rate": 0, "review_quality": 0}
    return {"parse_rate": 1.0, "review_quality": 1.0 if letter == datum["ground_truth"]["answer"] else 0.0}


# file stem -> the evaluator and test.py's --prompt_type / --eval, as T-Eval's test_all_en.sh runs them
def score(stem: str, datum: dict[str, Any]) -> dict[str, float]:
    if stem.startswith("instruct"):
        return instruct(datum)
    if stem.startswith("plan"):
        return plan(datum)
    if stem == "review_str":
        return review(datum)
    if stem == "reason_retrieve_understand_json":
        return rru(datum, "json", "rru")
    return rru(datum, "str", stem.removesuffix("_str"))
