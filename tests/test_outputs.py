"""The outputs' registry (synth.export.outputs): every output a run writes is listed there, once, with one
add/close shape, and a new format is one module and one entry: a probe registered in a test (the dict
monkeypatched, nothing of ours) gets every accepted conversation in order, its file is written and listed in
the manifest with the facts its writer closed with, ``--outputs`` takes and lists it, and nothing else of the
run changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth import rundir
from synth.cli.app import app
from synth.config import Settings
from synth.export import outputs as registry
from synth.export.preference import PREFERENCE, pair
from synth.pipeline import generate
from synth.rundir import file_facts, read_jsonl, stored
from synth.rundir.output import Accepted, Closed, Place

runner = CliRunner()


def test_the_registry_lists_every_file_and_folder_a_run_writes():
    files = [name for kind in registry.OUTPUTS.values() for name in kind.files]
    assert [*files[: len(rundir.EXPORTS) - 1], rundir.REJECTED] == list(rundir.EXPORTS)  # registry order = FILES
    assert files[len(rundir.EXPORTS) - 1 :] == [PREFERENCE]
    assert {k.folder for k in registry.OUTPUTS.values() if k.folder} == {rundir.TEVAL, rundir.TASKS}
    assert registry.choices() == [n for n, k in registry.OUTPUTS.items() if n not in ("conversations", "counts")]
    assert "preference" not in registry.defaults()  # opt-in: a default run writes what it always wrote


def test_outputs_help_and_check_come_from_the_registry():
    shown = runner.invoke(app, ["generate", "--help"], terminal_width=400).output
    flat = " ".join(shown.replace("│", " ").split())  # the rich box, unwrapped
    for name in registry.choices():
        assert f"{name} (" in flat, name
    bad = runner.invoke(app, ["generate", "--outputs", "chat,train"])
    assert bad.exit_code == 2 and ",".join(registry.choices()) in bad.output and "chat is not an output" in bad.output
    assert registry.parse("train, valid,train") == ("train", "valid")
    assert registry.parse(",".join(reversed(registry.defaults()))) is None  # the defaults in any order: the default


class Probe:
    """A new format: one line per accepted conversation, written through the run's files (its storage)."""

    made: list[Probe] = []
    FILE = "probe.jsonl"

    def __init__(self, place: Place):
        self.stream = place.files.stream(self.FILE)
        self.seen: list[str] = []
        self.closed = 0
        Probe.made.append(self)

    def add(self, item: Accepted) -> None:
        self.seen.append(item.conv.id)
        self.stream.write({"id": item.conv.id, "server": item.server.id, "scored": len(item.scored)})

    def close(self) -> Closed:
        self.closed += 1
        return Closed(files={self.FILE: self.stream.close()}, report={"conversations": len(self.seen)})


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch):
    Probe.made.clear()
    kinds = {
        **registry.OUTPUTS,
        "probe": registry.Kind(files=(Probe.FILE,), make=Probe, default=False, help="one line each"),
    }
    monkeypatch.setattr(registry, "OUTPUTS", kinds)
    return Probe


def test_a_new_output_is_one_module_and_one_entry(tiny_registry: Path, tmp_path: Path, probe):
    plain = generate(Settings(servers=tiny_registry, allow_fallback=True, out=tmp_path / "plain", n=6, seed=3))
    outputs = registry.parse(",".join([*registry.defaults(), "probe"]))  # --outputs takes the new name
    probed = generate(
        Settings(servers=tiny_registry, allow_fallback=True, out=tmp_path / "probed", n=6, seed=3, outputs=outputs)
    )
    (made,) = probe.made
    conversations = [row["id"] for row in read_jsonl(tmp_path / "probed" / rundir.CONVERSATIONS)]
    assert made.seen == conversations and len(conversations) == 6 and made.closed == 1
    lines = list(read_jsonl(tmp_path / "probed" / Probe.FILE))
    assert [line["id"] for line in lines] == conversations
    facts = file_facts(tmp_path / "probed" / Probe.FILE)  # read back: what its writer closed with
    assert facts["lines"] == 6 and probed["files"] == {**plain["files"], Probe.FILE: facts}
    assert probed["config"]["outputs"] == [*registry.defaults(), "probe"]
    for name in rundir.FILES:  # the other outputs are the run's without the probe, byte for byte
        assert stored(tmp_path / "probed" / name).read_bytes() == stored(tmp_path / "plain" / name).read_bytes()
    assert probed["counts"] == plain["counts"]


def test_an_output_left_off_writes_nothing_and_its_writer_is_not_made(tiny_registry: Path, tmp_path: Path, probe):
    out = tmp_path / "run"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=4, seed=3, outputs=("probe",)))
    assert len(probe.made) == 1
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=4, seed=3, outputs=("train", "valid")))
    assert len(probe.made) == 1 and not (out / Probe.FILE).exists()  # the earlier run's file of it is gone
    assert not (out / rundir.TEVAL).exists() and not stored(out / rundir.SCORED).exists()


def test_the_manifest_files_are_the_facts_the_writers_closed_with(tiny_registry: Path, tmp_path: Path):
    """Each file's lines and sha256 are counted as it is written, and are what reading it back gives."""
    for storage in ("ready", "compact", "plain"):
        out = tmp_path / storage
        manifest = generate(
            Settings(servers=tiny_registry, allow_fallback=True, out=out, n=20, seed=2, storage=storage)
        )
        assert list(manifest["files"]) == list(rundir.FILES)
        assert manifest["files"] == {name: file_facts(out / name) for name in rundir.FILES}, storage
        assert manifest["counts"]["eval_items"] == manifest["files"][rundir.EVAL]["lines"] > 0


def test_preference_pairs_are_an_output_of_their_own(tiny_registry: Path, tmp_path: Path):
    """``--outputs ...,preference`` writes the pairs ``synth export --format dpo`` makes from the scored and
    decision rows (per conversation, where the export takes the scored file, then the decisions file)."""
    out = tmp_path / "run"
    outputs = (*registry.defaults(), "preference")
    manifest = generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=30, seed=5, outputs=outputs))
    pairs = list(read_jsonl(out / PREFERENCE))
    expected = [p for name in (rundir.SCORED, rundir.DECIDED) for r in read_jsonl(out / name) if (p := pair(r))]
    key = lambda p: json.dumps(p, sort_keys=True)  # noqa: E731
    assert pairs and sorted(map(key, pairs)) == sorted(map(key, expected))
    assert {p["decision"] for p in pairs} > {"call"}  # the decisions' pairs too
    assert manifest["files"][PREFERENCE]["lines"] == len(pairs)
    assert manifest["config"]["outputs"] == list(outputs)


def test_naming_the_outputs_imports_no_writer():
    """`synth --help` lists --outputs' choices from the registry; the writers behind them are imported when a run
    makes them (issue 43: the help took 0.45 CPU s, most of it importing every exporter)."""
    import subprocess
    import sys

    code = (
        "import json, sys, synth.cli.app, synth.export.outputs as o; o.describe(); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('synth.export.', 'synth.tasks.')))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    assert not loaded & {"synth.export.teval", "synth.export.chat", "synth.tasks.write", "synth.export.card.counts"}
