"""The same run three ways: one process, N shards merged, N Ray tasks. Prints one JSON object.

    python benchmarks/shards.py [--servers registry/] [--n 1000] [--seed 0] [--shards 2] [--no-ray]
    python benchmarks/shards.py --llm-latency-ms 200 --n 100 -c 8   # a model run, against a loopback endpoint

Each way runs as the command line a user would type (``synth generate``; ``synth generate
--shards N --shard I`` for every I at once, then ``synth merge``; ``synth generate --ray --shards
N``), in its own processes, timed by wall clock; the shards' processes run side by side, as they
would on N machines. Then every file of the three run folders (manifest, card and plots included;
the Ray run's hidden ``.shards/`` is its shards' cache, no part of the data) is compared byte for
byte: ``identical`` is true only when all three folders hold exactly the same files.

What to expect: a shard makes only the scenarios' conversations (the authoring: the offline
writer and its gates, or the model calls); the merge does everything after it (dedup, splits,
injection, exports, card) in one process, as the single run does. So the offline path, where the
work after authoring is most of the time, gains little from shards; a model run, where the calls
are nearly all of it, gains about N times. Ray adds its start-up (several seconds for a local one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


LLM: tuple[str, ...] = ()  # the model flags, with --llm-latency-ms


def synth(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # no endpoint from the shell
    env["SYNTH_BENCH_KEY"] = "k"
    if args[0] == "generate":
        args = (*args, *LLM)
    return subprocess.Popen(
        [sys.executable, "-m", "synth.cli.app", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait(*procs: subprocess.Popen) -> None:
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(map(str, proc.args))} failed ({proc.returncode}):\n{out}\n{err}")


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return round(time.perf_counter() - start, 2)


def files(folder: Path) -> dict[str, bytes]:
    """The run's files; a model run's cache and requests.json (timing) left out, and the card's line
    that counts every process's requests (shards make some past where the merge stops)."""
    out = {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and p.name not in ("cache.sqlite", "requests.json")
    }
    if "README.md" in out:
        out["README.md"] = b"\n".join(
            line for line in out["README.md"].split(b"\n") if not line.startswith(b"- **Requests**")
        )
    return out


def endpoint(latency_ms: float, concurrency: int):
    """The loopback OpenAI-compatible server of the tests, playing every agent after ``latency_ms``."""
    global LLM
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_agents import respond
    from openai_server import OpenAIServer

    server = OpenAIServer(respond, latency_ms=latency_ms, record=False).__enter__()
    LLM = (
        "--base-url",
        server.base_url,
        "--model",
        "synth-test",
        "--api-key-env",
        "SYNTH_BENCH_KEY",
        "--concurrency",
        str(concurrency),
    )
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default=str(ROOT / "registry"))
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray run (Ray not installed)")
    parser.add_argument(
        "--llm-latency-ms", type=float, help="a model run against a loopback endpoint with this latency"
    )
    parser.add_argument("--concurrency", "-c", type=int, default=8, help="requests in flight per process (model run)")
    args = parser.parse_args()
    server = endpoint(args.llm_latency_ms, args.concurrency) if args.llm_latency_ms is not None else None
    run = ("generate", "--servers", args.servers, "--n", str(args.n), "--seed", str(args.seed))
    with tempfile.TemporaryDirectory(prefix="synth-shards-bench-") as tmp:
        root = Path(tmp)
        report: dict = {
            "n": args.n,
            "seed": args.seed,
            "shards": args.shards,
            "cpus": os.cpu_count(),
            "backend": "offline"
            if server is None
            else f"loopback model, {args.llm_latency_ms:g} ms, concurrency {args.concurrency} per process",
        }
        report["one_process_s"] = timed(lambda: wait(synth(*run, "--out", str(root / "single"))))
        folders = [root / f"shard{i}" for i in range(args.shards)]
        shard_s = timed(
            lambda: wait(
                *[
                    synth(*run, "--shards", str(args.shards), "--shard", str(i), "--out", str(f))
                    for i, f in enumerate(folders)
                ]
            )
        )
        merge_s = timed(lambda: wait(synth("merge", *map(str, folders), "--out", str(root / "merged"))))
        report["shards_merged"] = {"shards_s": shard_s, "merge_s": merge_s, "total_s": round(shard_s + merge_s, 2)}
        made = [json.loads((f / "shard.json").read_text()) for f in folders]
        report["shards_merged"]["scenarios_written"] = sum(m["scenarios"]["written"] for m in made)
        runs = {"one_process": root / "single", "shards_merged": root / "merged"}
        if not args.no_ray:
            report["ray_s"] = timed(
                lambda: wait(synth(*run, "--ray", "--shards", str(args.shards), "--out", str(root / "ray")))
            )
            runs["ray"] = root / "ray"
        manifest = json.loads((root / "single" / "manifest.json").read_text())
        report["accepted"] = manifest["funnel"]["accepted"]
        report["scenarios"] = manifest["funnel"]["scenarios"]
        contents = {name: files(folder) for name, folder in runs.items()}
        base = contents["one_process"]
        report["files_compared"] = len(base)
        report["differing"] = {
            name: sorted(k for k in set(base) | set(c) if base.get(k) != c.get(k))
            for name, c in contents.items()
            if name != "one_process"
        }
        report["identical"] = not any(report["differing"].values())
    if server is not None:
        server.__exit__(None, None, None)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
