"""The store server's speed: prints one JSON line.

    python benchmarks/store.py [--calls 1000] [--writes 200] [--seed 0]

* seed: time to create a seed database (``seed_database``, in this process) and its file size.
* stdio: ``synth serve store`` started as a subprocess, one session reused for every call
  (sequential, so this is latency-bound: calls_per_s = 1 / mean round trip). Reads cycle through
  find_user_id_by_email, get_user_details, get_order_details and get_product_details on real
  ids; writes are modify_user_address (a transaction each). Startup is the time from spawning
  the process to the end of ``initialize``.
* http: the same calls over Streamable HTTP (``--http PORT``) to a server process started first.
* scenarios: ``generate --execute live`` on the store alone (a fresh in-process store per scenario,
  the shop author): accepted conversations per second, tool calls per second, successful writes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import anyio


def seed_numbers(folder: Path, seed: int) -> dict:
    from synth.store.seed import seed_database
    from synth.store.state import file_state_hash

    path = folder / "bench.db"
    start = time.perf_counter()
    seed_database(path, seed)
    took = time.perf_counter() - start
    return {"seed_s": round(took, 3), "db_bytes": path.stat().st_size, "state_hash": file_state_hash(str(path))[:16]}


async def session_numbers(db: Path, calls: int, writes: int, port: int | None = None) -> dict:
    """Calls/s over one session: stdio (a child process), or Streamable HTTP to a server on ``port``."""
    from mcp import StdioServerParameters

    conn = sqlite3.connect(db)
    users = conn.execute("SELECT user_id, email FROM users ORDER BY user_id LIMIT 50").fetchall()
    orders = [r[0] for r in conn.execute("SELECT order_id FROM orders ORDER BY order_id LIMIT 50")]
    products = [r[0] for r in conn.execute("SELECT product_id FROM products ORDER BY product_id")]
    conn.close()
    reads = []
    for i in range(calls):
        kind = i % 4
        if kind == 0:
            reads.append(("find_user_id_by_email", {"email": users[i % len(users)][1]}))
        elif kind == 1:
            reads.append(("get_user_details", {"user_id": users[i % len(users)][0]}))
        elif kind == 2:
            reads.append(("get_order_details", {"order_id": orders[i % len(orders)]}))
        else:
            reads.append(("get_product_details", {"product_id": products[i % len(products)]}))
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYTHONPATH", "VIRTUAL_ENV")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "synth.cli.app", "serve", "store", "--db", str(db)], env=env
    )
    async with contextlib.AsyncExitStack() as stack:
        target: object = params
        if port:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = await stack.enter_async_context(httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=60)))
            target = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
        return await _timed(target, reads, users, writes)


async def _timed(target: object, reads: list, users: list, writes: int) -> dict:
    from mcp import Client

    calls = len(reads)
    start = time.perf_counter()
    async with Client(target, mode="legacy", read_timeout_seconds=30) as client:
        startup = time.perf_counter() - start
        t0 = time.perf_counter()
        for name, args in reads:
            r = await client.call_tool(name, args)
            assert not r.is_error, (name, args)
        read_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(writes):
            user_id = users[i % len(users)][0]
            r = await client.call_tool(
                "modify_user_address",
                {
                    "user_id": user_id,
                    "address": {"address1": f"{100 + i} Main St", "city": "Portland", "state": "OR", "zip": "97201"},
                },
            )
            assert not r.is_error
        write_s = time.perf_counter() - t0
    return {
        "startup_s": round(startup, 2),
        "reads": calls,
        "read_calls_per_s": round(calls / read_s, 1),
        "read_ms_mean": round(1000 * read_s / calls, 2),
        "writes": writes,
        "write_calls_per_s": round(writes / write_s, 1),
        "write_ms_mean": round(1000 * write_s / writes, 2),
    }


def http_numbers(db: Path, calls: int, writes: int) -> dict:
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "synth.cli.app", "serve", "store", "--db", str(db), "--http", str(port)],
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        out = anyio.run(session_numbers, db, calls, writes, port)
        out.pop("startup_s")  # the session only; the process started before
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def scenario_numbers(folder: Path, n: int) -> dict:
    import shutil

    from synth.config import Settings
    from synth.pipeline import generate
    from synth.rundir import read_jsonl
    from synth.tasks.replay import WRITES

    root = Path(__file__).parents[1] / "registry"
    reg = folder / "shop"
    (reg / "packs").mkdir(parents=True)
    shutil.copy(root / "synth__store.json", reg)
    shutil.copy(root / "packs" / "synth__store.pack.yaml", reg / "packs")
    start = time.perf_counter()
    manifest = generate(Settings(servers=reg, out=folder / "run", n=n, seed=0, execute="live", allow_exec=True))
    took = time.perf_counter() - start
    ok = 0
    for conv in read_jsonl(folder / "run" / "conversations.jsonl"):
        results = {m["tool_call_id"]: m["content"] for m in conv["messages"] if m["role"] == "tool"}
        ok += any(
            c["name"] in WRITES and not results[c["id"]].startswith("Error")
            for m in conv["messages"]
            for c in m.get("tool_calls", [])
        )
    accepted = manifest["counts"]["conversations"]
    return {
        "conversations": accepted,
        "seconds": round(took, 2),
        "scenarios_per_s": round(accepted / took, 1),
        "calls_per_s": round(manifest["counts"]["tool_calls"] / took, 1),
        "successful_write_share": round(ok / accepted, 3) if accepted else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000, help="read calls over one stdio session")
    parser.add_argument("--writes", type=int, default=200, help="write calls over the same session")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scenarios", type=int, default=200, help="conversations for the scenarios/s figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        seeded = seed_numbers(Path(tmp), args.seed)
        stdio = anyio.run(session_numbers, Path(tmp) / "bench.db", args.calls, args.writes)
        http = http_numbers(Path(tmp) / "bench.db", args.calls, args.writes)
        scenarios = scenario_numbers(Path(tmp), args.scenarios)
    print(json.dumps({"seed": args.seed, **seeded, "stdio": stdio, "http": http, "scenarios": scenarios}))


if __name__ == "__main__":
    main()
