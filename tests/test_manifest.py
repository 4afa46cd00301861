"""manifest.json as a typed, versioned record: written with its version first and every other key in the
pipeline's order, read back byte for byte, and an old, foreign, newer or damaged manifest told apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synth.config import Settings
from synth.errors import ConfigError, HubError
from synth.pipeline import generate
from synth.records import MANIFEST_VERSION, Manifest, RunStart
from synth.rundir import MANIFEST, RunDir


@pytest.fixture(scope="module")
def run(tiny_registry: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("manifest") / "run"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=4, seed=2))
    return out


def _write(folder: Path, data: object) -> RunDir:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return RunDir(folder)


def test_written_with_its_version_first_and_the_pipeline_keys_in_order(run: Path):
    data = json.loads((run / MANIFEST).read_text(encoding="utf-8"))
    assert list(data)[:4] == ["manifest_version", "status", "synth_version", "generator_version"]
    assert data["manifest_version"] == MANIFEST_VERSION
    assert list(data)[-7:] == ["files", "packs", "execute", "teval", "tasks", "dedup", "reader_gates"]
    manifest = RunDir(run).finished()
    assert isinstance(manifest, Manifest) and manifest.counts["conversations"] == 4
    before = (run / MANIFEST).read_bytes()
    RunDir(run).write_manifest(manifest)
    assert (run / MANIFEST).read_bytes() == before  # read and written again: the same bytes
    RunDir(run).write_manifest(RunDir(run).manifest())  # the dict form (what older code passes) too
    assert (run / MANIFEST).read_bytes() == before


def test_an_unversioned_manifest_is_read_as_version_0_and_written_as_this_one(run: Path, tmp_path: Path):
    data = json.loads((run / MANIFEST).read_text(encoding="utf-8"))
    del data["manifest_version"], data["status"]  # the oldest manifests had neither
    old = _write(tmp_path / "old", data)
    manifest = old.read_manifest()
    assert isinstance(manifest, Manifest) and manifest.manifest_version == 0
    assert manifest.synth_version == data["synth_version"]
    old.write_manifest(manifest)
    again = json.loads((tmp_path / "old" / MANIFEST).read_text(encoding="utf-8"))
    assert again == {"manifest_version": MANIFEST_VERSION, **data}
    assert list(again)[1:] == list(data)  # nothing reordered


def test_a_run_being_made_is_a_runstart(tmp_path: Path):
    folder = RunDir(tmp_path / "r")
    folder.start({"seed": 1}, command="synth generate --n 3")
    started = folder.read_manifest()
    assert isinstance(started, RunStart) and started.identity == {"seed": 1}
    assert json.loads((tmp_path / "r" / MANIFEST).read_text())["manifest_version"] == MANIFEST_VERSION
    with pytest.raises(Exception, match="unfinished run.*synth generate --n 3 --resume"):
        folder.finished()


@pytest.mark.parametrize(
    "content, message",
    [
        (
            '{"status": "complete", "synth_',
            r"manifest\.json: not a readable manifest \(it is damaged\); make the run again",
        ),
        ("[1, 2]", r"manifest\.json: damaged: a manifest is a JSON object, this is list; make the run again"),
        (
            {"name": "my-dataset", "license": "mit"},
            r"manifest\.json: not a synth manifest \(it has name, license\); give the --out folder of a synth generate run",  # noqa: E501
        ),
        (
            {"manifest_version": MANIFEST_VERSION + 1, "status": "complete"},
            rf"manifest_version {MANIFEST_VERSION + 1} is newer than this synth reads \({MANIFEST_VERSION}\); upgrade synth",  # noqa: E501
        ),
        (
            {"manifest_version": "one", "status": "complete"},
            r"damaged: manifest_version is 'one', not a version number",
        ),
        (
            {"synth_version": "0.0.1", "generator_version": 1, "backend": "offline"},
            r"written by synth 0\.0\.1 before manifests were versioned, and not readable now \(\w+: field required "
            r"\(and \d+ more\)\); make the run again .* with this synth",
        ),
        (
            {"manifest_version": MANIFEST_VERSION, "status": "complete", "synth_version": "0.1.0"},
            r"manifest\.json: damaged: \w+: field required \(and \d+ more\); make the run again",
        ),
    ],
)
def test_damaged_foreign_old_and_newer_manifests_are_told_apart(tmp_path: Path, content: object, message: str):
    folder = _write(tmp_path / "r", content)
    with pytest.raises(ConfigError, match=message) as caught:
        folder.read_manifest()
    assert str(tmp_path / "r" / MANIFEST) in str(caught.value)  # the file is named
    with pytest.raises(HubError):  # the caller's error class, as before
        folder.read_manifest(HubError)


def test_a_malformed_manifest_is_never_written(tmp_path: Path):
    with pytest.raises(ConfigError, match=r"not readable now \(counts: field required\)"):
        RunDir(tmp_path).write_manifest(
            {
                "status": "complete",
                "synth_version": "x",
                "generator_version": 1,
                "backend": "offline",
                "model": None,
                "tokens": {},
                "cost_usd": 0,
                "stopped_by_budget": False,
                "config": {},
                "versions": {},
                "prompts": {},
                "registry": {},
                "identity": {},
                "tool_names": {},
                "funnel": {},
                "coverage": {},
                "files": {},
            }
        )
    assert not (tmp_path / MANIFEST).exists()
