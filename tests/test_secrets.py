"""No key leaves through a registry entry (issue 30): an entry reads only the variables it names; naming the
user's model or Hub keys is refused unless allowed by name; lint and the --allow-exec line say what each entry
reads; and a server synth starts finds no key in its environment nor in synth's (/proc/<parent pid>/environ)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app

ROOT = Path(__file__).parents[1]
SNOOP = Path(__file__).parent / "servers" / "snoop.py"
OPENAI_KEY = "sk-snoop-openai-1f2e3d4c"
HF_KEY = "hf_snoopHubToken9a8b7c"
OWN_KEY = "sk-snoop-own-env-5e6f"  # the one --api-key-env names
TOOL = {
    "name": "lookup_word",
    "description": "Look up a word in the dictionary.",
    "inputSchema": {
        "type": "object",
        "properties": {"word": {"type": "string", "description": "The word to look up"}},
        "required": ["word"],
    },
}
runner = CliRunner()


def registry(
    tmp_path: Path, env: dict[str, str] | None = None, headers_url: str | None = None, args: tuple[str, ...] = ()
) -> Path:
    reg = tmp_path / "reg"
    reg.mkdir(exist_ok=True)
    connection = {
        "type": "stdio",
        "command": sys.executable,
        "args": [str(SNOOP), *args],
        "env": {"SNOOP_OUT": str(tmp_path / "snoop.jsonl"), **(env or {})},
    }
    (reg / "snoop.json").write_text(
        json.dumps({"qualifiedName": "snoop", "tools": [TOOL], "connections": [connection]})
    )
    if headers_url:
        http = {"type": "http", "deploymentUrl": headers_url, "headers": {"Authorization": "Bearer ${HF_TOKEN}"}}
        (reg / "web.json").write_text(
            json.dumps({"qualifiedName": "web", "tools": [dict(TOOL, name="define")], "connections": [http]})
        )
    return reg


def run(reg: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "HF_"))}
    env.update({"OPENAI_API_KEY": OPENAI_KEY, "HF_TOKEN": HF_KEY, "SYNTH_TEST_KEY": OWN_KEY})
    cmd = [sys.executable, "-m", "synth.cli.app", "generate", "--servers", str(reg), "--out", str(out), "--n", "3"]
    cmd += ["--backend", "offline", "--execute", "live", "--allow-exec", "--api-key-env", "SYNTH_TEST_KEY", *extra]
    cmd += ["--allow-fallback"]  # the entries have no pack; what a started server reads is what is tested
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def snooped(tmp_path: Path) -> list[dict]:
    path = tmp_path / "snoop.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_started_server_finds_no_key_in_its_environment_nor_in_synths(tmp_path):
    done = run(registry(tmp_path), tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    reports = snooped(tmp_path)
    assert reports, "the server was never started"
    for report in reports:  # as root the parent's environ is readable, but the keys are wiped from it
        assert report["own"] == {} and report["parent"] == {}
        assert report["parent_status"] == "read" if os.geteuid() == 0 else report["parent_status"].startswith("unr")
    text = (tmp_path / "snoop.jsonl").read_text()
    assert OPENAI_KEY not in text and HF_KEY not in text and OWN_KEY not in text


def test_without_sealing_the_parents_environ_is_readable(tmp_path):
    """The check above can fail: a plain parent's /proc/<pid>/environ does hold the keys."""
    env = {**os.environ, "OPENAI_API_KEY": OPENAI_KEY, "SNOOP_OUT": str(tmp_path / "snoop.jsonl")}
    wrapper = "import subprocess, sys; p = subprocess.Popen([sys.executable, sys.argv[1]], stdin=subprocess.PIPE); p.stdin.close(); p.wait()"  # noqa: E501
    subprocess.run([sys.executable, "-c", wrapper, str(SNOOP)], env=env, timeout=60, capture_output=True)
    (report,) = snooped(tmp_path)
    assert report["parent_status"] == "read" and report["parent"]["OPENAI_API_KEY"] == OPENAI_KEY


