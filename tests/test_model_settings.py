"""Settings every model command honours (generate, pack build, eval): --timeout, --max-attempts, --config."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import typer
from openai_server import OpenAIServer
from test_pack_build import ROOT, responder, run
from typer.testing import CliRunner

from synth.cli.app import app
from synth.llm.openai_wire import ADVICE

COMMANDS = (("generate",), ("pack", "build"), ("eval",))


def _flags(path: tuple[str, ...]) -> set[str]:
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in getattr(param, "opts", [])}


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_flag_the_advice_names_exists_on_every_model_command(path):
    named = {flag for advice in ADVICE.values() for flag in re.findall(r"--[a-z][a-z-]*", advice)}
    assert {"--timeout", "--max-attempts", "--concurrency", "--rpm", "--tpm"} <= named
    assert named <= _flags(path), sorted(named - _flags(path))
    assert {"--timeout", "--max-attempts", "--config"} <= _flags(path)


def test_pack_build_waits_as_long_as_it_is_told(tmp_path: Path):
    """An endpoint slower than the timeout fails with advice naming --timeout; the same endpoint within the
    timeout given by the flag or by synth.toml gets its pack."""
    reg = tmp_path / "reg"
    reg.mkdir()
    shutil.copy(ROOT / "registry" / "HarunGuclu__weather_mcp.json", reg)
    with OpenAIServer(responder, latency_ms=2500) as server:
        short = run("build", "--servers", str(reg), "--timeout", "1", "--max-attempts", "1", base_url=server.base_url)
        assert short.returncode == 1, short.stderr
        assert "no answer within 1 s; raise --timeout" in short.stderr
        assert server.count() == 1  # --max-attempts 1: no retry
        toml = tmp_path / "synth.toml"
        toml.write_text("[llm]\ntimeout = 1.5\nmax_attempts = 2\n", encoding="utf-8")
        configured = run("build", "--servers", str(reg), "--config", str(toml), base_url=server.base_url)
        assert "no answer within 1.5 s" in configured.stderr and server.count() == 3  # two attempts, from the file
        long = run("build", "--servers", str(reg), "--timeout", "10", base_url=server.base_url)
        assert long.returncode == 0, long.stderr
        assert "1 packs written" in long.stderr
    assert (reg / "packs" / "HarunGuclu__weather_mcp.pack.yaml").exists()


def test_an_endpoint_slower_than_the_default_timeout_gets_its_packs_within_the_configured_one(tmp_path, monkeypatch):
    """The default scaled down (300 s to 1 s) so the test is quick: without a setting the build gives up on a
    2.5 s endpoint; with --timeout or [llm] timeout above that, it gets every pack."""
    import synth.cli.pack

    monkeypatch.setattr(synth.cli.pack, "PACK_TIMEOUT", 1.0)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SYNTH_TEST_KEY", "sk-test")
    reg = tmp_path / "reg"
    reg.mkdir()
    shutil.copy(ROOT / "registry" / "HarunGuclu__weather_mcp.json", reg)
    runner = CliRunner()
    with OpenAIServer(responder, latency_ms=2500) as server:
        args = [
            "pack",
            "build",
            "--servers",
            str(reg),
            "--base-url",
            server.base_url,
            "--api-key-env",
            "SYNTH_TEST_KEY",
        ]
        default = runner.invoke(app, [*args, "--max-attempts", "1"])
        assert default.exit_code == 1 and "no answer within 1 s" in default.output
        (tmp_path / "synth.toml").write_text("[llm]\ntimeout = 8\n", encoding="utf-8")  # found in the working folder
        configured = runner.invoke(app, args)
        assert configured.exit_code == 0, configured.output
    assert (reg / "packs" / "HarunGuclu__weather_mcp.pack.yaml").exists()
