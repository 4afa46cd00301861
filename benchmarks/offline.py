"""Offline generation speed, memory and size on disk: prints one JSON line.

    python benchmarks/offline.py [--servers registry/] [--n 10000] [--sizes 1000,5000]  (each size once)

Each size runs in its own process so peak memory (max RSS) is measured per run; flat memory
means the peak barely moves as N grows. Timings are wall clock on one core (the pipeline is
single-threaded). Size on disk is every file of the run folder (what ``du -sb`` counts), divided by
the conversations accepted.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one(servers: str, n: int) -> dict:
    from synth.config import Settings
    from synth.pipeline import generate

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        cpu0 = time.process_time()
        manifest = generate(Settings(servers=Path(servers), out=Path(tmp) / "run", n=n, seed=0))
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu0
        disk = sum(p.stat().st_size for p in (Path(tmp) / "run").rglob("*") if p.is_file())
    accepted = manifest["funnel"]["accepted"]
    scored = sum(manifest["counts"]["scored"].values())
    return {
        "n": n,
        "accepted": accepted,
        "scenarios": manifest["funnel"]["scenarios"],
        "scored": scored,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "conversations_per_s": round(accepted / wall, 1),
        "scored_per_s": round(scored / wall, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "disk_bytes": disk,
        "bytes_per_conversation": round(disk / max(accepted, 1)),
        "cpu_conversations_per_s": round(accepted / cpu, 1),  # per core: the shared machines' wall clock varies
        "dedup": {k: manifest.get("dedup", {}).get(k) for k in ("threshold", "exact_duplicate", "near_duplicate")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--servers", default=str(Path(__file__).resolve().parents[1] / "registry"))
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--sizes", default="1000,5000", help="smaller runs to compare peak memory against")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one(args.servers, args.child)))
        return
    runs = []
    sizes = sorted({*(int(x) for x in args.sizes.split(",") if x), args.n})  # --sizes 1000,10000 runs 10000 once
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--servers", args.servers, "--child", str(n)],
                             check=True, capture_output=True, text=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    final = next(r for r in runs if r["n"] == args.n)
    print(json.dumps({
        "servers": args.servers,
        "n": final["n"],
        "conversations_per_s": final["conversations_per_s"],
        "cpu_conversations_per_s": final["cpu_conversations_per_s"],
        "scored_per_s": final["scored_per_s"],
        "peak_rss_mb": final["peak_rss_mb"],
        "bytes_per_conversation": final["bytes_per_conversation"],
        "peak_rss_mb_by_n": {r["n"]: r["peak_rss_mb"] for r in runs},
        "runs": runs,
    }))


if __name__ == "__main__":
    main()
