"""Shards (synth.shards) and Ray (synth.ray_shards): a run made in slices and merged is the single run, byte for byte.

Every file of the run folder is compared (manifest, card and plots included); the LLM case goes
through the command line against the loopback OpenAI-compatible server, as a user runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from synth.config import Settings
from synth.errors import ConfigError, RunFolderError
from synth.export.card.build import write_card
from synth.pipeline import generate
from synth.shards import SHARD, STREAM, ShardShort, merge, run_shard

ROOT = Path(__file__).parents[1]
REGISTRY = ROOT / "registry"
TIMING = {"requests.json", "cache.sqlite"}  # what a run keeps besides its data: timing and the model cache


def files(folder: Path, skip: set[str] = frozenset()) -> dict[str, bytes]:
    """Every file under ``folder`` by relative name (hidden ones and ``skip`` left out), with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and p.relative_to(folder).as_posix() not in skip
    }


def assert_same_run(a: Path, b: Path, skip: set[str] = frozenset()) -> None:
    left, right = files(a, skip), files(b, skip)
    assert sorted(left) == sorted(right)
    assert [name for name in left if left[name] != right[name]] == []


def settings(out: Path, **kw) -> Settings:
    return Settings(servers=REGISTRY, out=out, **{"n": 36, "seed": 5, **kw})


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("single") / "run"
    generate(settings(out))
    write_card(out)
    return out


def make_shards(root: Path, count: int, quota: int | None = None, **kw) -> list[Path]:
    folders = [root / f"shard{i}" for i in range(count)]
    for i, folder in enumerate(folders):
        run_shard(settings(folder, **kw), count, i, quota)
    return folders


@pytest.mark.parametrize("count", [2, 3])
def test_merged_shards_are_the_single_run_byte_for_byte(single, tmp_path, count):
    folders = make_shards(tmp_path, count)
    merged = tmp_path / "merged"
    manifest = merge(list(reversed(folders)), merged)  # any order
    write_card(merged)
    assert_same_run(single, merged)
    assert "shard" not in manifest and "shards" not in manifest["identity"]
    assert manifest["funnel"]["accepted"] == 36
    # each shard made only its slice, and stopped at its quota rather than at the end of the slice
    for i, folder in enumerate(folders):
        shard = json.loads((folder / SHARD).read_text())
        assert shard["shard"] == {"count": count, "index": i}
        assert (
            0
            < shard["scenarios"]["written"]
            < shard["scenarios"]["slice"]
            == len(range(i, shard["scenarios"]["run"], count))
        )
        assert not (folder / "manifest.json").exists()


def test_merge_refuses_shards_that_do_not_belong_together(tmp_path):
    a = make_shards(tmp_path / "a", 2)
    other_seed = make_shards(tmp_path / "b", 2, seed=6)
    with pytest.raises(ConfigError, match="shards of different runs.*seed"):
        merge([a[0], other_seed[1]], tmp_path / "m1")
    three = make_shards(tmp_path / "c", 3)
    with pytest.raises(ConfigError, match="shards of different runs.*shards: 2 vs 3"):
        merge([a[0], a[1], three[2]], tmp_path / "m2")
    with pytest.raises(ConfigError, match="shard 1 of 2 is missing"):
        merge([a[0]], tmp_path / "m3")
    with pytest.raises(ConfigError, match="shard 0 of 2 is given twice"):
        merge([a[0], a[0], a[1]], tmp_path / "m4")
    with pytest.raises(ConfigError, match="is not a shard"):
        merge([a[0], tmp_path / "c"], tmp_path / "m5")
    registry = tmp_path / "registry"
    shutil.copytree(REGISTRY, registry)
    (registry / "extra.json").write_text('{"qualifiedName": "x/y", "tools": []}')
    with pytest.raises(ConfigError, match="registry or flags differ from the shards'.*registry_sha256"):
        merge(a, tmp_path / "m6", servers=registry)
    with pytest.raises(ConfigError, match="--shard 2 with --shards 2"):
        run_shard(settings(tmp_path / "bad"), 2, 2)
    with pytest.raises(ConfigError, match="--budget-usd cannot be split"):
        run_shard(settings(tmp_path / "bad", budget_usd=1.0), 2, 0)


