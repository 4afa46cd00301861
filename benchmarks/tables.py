"""Print what loading the simulator's data files costs (synth.simulator.tables) as JSON.

python benchmarks/tables.py [--repo DIR] [--runs 7]

Each run is a fresh interpreter that imports every synth.simulator module (the tables are read there,
once): the median wall time of that import, and of the part spent in ``table()`` reading and checking
entries. ``--repo`` points at another checkout (an older main, say) to compare the same import there.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

_PROBE = r"""
import importlib, json, pkgutil, sys, time
spent = [0.0, 0]
try:
    from synth.simulator import tables
    inner = tables.table
    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return inner(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t
            spent[1] += 1
    tables.table = timed
except ImportError:
    tables = None
t0 = time.perf_counter()
import synth.simulator as pkg
for m in pkgutil.walk_packages(pkg.__path__, "synth.simulator."):
    importlib.import_module(m.name)
print(json.dumps({"import_s": time.perf_counter() - t0, "table_s": spent[0], "tables": spent[1]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).parents[1])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    repo = args.repo.resolve()
    runs = []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(repo)!r})\n{_PROBE}"],
            capture_output=True,
            text=True,
            check=True,
            cwd=repo,
        )
        runs.append(json.loads(out.stdout))
    data = repo / "synth/simulator/data"
    files = sorted(data.rglob("*.json")) if data.is_dir() else []
    print(
        json.dumps(
            {
                "repo": str(repo),
                "runs": args.runs,
                "import_simulator_s_median": round(statistics.median(r["import_s"] for r in runs), 4),
                "in_table_s_median": round(statistics.median(r["table_s"] for r in runs), 4),
                "tables_read": runs[0]["tables"],
                "data_files": len(files),
                "data_bytes": sum(f.stat().st_size for f in files),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
