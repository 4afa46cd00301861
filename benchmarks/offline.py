"""Offline generation speed, memory and size on disk, measured on the CLI as users run it: prints JSON.

    python benchmarks/offline.py [--servers registry/] [--n 1000,10000,100000] [--seed 0] [--keep DIR]

Each size is its own ``synth generate --servers S --n N --out DIR`` process (the console script of
this interpreter's environment), run under ``/usr/bin/time -v`` when it is there (else timed here,
with the children's ``resource.getrusage``), so peak memory (max RSS) is the whole command's:
generation, the dataset card and the closing summary. Flat memory means the peak barely moves as N
grows. ``conversations_per_s`` is accepted conversations over wall time; ``cpu_conversations_per_s``
over user+system CPU time, which is what "per core" means on a shared machine (the command is
single-threaded). The funnel (scenarios tried, accepted, drops by stage and reason) and the dedup
counts come from the run's manifest; size on disk is every file of the run folder over the
conversations accepted.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_TIME = {
    "peak_rss_kb": r"Maximum resident set size \(kbytes\): (\d+)",
    "user_s": r"User time \(seconds\): ([\d.]+)",
    "system_s": r"System time \(seconds\): ([\d.]+)",
    "wall": r"Elapsed \(wall clock\) time[^:]*: ([\d:.]+)",
}


def _seconds(clock: str) -> float:
    parts = [float(p) for p in clock.split(":")]
    return sum(p * 60**i for i, p in enumerate(reversed(parts)))


def _synth() -> list[str]:
    script = Path(sys.executable).with_name("synth")
    return [str(script)] if script.exists() else [sys.executable, "-m", "synth.cli.app"]


def one(servers: str, n: int, seed: int, out: Path) -> dict:
    """One ``synth generate`` of ``n`` conversations into ``out``, measured from outside."""
    command = [
        *_synth(),
        "generate",
        "--servers",
        servers,
        "--n",
        str(n),
        "--seed",
        str(seed),
        "--out",
        str(out),
        "--overwrite",
    ]
    timed = shutil.which("time") and Path("/usr/bin/time").exists()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run((["/usr/bin/time", "-v"] if timed else []) + command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: the run's result is judged unusable (e.g. --max-reject); still measured
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    found = {k: m.group(1) for k, p in _TIME.items() if (m := re.search(p, done.stderr))} if timed else {}
    cpu = (
        (float(found["user_s"]) + float(found["system_s"]))
        if "user_s" in found
        else (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    )
    peak_kb = (
        int(found["peak_rss_kb"]) if "peak_rss_kb" in found else after.ru_maxrss
    )  # ru_maxrss: the largest child so far
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    funnel, dedup = manifest["funnel"], manifest.get("dedup", {})
    accepted = funnel["accepted"]
    disk = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {
        "n": n,
        "command": " ".join(command),
        "accepted": accepted,
        "scenarios": funnel["scenarios"],
        "scored": sum(manifest["counts"]["scored"].values()),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "conversations_per_s": round(accepted / wall, 1),
        "cpu_conversations_per_s": round(accepted / cpu, 1)
        if cpu
        else None,  # per core: wall time varies on shared machines
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "disk_bytes": disk,
        "bytes_per_conversation": round(disk / max(accepted, 1)),
        "dropped": {stage: sum(reasons.values()) for stage, reasons in funnel["dropped"].items()},
        "dropped_reasons": funnel["dropped"],
        "dedup": {k: dedup.get(k) for k in ("threshold", "checked", "exact_duplicate", "near_duplicate", "indexed")},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default=str(Path(__file__).resolve().parents[1] / "registry"))
    parser.add_argument(
        "--n", default="1000,10000", help="sizes, comma separated, each run once (e.g. 1000,10000,100000)"
    )
    parser.add_argument("--sizes", default="", help="more sizes (the older spelling; added to --n)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--keep", type=Path, help="keep the run folders here (<keep>/n<N>) instead of a temporary folder"
    )
    args = parser.parse_args()
    sizes = sorted({int(x) for x in f"{args.n},{args.sizes}".split(",") if x.strip()})
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            runs.append(one(args.servers, n, args.seed, (args.keep or Path(tmp)) / f"n{n}"))
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)  # progress: each size as it ends
    print(
        json.dumps(
            {
                "servers": args.servers,
                "seed": args.seed,
                "conversations_per_s_by_n": {r["n"]: r["conversations_per_s"] for r in runs},
                "cpu_conversations_per_s_by_n": {r["n"]: r["cpu_conversations_per_s"] for r in runs},
                "peak_rss_mb_by_n": {r["n"]: r["peak_rss_mb"] for r in runs},
                "accepted_by_n": {r["n"]: r["accepted"] for r in runs},
                "runs": runs,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
