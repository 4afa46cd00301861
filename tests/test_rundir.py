"""One writer per run folder (issue 16) and runs that say when they are unfinished or unusable (issue 14):
the lock, the run's identity, readers that refuse a folder being written or left part way, exit codes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.errors import RunFolderError
from synth.pipeline import generate
from synth.rundir import FILES, LOCK, MANIFEST, RunDir, RunLock, stored, writer_of

runner = CliRunner()
ROOT = Path(__file__).parents[1]
OUTPUTS = (*FILES, MANIFEST)


def same_files(a: Path, b: Path) -> None:
    for name in OUTPUTS:
        assert stored(a / name).read_bytes() == stored(b / name).read_bytes(), name
    teval = sorted(p.name for p in (a / "teval").glob("*"))
    assert teval == sorted(p.name for p in (b / "teval").glob("*"))
    for name in teval:
        assert (a / "teval" / name).read_bytes() == (b / "teval" / name).read_bytes(), name


def cli(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("first,second", [(5, 6), (6, 5)])
def test_a_second_run_into_a_folder_being_written_is_refused_and_the_first_is_untouched(
    tiny_registry, tmp_path, first, second
):
    """The race of issue 16, both orders: the run that starts second is refused at once (exit 3, one
    line naming the other run), and the first run's files equal those of the same run made alone."""
    shared = tmp_path / "D"
    started, go = threading.Event(), threading.Event()

    def hold(accepted: int, tried: int) -> None:
        if not started.is_set():
            started.set()
            go.wait(60)

    thread = threading.Thread(
        target=generate, args=(Settings(servers=tiny_registry, allow_fallback=True, out=shared, n=30, seed=first), hold)
    )
    thread.start()
    try:
        assert started.wait(60)
        result = cli(
            "generate", "--servers", tiny_registry, "--allow-fallback", "--out", shared, "--n", 20, "--seed", second
        )
        assert result.exit_code == 3, result.output
        assert "is being written by pid" in result.output and "wait for it to end" in result.output
        assert "Traceback" not in result.output
        manifest = json.loads((shared / MANIFEST).read_text())
        assert manifest["status"] == "running" and manifest["identity"]["seed"] == first
    finally:
        go.set()
        thread.join(120)
    alone = tmp_path / "alone"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=alone, n=30, seed=first))
    same_files(shared, alone)
    assert not (shared / LOCK).exists()  # released on exit


def test_the_lock_names_its_holder_and_a_dead_holder_is_no_obstacle(tiny_registry, tmp_path):
    """Another process holds the folder: writers and readers refuse naming its pid and command; once it
    is killed (its lock file left behind), the folder is free again."""
    folder = tmp_path / "D"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=folder, n=8, seed=1))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import sys; from pathlib import Path; from synth.rundir import RunLock\n"
                f"with RunLock(Path({str(folder)!r}), 'synth generate -n 3000 --seed 5 --out D'):\n"
                "    print('locked', flush=True); sys.stdin.read()"
            ),
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert writer_of(folder) == f"pid {holder.pid} (synth generate -n 3000 --seed 5 --out D)"
        with pytest.raises(RunFolderError, match=f"pid {holder.pid}"):
            RunLock(folder).acquire()
        result = cli("generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 8, "--seed", 1)
        assert result.exit_code == 3 and f"pid {holder.pid} (synth generate -n 3000 --seed 5" in result.output
        for command in (["card"], ["export"], ["push", "--repo", "me/x"], ["review"], ["review", "apply"]):
            result = cli(*command, folder)
            assert result.exit_code == 3, (command, result.output)
            assert f"is being written by pid {holder.pid}" in result.output, command
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert (folder / LOCK).exists() and writer_of(folder) is None  # stale: the pid is gone, the OS dropped the lock
    result = cli("generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 8, "--seed", 1)
    assert result.exit_code == 0, result.output


def test_a_different_run_into_a_used_folder_needs_overwrite(tiny_registry, tmp_path):
    folder = tmp_path / "D"
    assert (
        cli(
            "generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 10, "--seed", 5
        ).exit_code
        == 0
    )
    before = stored(folder / "conversations.jsonl").read_bytes()
    result = cli("generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 10, "--seed", 6)
    assert result.exit_code == 3 and "holds a different run (seed 5 there, 6 asked)" in result.output
    assert "--overwrite" in result.output and stored(folder / "conversations.jsonl").read_bytes() == before
    result = cli(
        "generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 10, "--seed", 6, "--resume"
    )
    assert result.exit_code == 3 and "--resume only continues the same run" in result.output
    other = tmp_path / "other_registry"
    other.mkdir()
    for f in tiny_registry.iterdir():
        if f.is_file():
            (other / f.name).write_bytes(f.read_bytes())
    next(p for p in other.iterdir() if p.suffix == ".json").write_text(
        next(p for p in other.iterdir() if p.suffix == ".json").read_text() + "\n"
    )
    result = cli("generate", "--servers", other, "--allow-fallback", "--out", folder, "--n", 10, "--seed", 5)
    assert result.exit_code == 3 and "other registry content" in result.output
    result = cli(
        "generate",
        "--servers",
        tiny_registry,
        "--allow-fallback",
        "--out",
        folder,
        "--n",
        10,
        "--seed",
        6,
        "--overwrite",
    )
    assert result.exit_code == 0, result.output
    alone = tmp_path / "alone"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=alone, n=10, seed=6))
    same_files(folder, alone)
    # the same run again is always allowed: that is how a run is made again or finished
    assert (
        cli(
            "generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 10, "--seed", 6
        ).exit_code
        == 0
    )
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "train.jsonl").write_text("{}\n")
    result = cli("generate", "--servers", tiny_registry, "--allow-fallback", "--out", loose, "--n", 10)
    assert result.exit_code == 3 and "no manifest.json" in result.output


