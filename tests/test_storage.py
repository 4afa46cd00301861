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

from synth.cli.app import app
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
# and at 8 (issue 29: negatives read for, further; scored.jsonl and teval/review_str.json change, the
# conversations are the same), and at 9 (issue 29: the reader rejects answers that name fewer items than were
# asked: two of the tiny registry's 80 conversations, 'list 16 events' answered with one of four, go)
BEFORE = {
    "conversations.jsonl": "acdec1f9764ddc9c6b0ad1886e347450337ad89d0e944f434f5edf90d3604690",
    "eval.jsonl": "0ce764a5222c4cb4cbde1e6b92d3141ee762359f7788260b6b2c79d2eda2cd1d",
    "scored.jsonl": "a20115b177408b569a47e79ce0a0cdd364812a8883c2af21d52d23c6913d3caa",
    "scored_decisions.jsonl": "5a459dc357e81e682475947d1454dec43a3ffb134fad4004d75af4e953b3900f",
    "teval/instruct_json.json": "cea3e5f1078bb3f2429358c80eb169d52e9dab3f66ec65ab9afffd05585a5de1",
    "teval/instruct_str.json": "efd7a681a57bbc980a512177f8278b8c131a5be9fcc70924d1ec5317de5c246c",
    "teval/plan_json.json": "ca365efe17b90b9ec0d66f9f351e04733aff1033107c5ce91e733d3cd70b0e3f",
    "teval/plan_str.json": "433719ccccf3e09ed7cc6090ba3d686efc33884106a5d8539079773df5583fdf",
    "teval/reason_retrieve_understand_json.json": "96d2bbd58edb848cca6533988cc0d0a9e49f336963ce4c031bb370eda03d7c20",
    "teval/reason_str.json": "c1f3a5bac6e68a87c0ffbaba8e7b12481d3a6c5ac0170a2b4aece830912c87b9",
    "teval/retrieve_str.json": "9986b76a4f7d59df69d1c043fb447bee9e65b4a4c8dcbf9a434960feea38f45a",
    "teval/review_str.json": "fe8d1276d643ab3b26da28661c908d04d58da674de12b0498be95e08a6071b08",
    "teval/understand_str.json": "16f94500b66667364323b19045485268baa0c591b3c7158268f5fd07b805d990",
    "train.jsonl": "31faffae6db3deb8bbc90a941ae67ef3f8aa0de1f5692a91cb0cb2a8cc29251c",
    "valid.jsonl": "8fdf4fef4e8d448ff0b3a340a3709457e7bf1aabcb50ef425d3e5aa091bf6910",
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
    assert bad.exit_code == 2 and "train,valid,eval,scored,decisions,preference,teval,tasks" in bad.output


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
