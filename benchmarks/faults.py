"""The issue-30 faults against a loopback endpoint, counted: prints one JSON object.

    python benchmarks/faults.py [--n 200] [--registry registry]

- ``cut_json``: 5% of answers cut in half while finish_reason says "stop" (the server's ``bad_json``
  fault: a tool call becomes '{"answer": "a val'); the ground truth is the server's own record of what it cut.
- ``cut_length``: every executor's final answer cut by max_tokens (half of it, finish_reason "length").
- ``exit``: an endpoint killed mid-run, a refused key (401) and an unknown model (404): exit code, seconds
  from the fault to the exit, the manifest's status.

For each truncation fault: accepted conversations, how many hold a text the server cut (must be 0), and
the rejected scenarios by reason. ``synth generate`` runs in this process (the CLI through typer's runner);
the server runs in a thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_agents import respond, role_of  # noqa: E402
from openai_server import Faults, OpenAIServer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from synth.cli.app import app  # noqa: E402
from synth.rundir import read_jsonl  # noqa: E402

runner = CliRunner()


def generate(server: OpenAIServer, registry: str, out: Path, n: int, *extra: str):
    args = ["generate", "--servers", registry, "--out", str(out), "--n", str(n), "--seed", "1"]
    return runner.invoke(app, [*args, "--base-url", server.base_url, "--model", "m", "--concurrency", "8", *extra])


def tally(out: Path, cut: set[str]) -> dict:
    texts = [m.get("content") or "" for row in read_jsonl(out / "conversations.jsonl") for m in row["messages"]]
    rejected: dict[str, int] = {}
    for line in (out / "rejected.jsonl").read_text().splitlines():
        reason = json.loads(line)["reason"]
        rejected[reason] = rejected.get(reason, 0) + 1
    conversations = sum(1 for _ in read_jsonl(out / "conversations.jsonl"))
    return {
        "accepted": conversations,
        "accepted_holding_a_cut_text": sum(1 for t in texts if t in cut),
        "answers_cut_by_the_server": len(cut),
        "rejected": dict(sorted(rejected.items(), key=lambda kv: -kv[1])),
    }


def cut_json(registry: str, n: int, tmp: Path) -> dict:
    with OpenAIServer(respond, faults=Faults(rate_bad_json=0.05)) as server:
        result = generate(server, registry, tmp / "cut_json", n)
        bodies = [r.json for r in server.requests if r.outcome == "bad_json"]
    cut = set()
    for body in bodies:
        text = respond(body).get("content") or json.dumps({"answer": "a value that goes on"})
        cut.add(text[: max(1, len(text) // 2)])
    return {"exit": result.exit_code, **tally(tmp / "cut_json", cut)}


def cut_length(registry: str, n: int, tmp: Path) -> dict:
    cut: set[str] = set()

    def answer(body):
        message = respond(body)
        text = message.get("content") or ""
        if role_of(body) == "executor" and text.startswith("All done"):
            cut.add(text[: len(text) // 2])
            return {"content": text[: len(text) // 2], "finish_reason": "length"}
        return message

    with OpenAIServer(answer) as server:
        result = generate(server, registry, tmp / "cut_length", n)
    return {"exit": result.exit_code, **tally(tmp / "cut_length", cut)}


def exits(registry: str, tmp: Path) -> dict:
    out: dict[str, dict] = {}
    server = OpenAIServer(respond, latency_ms=20).start()
    killed: list[float] = []

    def kill() -> None:
        while server.count() < 50:
            time.sleep(0.01)
        server.stop()
        killed.append(time.monotonic())

    threading.Thread(target=kill, daemon=True).start()
    result = generate(server, registry, tmp / "killed", 2000)
    out["killed_mid_run"] = _exit(result, time.monotonic() - killed[0], tmp / "killed")
    with OpenAIServer(respond, api_key="sk-right") as server:
        start = time.monotonic()
        result = generate(server, registry, tmp / "401", 200, "--api-key-env", "SYNTH_FAULTS_KEY")
        out["refused_key"] = _exit(result, time.monotonic() - start, tmp / "401", server.count())
    with OpenAIServer(respond, models=frozenset({"synth-test"})) as server:
        start = time.monotonic()
        result = generate(server, registry, tmp / "404", 200)
        out["unknown_model"] = _exit(result, time.monotonic() - start, tmp / "404", server.count())
    return out


def _exit(result, seconds: float, out: Path, requests: int | None = None) -> dict:
    status = json.loads((out / "manifest.json").read_text()).get("status")
    row = {"exit": result.exit_code, "seconds_after_fault": round(seconds, 2), "status": status}
    return row if requests is None else {**row, "requests_sent": requests}


def main() -> None:
    import os

    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--registry", default=str(ROOT / "tests" / "fixtures" / "tiny_registry"))
    args = parser.parse_args()
    os.environ["SYNTH_FAULTS_KEY"] = "sk-wrong"
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        report = {
            "n": args.n,
            "registry": args.registry,
            "cut_json": cut_json(args.registry, args.n, tmp),
            "cut_length": cut_length(args.registry, args.n, tmp),
            "exit": exits(args.registry, tmp),
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
