"""The outputs' registry (synth.export.outputs): every output a run writes is listed there, a writer has the
add/close shape, and a new output is one entry: a probe registered in a test gets every accepted
conversation in order and is closed once, and nothing else of the run changes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from synth import rundir
from synth.config import Settings
from synth.export import outputs as registry
from synth.pipeline import generate
from synth.records import Conversation, ScoredCall, ServerSpec
from synth.rundir import read_jsonl, stored


def test_the_registry_lists_every_output_the_flags_know():
    assert tuple(registry.OUTPUTS) == rundir.OUTPUTS  # --outputs is checked against the names at the bottom
    files = {name: kind.files for name, kind in registry.OUTPUTS.items() if kind.files}
    assert files == {name: (file,) for name, file in rundir.OUTPUT_FILES.items()}
    assert {k.folder for k in registry.OUTPUTS.values() if k.folder} == {rundir.TEVAL, "tasks"}


class Probe:
    made: list[Probe] = []

    def __init__(self, out: Path):
        self.out, self.seen, self.closed = out, [], 0
        Probe.made.append(self)

    def add(self, conv: Conversation, server: ServerSpec, scored: Sequence[ScoredCall]) -> None:
        self.seen.append((conv.id, server.id, len(scored)))

    def close(self) -> dict[str, Any]:
        self.closed += 1
        return {"conversations": len(self.seen)}


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch):
    Probe.made.clear()
    kinds = {**registry.OUTPUTS, "probe": registry.Kind(make=lambda out, storage, reject: Probe(out))}
    monkeypatch.setattr(registry, "OUTPUTS", kinds)
    return Probe


def test_a_new_output_is_one_entry(tiny_registry: Path, tmp_path: Path, probe):
    plain = generate(Settings(servers=tiny_registry, out=tmp_path / "plain", n=6, seed=3))
    probed = generate(
        Settings(servers=tiny_registry, out=tmp_path / "probed", n=6, seed=3, outputs=(*rundir.OUTPUTS, "probe"))
    )
    (made,) = probe.made
    conversations = [row["id"] for row in read_jsonl(stored(tmp_path / "probed" / rundir.CONVERSATIONS))]
    assert [conv_id for conv_id, _, _ in made.seen] == conversations and made.closed == 1
    for name in rundir.FILES:  # the other outputs are the run's without the probe, byte for byte
        assert stored(tmp_path / "probed" / name).read_bytes() == stored(tmp_path / "plain" / name).read_bytes()
    assert probed["counts"] == plain["counts"]


def test_an_output_left_off_writes_nothing_and_its_writer_is_not_made(tiny_registry: Path, tmp_path: Path, probe):
    generate(Settings(servers=tiny_registry, out=tmp_path / "run", n=4, seed=3, outputs=("train", "valid")))
    assert probe.made == []
    assert not (tmp_path / "run" / rundir.TEVAL).exists() and not stored(tmp_path / "run" / rundir.SCORED).exists()
