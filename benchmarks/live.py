"""Live MCP calls through synth's client module: prints one JSON line.

    python benchmarks/live.py [--calls 2000] [--fresh 10] [--timeout 2]

Against the project's own test server (tests/servers/tasks_server.py) over stdio:
- ``calls_per_s``: tools/call on one reused session (the pool's path for a server that is not stateful),
  alternating a read and a write, measured through ``Pool`` as ``synth generate --execute live`` uses it;
- ``fresh_server_s``: a new process + initialize + one call + shutdown, what a stateful server costs per scenario;
- ``hang_cost_s``: what a server that never answers costs with ``--connect-timeout``;
- ``http_calls_per_s``: the same calls over Streamable HTTP on loopback.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from synth.live.client import Limits, LiveError  # noqa: E402
from synth.live.pool import Pool  # noqa: E402
from synth.records import Connection  # noqa: E402

SERVERS = ROOT / "tests" / "servers"


def calls_per_s(pool: Pool, connection: Connection, calls: int) -> float:
    server = pool.open("tasks", connection)
    server.call("list_tasks", {}).result()  # warm
    start = time.perf_counter()
    for i in range(calls):
        if i % 2:
            server.call("get_task", {"task_id": "T-101"}).result()
        else:
            server.call("list_tasks", {"status": "all"}).result()
    return calls / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--fresh", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=2.0)
    args = parser.parse_args()
    report: dict = {"calls": args.calls}
    with tempfile.TemporaryDirectory() as folder:
        stdio = Connection(type="stdio", command=sys.executable, args=(str(SERVERS / "tasks_server.py"),), cwd=folder)
        with Pool(Limits(30, 30)) as pool:
            start = time.perf_counter()
            pool.open("tasks", stdio)
            report["connect_s"] = round(time.perf_counter() - start, 3)
            report["calls_per_s"] = round(calls_per_s(pool, stdio, args.calls), 1)

        fresh = stdio.model_copy(update={"stateful": True, "cwd": None})
        with Pool(Limits(30, 30)) as pool:
            start = time.perf_counter()
            for _ in range(args.fresh):
                server = pool.open("tasks", fresh)
                server.call("list_tasks", {}).result()
                pool.release(server)
            report["fresh_server_s"] = round((time.perf_counter() - start) / args.fresh, 3)

        hang = Connection(type="stdio", command=sys.executable, args=(str(SERVERS / "hang.py"),))
        with Pool(Limits(args.timeout, args.timeout)) as pool:
            start = time.perf_counter()
            try:
                pool.open("hang", hang)
            except LiveError as error:
                report["hang_error"] = str(error)
            report["hang_cost_s"] = round(time.perf_counter() - start, 3)
            start = time.perf_counter()
            try:
                pool.open("hang", hang)  # remembered: refused at once
            except LiveError:
                pass
            report["hang_again_s"] = round(time.perf_counter() - start, 4)

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "tasks_server.py"), "--http", str(port)],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.time() + 20
            while time.time() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.1)
            http = Connection(type="http", url=f"http://127.0.0.1:{port}/mcp")
            with Pool(Limits(30, 30)) as pool:
                report["http_calls_per_s"] = round(calls_per_s(pool, http, max(100, args.calls // 4)), 1)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