def test_an_unfinished_run_is_refused_by_readers_and_resume_finishes_it_offline(tiny_registry, tmp_path):
    """A run that stopped part way keeps status "running": export, card, push and review refuse it and
    say how to finish it; --resume on the offline backend finishes it to the bytes of a whole run."""
    folder = tmp_path / "D"

    class Killed(Exception):
        pass

    def die(accepted: int, tried: int) -> None:
        if accepted >= 4:
            raise Killed()

    with pytest.raises(Killed):
        generate(Settings(servers=tiny_registry, allow_fallback=True, out=folder, n=12, seed=3), die)
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["status"] == "running" and stored(folder / "train.jsonl").exists()
    for command in (
        ["card"],
        ["export"],
        ["push", "--repo", "me/x"],
        ["review"],
        ["review", "apply"],
        ["review", "queue"],
    ):
        result = cli(*command, folder)
        assert result.exit_code == 3, (command, result.output)
        assert "holds an unfinished run" in result.output and "--resume" in result.output, command
    result = cli("eval", folder, "--model", "m", "--base-url", "http://127.0.0.1:1/v1")
    assert result.exit_code == 3 and "unfinished run" in result.output
    result = cli(
        "generate", "--servers", tiny_registry, "--allow-fallback", "--out", folder, "--n", 12, "--seed", 3, "--resume"
    )
    assert result.exit_code == 0, result.output
    assert json.loads((folder / MANIFEST).read_text())["status"] == "complete"
    alone = tmp_path / "alone"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=alone, n=12, seed=3))
    same_files(folder, alone)
    assert cli("card", folder).exit_code == 0


def test_resume_needs_a_run_to_continue(tiny_registry, tmp_path):
    result = cli(
        "generate", "--servers", tiny_registry, "--allow-fallback", "--out", tmp_path / "none", "--n", 5, "--resume"
    )
    assert result.exit_code == 3 and "holds no run to continue" in result.output
    result = cli(
        "generate", "--servers", tiny_registry, "--allow-fallback", "--out", tmp_path / "x", "--resume", "--overwrite"
    )
    assert result.exit_code == 2 and "give one of them" in result.output


def test_the_lock_is_reentrant_in_one_thread_and_released_by_the_last_holder(tmp_path):
    folder = tmp_path / "D"
    with RunLock(folder, "outer"):
        with RunLock(folder, "inner"):
            assert json.loads((folder / LOCK).read_text())["command"] == "outer"
        assert (folder / LOCK).exists()
        refused: list[BaseException] = []

        def other() -> None:
            try:
                RunLock(folder).acquire()
            except RunFolderError as exc:
                refused.append(exc)

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert refused and f"pid {os.getpid()} (outer)" in str(refused[0])
    assert not (folder / LOCK).exists()


def test_readers_accept_a_finished_run(tiny_registry, tmp_path):
    folder = tmp_path / "D"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=folder, n=6, seed=2))
    assert RunDir(folder).finished().status == "complete"
    assert cli("card", folder).exit_code == 0
    assert not (folder / LOCK).exists()