def test_a_damaged_shard_file_is_named(tmp_path):
    folders = make_shards(tmp_path, 2)
    lines = (folders[1] / STREAM).read_bytes()
    import gzip

    text = gzip.decompress(lines).decode().splitlines(keepends=True)
    (folders[1] / STREAM).write_bytes(gzip.compress("".join([text[1], text[0], *text[2:]]).encode()))
    with pytest.raises(ConfigError, match=r"shard1/shard.jsonl.gz: the line of scenario 1 cannot be read.*scenario 3"):
        merge(folders, tmp_path / "m")


def test_a_shard_that_stopped_too_early_fails_the_merge_and_names_the_fix(single, tmp_path):
    folders = make_shards(tmp_path, 2, quota=4)
    with pytest.raises(
        ShardShort, match=r"shard 0 of 2 .* stopped after \d+ scenarios, at its quota of 4 .*--shard-quota 8"
    ):
        merge(folders, tmp_path / "m")
    for i, folder in enumerate(folders):  # made again with room enough, the merge is the single run
        run_shard(settings(folder), 2, i, 40)
    merge(folders, tmp_path / "m")
    write_card(tmp_path / "m")
    assert_same_run(single, tmp_path / "m")


def test_a_shard_is_never_written_over_a_run(single, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(single, run)
    with pytest.raises(RunFolderError, match="holds a run"):
        run_shard(settings(run), 2, 0)


def test_cli_shards_and_merge(single, tmp_path):
    def synth(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "synth.cli.app", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
        )

    common = ("generate", "--servers", str(REGISTRY), "--n", "36", "--seed", "5", "--shards", "2")
    for i in (0, 1):
        done = synth(*common, "--shard", str(i), "--out", str(tmp_path / f"s{i}"))
        assert done.returncode == 0, done.stderr
        assert f"shard {i} of 2:" in done.stdout
    done = synth("merge", str(tmp_path / "s1"), str(tmp_path / "s0"), "--out", str(tmp_path / "m"))
    assert done.returncode == 0, done.stderr
    assert_same_run(single, tmp_path / "m")
    done = synth("merge", str(tmp_path / "s1"), "--out", str(tmp_path / "m2"))
    assert done.returncode == 2 and "shard 0 of 2 is missing" in done.stderr
    done = synth(*common[:-2], "--shard", "1", "--out", str(tmp_path / "s9"))
    assert done.returncode == 2 and "needs both --shards N and --shard I" in done.stderr


def test_llm_shards_merge_to_the_single_run(tmp_path):
    """The model path: a shard's scenarios, their token counts and the merge, against a real HTTP endpoint."""
    from fake_agents import respond
    from openai_server import OpenAIServer
    from test_llm_generate import KEY, llm_args, synth

    with OpenAIServer(respond, api_key=KEY) as server:
        synth(*llm_args(server, tmp_path / "single", 12))
        for i in (0, 1):
            # a quota past the default's margin: the reader gates turn away some of the fake agents'
            # conversations only at the merge, which the default quota (accepted by the writer) does not see
            synth(*llm_args(server, tmp_path / f"s{i}", 12, "--shards", "2", "--shard", str(i), "--shard-quota", "16"))
            assert (tmp_path / f"s{i}" / "cache.sqlite").exists()  # one cache per shard's folder
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "synth.cli.app",
                "merge",
                str(tmp_path / "s0"),
                str(tmp_path / "s1"),
                "--out",
                str(tmp_path / "m"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
    assert_same_run(tmp_path / "single", tmp_path / "m", TIMING | {"README.md"})
    # the card is the same: its line on requests.json carries no numbers (the shards made more requests)
    card = [(tmp_path / run / "README.md").read_text() for run in ("single", "m")]
    assert card[0] == card[1] and "requests.json" in card[0]
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["funnel"]["accepted"] == 12 and sum(r["calls"] for r in manifest["tokens"].values()) > 12
    assert len(json.loads((tmp_path / "m" / "requests.json").read_text())) == 2  # one entry per shard's process


def test_ray_on_two_cpus_is_the_single_run(single, tmp_path):
    """Two Ray tasks on a local Ray of 2 CPUs; a quota too small for this run makes the merge send
    the short shard back to Ray with twice the room, and the result is still the single run."""
    pytest.importorskip("ray")
    from synth.ray_shards import HOME, run_on_ray

    out = tmp_path / "ray"
    manifest = run_on_ray(settings(out), 2, num_cpus=2, quota=6)
    write_card(out)
    assert_same_run(single, out)
    assert manifest["funnel"]["accepted"] == 36
    assert not (out / HOME).exists()  # offline: no cache to keep, so the shards' folders are gone
