"""Whole ``synth generate`` runs on the LLM path against a loopback server: prints one JSON line.

    python benchmarks/llm_generate.py [--n 1000] [-c 64] [--latency-ms 200,50] [--runs 1] [--repo DIR]

The loopback OpenAI-compatible server (tests/openai_server.py, answering every agent role with
tests/fake_agents.py) runs in its own process with a fixed latency; ``synth generate`` runs in
another, cache cold, so every call goes over HTTP. The ideal rate is C / latency: C requests
always in flight. Two busy ratios, each calls/s over that ideal:

- ``busy_whole``: calls over the whole command's wall clock (start-up, registry, final files too);
- ``busy_engine``: calls over the span from the first request sent to the last answer (the
  cache's call log), what the scheduler keeps busy once it runs.

``--repo`` runs another checkout's synth (e.g. main, for a before/after) with this server.
The machine is shared: run a few times (``--runs``) and read the spread.

Spend: ``calls_used`` (the manifest: the scenarios the run took) against ``calls_sent`` (requests.json:
every answer received); ``sent_over_used`` is at most 1.1 when the engine spends only on what is kept,
and ``manifest_tokens`` equals ``kept_tokens`` (what was sent for the scenarios used).
``dry_run_over_sent``: the calls ``--dry-run`` priced for the same run over the calls it sent.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def serve(latency_ms: float) -> None:
    import asyncio

    sys.path.insert(0, str(ROOT / "tests"))
    from fake_agents import respond
    from openai_server import OpenAIServer

    server = OpenAIServer(respond, latency_ms=latency_ms, record=False)

    async def main() -> None:
        await server.start_async()
        print(server.base_url, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def engine_span(cache: Path) -> tuple[int, float, float]:
    """(calls, seconds from the first request's start to the last answer, mean latency in s) from the call log."""
    db = sqlite3.connect(cache)
    try:
        rows = db.execute("SELECT created, latency_ms FROM calls").fetchall()
    finally:
        db.close()
    starts = [created - ms / 1000 for created, ms in rows]
    return len(rows), max(c for c, _ in rows) - min(starts), sum(ms for _, ms in rows) / 1000 / len(rows)


def spend(manifest: dict, requests: dict, http_calls: int) -> dict:
    """What was sent against what the run used: the manifest counts the calls and tokens of the scenarios
    it took (accepted and rejected); requests.json counts what was sent, kept and discarded."""
    used = manifest["tokens"].values()
    kept = {k: sum(r[k] for r in used) for k in ("calls", "prompt_tokens", "completion_tokens")}
    sent, thrown = requests["sent"], requests["discarded"]
    return {
        "calls_used": kept["calls"],
        "calls_sent": sent["calls"],
        "calls_discarded": thrown["calls"],
        "requests_unsent": requests["unsent"],
        "sent_over_used": round(sent["calls"] / kept["calls"], 3),
        "manifest_tokens": kept["prompt_tokens"] + kept["completion_tokens"],
        "sent_tokens": sent["prompt_tokens"] + sent["completion_tokens"],
        "kept_tokens": requests["kept"]["prompt_tokens"] + requests["kept"]["completion_tokens"],
        "discarded_tokens": thrown["prompt_tokens"] + thrown["completion_tokens"],
        "http_calls_logged": http_calls,
    }


def dry_run_calls(repo: Path, n: int, c: int) -> int:
    """The calls ``--dry-run`` prices for the same run (synth.agents.estimate, run from ``repo``)."""
    code = (
        "import json; from pathlib import Path; from synth.config import Settings; "
        "from synth.agents.estimate import estimate; "
        f"print(estimate(Settings(servers=Path({str(ROOT / 'registry')!r}), out=Path('x'), n={n}, "
        f"concurrency={c}, backend='openai', model='bench'))['calls'])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, env={"PYTHONPATH": str(repo)}
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return int(done.stdout.strip())


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one(url: str, server_pid: int, repo: Path, n: int, c: int, latency_ms: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        server_cpu = cpu_of(server_pid)
        start = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "synth.cli.app",
                "generate",
                "--servers",
                str(ROOT / "registry"),
                "--out",
                str(out),
                "--n",
                str(n),
                "--base-url",
                url,
                "--model",
                "bench",
                "--api-key-env",
                "SYNTH_BENCH_KEY",
                "--concurrency",
                str(c),
            ],
            cwd=repo,
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "SYNTH_BENCH_KEY": "k", "PYTHONPATH": str(repo)},
        )
        wall = time.perf_counter() - start
        server_cpu = cpu_of(server_pid) - server_cpu
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode:
            raise SystemExit(done.stdout + done.stderr)
        calls, span, latency = engine_span(out / "cache.sqlite")
        manifest = json.loads((out / "manifest.json").read_text())
        requests = json.loads((out / "requests.json").read_text())[-1]
    ideal = c / (latency_ms / 1000)
    dry = dry_run_calls(repo, n, c)
    return {
        **spend(manifest, requests, calls),
        "dry_run_calls": dry,
        "dry_run_over_sent": round(dry / requests["sent"]["calls"], 3),
        "latency_ms": latency_ms,
        "accepted": manifest["funnel"]["accepted"],
        "scenarios_taken": manifest["funnel"]["scenarios"],
        "http_calls": calls,
        "wall_s": round(wall, 2),
        "engine_s": round(span, 2),
        "mean_call_s": round(latency, 3),
        "calls_per_s": round(calls / wall, 1),
        "ideal_per_s": round(ideal, 1),
        "busy_whole": round(calls / wall / ideal, 3),
        "busy_engine": round(calls / span / ideal, 3),
        "conversations_per_s": round(manifest["funnel"]["accepted"] / wall, 2),
        # CPU seconds of synth's process and of the loopback server: on 2 shared cores these say
        # whether the run waited on the endpoint or on the processor
        "synth_cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1),
        "server_cpu_s": round(server_cpu, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="conversations")
    parser.add_argument("-c", "--concurrency", type=int, default=64)
    parser.add_argument("--latency-ms", default="200,50", help="comma-separated server latencies")
    parser.add_argument("--runs", type=int, default=1, help="runs per latency")
    parser.add_argument("--repo", type=Path, default=ROOT, help="the synth checkout to run")
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return
    results = []
    for latency in (float(x) for x in args.latency_ms.split(",")):
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(latency)], stdout=subprocess.PIPE, text=True
        )
        try:
            url = server.stdout.readline().strip()
            results += [
                one(url, server.pid, args.repo.resolve(), args.n, args.concurrency, latency) for _ in range(args.runs)
            ]
        finally:
            server.kill()
            server.wait()
    print(json.dumps({"repo": str(args.repo), "n": args.n, "concurrency": args.concurrency, "runs": results}))


if __name__ == "__main__":
    main()