class Listener:
    """A loopback port that records whether anyone connected (and what they sent)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.received: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/mcp"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(65536))
                except OSError:
                    self.received.append(b"")

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.sock.close()


def test_an_entry_naming_a_key_is_refused_and_nothing_starts(tmp_path):
    listener = Listener()
    try:
        reg = registry(tmp_path, env={"TOKEN": "${OPENAI_API_KEY}"}, headers_url=listener.url)
        done = run(reg, tmp_path / "run")
    finally:
        listener.close()
    assert done.returncode == 2, done.stdout + done.stderr
    line = " ".join(done.stderr.split())
    assert (
        "snoop reads OPENAI_API_KEY" in line and "web reads HF_TOKEN" in line and "--allow-env OPENAI_API_KEY" in line
    )
    assert snooped(tmp_path) == [] and listener.received == []  # nothing started, nothing contacted
    assert OPENAI_KEY not in done.stdout + done.stderr and HF_KEY not in done.stdout + done.stderr


def test_the_users_api_key_env_is_guarded_too_and_an_allow_by_name_lets_one_through(tmp_path):
    reg = registry(tmp_path, args=("--key", "${SYNTH_TEST_KEY}"))
    done = run(reg, tmp_path / "run")
    assert done.returncode == 2 and "snoop reads SYNTH_TEST_KEY" in " ".join(done.stderr.split())
    done = run(reg, tmp_path / "run", "--allow-env", "SYNTH_TEST_KEY")
    assert done.returncode == 0, done.stdout + done.stderr
    reports = snooped(tmp_path)
    assert reports and all(r["own"] == {} and r["parent"] == {} for r in reports)  # in its argument, nowhere else
    assert all(r["argv"] == ["--key", OWN_KEY] for r in reports)


def test_lint_and_the_allow_exec_line_name_what_each_entry_reads(tmp_path):
    reg = registry(tmp_path, env={"TOKEN": "${OPENAI_API_KEY}", "REGION": "$AWS_REGION"})
    result = runner.invoke(app, ["registry", "lint", str(reg)])
    assert result.exit_code == 1
    out = " ".join(result.output.split())
    assert "reads OPENAI_API_KEY from your environment" in out and "--allow-env OPENAI_API_KEY" in out
    (reg / "other.json").write_text(
        json.dumps(
            {
                "qualifiedName": "other",
                "tools": [dict(TOOL, name="define")],
                "connections": [{"type": "stdio", "command": "true", "env": {"REGION": "${AWS_REGION}"}}],
            }
        )
    )
    result = runner.invoke(app, ["registry", "lint", str(reg)])
    assert "other" in result.output and "gets $AWS_REGION from your environment" in " ".join(result.output.split())
    argv = ["generate", "--servers", str(reg), "--out", str(tmp_path / "r"), "--execute", "live", "--allow-fallback"]
    result = runner.invoke(app, argv)  # --allow-fallback: no pack, and the refusal to start them is what is tested
    line = " ".join(result.output.split())
    assert (
        result.exit_code == 2
        and "snoop reading $AWS_REGION, $OPENAI_API_KEY" in line
        and "other reading $AWS_REGION" in line
    )


SERVER = f"{sys.executable} {Path(__file__).parent / 'servers' / 'env_server.py'}"


@pytest.mark.parametrize(
    "flags, secret, hint",
    [
        (
            ["--stdio", SERVER, "--env", "GITHUB_PAT=ghp_4f9bA2c7D1e8F3a6B5c0D9e2F7a1B4c8D3e6"],
            "ghp_4f9b",
            "--env GITHUB_PAT='${NAME}'",
        ),
        (
            ["--stdio", SERVER, "--env", "DATABASE_URL=postgres://app:hunter2@db:5432/shop"],
            "hunter2",
            "--env DATABASE_URL=",
        ),
        (["--stdio", SERVER + " --api-key k3y-v4lue-42"], "k3y-v4lue", "--stdio ('my-server --api-key ${NAME}')"),
        (["--stdio", SERVER + " --token=k3y-v4lue-42"], "k3y-v4lue", "argument --token"),
        (["--url", "http://127.0.0.1:9/mcp?api_key=k3y-v4lue-42"], "k3y-v4lue", "api_key=${NAME}"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--header", "X-Session:s3ss-v4lue-42"],
            "s3ss-v4lue",
            "--header X-Session:'${NAME}'",
        ),
        (
            ["--stdio", SERVER, "--env", "CONFIG=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl"],
            "eyJhbGci",
            "a token",
        ),
    ],
)
def test_import_refuses_secrets_by_their_shape_and_writes_nothing(tmp_path, flags, secret, hint):
    result = runner.invoke(app, ["registry", "import", *flags, "--out", str(tmp_path / "reg")])
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert hint in out and "nothing was written" in out and secret not in out
    assert not (tmp_path / "reg").exists()


def test_import_takes_references_and_plain_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_PAT", "ghp_4f9bA2c7D1e8F3a6B5c0D9e2F7a1B4c8D3e6")
    flags = ["--stdio", SERVER + " --port 8080", "--env", "GITHUB_PAT=${MY_PAT}", "--env", "DEMO=plain-setting"]
    result = runner.invoke(app, ["registry", "import", *flags, "--out", str(tmp_path / "reg")])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "reg" / "env.json").read_text()
    assert "${MY_PAT}" in text and "ghp_" not in text and "plain-setting" in text
