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
# before the storage changed (plain JSONL, every tool list in every row); taken again when GENERATOR_VERSION
# became 4 (the pack author's fixes and the plain fallback's data changed on purpose) - the plain code path below still
# writes the same bytes; eval and scored rows then gained "author" (issue 26: pack or fallback, for filtering);
# taken again at GENERATOR_VERSION 5 (issue 29: the reader gates and the pack author's dialogue, on purpose)
BEFORE = {
    "conversations.jsonl": "66cc127fefb7569bc40f0bd6a6d1ad809ca7d4428ce430a151b4b45c49d4366a",
    "eval.jsonl": "a8b671f0dea684b5e53f8a757e6edf0dc0615f7afd762d7387601c366ec0e572",
    "scored.jsonl": "7b02786cc9272f0f2c34e3f4b4d419fdcd4986019f2a38cb3bd947a3c1cc2db2",
    "teval/instruct_json.json": "c0635c63a3417ec32ca6aa4abb4027ba8d54b8957ac8630b0f6406f18d7f00b7",
    "teval/instruct_str.json": "3cf95332567535cff78fa48ac6bd13dd8ecf28bf84b88b53e5a431921d2ed299",
    "teval/plan_json.json": "9a7b2e131eec66200e4d7933055cac51e1db2cb922a2007e662a1c8608b837d4",
    "teval/plan_str.json": "3fee56b5bcb530952028aaf9e9721113ba56a6d3b197437af9ebb0482f7c4f70",
    "teval/reason_retrieve_understand_json.json": "462999466aa99b335b1fbb5a646166381f23635fc97e24f21ec8fd9a725cfd61",
    "teval/reason_str.json": "caf9978f181bdcd6a0bb5ea929d40613b5ba7ba3d9b98053018042d1ba6da3b8",
    "teval/retrieve_str.json": "ee3f6ccd9ccf501ff8828d68bbfd7d03f7c942d86875a7bbb59407e21c69e005",
    "teval/review_str.json": "b7cdb76ed6419ae1afade855a6687154364cae29658e9d8e0680df0108109b15",
    "teval/understand_str.json": "f14c0a3847f5d823f39fe172f79927e4fbe6e05a437b799d825f58b73dc6368a",
    "train.jsonl": "7a0ff50170c9d116434e78c58ae711e9cd5aa6dc05d7f2c4e00dd38e2a1f5547",
    "valid.jsonl": "edf724554087cddba6732643fa9a6e986187dfa8202c2072346017fa267bd4e9",
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
    run = ["generate", "--servers", str(tiny_registry), "--out", str(out), "-n", "40", "--seed", "3"]
    result = runner.invoke(app, [*run, "--outputs", "train,valid,eval"])
    assert result.exit_code == 0, result.output
    assert not stored(out / "scored.jsonl").exists() and not (out / "teval").exists()
    manifest = read_json(out / "manifest.json")
    assert manifest["config"]["outputs"] == ["train", "valid", "eval"] and "scored.jsonl" not in manifest["files"]
    assert {c.name for c in configs(out)} == {"chat", "eval"}
    assert runner.invoke(app, ["export", str(out), "--format", "jsonl", "--out", str(tmp_path / "pub")]).exit_code == 0
    assert sorted(p.name for p in (tmp_path / "pub").iterdir()) == [
        "conversations.jsonl",
        "eval.jsonl",
        "train.jsonl",
        "valid.jsonl",
    ]
    bad = runner.invoke(
        app, ["generate", "--servers", str(tiny_registry), "--out", str(tmp_path / "x"), "--outputs", "chat"]
    )
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
    assert (
        table.compact("scored.jsonl", {"available_tools": reordered})["available_tools"] != compact["available_tools"]
    )


def test_a_stored_file_copied_out_of_its_run_says_what_is_missing(runs, tmp_path):
    compact, _ = runs
    lone = tmp_path / "scored.jsonl.gz"
    lone.write_bytes(stored(compact / "scored.jsonl").read_bytes())
    with pytest.raises(ConfigError, match="tools.jsonl"):
        next(read_jsonl(tmp_path / "scored.jsonl"))
