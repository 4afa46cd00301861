"""What a newcomer trips on in the first hour (issue 31): files others cannot read, folders left by a
refused run, and a run of mostly dead servers that says it went well."""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app

runner = CliRunner()


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def modes(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` (hidden ones too) with its permission bits."""
    return {p.relative_to(folder).as_posix(): oct(stat.S_IMODE(p.stat().st_mode)) for p in sorted(folder.rglob("*"))}


def test_every_file_a_run_or_an_export_writes_is_readable_by_others_under_umask_022(
    store_registry, tmp_path, umask_022
):
    """A live store run (tasks included), then every export, the card and derive."""
    run = tmp_path / "outputs" / "run"
    live = ["--execute", "live", "--allow-exec"]
    commands = [
        ["generate", "--servers", str(store_registry), "-n", "12", "--seed", "8", "--out", str(run), *live],
        ["export", str(run), "--format", "jsonl", "--out", str(tmp_path / "plain")],
        ["export", str(run), "--out", str(tmp_path / "hub")],
        ["export", str(run)],
        ["card", str(run), "--out", str(tmp_path / "card")],
        ["derive", str(run / "train.jsonl"), "--out", str(tmp_path / "derived")],
    ]
    for argv in commands:
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, (argv, result.output)
    assert any((run / "tasks").rglob("verify.py")) and (tmp_path / "plain" / "conversations.jsonl").is_file()
    card = " ".join((run / "README.md").read_text(encoding="utf-8").split())
    assert "--execute live --allow-exec" in card  # the command that made it, as it was given
    assert "byte-identical" not in card and "calls them again" in card  # no promise a live run cannot keep
    assert (run / "plots" / "tool_results.png").stat().st_size > 5000
    for folder in ("outputs", "plain", "hub", "card", "derived"):
        found = modes(tmp_path / folder)
        assert len(found) > 3, folder
        for name, mode in found.items():
            want = "0o755" if (tmp_path / folder / name).is_dir() else "0o644"
            assert mode == want, f"{folder}/{name} is {mode}, not {want}"


def test_a_refused_run_leaves_no_folder_behind(tiny_registry, tmp_path):
    reg = tmp_path / "reg"
    shutil.copytree(tiny_registry, reg)
    (reg / "runs.json").write_text(
        json.dumps(
            {
                "qualifiedName": "runs",
                "tools": [{"name": "ping", "description": "Ping.", "inputSchema": {"type": "object"}}],
                "connections": [{"type": "stdio", "command": "true"}],
            }
        )
    )
    out = tmp_path / "outputs" / "x"
    refused = runner.invoke(app, ["generate", "--servers", str(reg), "--out", str(out), "--execute", "live"])
    assert refused.exit_code == 2 and "--allow-exec" in refused.output
    bad = runner.invoke(app, ["generate", "--servers", str(reg), "--out", str(out), "--storage", "tiny"])
    assert bad.exit_code == 2 and "--storage 'tiny'" in bad.output
    assert not (tmp_path / "outputs").exists()
    (tmp_path / "outputs").mkdir()  # a folder that was there before stays
    runner.invoke(app, ["generate", "--servers", str(reg), "--out", str(out), "--execute", "live"])
    assert (tmp_path / "outputs").is_dir() and not out.exists()


def test_a_run_whose_servers_are_mostly_dead_exits_1_naming_them_and_why(tiny_registry, tmp_path):
    """Issue 31: 3 of 4 servers dead ran to the end and exited 0 with most scenarios rejected."""
    reg = tmp_path / "reg"
    (reg / "packs").mkdir(parents=True)
    shutil.copy(tiny_registry / "HarunGuclu__weather_mcp.json", reg)  # simulated: it has no connection
    shutil.copy(tiny_registry / "packs" / "HarunGuclu__weather_mcp.pack.yaml", reg / "packs")
    gone = str(tmp_path / "no-such-server")
    for name in ("alpha", "beta", "gamma"):
        entry = {
            "qualifiedName": name,
            "tools": [
                {
                    "name": f"{name}_lookup",
                    "description": "Look a word up.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"word": {"type": "string", "description": "The word"}},
                        "required": ["word"],
                    },
                }
            ],
            "connections": [{"type": "stdio", "command": gone}],
        }
        (reg / f"{name}.json").write_text(json.dumps(entry))
    # the dead entries have no pack: --allow-fallback plans their scenarios, so their deaths are seen (issue 39)
    argv = ["generate", "--servers", str(reg), "-n", "12", "--execute", "live", "--allow-exec", "--allow-fallback"]
    result = runner.invoke(app, [*argv, "--out", str(tmp_path / "run")], env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert "3 of 4 servers could not be reached" in said
    for name in ("alpha", "beta", "gamma"):
        assert f"{name}: cannot start the server: command not found" in said
    assert "--max-reject 1" in said
    kept = runner.invoke(app, [*argv, "--out", str(tmp_path / "kept"), "--max-reject", "1"])
    assert kept.exit_code == 0, kept.output  # the user can accept such a run on purpose


def test_eval_and_tasks_check_report_progress_with_a_total(tmp_path):
    """The bar's feed: every finished job is told, out of a total known up front (so time left can show)."""
    import asyncio

    from synth.evaluate.run import bounded

    heard: list[int] = []

    async def job(n: int) -> int:
        await asyncio.sleep(0.001 * (n % 3))
        return n

    assert asyncio.run(bounded([job(n) for n in range(7)], 2, heard.append)) == list(range(7))
    assert heard == [1, 2, 3, 4, 5, 6, 7]