def test_review_from_a_pipe_reads_the_text_after_n_as_the_note(tiny_registry, tmp_path):
    from synth.review.queue import read_queue

    folder = tmp_path / "D"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=folder, n=6, seed=2, audit=1.0))
    assert len(read_queue(folder)) >= 2
    result = runner.invoke(
        app, ["review", str(folder), "--reviewer", "ann"], input="n\nlooks fine to me\na\nn same line note\nr\nq\n"
    )
    assert result.exit_code == 0, result.output
    assert "unknown key" not in result.output
    first, second = read_queue(folder)[:2]
    assert (first.note, first.decision) == ("looks fine to me", "accept")
    assert (second.note, second.decision) == ("same line note", "reject")


def test_a_run_that_accepts_nothing_exits_one(tmp_path):
    registry = tmp_path / "reg"
    registry.mkdir()
    (registry / "server.json").write_text("this is not JSON")
    result = cli("generate", "--servers", registry, "--out", tmp_path / "out", "--n", 5)
    assert result.exit_code == 1, result.output
    assert "no conversation was accepted" in result.output


def test_max_reject_turns_a_mostly_rejected_run_into_exit_one(tiny_registry, tmp_path):
    run = ("generate", "--servers", tiny_registry, "--allow-fallback", "--out", tmp_path / "a", "--n", 25, "--seed", 2)
    done = cli(*run)
    assert done.exit_code == 0, done.output
    funnel = json.loads((tmp_path / "a" / MANIFEST).read_text())["funnel"]
    share = (funnel["scenarios"] - funnel["accepted"]) / funnel["scenarios"]
    assert share > 0  # some scenarios are rejected (dedup, gates) in any run
    result = cli(*run, "--max-reject", round(share / 2, 4))
    assert result.exit_code == 1 and "above --max-reject" in result.output
    assert cli(*run, "--max-reject", 0.99).exit_code == 0


def test_making_a_reviewed_run_again_needs_overwrite(tiny_registry, tmp_path):
    folder = tmp_path / "D"
    args = (
        "generate",
        "--servers",
        tiny_registry,
        "--allow-fallback",
        "--out",
        folder,
        "--n",
        6,
        "--seed",
        2,
        "--audit",
        1.0,
    )
    assert cli(*args).exit_code == 0
    result = runner.invoke(app, ["review", str(folder), "--reviewer", "ann"], input="a\nq\n")
    assert result.exit_code == 0, result.output
    assert cli("review", "apply", folder).exit_code == 0
    assert (folder / "review_log.jsonl").exists()
    result = cli(*args)
    assert result.exit_code == 3 and "review decisions applied" in result.output
    result = cli(*args, "--overwrite")
    assert result.exit_code == 0 and not (folder / "review_log.jsonl").exists()


def test_a_run_kept_inside_its_registry_folder_is_still_the_same_run(tiny_registry, tmp_path):
    registry = tmp_path / "reg"
    shutil.copytree(tiny_registry, registry)
    out = registry / "runs" / "one"
    assert cli("generate", "--servers", registry, "--out", out, "--n", 5, "--seed", 1).exit_code == 0
    result = cli("generate", "--servers", registry, "--out", out, "--n", 5, "--seed", 1, "--resume")
    assert result.exit_code == 0, result.output


def test_every_run_file_line_is_read_by_one_parser_that_names_file_and_line(tmp_path):
    """The review queue, the tool table and any JSONL run file share rundir's parser: a bad line is a
    ConfigError with the file, the line number and what the file should hold."""
    from synth.errors import ConfigError
    from synth.review.queue import iter_queue
    from synth.rundir import QUEUE, append_jsonl, read_jsonl

    (tmp_path / QUEUE).write_text("\n{not json\n", encoding="utf-8")  # a blank line is skipped, but counted
    with pytest.raises(
        ConfigError, match=r"review_queue\.jsonl:2: not JSON .*each line of a review queue must be one JSON"
    ):
        list(iter_queue(tmp_path))
    with pytest.raises(ConfigError, match=r"review_queue\.jsonl:2: not JSON"):
        list(read_jsonl(tmp_path / QUEUE))
    append_jsonl(tmp_path / "log.jsonl", [{"a": 1}])
    append_jsonl(tmp_path / "log.jsonl", [{"b": "é"}])  # added at the end, UTF-8 kept
    assert (tmp_path / "log.jsonl").read_text(encoding="utf-8") == '{"a": 1}\n{"b": "é"}\n'
