"""Bring your own data: derive and audit on a file with known problems. Prints one JSON line.

    python benchmarks/byod.py [--n 200] [--share 0.15] [--seed 5]

Makes a fresh offline run, takes its train.jsonl as "someone's file", and in ``--share`` of the
calls replaces one plain string argument with a value no earlier message holds (as an assistant
inventing an order id would). Then measures:
- ``items`` vs ``calls``: derive keeps every call (one eval item each);
- ``flagged``/``planted``: the grounding flags find the planted values (and nothing else);
- ``strict_items``: what ``--strict`` leaves;
- ``byte_exact``: every message of every item appears in the source line as written;
- ``audit_grounding``: the rate ``synth audit`` reports, and ``clean_before`` for the untouched file;
- seconds for each step.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from synth.config import Settings  # noqa: E402
from synth.derive import derive  # noqa: E402
from synth.ingest.audit import audit  # noqa: E402
from synth.pipeline import generate  # noqa: E402
from synth.rundir import lines, read_jsonl  # noqa: E402


def plant(line: dict, rng: random.Random, share: float, counter: list[int]) -> dict:
    """Invent one plain string value in about ``share`` of the calls (compact JSON, as users write it)."""
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in line["tools"]}
    for m in line["messages"]:
        for c in m.get("tool_calls", []):
            args = json.loads(c["function"]["arguments"])
            props = schemas.get(c["function"]["name"], {}).get("properties", {})
            plain = [
                k
                for k, v in args.items()
                if isinstance(v, str) and not ({"enum", "pattern", "format", "const"} & set(props.get(k, {})))
            ]
            if plain and rng.random() < share:
                counter[0] += 1
                args[plain[0]] = f"#W{rng.randrange(10**6, 10**7)}"
                c["function"]["arguments"] = json.dumps(args, separators=(",", ":"))
    return line


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--share", type=float, default=0.15)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(Settings(servers=ROOT / "registry", out=out / "run", n=args.n, seed=args.seed))
        train = out / "run" / "train.jsonl"
        clean = audit(train)
        rng, planted = random.Random(args.seed), [0]
        source = out / "logs.jsonl"
        with open(source, "w", encoding="utf-8") as f:
            for line in read_jsonl(train):  # the run's file (gzip, tool lists stored once) as plain JSONL
                f.write(json.dumps(plant(line, rng, args.share, planted), separators=(",", ":")) + "\n")
        t1 = time.perf_counter()
        report = derive(source, out / "d", seed=args.seed)
        t2 = time.perf_counter()
        strict = derive(source, out / "s", seed=args.seed, strict=True)
        t3 = time.perf_counter()
        found = audit(source)
        t4 = time.perf_counter()
        texts = source.read_text(encoding="utf-8").splitlines()
        exact = True
        for _, raw in lines(out / "d" / "eval.jsonl"):
            item = json.loads(raw)["item"]
            line = texts[item["metadata"]["line"] - 1]
            written = [json.dumps(m, separators=(",", ":")) for m in item["messages"]]  # as plant() wrote them
            written.append(json.dumps(item["expected_output"]["tool_calls"][0], separators=(",", ":")))
            exact &= all(w in raw and w in line for w in written)
        print(
            json.dumps(
                {
                    "conversations": report["conversations"],
                    "calls": report["tool_calls"],
                    "items": report["eval_items"],
                    "planted": planted[0],
                    "flagged": report["flagged_calls"],
                    "flags_by_gate": report["flags_by_gate"],
                    "strict_items": strict["eval_items"],
                    "byte_exact": exact,
                    "scored_from_calls": report["scored_from_calls"],
                    "audit_grounding": found["rates"]["grounding"],
                    "clean_before": clean["clean"],
                    "worst_lines": [w["line"] for w in found["worst"][:5]],
                    "derive_s": round(t2 - t1, 2),
                    "strict_s": round(t3 - t2, 2),
                    "audit_s": round(t4 - t3, 2),
                }
            )
        )


if __name__ == "__main__":
    main()
