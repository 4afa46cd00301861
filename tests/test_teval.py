"""T-Eval subsets of a real run, and T-Eval's metrics pinned on hand-made cases (values worked out by hand
from the definitions in the T-Eval paper and code)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.config import Settings
from synth.evaluate import teval
from synth.export.review_responses import is_error_json
from synth.export.teval import FILES
from synth.pipeline import generate

ROOT = Path(__file__).parents[1]
F, S, A, X = "Weather.get_forecast", "Weather.search_locations", "Weather.get_air_quality", "Weather.get_alerts"
GT = [{"id": 0, "name": S, "args": "{'query': 'Porto'}"}, {"id": 1, "name": F, "args": "{'city': 'Porto', 'days': 4}"},
      {"id": 2, "name": A, "args": "{'city': 'Porto'}"}, {"id": 3, "name": "FinishAction", "args": {}}]


def steps(*names: str) -> list[dict]:
    by_name = {s["name"]: s for s in GT}
    return [by_name.get(n, {"name": n, "args": "{}"}) for n in names] + [{"name": "FinishAction", "args": {}}]


@pytest.mark.parametrize("prediction, precision, recall, f1", [
    (steps(S, F, A), 1.0, 1.0, 1.0),
    (steps(S, A, F), 2 / 3, 2 / 3, 2 / 3),  # two steps swapped: the longest increasing run is 2 of 3
    (steps(S, A), 1.0, 2 / 3, 0.8),  # a step missing: 2 correct of 2 predicted, of 3 expected
    (steps(S, X, F, A), 3 / 4, 1.0, 6 / 7),  # an extra step: 3 correct of 4 predicted
    (steps(A, F, S), 1 / 3, 1 / 3, 1 / 3),  # reversed: the longest increasing run is 1
    ([{"name": "FinishAction", "args": {}}], 0.0, 0.0, 0.0),
])
def test_plan_metric_by_hand(prediction, precision, recall, f1):
    got = teval.plan(prediction, GT)
    assert got == pytest.approx({"precision": precision, "recall": recall, "f1": f1})


def test_instruct_understand_retrieve_review_by_hand():
    truth = {"action": F, "args": {"city": "Porto", "days": 4}}
    assert teval.instruct('{"goal": "x", "name": "Weather.get_forecast", "args": {"city": "Porto", "days": 5}}', truth, "json") \
        == {"format": 1.0, "args_em": 2 / 3}  # (name + city) of (2 args + 1)
    assert teval.instruct("goal: see the weather\nname: Weather.get_forecast\nargs: {\"city\": \"Porto\", \"days\": 4}\n",
                          truth, "str") == {"format": 1.0, "args_em": 1.0}
    assert teval.instruct("I would call the forecast", truth, "str") == {"format": 0.0, "args_em": 0.0}
    gt = {"thought": "t", "name": F, "args": {"a": 1, "b": "x", "c": True}}
    assert teval.understand({"a": 1, "b": "y"}, gt, "json") == pytest.approx(1 / 3)
    assert teval.understand({}, {"args": {}}, "json") == 1.0 and teval.understand({"a": 1}, {"args": {}}, "json") == 0.0
    assert teval.retrieve("I will call Weather.get_forecast now", gt, "str") == 1.0
    assert teval.retrieve("Weather.get_forecast, then Weather.get_alerts", gt, "str") == 0.0
    assert teval.retrieve("Weather.get_forecast", gt, "json") == 1.0
    assert teval.review("Answer: C", {"answer": "C"}) == 1.0 and teval.review("Answer: B", {"answer": "C"}) == 0.0
    assert teval.reason("I need to look up the forecast", {"thought": "I need to look up the forecast"}) == pytest.approx(1.0)
    assert 0 < teval.reason("look up the weather", {"thought": "I need to look up the forecast"}) < 1
    assert teval.similarity_backend()


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("teval") / "run"
    generate(Settings(servers=ROOT / "registry", out=out, n=200, seed=11))
    return out


def load(run: Path, name: str) -> dict:
    return json.loads((run / "teval" / f"{name}.json").read_text(encoding="utf-8"))


def test_every_subset_in_both_formats_with_gold_scoring_one(run):
    manifest = json.loads((run / "manifest.json").read_text())
    assert set(manifest["teval"]) == set(FILES) and all(manifest["teval"][f] > 0 for f in FILES)
    test_convs = {json.loads(x)["id"] for x in (run / "conversations.jsonl").read_text().splitlines()
                  if json.loads(x)["split"] == "test"}
    for fmt in ("json", "str"):
        for key, r in load(run, f"instruct_{fmt}").items():
            assert key.split(":")[0] in test_convs  # nothing from the train or valid split
            gt = r["ground_truth"]
            answer = (json.dumps({"goal": "g", "name": gt["action"], "args": gt["args"]}) if fmt == "json"
                      else f"goal: g\nname: {gt['action']}\nargs: {json.dumps(gt['args'])}\n")
            assert teval.instruct(answer, gt, fmt) == {"format": 1.0, "args_em": 1.0}
        for r in load(run, f"plan_{fmt}").values():
            assert r["ground_truth"][-1]["name"] == "FinishAction"
            assert teval.plan(r["ground_truth"], r["ground_truth"])["f1"] == 1.0
    for r in load(run, "reason_retrieve_understand_json").values():
        gt = r["ground_truth"]
        assert teval.reason(gt["thought"], gt) == pytest.approx(1.0)
        assert teval.retrieve(gt["name"], gt, "json") == 1.0 and teval.understand(gt["args"], gt, "json") == 1.0
        assert teval.retrieve(f"I call {gt['name']}", gt, "str") == 1.0
    review = load(run, "review_str")
    answers = {r["ground_truth"]["answer"] for r in review.values()}
    assert answers == {"A", "B", "C", "D", "E"}  # every outcome T-Eval's review asks about
    assert all(teval.review(f"Answer: {r['ground_truth']['answer']}", r["ground_truth"]) == 1.0 for r in review.values())


def test_grade_teval_from_the_command_line(run, tmp_path):
    import subprocess
    import sys

    plan = load(run, "plan_json")
    keys = sorted(plan)
    preds = [{"id": k, "prediction": json.dumps(plan[k]["ground_truth"])} for k in keys[:-1]]  # the last one unanswered
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    done = subprocess.run([sys.executable, "-m", "synth.cli", "grade", "--teval", str(run / "teval" / "plan_json.json"),
                           "--predictions", str(tmp_path / "p.jsonl")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["items"] == len(keys) and report["score"] == round((len(keys) - 1) / len(keys), 4)


def _response(record: dict) -> str:
    return record["origin_prompt"][-1]["content"].split("got this response:\n", 1)[1].rsplit("\nWhich describes it?", 1)[0]


def test_review_answers_are_not_given_away_by_error_json(run):
    """The best guess from "is the response error JSON" alone (the commonest answer for each
    value of the feature, or success/failure) is right at most 70% of the time."""
    by_feature: dict[bool, dict[str, int]] = {True: {}, False: {}}
    review = load(run, "review_str")
    for r in review.values():
        counts = by_feature[is_error_json(_response(r))]
        counts[r["ground_truth"]["answer"]] = counts.get(r["ground_truth"]["answer"], 0) + 1
    n = len(review)
    majority = sum(max(c.values(), default=0) for c in by_feature.values()) / n
    success_or_not = (by_feature[False].get("A", 0) + sum(v for k, v in by_feature[True].items() if k != "A")) / n
    assert n > 40 and majority <= 0.7 and success_or_not <= 0.7, (majority, success_or_not, by_feature)
    other_tool = [r for r in review.values() if r["ground_truth"]["answer"] == "D"]
    for r in other_tool:  # irrelevant: a real result of another tool of the same server
        called = r["origin_prompt"][-1]["content"].split("\n", 1)[0].removeprefix("The call name: ")
        assert not is_error_json(_response(r)) and called.count(".") == 1
