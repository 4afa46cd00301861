"""T-Eval's own evaluators on a fresh run's teval/ files: a perfect and a wrong answer per item, the
scores T-Eval gives them, synth's scores, and how often the two agree item by item. Prints JSON.

    pip install mmengine-lite networkx termcolor tqdm      # what T-Eval's evaluators import
    python benchmarks/teval_agreement.py --teval-src PATH [--run DIR | --n 200 --seed 11] [--real-model]

PATH is a checkout of open-compass/T-Eval (the folder holding ``teval/``), or the fetched source of
``teval/evaluators/*.py``, ``teval/utils/{format_load,template}.py`` and ``teval/schema.py`` laid
out the same way. Nothing of it is kept in this repository. The evaluators are run as T-Eval's
``test.py`` runs them (``Evaluator(path, default_prompt_type=..., eval_type=...)``, the prompt
types of ``test_all_en.sh``), on a copy of each subset with a ``prediction`` per item; per-item
scores come from the same evaluator objects (``_evaluate``, or ``_post_process`` of one item for
ReasonRetrieveUnderstandEvaluator) and their mean is checked against ``evaluate()``.

Similarity: T-Eval's planning and reason/retrieve/understand evaluators build
``SentenceTransformer("all-mpnet-base-v2")``, which cannot be downloaded here. Unless
``--real-model`` is given, a stand-in ``sentence_transformers`` module is installed first: a
lexical cosine over word counts (the tokens of synth's own lexical similarity). It affects the
plan metrics (step matching) and reason's ``thought`` (str and json); every other metric is the
evaluators' exact-match logic. ``evaluate`` (Hugging Face), imported but unused by the RRU
evaluator, is stubbed when missing.

Differences that are explained, not counted as disagreement (see synth/evaluate/teval.py):
- plan: T-Eval counts one step as correct when none matches (its LIS starts each step at 1), and
  raises on a plan of FinishAction alone; synth gives 0.
- json args: T-Eval divides by ``len(args) + 1e-5``; values within 1e-4 agree.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# file stem -> (evaluator class, --prompt_type, --eval), as in T-Eval's test_all_en.sh
RUNS = {
    "instruct_json": ("InstructEvaluator", "json", "instruct"),
    "instruct_str": ("InstructEvaluator", "json", "instruct"),
    "plan_json": ("PlanningEvaluator", "json", "plan"),
    "plan_str": ("PlanningEvaluator", "str", "plan"),
    "reason_str": ("ReasonRetrieveUnderstandEvaluator", "str", "reason"),
    "retrieve_str": ("ReasonRetrieveUnderstandEvaluator", "str", "retrieve"),
    "understand_str": ("ReasonRetrieveUnderstandEvaluator", "str", "understand"),
    "reason_retrieve_understand_json": ("ReasonRetrieveUnderstandEvaluator", "json", "rru"),
    "review_str": ("ReviewEvaluator", "str", "review"),
}
TOLERANCE = 1e-4


def install_stand_ins(real_model: bool) -> str:
    """Modules T-Eval imports that cannot be used here; returns the similarity used."""
    try:
        import evaluate  # noqa: F401
    except ImportError:
        sys.modules["evaluate"] = types.ModuleType("evaluate")
    if real_model:
        return "sentence-transformers all-mpnet-base-v2"
    import numpy as np

    from synth.evaluate.similarity import tokens as _tokens

    class Emb:
        def __init__(self, rows: list):
            self.rows = rows

        def __getitem__(self, i: int) -> Emb:
            return Emb([self.rows[i]])

    class Mat:
        def __init__(self, a: np.ndarray):
            self.a = a

        def cpu(self) -> Mat:
            return self

        def numpy(self) -> np.ndarray:
            return self.a

    class SentenceTransformer:
        def __init__(self, *args: Any, **kwargs: Any):
            pass

        def encode(self, texts: Any, **kwargs: Any) -> Emb:
            return Emb([_tokens(t) for t in texts]) if isinstance(texts, list) else Emb([_tokens(texts)])

    def cos_sim(a: Emb, b: Emb) -> Mat:
        out = np.zeros((len(a.rows), len(b.rows)))
        for i, x in enumerate(a.rows):
            for j, y in enumerate(b.rows):
                vocab = sorted(set(x) | set(y))
                u, v = np.array([x[w] for w in vocab], float), np.array([y[w] for w in vocab], float)
                nu, nv = np.linalg.norm(u), np.linalg.norm(v)
                out[i, j] = (1.0 if not x and not y else 0.0) if nu == 0 or nv == 0 else float(u @ v) / (nu * nv)
        return Mat(out)

    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = SentenceTransformer
    module.util = types.SimpleNamespace(cos_sim=cos_sim)
    sys.modules["sentence_transformers"] = module
    return "stand-in: lexical cosine of word counts"


def teval_items(
    evaluator_cls: type, stem: str, data: dict[str, Any], tmp: Path
) -> tuple[list[dict[str, float]], dict[str, Any]]:
    """T-Eval's per-item metrics and its evaluate() result for one subset with predictions."""
    _, prompt_type, eval_type = RUNS[stem]
    path = tmp / f"{stem}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    evaluator = evaluator_cls(str(path), default_prompt_type=prompt_type, eval_type=eval_type)
    per_item = []
    try:
        evaluator._load_dataset()
    except Exception as exc:  # noqa: BLE001 - a subset T-Eval cannot load at all
        error = {"error": f"does not load: {type(exc).__name__}: {exc}"}
        return [error] * len(data), error
    for d in evaluator.dataset:
        sample = d["response_data_sample"]
        try:
            if eval_type in ("reason", "retrieve", "understand", "rru"):
                m = evaluator._post_process([sample])
            else:
                m = evaluator._evaluate(sample)
            per_item.append({k: float(v) for k, v in m.items()})
        except Exception as exc:  # noqa: BLE001 - T-Eval raises on some answers (plan: FinishAction alone)
            per_item.append({"error": f"{type(exc).__name__}: {exc}"})
    try:
        whole = {
            k: float(v)
            for k, v in evaluator_cls(str(path), default_prompt_type=prompt_type, eval_type=eval_type)
            .evaluate()
            .items()
        }
    except Exception as exc:  # noqa: BLE001
        whole = {"error": f"{type(exc).__name__}: {exc}"}
    return per_item, whole


