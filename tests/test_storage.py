"""The run folder's storage (issue 18): gzip, and tool lists stored once and referenced from rows;
since issue 31 train/valid/eval are kept plain and ready by default (``--storage ready``), every file
compact with ``--storage compact``. What synth publishes (``synth export --format jsonl``, the parquet of
``synth export``/``synth push``) is byte for byte what synth wrote before the storage changed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli import app
from synth.config import Settings
from synth.errors import ConfigError
from synth.export.hf import configs, write_parquet
from synth.pipeline import generate
from synth.rundir import GZ, TOOLS, ToolTable, read_json, read_jsonl, stored

runner = CliRunner()

# sha256 of each public file of the tiny registry's run (n=80, seed=3), first written by synth at d785a5e,
# before the storage changed (plain JSONL, every tool list in every row); taken again when GENERATOR_VERSION
# became 4 (the pack author's fixes and the plain fallback's data changed on purpose), when eval and scored rows
# gained "author" (issue 26), at 5 (issue 29: the reader gates) and at 6 (issue 31: splits by each conversation's
# place, so the same rows fall in other splits; conversations.jsonl exported too) - the plain code path below
# still writes the same bytes
# taken again at GENERATOR_VERSION 7 (issue 29: negatives from the context, T-Eval review wording, eval items'
# metadata.parallel_calls)
BEFORE = {
    "conversations.jsonl": "cbe3aa92449b0c0056c48d33c232d73558cbed8da8239d10a59d4bcd975aab45",
    "eval.jsonl": "c2ead0e36aba388185d460092cdf220cfa327b45ce133091e20989d8fcc64b25",
    "scored.jsonl": "029e570aa4a379729edb1569bef56eebdee4490f9efbfc12c6e2a6a284c4a4ec",
    "scored_decisions.jsonl": "208bbbcab7c02f56f4707d36e1ad216bf5b5a9ef5322c27f8c4213fff83a1ade",
    "teval/instruct_json.json": "0e210272121929edc1d57e183fb71d1512ee367058c3a0031415c8265cd50f05",
    "teval/instruct_str.json": "ece9a8588769d35754eb515276725e57f52fffd79d5b029924793a216b0db003",
    "teval/plan_json.json": "38fc61b7a5834b6a8b1e747460f26d973e5e9b92b2a593872bdb069f8fa56d8d",
    "teval/plan_str.json": "f8a21a539c2550bebe0352f6f446b64c7755fab144567dd75ed3f2b682ba0a7c",
    "teval/reason_retrieve_understand_json.json": "b37b645852f7f32e197a96a7a179f28db93ec6e26687e3425457fb28c4c74bb8",
    "teval/reason_str.json": "25983efb3436d16af10a6046383e903d8df5f9783c57ee2945357eceb36a3b74",
    "teval/retrieve_str.json": "bce322656f124e88eab3f8bc036031dd103a02a55ea7dfb5354717c5a481850a",
    "teval/review_str.json": "8372c5b54025745993f26bcaed92a5572a345067d4b9efee2773c4d1bc879399",
    "teval/understand_str.json": "9dd0c1ffdc0b8a10b4413a6186a42623a8f4f2b9d0130a3b11fe4fcfab393117",
    "train.jsonl": "8722f23eb3f3d4db370b941de53078dbd6ae5b92f48318ca1a5790162ab243b5",
    "valid.jsonl": "e2757c4eb276137321b4c021c0fb399625fb2b36588fd75e83e856e030552166",
}


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def on_disk(folder: Path) -> int:
    return sum(len(b) for b in files(folder).values())


@pytest.fixture(scope="module")
def runs(tiny_registry, tmp_path_factory) -> tuple[Path, Path]:
    """The same run stored compactly (--storage compact) and plain (the code path synth had before)."""
    root = tmp_path_factory.mktemp("storage")
    for storage in ("compact", "plain"):
        generate(Settings(servers=tiny_registry, out=root / storage, n=80, seed=3, storage=storage))
    return root / "compact", root / "plain"


def test_the_default_run_keeps_train_valid_eval_plain_and_the_bulky_files_compact(runs, tiny_registry, tmp_path):
    compact, plain = runs
    generate(Settings(servers=tiny_registry, out=tmp_path / "ready", n=80, seed=3))
    ready = tmp_path / "ready"
    for name in ("train.jsonl", "valid.jsonl", "eval.jsonl"):  # uploaded as they are: the public bytes
        assert (ready / name).read_bytes() == (plain / name).read_bytes(), name
        assert not (ready / (name + GZ)).exists()
    for name in ("scored.jsonl", "conversations.jsonl", "teval/plan_json.json"):
        assert stored(ready / name).read_bytes() == stored(compact / name).read_bytes(), name
    assert stored(ready / "scored.jsonl").name == "scored.jsonl.gz"
    assert (ready / (TOOLS + GZ)).is_file() and on_disk(ready) * 2 < on_disk(plain)
    for name in ("train.jsonl", "valid.jsonl", "eval.jsonl"):  # --storage compact: as issue 18 stored them
        assert stored(compact / name).name == name + GZ


def test_export_jsonl_gives_the_public_files_byte_for_byte(runs, tmp_path):
    compact, plain = runs
    assert stored(compact / "scored.jsonl").name == "scored.jsonl.gz" and (compact / (TOOLS + GZ)).is_file()
    assert (plain / "scored.jsonl").is_file() and not (plain / (TOOLS + GZ)).exists()
    result = runner.invoke(app, ["export", str(compact), "--format", "jsonl", "--out", str(tmp_path / "pub")])
    assert result.exit_code == 0, result.output
    published = files(tmp_path / "pub")
    assert {name: hashlib.sha256(data).hexdigest() for name, data in published.items()} == BEFORE
    for name, data in published.items():  # and what the plain code path writes today
        assert data == (plain / name).read_bytes(), name


def test_rows_in_the_run_refer_to_tool_lists_stored_once(runs):
    compact, _ = runs
    import gzip

    raw = [json.loads(x) for x in gzip.decompress(stored(compact / "scored.jsonl").read_bytes()).splitlines()]
    assert all(isinstance(r["available_tools"], str) and r["available_tools"].startswith("tools:") for r in raw)
    public = list(read_jsonl(compact / "scored.jsonl"))
    assert all(isinstance(r["available_tools"], list) and r["available_tools"] for r in public)
    entries = list(read_jsonl(compact / TOOLS))
    assert len({e["id"] for e in entries}) == len(entries)  # each tool and each list once


def test_parquet_of_a_compact_run_is_the_parquet_of_the_plain_files(runs, tmp_path):
    compact, plain = runs
    assert [c.name for c in configs(compact)] == [c.name for c in configs(plain)]
    write_parquet(compact, tmp_path / "a")
    write_parquet(plain, tmp_path / "b")
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a.keys() == b.keys() and a == b


def test_the_compact_run_is_a_fraction_of_the_plain_one(runs):
    compact, plain = runs
    assert on_disk(compact) * 4 < on_disk(plain), (on_disk(compact), on_disk(plain))


def test_same_seed_same_stored_bytes(tiny_registry, tmp_path):
    for name in ("a", "b"):
        generate(Settings(servers=tiny_registry, out=tmp_path / name, n=30, seed=4))
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a.keys() == b.keys() and all(a[k] == b[k] for k in a if not k.startswith("."))


def test_outputs_left_out_are_not_written_and_readers_cope(tiny_registry, tmp_path):
    out = tmp_path / "run"
    run = ["generate", "--servers", str(tiny_registry), "--out", str(out), "-n", "40", "--seed", "3"]
    result = runner.invoke(app, [*run, "--outputs", "train,valid,eval"])
    assert result.exit_code == 0, result.output
    assert not stored(out / "scored.jsonl").exists() and not (out / "teval").exists()
    manifest = read_json(out / "manifest.json")
    assert manifest["config"]["outputs"] == ["train", "valid", "eval"] and "scored.jsonl" not in manifest["files"]
    assert {c.name for c in configs(out)} == {"chat", "eval"}
    assert runner.invoke(app, ["export", str(out), "--format", "jsonl", "--out", str(tmp_path / "pub")]).exit_code == 0
    published = sorted(p.name for p in (tmp_path / "pub").iterdir())
    assert published == ["conversations.jsonl", "eval.jsonl", "train.jsonl", "valid.jsonl"]
    bad = runner.invoke(
        app, ["generate", "--servers", str(tiny_registry), "--out", str(tmp_path / "x"), "--outputs", "chat"]
    )
    assert bad.exit_code == 2 and "train,valid,eval,scored,decisions,teval,tasks" in bad.output


def test_a_tool_list_comes_back_in_its_own_spelling():
    table = ToolTable()
    tools = [{"name": "b", "description": "é ✓", "input_schema": {"z": 1, "a": [1.5, None, "x"]}}, {"name": "a"}]
    row = {"id": "1", "available_tools": tools, "after": True}
    compact = table.compact("scored.jsonl", row)
    assert compact["available_tools"].startswith("tools:") and row["available_tools"] is tools  # the row is not changed
    back = table.inflate("scored.jsonl", json.loads(json.dumps(compact)))
    assert json.dumps(back, ensure_ascii=False) == json.dumps(row, ensure_ascii=False)
    reordered = [{"input_schema": {"a": [1.5, None, "x"], "z": 1}, "name": "b", "description": "é ✓"}, {"name": "a"}]
    assert (
        table.compact("scored.jsonl", {"available_tools": reordered})["available_tools"] != compact["available_tools"]
    )


def test_a_stored_file_copied_out_of_its_run_says_what_is_missing(runs, tmp_path):
    compact, _ = runs
    lone = tmp_path / "scored.jsonl.gz"
    lone.write_bytes(stored(compact / "scored.jsonl").read_bytes())
    with pytest.raises(ConfigError, match="tools.jsonl"):
        next(read_jsonl(tmp_path / "scored.jsonl"))
