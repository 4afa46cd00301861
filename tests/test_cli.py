"""The CLI as a user meets it: help, a run with its summary, clear errors, lint exit codes."""

from __future__ import annotations

import json
import shutil

from typer.testing import CliRunner

from synth.cli.app import app

runner = CliRunner()


def test_help_reads_well():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "generate" in result.output and "registry" in result.output
    result = runner.invoke(app, ["generate", "--help"])
    assert result.exit_code == 0 and "--servers" in result.output and "--split" in result.output


def test_generate_end_to_end_prints_a_summary(tiny_registry, tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(
        app,
        [
            "generate",
            "--servers",
            str(tiny_registry),
            "--allow-fallback",
            "--out",
            str(out),
            "--n",
            "25",
            "--seed",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "25 conversations accepted" in result.output
    assert "tool coverage" in result.output and str(out) in result.output.replace("\n", "")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["n"] == 25 and manifest["config"]["seed"] == 2


def test_bad_split_and_missing_folder_are_clear_errors(tiny_registry, tmp_path):
    result = runner.invoke(
        app,
        ["generate", "--servers", str(tiny_registry), "--allow-fallback", "--out", str(tmp_path), "--split", "0.5,0.1"],
    )
    assert result.exit_code == 2 and "0.8,0.1,0.1" in result.output
    result = runner.invoke(app, ["generate", "--servers", str(tmp_path / "nope"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "nope" in result.output


def test_lint_exits_one_only_for_errors(tiny_registry, tmp_path):
    clean = tmp_path / "clean"
    shutil.copytree(tiny_registry, clean)
    result = runner.invoke(app, ["registry", "lint", str(clean)])
    assert result.exit_code == 0, result.output
    (clean / "broken.json").write_text('{"qualifiedName": "x/broken", "tools": [')
    result = runner.invoke(app, ["registry", "lint", str(clean)])
    assert result.exit_code == 1
    line = next(x for x in result.output.splitlines() if "broken.json" in x)
    assert "error" in line and "fix" in line


def test_a_bad_file_does_not_stop_generation(tiny_registry, tmp_path):
    folder = tmp_path / "reg"
    shutil.copytree(tiny_registry, folder)
    (folder / "broken.json").write_text("{ not json")
    out = tmp_path / "run"
    result = runner.invoke(app, ["generate", "--servers", str(folder), "--out", str(out), "--n", "10"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert any("broken.json" in e for e in manifest["registry"]["errors"])


def test_every_package_is_shipped_in_the_wheel():
    """pytest imports synth from the checkout, so a package missing from pyproject would pass every other test."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).parents[1]
    listed = set(tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(root).parts) for p in (root / "synth").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_help_keeps_bracketed_names_and_flags_show_no_value():
    result = runner.invoke(app, ["generate", "--help"], env={"COLUMNS": "200"})
    text = " ".join(result.output.split())
    assert "[llm], [roles.<role>] and [prices]" in text
    assert "<bool>" not in result.output


def test_an_empty_file_is_called_empty_and_one_error_is_singular(tmp_path):
    folder = tmp_path / "reg"
    folder.mkdir()
    (folder / "empty.json").write_text("  \n")
    result = runner.invoke(app, ["registry", "lint", str(folder)])
    assert result.exit_code == 1
    assert "empty file" in result.output and "not valid JSON" not in result.output
    assert "1 error, 0 warnings" in result.output


def test_a_dry_run_says_how_many_scenarios_a_run_may_start(tiny_registry, tmp_path):
    run = ["generate", "--servers", str(tiny_registry), "--out", str(tmp_path / "d"), "--n", "20"]
    llm = "--base-url http://127.0.0.1:1/v1 --model gpt-4o-mini --dry-run".split()
    result = runner.invoke(app, [*run, *llm], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "25 scenarios" in text and "starts up to 60" in text and "2n + 20" in text
