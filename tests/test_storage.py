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
BEFORE = {
    "conversations.jsonl": "5ccb21d52b253e6762f161101b987969cb6d864ef886b3edd0befe1682d9a4b0",
    "eval.jsonl": "bba9966f25f79aeea39b0bb14560a392c7c92e24216e28a67d173ef9e5d878f1",
    "scored.jsonl": "3f065c2778f6954788e5e80c83aeb3902ed1fc02bcb16d669b38a2b62cdf128a",
    "scored_decisions.jsonl": "ccfe9d9c1ec127ac596a7d642c3de595e8051392e39b5cc4041246c1231a6f00",
    "teval/instruct_json.json": "b6572e2897587a296ae0ed84118c0ac3be28e00520c63ef01af702783bbff189",
    "teval/instruct_str.json": "5e83c628194264bc3c2646e988b28af4b043fa749febbfc761267269a016b715",
    "teval/plan_json.json": "3103811071262d439110697410f9aa27ff6f441c036a0c933b235a1e2b6c832b",
    "teval/plan_str.json": "5169cc5a143d0cd582109fd9c497e6ad0e8ff8b54bf995f9ca4ff4ab91ea6e78",
    "teval/reason_retrieve_understand_json.json": "3910244e4d87a286645b96feb91de4c0eb12d40deb2274e504e02d289b31e231",
    "teval/reason_str.json": "f7b1c2bf8f49fc9d475995c4360429ff2960e5a11dd8bccf705f1ed0d479b5bb",
    "teval/retrieve_str.json": "40128bfa86298b98a007a85052dc9b614036babf298ffb4a0bcabe231cc82cde",
    "teval/review_str.json": "2f9f33821e983436d4c60501e1b3ed96814fed4593e7d6ec3976c953a613475b",
    "teval/understand_str.json": "83256a76bce959fecb3564d16416b920a39b1c0ed7e7aa26fcba70fe9bcf698f",
    "train.jsonl": "44aea70307652f1affc970b6ee96e1f9034d0fbc867236ac789b2e3f09854e98",
    "valid.jsonl": "ccdd22a0ae4ff4c0fa92967fea8dacbd560844eddedc6f7689c3242b5a0e6c36",
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
