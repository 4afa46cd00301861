"""A whole ``synth generate`` run on the LLM path against a loopback server: prints one JSON line.

    python benchmarks/llm_generate.py [--n 200] [-c 32] [--latency-ms 200]

The loopback OpenAI-compatible server (tests/openai_server.py, answering every agent role with
tests/fake_agents.py) runs in its own process with a fixed latency; ``synth generate`` runs in
another, cache cold, so every call goes over HTTP. The ideal rate is C / latency: C requests
always in flight. ``calls_per_s / ideal_per_s`` says how much of the configured concurrency the
pipeline keeps busy (scenarios make their calls one after another, so C scenarios run at once).
"""

from __future__ import annotations

import argparse
import json
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200, help="conversations")
    parser.add_argument("-c", "--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency_ms)
        return
    server = subprocess.Popen([sys.executable, __file__, "--serve", "--latency-ms", str(args.latency_ms)],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "run"
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "synth.cli", "generate", "--servers", str(ROOT / "registry"),
                                   "--out", str(out), "--n", str(args.n), "--base-url", url, "--model", "bench",
                                   "--api-key-env", "SYNTH_BENCH_KEY", "--concurrency", str(args.concurrency)],
                                  cwd=ROOT, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "SYNTH_BENCH_KEY": "k"})
            wall = time.perf_counter() - start
            if done.returncode:
                raise SystemExit(done.stdout + done.stderr)
            from synth.llm.cache import stats

            calls = stats(out / "cache.sqlite")["calls"]
            manifest = json.loads((out / "manifest.json").read_text())
    finally:
        server.kill()
    ideal = args.concurrency / (args.latency_ms / 1000)
    print(json.dumps({"n": args.n, "concurrency": args.concurrency, "latency_ms": args.latency_ms,
                      "accepted": manifest["funnel"]["accepted"], "http_calls": calls, "wall_s": round(wall, 2),
                      "calls_per_s": round(calls / wall, 1), "ideal_per_s": round(ideal, 1),
                      "share_of_ideal": round(calls / wall / ideal, 3),
                      "conversations_per_s": round(manifest["funnel"]["accepted"] / wall, 2)}))


if __name__ == "__main__":
    main()
