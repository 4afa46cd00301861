"""The grounding gate on a whole run: how long it takes and what it rejects. Prints one JSON line.

    python benchmarks/grounding.py [--n 300] [--seed 4] [--servers registry/]

Makes an offline run (or reads ``--run``), then runs the three gates (synth.stages.gates.review) on
every accepted conversation: ``calls``, ``ungrounded`` (calls the grounding gate would reject; 0 for
synth's own data, whose values are grounded by construction) and ``seconds`` for the gates alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from synth.config import Settings  # noqa: E402
from synth.pipeline import generate  # noqa: E402
from synth.records import Conversation, Trajectory  # noqa: E402
from synth.registry.load import load_registry  # noqa: E402
from synth.rundir import CONVERSATIONS, read_jsonl  # noqa: E402
from synth.stages.gates import review  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--servers", type=Path, default=ROOT / "registry")
    ap.add_argument("--run", type=Path, default=None, help="an existing run folder made from --servers")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = args.run or Path(tmp) / "run"
        if args.run is None:
            generate(Settings(servers=args.servers, out=run, n=args.n, seed=args.seed))
        servers = {s.id: s for s in load_registry(args.servers).servers}
        convs = [Conversation.model_validate(c) for c in read_jsonl(run / CONVERSATIONS)]
        start = time.perf_counter()
        reviews = [
            review(Trajectory(id=c.id, scenario_id=c.scenario.id, messages=c.messages), servers[c.scenario.server])
            for c in convs
        ]
        seconds = time.perf_counter() - start
    gates = [g for r in reviews for g in r.gates]
    print(
        json.dumps(
            {
                "conversations": len(convs),
                "calls": sum(g.gate == "grounded" for g in gates),
                "ungrounded": sum(g.gate == "grounded" and not g.passed for g in gates),
                "seconds": round(seconds, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
