"""Runs against endpoints that are down or flaky tell the truth (issue 14): a dead endpoint stops the run
at once with one line, ``synth eval`` does not grade an outage, retries and waits are reported."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import pytest
from fake_agents import respond
from openai_server import Faults, OpenAIServer, echo_responder
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.errors import BackendError, EndpointDown
from synth.llm.base import ChatRequest
from synth.llm.openai_backend import OpenAIBackend
from synth.pipeline import generate

runner = CliRunner()


def dead_url() -> str:
    """A loopback port nothing listens on (bound, then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"


def cli(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_a_dead_endpoint_stops_the_run_at_once_with_one_line(tiny_registry, tmp_path):
    url = dead_url()
    start = time.monotonic()
    result = cli(
        "generate",
        "--servers",
        tiny_registry,
        "--out",
        tmp_path / "d",
        "--n",
        30,
        "--base-url",
        url,
        "--model",
        "m",
        "--concurrency",
        2,
    )
    took = time.monotonic() - start
    assert result.exit_code == 4, result.output
    assert f"{url}/chat/completions: connection refused" in result.output and "check --base-url" in result.output
    assert "timed out" not in result.output.lower() and "Traceback" not in result.output
    assert "stopped part way" in result.output and "--resume" in result.output
    assert took < 12, took
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and "connection refused" in manifest["stopped"]  # readers refuse it
    assert cli("card", tmp_path / "d").exit_code == 3


def test_refusals_after_the_endpoint_answered_fail_requests_not_the_run():
    async def go() -> None:
        with OpenAIServer(echo_responder) as server:
            backend = OpenAIBackend(base_url=server.base_url, model="m", max_attempts=2, backoff=0.01)
            request = ChatRequest(role="query", model="m", messages=({"role": "user", "content": "hi"},))
            await backend.complete(request)
        for _ in range(4):  # the server is gone now: each call fails, none ends the run
            with pytest.raises(BackendError) as caught:
                await backend.complete(request)
            assert not isinstance(caught.value, EndpointDown)
            assert "connection refused" in str(caught.value)
        await backend.aclose()

    asyncio.run(go())


def test_an_unreached_endpoint_is_judged_down_after_a_few_refusals():
    async def go() -> None:
        backend = OpenAIBackend(base_url=dead_url(), model="m", max_attempts=6, backoff=0.01)
        request = ChatRequest(role="query", model="m", messages=({"role": "user", "content": "hi"},))
        with pytest.raises(EndpointDown, match="connection refused"):
            await backend.complete(request)
        assert backend.stats.requests == 3
        with pytest.raises(EndpointDown):  # later calls send nothing
            await backend.complete(request)
        assert backend.stats.requests == 3
        await backend.aclose()

    asyncio.run(go())


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("outage") / "run"
    generate(
        Settings(
            servers=Path(__file__).parent / "fixtures" / "tiny_registry", allow_fallback=True, out=out, n=40, seed=4
        )
    )
    return out


def test_eval_against_a_dead_endpoint_reports_errors_not_scores(small_run, tmp_path):
    result = cli("eval", small_run, "--model", "m", "--base-url", dead_url(), "--out", tmp_path / "e")
    assert result.exit_code == 4, result.output
    report = json.loads((tmp_path / "e" / "report.json").read_text())
    assert report["items"] == 0 and report["errors"] > 0 and "wrong_count" not in report["by_diagnosis"]
    assert "requests failed" in result.output and "connection refused" in result.output
    assert "not graded" in result.output
    rows = [json.loads(x) for x in (tmp_path / "e" / "graded.jsonl").read_text().splitlines()]
    assert {r["diagnosis"] for r in rows} == {"error"} and all(r["score"] is None for r in rows)


def test_retries_429s_5xx_and_waits_are_in_requests_json_the_summary_and_the_card(tiny_registry, tmp_path):
    faults = Faults(rate_429=0.15, rate_500=0.15, rate_bad_json=0.1, retry_after_s=0.01, faulty_attempts=1)
    out = tmp_path / "flaky"
    with OpenAIServer(respond, faults=faults) as flaky:
        result = cli(
            "generate",
            "--servers",
            tiny_registry,
            "--out",
            out,
            "--n",
            8,
            "--seed",
            4,
            "--base-url",
            flaky.base_url,
            "--model",
            "synth-test",
            "--concurrency",
            4,
        )
        assert result.exit_code == 0, result.output
        outcomes = flaky.outcomes()
    entries = json.loads((out / "requests.json").read_text())
    assert len(entries) == 1
    entry = entries[0]
    assert entry["errors"].get("rate_limit", 0) == outcomes["429"] > 0
    assert entry["errors"].get("server_error", 0) == outcomes["500"] > 0
    assert entry["retries"] >= outcomes["429"] + outcomes["500"] and entry["waited_s"] > 0
    assert entry["reasks"] > 0  # the cut-off JSON answers were asked again
    assert entry["requests"] == sum(outcomes.values())
    summary = " ".join(result.output.split())
    assert f"429 rate limits {outcomes['429']}" in summary and f"5xx {outcomes['500']}" in summary
    assert "s spent waiting" in summary and "re-asks" in summary
    card = " ".join((out / "README.md").read_text().split())
    assert "**Requests and spend**" in card and "requests.json" in card and "429" not in card  # same after a resume
    manifest = (out / "manifest.json").read_text()
    assert "waited_s" not in manifest  # timing stays out of the manifest, which is byte-identical across reruns


def test_a_budget_needs_a_price_for_every_model(tiny_registry, tmp_path):
    run = ("generate", "--servers", tiny_registry, "--out", tmp_path / "b", "--n", 5, "--base-url", dead_url())
    result = cli(*run, "--model", "my-local-model", "--budget-usd", 1)
    assert result.exit_code == 2 and "--budget-usd needs a price for my-local-model" in result.output
    assert "[prices]" in result.output and not (tmp_path / "b").exists()
    config = tmp_path / "synth.toml"
    config.write_text('[prices]\n"my-local-model" = [0.1, 0.2]\n')
    result = cli(*run, "--model", "my-local-model", "--budget-usd", 1, "--config", config, "--dry-run")
    assert result.exit_code == 0, result.output
    result = cli(*run, "--model", "my-local-model", "--dry-run")
    assert result.exit_code == 0 and "no price known for my-local-model" in result.output


def test_judge_does_not_grade_an_outage(small_run, tmp_path):
    from synth.evaluate.run import judge_report

    result = cli("eval", small_run, "--judge", "--model", "m", "--base-url", dead_url(), "--out", tmp_path / "j")
    assert result.exit_code == 4 and "connection refused" in result.output
    rows = [{"expected": "correct", "predicted": "correct"}, {"expected": "correct", "predicted": None, "error": True}]
    report = judge_report(rows)
    assert (report["items"], report["errors"], report["accuracy"], report["unparsed"]) == (1, 1, 1.0, 0)


def test_grade_refuses_an_unfinished_run(small_run, tmp_path):
    import shutil

    from synth.rundir import RunDir

    run = tmp_path / "copy"
    shutil.copytree(small_run, run)
    RunDir(run).start({"seed": 0})
    (tmp_path / "p.jsonl").write_text("")
    result = cli("grade", "--eval", run, "--predictions", tmp_path / "p.jsonl")
    assert result.exit_code == 3 and "unfinished run" in result.output
