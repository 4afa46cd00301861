"""``synth registry pull`` of a whole folder served by the loopback Smithery imitation: prints JSON.

    python benchmarks/pull.py ../shared/mcp-servers [--out DIR] [--faults] [--generate 200]

Every ``*.json`` in the folder is served as its file's exact bytes (tests/smithery_server.py, pages
of at most 100, Bearer key required), pulled with ``synth registry pull`` in a subprocess (the
real CLI, its progress bar and closing line), then checked: every written file's ``tools`` equals
the served one, and every served byte is in the file. ``--faults`` makes every 10th server answer
429 (Retry-After: 0) and every 15th a 500 first. ``--generate N`` then runs ``synth generate`` on
the pulled folder and reports how many servers loaded and how many conversations were accepted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-benchmark-key-0b7e"
PULLED = re.compile(r'^\{\s*"pulled": \{"from": "[^"]*", "at": "[^"]*"\},')


def served_files(folder: Path) -> list[tuple[str, bytes]]:
    """(qualifiedName, exact bytes) of each definition; the file stem stands in for a missing name."""
    out = []
    for path in sorted(folder.glob("*.json")):
        body = path.read_bytes()
        data = json.loads(body)
        if isinstance(data, dict):
            out.append((data.get("qualifiedName") or path.stem, body))
    return out


def check(out: Path, bodies: dict[str, bytes]) -> dict[str, object]:
    """Compare each written file with what was served: tools equal, and all served bytes kept."""
    tools_same = bytes_same = files = 0
    for path in out.glob("*.json"):
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        served = bodies[data["qualifiedName"]].decode("utf-8-sig")
        files += 1
        tools_same += data["tools"] == json.loads(served)["tools"]
        bytes_same += PULLED.sub("{", text, count=1).rstrip("\n") == served.rstrip("\n")
        assert KEY not in text, f"the key leaked into {path}"
    return {
        "files": files,
        "tools_unchanged": "yes" if tools_same == files else f"no ({files - tools_same})",
        "bytes_unchanged": "yes" if bytes_same == files else f"no ({files - bytes_same})",
    }


def generate(folder: Path, n: int, run: Path) -> dict[str, object]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "synth.cli.app", "generate", "--servers", str(folder), "-n", str(n), "--out", str(run)],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if done.returncode:
        return {"generate_exit": done.returncode, "generate_error": done.stderr[-500:]}
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    accepted = sum(1 for _ in (run / "conversations.jsonl").open(encoding="utf-8"))
    return {
        "generate_seconds": round(time.perf_counter() - start, 1),
        "servers_loaded": manifest["registry"]["servers"],
        "servers_skipped_by_loader": manifest["registry"]["skipped_servers"],
        "conversations_accepted": accepted,
        "conversations_asked": n,
        "run": str(run),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="folder of Smithery-style server JSON files")
    parser.add_argument("--out", type=Path, help="where to pull to (default: a temporary folder)")
    parser.add_argument("--faults", action="store_true", help="429 on every 10th server, 500 on every 15th")
    parser.add_argument("--generate", type=int, default=0, metavar="N", help="then generate N conversations")
    parser.add_argument("--run", type=Path, default=Path("/tmp/pulled-run"), help="run folder for --generate")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT / "tests"))
    from smithery_server import SmitheryServer

    details = served_files(args.folder)
    faults: dict[str, list[int | str]] = {}
    if args.faults:
        for i, (name, _) in enumerate(details):
            faults[name] = [429] * (i % 10 == 0) + [500] * (i % 15 == 0)
    with tempfile.TemporaryDirectory() as tmp, SmitheryServer(details, key=KEY, faults=faults) as server:
        out = args.out or Path(tmp) / "pulled"
        start = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "synth.cli.app",
                "registry",
                "pull",
                "--base-url",
                server.base_url,
                "--out",
                str(out),
            ],
            check=False,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "SMITHERY_API_KEY": KEY},
        )
        seconds = time.perf_counter() - start
        closing = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        counts = dict(re.findall(r"(pulled|skipped|failed) (\d+)", closing))
        report: dict[str, object] = {
            "servers": len(details),
            "pulled": int(counts.get("pulled", 0)),
            "skipped": int(counts.get("skipped", 0)),
            "failed": int(counts.get("failed", 0)),
            "seconds": round(seconds, 2),
            "requests": len(server.requests),
            "exit": done.returncode,
            "closing_line": closing,
            "key_in_output": KEY in done.stdout + done.stderr,
            **check(out, dict(details)),
        }
        if args.generate:
            report.update(generate(out, args.generate, args.run))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
