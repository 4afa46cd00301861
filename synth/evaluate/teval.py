"""T-Eval's metrics (open-compass/T-Eval, ``teval/evaluators``), one function per ability, on one record
at a time, parsing answers as T-Eval's evaluators do, so a score here is the one T-Eval gives the same
answer (``benchmarks/teval_agreement.py`` runs both and compares them item by item).

- instruct: format (the answer parses: json through T-Eval's ``format_load`` with the record's
  ``template`` keys; str through its ``goal:…\nname:…\nargs:…\n`` template, the args read with
  ``ast.literal_eval``, so JSON ``true`` loses them) and argument exact match,
  ``([action == gt] + sum_k [args.get(k, "") == gt[k]]) / (len(gt) + 1)``; the ability is the mean.
- plan: steps (json: a list, each step's args as ``str``; str: the answer cut at newlines and ``". "``,
  each piece named by the earliest ``API_list`` name in it, the piece being the args) matched by
  similarity ``0.75 * sim(name) + 0.25 * sim(args)`` above 0.8 with a maximum-weight matching,
  then the longest increasing run of matched steps in the predicted order counts as correct;
  precision, recall, F1.
- reason: similarity of the thought to the expected one (clipped at 0).
- retrieve: the right tool name (json); in str mode the name appears and every ``\\w+\\.\\w+`` and
  ``FinishAction`` in the answer is that name.
- understand: str mode, the answer (outer quotes stripped) equals ``str(args)``, Python's form of
  the dict; json mode, the share of expected arguments whose ``str(value)`` matches.
- review: multiple choice, the letter after the first ``:``.

Deliberate differences from T-Eval's code, each on answers no perfect answer gives:
- plan: a prediction none of whose steps matches scores 0; T-Eval counts one step as correct
  whenever the prediction has a step (its LIS starts every step at 1), and raises on a plan of
  ``FinishAction`` alone.
- json understand: all arguments right is exactly 1.0; T-Eval divides by ``len(args) + 1e-5``
  (0.99999...).
- similarity: T-Eval loads ``all-mpnet-base-v2`` from the Hub; here it is the model below or a
  lexical cosine, so plan matching and reason (thought) scores follow that model.

Similarity is ``synth.evaluate.similarity``; the answers that check an evaluator (the ground truth as an
answer, wrong answers) are in ``synth.evaluate.teval_answers``.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache
from typing import Any

from synth.evaluate.similarity import similarity, similarity_backend

FINISH = "FinishAction"
_API = re.compile(r"\w+\.\w+")  # T-Eval's "a.b structure"


# --- T-Eval's parsing ----------------------------------------------------------------------------


def format_load(raw: Any, start: str = "", end: str = "") -> Any:
    """T-Eval's ``teval.utils.format_load``: a non-string as it is; else the text after a ```json fence,
    cut from the first ``start`` to the last ``end``, read as a Python literal, else JSON, else JSON
    with every ``'`` made ``"``. Raises ValueError when none reads."""
    if not isinstance(raw, str):
        return raw
    if "```json" in raw:
        raw = raw[raw.find("```json") + len("```json") :].strip("`")
    if start:
        raw = raw[raw.find(start) :]
    if end:
        raw = raw[: raw.rfind(end) + len(end)]
    for read in (ast.literal_eval, json.loads, lambda t: json.loads(t.replace("'", '"'))):
        try:
            return read(raw)
        except Exception:  # noqa: BLE001 - T-Eval tries each reader and swallows every error
            continue
    raise ValueError("cannot parse raw data")


def parse_template(template: dict[str, str], text: str) -> dict[str, str] | None:
    """T-Eval's ``parse_string`` on its instruct template: ``{start}(.*){end}`` for thought, action and
    args, the template text used as a regular expression, ``.`` matching newlines, first match."""
    pattern = "".join(template[f"{k}_start"] + "(.*)" + template[f"{k}_end"] for k in ("thought", "action", "args"))
    found = re.findall(pattern, text, re.S)
    return dict(zip(("thought", "action", "args"), found[0])) if found else None