def compare(run: Path, teval_src: Path, real_model: bool) -> dict[str, Any]:
    backend = install_stand_ins(real_model)
    sys.path.insert(0, str(teval_src))
    import contextlib
    import io

    import teval.evaluators as factory  # type: ignore[import-not-found]

    from synth.evaluate import teval as ours
    from synth.evaluate import teval_answers as ours_answers
    from synth.rundir import read_json

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for stem in RUNS:
            records = read_json(run / "teval" / f"{stem}.json", "T-Eval subset")  # plain or stored .gz
            answers = {
                "perfect": {k: ours_answers.reference_answer(stem, r) for k, r in records.items()},
                "wrong": {k: ours_answers.wrong_answer(stem, r, k) for k, r in records.items()},
            }
            got: dict[str, Any] = {}
            for which, preds in answers.items():
                data = {k: {**r, "prediction": preds[k]} for k, r in records.items()}
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    items, whole = teval_items(getattr(factory, RUNS[stem][0]), stem, data, Path(tmp))
                mine = [ours.item_metrics(stem, r, preds[k]) for k, r in records.items()]
                got[which] = (items, whole, mine, list(records))
            metrics = [k for k in got["perfect"][2][0]]
            for metric in metrics:
                row: dict[str, Any] = {"subset": stem, "metric": metric, "items": len(records)}
                agree = explained = 0
                differ = []
                for which, (items, whole, mine, keys) in got.items():
                    t_vals = [m.get(metric) for m in items]
                    s_vals = [m[metric] for m in mine]
                    ok_t = [v for v in t_vals if isinstance(v, float) and not math.isnan(v)]
                    row[f"teval_{which}"] = round(sum(ok_t) / len(ok_t), 4) if ok_t else None
                    row[f"teval_{which}_evaluate"] = (
                        round(whole[metric], 4) if isinstance(whole.get(metric), float) else whole.get("error")
                    )
                    row[f"synth_{which}"] = round(sum(s_vals) / len(s_vals), 4)
                    row[f"teval_{which}_errors"] = sum("error" in m for m in items)
                    for key, t, s, item in zip(keys, t_vals, s_vals, items):
                        if t is not None and abs(t - s) <= TOLERANCE:
                            agree += 1
                        elif stem.startswith("plan") and s == 0 and ("error" in item or t is not None):
                            explained += 1  # T-Eval's one-step floor, or its error on FinishAction alone
                        else:
                            differ.append({"id": key, "answer": which, "teval": t, "synth": s})
                row["agreement"] = f"{agree}/{2 * len(records)}"
                row["explained_differences"] = explained
                row["unexplained"] = differ[:5]
                rows.append(row)
    return {"run": str(run), "similarity": backend, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teval-src", type=Path, required=True, help="folder holding T-Eval's teval/ package")
    parser.add_argument("--run", type=Path, help="an existing run folder (default: a fresh synth generate)")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--real-model", action="store_true", help="use sentence-transformers and its model as T-Eval does"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.run is None:
        from synth.config import Settings
        from synth.pipeline import generate

        tmp = Path(tempfile.mkdtemp(prefix="teval-agreement-"))
        args.run = tmp / "run"
        generate(Settings(servers=ROOT / "registry", out=args.run, n=args.n, seed=args.seed))
    print(json.dumps(compare(args.run, args.teval_src, args.real_model), indent=1))


if __name__ == "__main__":
    main()
