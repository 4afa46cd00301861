"""LLM engine throughput and client CPU against an OpenAI-compatible server: prints one JSON line.

    python benchmarks/llm_throughput.py [--base-url URL] [-n 2000] [-c 64] [--latency-ms 200]

Sends N single-prompt completions through synth's engine (OpenAIBackend, no cache; its own
concurrency limiter set to C, as the pipeline uses it) and the same N through a bare
``openai.AsyncOpenAI`` (``chat.completions.create`` under asyncio.gather with a semaphore of C),
for both transports (aiohttp, httpx). Each measurement runs in its own process, so
``cpu_s_per_1000`` is that client's CPU only. Without ``--base-url`` the loopback test server
(tests/openai_server.py) is started in a separate process with the given latency. The ideal
rate is C / latency (latency given, or measured with a few sequential requests). Target at
200 ms and C=64: synth >= 0.9 of ideal and < 2 CPU s per 1000 requests.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODEL = "bench-model"


def prompt(i: int) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You write realistic user requests for a flight search tool."},
        {"role": "user", "content": f"Write request number {i} for a traveller leaving from Lyon."},
    ]


async def run_synth(url: str, n: int, c: int, transport: str) -> None:
    from synth.llm.base import ChatRequest
    from synth.llm.openai_backend import OpenAIBackend

    requests = [ChatRequest(role="query", model=MODEL, messages=tuple(prompt(i))) for i in range(n)]
    async with OpenAIBackend(base_url=url, api_key="sk-bench", concurrency=c, transport=transport) as llm:
        warm = [ChatRequest(role="query", model=MODEL, messages=tuple(prompt(-i))) for i in range(1, c + 1)]
        await asyncio.gather(*(llm.complete(r) for r in warm))
        await timed(lambda: asyncio.gather(*(llm.complete(r) for r in requests)), n)


async def run_openai(url: str, n: int, c: int, transport: str) -> None:
    import openai

    http = openai.DefaultAioHttpClient() if transport == "aiohttp" else openai.DefaultAsyncHttpxClient()
    async with openai.AsyncOpenAI(base_url=url, api_key="sk-bench", max_retries=0, http_client=http) as client:
        gate = asyncio.Semaphore(c)

        async def one(i: int) -> str | None:
            async with gate:
                done = await client.chat.completions.create(model=MODEL, messages=prompt(i))  # type: ignore[arg-type]
                return done.choices[0].message.content

        await asyncio.gather(*(one(-i) for i in range(1, c + 1)))
        await timed(lambda: asyncio.gather(*(one(i) for i in range(n))), n)


async def timed(make: Any, n: int) -> None:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    await make()
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(
        json.dumps(
            {"wall_s": round(wall, 3), "requests_per_s": round(n / wall, 1), "cpu_s_per_1000": round(cpu / n * 1000, 3)}
        )
    )


async def measure_latency(url: str, tries: int = 5) -> float:
    import openai

    async with openai.AsyncOpenAI(base_url=url, api_key="sk-bench", max_retries=0) as client:
        await client.chat.completions.create(model=MODEL, messages=prompt(0))  # type: ignore[arg-type]
        times = []
        for i in range(tries):
            start = time.perf_counter()
            await client.chat.completions.create(model=MODEL, messages=prompt(i))  # type: ignore[arg-type]
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def child(engine: str, transport: str, url: str, n: int, c: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", f"{engine}:{transport}", "--base-url", url, "-n", str(n), "-c", str(c)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "openai_server.py"),
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
            "--no-record",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().strip()
    if not url.startswith("http"):
        server.kill()
        raise SystemExit(f"the test server did not start (said {url!r})")
    return server, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url")
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=64)
    parser.add_argument(
        "--latency-ms",
        type=float,
        help="server latency (default: 200 for the server started here, measured for --base-url)",
    )
    parser.add_argument("--transports", default="aiohttp,httpx")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.child:
        engine, transport = args.child.split(":")
        run = run_synth if engine == "synth" else run_openai
        asyncio.run(run(args.base_url, args.n, args.c, transport))
        return

    server = None
    url, latency_ms = args.base_url, args.latency_ms
    if url is None:
        latency_ms = 200.0 if latency_ms is None else latency_ms
        server, url = start_server(latency_ms)
    try:
        if latency_ms is None:
            latency_ms = asyncio.run(measure_latency(url)) * 1000
        transports = [t for t in args.transports.split(",") if t]
        results = {
            t: {"synth": child("synth", t, url, args.n, args.c), "openai": child("openai", t, url, args.n, args.c)}
            for t in transports
        }
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
    ideal = args.c / (latency_ms / 1000) if latency_ms else float("inf")
    for by_engine in results.values():
        for numbers in by_engine.values():
            numbers["share_of_ideal"] = round(numbers["requests_per_s"] / ideal, 3)
    first = transports[0]
    print(
        json.dumps(
            {
                "n": args.n,
                "c": args.c,
                "latency_ms": round(latency_ms, 1),
                "ideal_per_s": round(ideal, 1),
                "transport": first,
                **results[first],
                "by_transport": results,
            }
        )
    )


if __name__ == "__main__":
    main()
