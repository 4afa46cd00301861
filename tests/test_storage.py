"""The run folder's storage (issue 18): gzip, and tool lists stored once and referenced from rows.
What synth publishes (``synth export --format jsonl``, the parquet of ``synth export``/``synth push``)
is byte for byte what synth wrote before the storage changed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth import pipeline
from synth.cli import app
from synth.config import Settings
from synth.errors import ConfigError
from synth.export.hf import configs, write_parquet
from synth.pipeline import generate
from synth.rundir import GZ, TOOLS, ToolTable, read_json, read_jsonl, stored

runner = CliRunner()

# sha256 of each public file of the tiny registry's run (n=80, seed=3), written by synth at d785a5e,
# before the storage changed (plain JSONL, every tool list in every row)
BEFORE = {
    "eval.jsonl": "8b0ed97844ddfbff55fa442dea1fdf8d6bf91d54de51c0688887cef590395462",
    "scored.jsonl": "3337882c7ed1b5398180cca49592e6f1a360488a4ef234cc22e78fa0c2fd65df",
    "teval/instruct_json.json": "b78420d900c71d94c1f9de9b6e757ed97e64cfc903095319d765a1ecf8447287",
    "teval/instruct_str.json": "e586095c2e7ee2b0a57be5da457ce1faf7d331606fdb5c972db4d13f86518415",
    "teval/plan_json.json": "d23dbd911b28a5144fcf516d30b8b8d95f3991c881bf418e7638b67bf3a4aeb3",
    "teval/plan_str.json": "4a33dbc23cbe1ec93bee68014cab56c026bf5edf23b3d9e100c0bc4f00ce2c53",
    "teval/reason_retrieve_understand_json.json": "12a21854bfd5e6b33c8d1d0a19979536f70af9f2939fc51dc586d5d5c9606ea1",
    "teval/reason_str.json": "2246037ac5578781c38312482d320e2dafa323a1e16a12554a196e997b509b63",
    "teval/retrieve_str.json": "58c9c0b4341324b762d5f0772eb7b3e50f77fe4a21a4a45557c41fc6f4e1ca64",
    "teval/review_str.json": "cf1771fd6c4857790a4db50b60ca5be66c40e1fd447ba6e7529e8f32a5927cb3",
    "teval/understand_str.json": "92f0d3d1ed2c3872955666784248b85f2efd72991a30f680eb826bdc4a16c622",
    "train.jsonl": "1d038c0455765677b97a483de848f1ac9f42ad0a86da25f20d4096c276295ff3",
    "valid.jsonl": "72b7e63aeb0c7355d23c99bf70e9c3c7f6193dd2bc2ff4884b8df5f47194de8d",
}


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def on_disk(folder: Path) -> int:
    return sum(len(b) for b in files(folder).values())


@pytest.fixture(scope="module")
def runs(tiny_registry, tmp_path_factory) -> tuple[Path, Path]:
    """The same run stored compactly (the default) and plain (the code path synth had before)."""
    root = tmp_path_factory.mktemp("storage")
    generate(Settings(servers=tiny_registry, out=root / "compact", n=80, seed=3))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "COMPACT", False)
        generate(Settings(servers=tiny_registry, out=root / "plain", n=80, seed=3))
    return root / "compact", root / "plain"


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
    result = runner.invoke(app, ["generate", "--servers", str(tiny_registry), "--out", str(out), "-n", "40",
                                 "--seed", "3", "--outputs", "train,valid,eval"])
    assert result.exit_code == 0, result.output
    assert not stored(out / "scored.jsonl").exists() and not (out / "teval").exists()
    manifest = read_json(out / "manifest.json")
    assert manifest["config"]["outputs"] == ["train", "valid", "eval"] and "scored.jsonl" not in manifest["files"]
    assert {c.name for c in configs(out)} == {"chat", "eval"}
    assert runner.invoke(app, ["export", str(out), "--format", "jsonl", "--out", str(tmp_path / "pub")]).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "pub").iterdir()) == ["eval.jsonl", "train.jsonl", "valid.jsonl"]
    bad = runner.invoke(app, ["generate", "--servers", str(tiny_registry), "--out", str(tmp_path / "x"), "--outputs", "chat"])
    assert bad.exit_code == 2 and "train,valid,eval,scored,teval,tasks" in bad.output


def test_a_tool_list_comes_back_in_its_own_spelling():
    table = ToolTable()
    tools = [{"name": "b", "description": "é ✓", "input_schema": {"z": 1, "a": [1.5, None, "x"]}}, {"name": "a"}]
    row = {"id": "1", "available_tools": tools, "after": True}
    compact = table.compact("scored.jsonl", row)
    assert compact["available_tools"].startswith("tools:") and row["available_tools"] is tools  # the row is not changed
    back = table.inflate("scored.jsonl", json.loads(json.dumps(compact)))
    assert json.dumps(back, ensure_ascii=False) == json.dumps(row, ensure_ascii=False)
    reordered = [{"input_schema": {"a": [1.5, None, "x"], "z": 1}, "name": "b", "description": "é ✓"}, {"name": "a"}]
    assert table.compact("scored.jsonl", {"available_tools": reordered})["available_tools"] != compact["available_tools"]


def test_a_stored_file_copied_out_of_its_run_says_what_is_missing(runs, tmp_path):
    compact, _ = runs
    lone = tmp_path / "scored.jsonl.gz"
    lone.write_bytes(stored(compact / "scored.jsonl").read_bytes())
    with pytest.raises(ConfigError, match="tools.jsonl"):
        next(read_jsonl(tmp_path / "scored.jsonl"))
