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
BEFORE = {
    "conversations.jsonl": "64d77294f79d525d21123d366548976221b40f76a5430e59825fb2176dfa0f9b",
    "eval.jsonl": "a37686d1c32fa2beaf778b9662e07d3ab41ac6a689b56212e4c9455eaf351151",
    "scored.jsonl": "ed4fa8d0293ddd5c05c6d00379c0d3c401686d345c498e00a0b4c9d7e78bbabc",
    "teval/instruct_json.json": "663e5ac616ca666298ff453c05bd5704970c742fcc6a8154f4a84c0e23c77fe9",
    "teval/instruct_str.json": "64839dad810dbcd292b51bbf0c6e684bd35e73e6dfeb077efa95ad7eac52eeed",
    "teval/plan_json.json": "2c0fa1636d2a03452224be9238783bd88a1477d89013cb38b56cdd67dd99f6db",
    "teval/plan_str.json": "328a23d65bd5093835b805511670e935553eeb57e3af2e57dae1e31af5a17848",
    "teval/reason_retrieve_understand_json.json": "f5f6f35b4945268344f95df048b842ee47824c790e3f369b3044c0487820cb40",
    "teval/reason_str.json": "2aaf09b5a0ab74731d35449aba11fe3d41b75289605c0d65ac6d50f638e7238a",
    "teval/retrieve_str.json": "8ab5503af3de207b3fcd89e030f9237a9ea9a5d329d75e9e43ca2cd45ef27da0",
    "teval/review_str.json": "4a619fc63460a8babc9da499e6976971c3571a8571b463838cfb0d2a7f101c4a",
    "teval/understand_str.json": "4e9435f9ecc7c05daa25867758d8a3e06d5020c56ed01d029f56e4492adc6250",
    "train.jsonl": "58dea4b0cc76c99a34ab94f3e5b9ac4b593c6a2a34b1f27ac76736d2a2c6ddcd",
    "valid.jsonl": "a91ecd2fa1d80ce9bf1ccb9ca5d91effa5e41aa74c950e179a981de3419111a0",
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