# --- instruct ------------------------------------------------------------------------------------


def _template(fmt: str) -> dict[str, str]:
    from synth.export.teval import JSON_TEMPLATE, STR_TEMPLATE

    return JSON_TEMPLATE if fmt == "json" else STR_TEMPLATE


def parse_instruct(
    prediction: str, fmt: str, template: dict[str, str] | None = None
) -> tuple[str, dict[str, Any]] | None:
    """(name, args) as T-Eval's InstructEvaluator reads them, or None when the answer does not parse.

    json: the answer through ``format_load`` must hold the template's goal, name and args keys (args
    that are not an object count as ``{}``). str: the ``goal:``/``name:``/``args:`` lines; args that
    ``ast.literal_eval`` cannot read, or that are not a dict, count as ``{}``."""
    template = template or _template(fmt)
    if fmt == "json":
        try:
            data = format_load(prediction)
            data[template["thought"]]
            name, args = data[template["action"]], data[template["args"]]
        except Exception:  # noqa: BLE001 - any failure is "does not parse" in T-Eval
            return None
        return name, args if isinstance(args, dict) else {}
    found = parse_template(template, prediction)
    if found is None:
        return None
    try:
        args = ast.literal_eval(found["args"].strip())
    except Exception:  # noqa: BLE001
        args = {}
    return found["action"].strip(), args if isinstance(args, dict) else {}


def instruct(
    prediction: str, truth: dict[str, Any], fmt: str, template: dict[str, str] | None = None
) -> dict[str, float]:
    parsed = parse_instruct(prediction, fmt, template)
    if parsed is None:
        return {"format": 0.0, "args_em": 0.0}
    name, args = parsed
    gt = truth["args"]
    hits = (name == truth["action"]) + sum(1 for k, v in gt.items() if args.get(k, "") == v)
    return {"format": 1.0, "args_em": hits / (len(gt) + 1)}


# --- plan ----------------------------------------------------------------------------------------


def _max_weight_matching(weights: list[list[float]]) -> dict[int, int]:
    """pred index -> gt index maximising the total weight (edges with weight 0 are absent).

    Exact by dynamic programming over sets of matched expected steps; plans are short. Among
    matchings of equal weight the one that keeps the predicted order is preferred.
    """
    n_gt = len(weights[0]) if weights else 0
    if n_gt > 16:  # beyond that, greedy by weight: T-Eval's plans are far shorter
        out: dict[int, int] = {}
        for w, i, j in sorted(
            ((weights[i][j], -i, -j) for i in range(len(weights)) for j in range(n_gt)), reverse=True
        ):
            if w > 0 and -i not in out and -j not in out.values():
                out[-i] = -j
        return out

    @cache
    def best(i: int, used: int) -> tuple[float, tuple[tuple[int, int], ...]]:
        if i == len(weights):
            return 0.0, ()
        top = best(i + 1, used)
        for j in range(n_gt):
            if weights[i][j] > 0 and not used & (1 << j):
                value, pairs = best(i + 1, used | (1 << j))
                if value + weights[i][j] > top[0] + 1e-9:
                    top = (value + weights[i][j], ((i, j), *pairs))
        return top

    return dict(best(0, 0)[1])


