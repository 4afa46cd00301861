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
# and at 11 (issue 44: answers from a goal's items; a read made again is served by the first): checked by diffing
# the 80 conversations: a currency of a frankfurter case is no longer changed alone ('Into USD. Sorry, I meant GBP,
# not EUR.' -> 'Into USD.', twice), and a repeated rates listing is no longer rejected, so the run ends on other rows
# and at 13 (issue 44: system prompts vary by scenario, follow-ups and dates in a person's words, no pointer
# sentences: the conversations and everything derived from them change), and at 17 (a time after "at" reads
# "at 14:00 on 4 May")
# and at 20 (issue 42: a later request that would repeat a call is composed again; checked by diffing the 80
# conversations: four whose later request repeated an earlier search or rates listing (answered with the first
# answer word for word) now ask something new; the other 76 are unchanged), and at 22 (issue 38: a negative that
# was a call its turn still needs is drawn again, review labels from what a response says: scored.jsonl and
# review_str.json change)
# and at 26 (issue 39: the fallback's conversations, here allowed, are marked in T-Eval's meta and eval's
# decision items carry their author as call items do; conversations, scored, train and valid unchanged)
# and at 30 (issue 44: a value from an earlier request is asked for again, never carried unsaid; the reader reads
# "Paste the SQL." as an ask: the conversations and what derives from them change)
# and at 54 (issue 44: a plural field is asked back as a person asks it; checked by diffing the 80 conversations:
# one changed, 'Sorry, what was the samples again?' / 'The samples is 20.' -> 'How many samples were there?' /
# '20 samples.'; the other 79 are unchanged)
BEFORE = {
    "conversations.jsonl": "d16562eec0c59c317a22060b45abb916661a00126cfd22a6c91a87024c3282d6",
    "eval.jsonl": "f3f5e7d363bbd4f1aa0339ec1e873631a3d6792ffe10446e4cca6c4ce9314091",
    "scored.jsonl": "abcaf5d69479b7350eac332a5ad1c732f6751a2f90b5ebaa46c84d8e5b57c385",
    "scored_decisions.jsonl": "26268558f4ad35d1804686329d683f79cc1a61a26503f8cf7112c50a246df8a4",
    "teval/instruct_json.json": "8d0491ca216fd8760e45d5527372912742d4a3ac2c23f29455209579219cb2de",
    "teval/instruct_str.json": "502b6182eb025afa95b6a54afff19a745010c2f2617c256a26958033f05d9e53",
    "teval/plan_json.json": "f5a8b8b5ec414ac6bb8cccad1b400ca7bf8c4b7ef888618cd659c8f2250937b9",
    "teval/plan_str.json": "f01ecc2d6f150d63cfe8fa8a475b1ee8faeb221ec998e42f0a6b62814e5833be",
    "teval/reason_retrieve_understand_json.json": "44ba616055abe0a6081cae712ce2d8daa9e5ebf791b281483745483b27e6ef07",
    "teval/reason_str.json": "556cfde2209619b5b092669eae09da5a6170734298fdd21539d44ddb531fd2ba",
    "teval/retrieve_str.json": "d4495bfbfe6f03e9b7ab67967605bb94af40ab2ad77d891f4fa639598332198f",
    "teval/review_str.json": "40638123df7741eded11754c58c0603e532a4b2929ab8b4de286e81e6b73111e",
    "teval/understand_str.json": "bc7c6503c0febb52c0de213ddeb063c8717ca3457ab126e9efccccf4b46e02fd",
    "train.jsonl": "a624a134715afbcff9bfd1428bfc6b39e12e48f19f32f89be3bc868dd15b7335",
    "valid.jsonl": "bbaaa78bf44e7c397438e0da0066ac2b8df2cc1205efd0d133c39e442814a0bf",
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
        generate(
            Settings(servers=tiny_registry, allow_fallback=True, out=root / storage, n=80, seed=3, storage=storage)
        )
    return root / "compact", root / "plain"


def test_the_default_run_keeps_train_valid_eval_plain_and_the_bulky_files_compact(runs, tiny_registry, tmp_path):
    compact, plain = runs
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=tmp_path / "ready", n=80, seed=3))
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
        generate(Settings(servers=tiny_registry, allow_fallback=True, out=tmp_path / name, n=30, seed=4))
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a.keys() == b.keys() and all(a[k] == b[k] for k in a if not k.startswith("."))


def test_outputs_left_out_are_not_written_and_readers_cope(tiny_registry, tmp_path):
    out = tmp_path / "run"
    run = [
        "generate",
        "--servers",
        str(tiny_registry),
        "--allow-fallback",
        "--out",
        str(out),
        "-n",
        "40",
        "--seed",
        "3",
    ]
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
        app,
        [
            "generate",
            "--servers",
            str(tiny_registry),
            "--allow-fallback",
            "--out",
            str(tmp_path / "x"),
            "--outputs",
            "chat",
        ],
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
