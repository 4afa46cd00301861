"""``synth pack build`` against a loopback OpenAI-compatible server that plays the pack-writing model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from openai_server import OpenAIServer

from synth.packs.load import load_packs

ROOT = Path(__file__).parents[1]
WEATHER = ROOT / "registry" / "packs" / "HarunGuclu__weather_mcp.pack.yaml"


def responder(request: dict) -> dict:
    """The weather server gets the shipped pack; geo-news a pack with one broken tool; fetch gets prose."""
    first = next(m for m in request["messages"] if m["role"] == "user")
    server = json.loads(first["content"].splitlines()[1])  # the server's JSON, on the line after the first
    names = [t["name"] for t in server["tools"]]
    if "get_weather_forecast_tool" in names:
        shipped = yaml.safe_load(WEATHER.read_text(encoding="utf-8"))
        return {"content": json.dumps({key: shipped[key] for key in ("tools", "world") if key in shipped})}
    if len(names) == 2:
        good, bad = names
        entry = {
            "goals": [
                "What is going on in {country} today?",
                "Any big news this morning?",
                "Catch me up on the headlines in {country}, please.",
            ],
            "values": {"country": ["us", "gb", "tr", "de"]},
            "ask": {"country": "Which country?"},
            "results": [{"articles": [{"title": "{fake:sentence}"}]}],
            "answers": ["Top story: {r.articles.0.title}", "The lead headline is {r.articles.0.title}"],
        }
        return {
            "content": json.dumps(
                {
                    "tools": {
                        good: entry,
                        bad: {**entry, "values": {"no_such_param": ["x"]}},  # also no values for 'query'
                    }
                }
            )
        }
    return {"content": "I would rather write a poem about fetching."}


def run(*args: str, base_url: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["SYNTH_TEST_KEY"] = "sk-test-pack-build-secret"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "synth.cli.app",
            "pack",
            *args,
            "--base-url",
            base_url,
            "--api-key-env",
            "SYNTH_TEST_KEY",
            "--model",
            "gpt-4.1-mini",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pack_build_writes_checks_and_resumes(tmp_path: Path):
    reg = tmp_path / "reg"
    reg.mkdir()
    for stem in ("HarunGuclu__weather_mcp", "Ymuberra__geo-news-mcp", "kazuph__mcp-fetch"):
        shutil.copy(ROOT / "registry" / f"{stem}.json", reg)
    with OpenAIServer(responder) as server:
        dry = run("build", "--servers", str(reg), "--dry-run", base_url=server.base_url)
        assert dry.returncode == 0 and "about 6 requests for 3 servers" in dry.stdout and server.count() == 0
        first = run("build", "--servers", str(reg), base_url=server.base_url)
        assert first.returncode == 1, first.stdout + first.stderr
        assert "2 packs written, 0 kept as they were, 1 failed" in first.stderr
        assert "@kazuph/mcp-fetch: no pack: no tool's entry passed the checker" in first.stderr
        assert "the answer is not a JSON object" in first.stdout or "no JSON object found" in first.stdout
        calls = server.count()
        # weather: one; geo-news: its broken tool asked twice more; fetch: the prose answer asked twice more
        assert calls == 1 + 3 + 3
        again = run("build", "--servers", str(reg), base_url=server.base_url)
        assert "0 packs written, 2 kept as they were, 1 failed" in again.stderr
        assert server.count() == calls  # the failed server's answers come from the cache: nothing paid twice
    packs = load_packs(reg)
    assert not packs.problems
    weather = packs.get("@HarunGuclu/weather_mcp")
    assert weather is not None and len(weather.tools) == 4
    news = (reg / "packs" / "Ymuberra__geo-news-mcp.pack.yaml").read_text(encoding="utf-8")
    assert "# Left out, served by the fallback until fixed (their last errors follow): search_news" in news
    assert "#   search_news, values/no_such_param: 'no_such_param' is not a parameter of search_news [params]" in news
    assert len(packs.get("@Ymuberra/geo-news-mcp").tools) == 1
    for path in reg.rglob("*"):  # the key never reaches a file
        if path.is_file():
            assert b"sk-test-pack-build-secret" not in path.read_bytes()
    checked = subprocess.run(
        [sys.executable, "-m", "synth.cli.app", "pack", "check", str(reg), "--errors-only"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