def _lis(seq: list[int]) -> int:
    tails: list[int] = []
    for x in seq:
        lo, hi = 0, len(tails)
        while lo < hi:
            mid = (lo + hi) // 2
            if tails[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        tails[lo : lo + 1] = [x]
    return len(tails)


def plan_steps(data: Any) -> list[dict[str, Any]]:
    """A plan as T-Eval's PlanningEvaluator.format_load reads one: a list (text is cut from the first
    ``[`` to the last ``]``) of steps ``{"name": str, "id": int, "args": str(args)}``; [] if any fails."""
    try:
        steps = format_load(data, "[", "]")
        if not isinstance(steps, list):
            return []
        return [{"name": str(s["name"]), "id": int(s["id"]), "args": str(s["args"])} for s in steps]
    except Exception:  # noqa: BLE001
        return []


def plan(prediction: list[dict[str, Any]], truth: list[dict[str, Any]], threshold: float = 0.8) -> dict[str, float]:
    """Precision, recall and F1 of a predicted plan (a list of ``{"name", "args"}``, ``id`` optional)."""

    def ordered(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:  # by id (T-Eval's order), else as given
        steps = [s for _, s in sorted(enumerate(steps), key=lambda p: int(p[1].get("id", p[0])))]
        return steps[:-1] if steps and steps[-1].get("name") == FINISH else steps

    pred, gt = ordered(prediction), ordered(truth)
    if not pred or not gt:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    weights = []
    for p in pred:
        row = []
        for g in gt:
            sim = 0.75 * similarity(str(p.get("name", "")), str(g.get("name", ""))) + 0.25 * similarity(
                str(p.get("args", "")), str(g.get("args", ""))
            )
            row.append(sim if sim > threshold else 0.0)
        weights.append(row)
    matched = _max_weight_matching(weights)
    correct = _lis([matched[i] for i in range(len(pred)) if i in matched])
    precision, recall = correct / len(pred), correct / len(gt)
    f1 = 0.0 if correct == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f1": f1}


def parse_plan(prediction: str, fmt: str, api_names: list[str]) -> list[dict[str, Any]]:
    """The predicted steps as T-Eval reads them; [] when nothing parses.

    json: ``plan_steps``. str: the answer cut at newlines and at every ``". "``; a piece is a step
    when it holds a name of ``api_names``: the one found earliest in it (on a tie the first in the
    list), the whole piece being its args.
    """
    if fmt == "json":
        return plan_steps(prediction)
    steps = []  # type: ignore[var-annotated]
    for piece in prediction.replace(". ", "\n").split("\n"):
        found = [(piece.find(a), i, a) for i, a in enumerate(api_names) if a in piece]
        if found:
            steps.append({"id": len(steps), "name": min(found)[2], "args": piece})
    return steps


# --- reason, retrieve, understand ------------------------------------------------------------------


def reason(thought: str, truth: dict[str, Any]) -> float:
    return similarity(thought, str(truth["thought"]))


def retrieve(prediction: str, truth: dict[str, Any], fmt: str) -> float:
    """json: the name is the expected one. str: the expected name appears, and every ``a.b`` and
    every ``FinishAction`` in the answer is the expected name (T-Eval's rule)."""
    name = str(truth["name"])
    if fmt == "json":
        return float(prediction == name)
    if name not in prediction:
        return 0.0
    return float(all(found == name for found in _API.findall(prediction) + re.findall(FINISH, prediction)))


def understand(prediction: dict[str, Any] | str, truth: dict[str, Any], fmt: str) -> float:
    gt = truth["args"]
    if fmt == "str":  # T-Eval: the answer, its outer quotes stripped, is str() of the expected dict
        return float(str(prediction).strip("'").strip('"') == str(gt))
    if not isinstance(prediction, dict):
        return 0.0
    if not gt:
        return 1.0 if not prediction else 0.0
    # T-Eval divides by len + 1e-5 only to survive len == 0, handled above; so all matching is exactly 1.0
    return sum(1 for k, v in gt.items() if k in prediction and str(prediction[k]) == str(v)) / len(gt)


def parse_rru(prediction: str) -> dict[str, Any] | None:
    """A reason/retrieve/understand json answer as T-Eval reads it: an object (cut from the first
    ``{`` to the last ``}``); thought and name as text ("" when missing), args ({} unless an object)."""
    try:
        data = format_load(prediction, "{", "}")
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    args = data.get("args")
    return {
        "thought": str(data.get("thought", "")),
        "name": str(data.get("name", "")),
        "args": args if isinstance(args, dict) else {},
    }


# --- review --------------------------------------------------------------------------------------


def review(prediction: str, truth: dict[str, Any]) -> float:
    answer = prediction[prediction.find(":") + 1 :].strip()
    return float(bool(answer) and answer[0] in "ABCDE" and answer[0] == truth["answer"])


# --- a subset ------------------------------------------------------------------------------------


def subset_kind(name: str) -> tuple[str, str]:
    subset, _, fmt = name.rpartition("_")
    if subset not in ("instruct", "plan", "review", "reason", "retrieve", "understand", "reason_retrieve_understand"):
        raise ValueError(f"unknown T-Eval subset {name!r}")
    return subset, fmt


def item_metrics(name: str, record: dict[str, Any], answer: str) -> dict[str, float]:
    """One answer's metrics under T-Eval's names (``name`` is the file's stem, e.g. ``plan_json``)."""
    subset, fmt = subset_kind(name)
    truth = record["ground_truth"]
    if subset == "instruct":
        m = instruct(answer, truth, fmt, record.get("template"))
        prefix = "json" if fmt == "json" else "string"
        return {f"{prefix}_format_metric": m["format"], f"{prefix}_args_em_metric": m["args_em"]}
    if subset == "plan":
        meta = record.get("meta") or record.get("meta_data") or {}
        steps = parse_plan(answer, meta.get("prompt_type", fmt), meta.get("API_list", []))
        gt = plan_steps(truth)
        m = plan(steps, gt)
        return {
            "precision": m["precision"],
            "recall": m["recall"],
            "f1_score": m["f1"],
            "parse_rate": float(bool(steps) and bool(gt)),
        }
    if subset == "review":
        letter = answer[answer.find(":") + 1 :].strip()[:1]
        return {"parse_rate": float(letter in tuple("ABCDE") and letter != ""), "review_quality": review(answer, truth)}
    if subset == "reason_retrieve_understand":
        data = parse_rru(answer)
        if data is None:
            return {"thought": 0.0, "name": 0.0, "args": 0.0, "parse_rate": 0.0}
        return {
            "thought": reason(data["thought"], truth),
            "name": retrieve(data["name"], truth, "json"),
            "args": understand(data["args"], truth, "json"),
            "parse_rate": 1.0,
        }
    ability = record.get("meta_data", {}).get("ability", subset)
    if ability == "reason":
        return {"thought": reason(answer, truth), "parse_rate": 1.0}
    if ability == "retrieve":
        return {"name": retrieve(answer, truth, "str"), "parse_rate": 1.0}
    return {"args": understand(answer, truth, "str"), "parse_rate": 1.0}


def _score(subset: str, m: dict[str, float]) -> float:
    """The one number of an item: the instruct mean of format and args, the plan F1, the mean of the
    three abilities for reason_retrieve_understand, else the ability's own metric."""
    if subset == "instruct":
        return sum(m.values()) / 2
    if subset == "plan":
        return m["f1_score"]
    if subset == "review":
        return m["review_quality"]
    if subset == "reason_retrieve_understand":
        return (m["thought"] + m["name"] + m["args"]) / 3
    return next(v for k, v in m.items() if k != "parse_rate")


def score_subset(name: str, records: dict[str, dict[str, Any]], predictions: dict[str, str]) -> dict[str, Any]:
    """A subset's metrics over its records (``name`` is the file's stem, e.g. ``plan_json``).

    ``predictions`` maps sample id to the model's raw answer; a missing answer scores 0. ``metrics``
    holds the means under T-Eval's metric names.
    """
    subset, _ = subset_kind(name)
    per_item = [item_metrics(name, record, predictions.get(key, "")) for key, record in records.items()]
    n = len(per_item)
    keys = list(dict.fromkeys(k for m in per_item for k in m))
    metrics = {k: round(sum(m.get(k, 0.0) for m in per_item) / n, 4) for k in keys} if n else {}
    scores = [_score(subset, m) for m in per_item]
    parsed = [m.get("parse_rate", m.get("json_format_metric", m.get("string_format_metric", 0.0))) for m in per_item]
    return {
        "subset": name,
        "items": n,
        "score": round(sum(scores) / n, 4) if n else 0.0,
        "parse_rate": round(sum(parsed) / n, 4)
        if n and subset not in ("review", "reason", "retrieve", "understand")
        else None,
        "metrics": metrics,
        "similarity": similarity_backend(),
    }
