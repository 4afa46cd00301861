"""Live runs on the five reference MCP servers, each from its world (examples/servers): prints one JSON object.

    python benchmarks/live_worlds.py [--n 40] [--servers git,filesystem,memory,time,everything] [--out DIR]

Needs the servers installed (examples/servers/install.sh). For each server, ``synth generate --execute live
--allow-exec`` runs as a user runs it on the entry and its pack alone, then the accepted conversations are read:
- ``error_results``: tool messages whose result the server marked isError, of all tool messages;
- ``values_from_results``: argument values (leaves) that an earlier tool result of the conversation holds, of all
  argument values (``only_from_results``: of those, the ones the user never said);
- ``replayed_identically``: conversations whose calls, replayed in order on a fresh server in a fresh sandbox,
  give exactly the conversation's tool messages (``replay_differs`` names the tools whose results did not);
- ``machine_leaks``: conversations whose text still holds a temporary folder, the home folder, PATH or the host.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from synth.facts.evidence import Evidence  # noqa: E402
from synth.live.pool import Pool  # noqa: E402
from synth.live.sandbox import leaks  # noqa: E402
from synth.records import Message  # noqa: E402
from synth.registry import load_registry  # noqa: E402
from synth.rundir import read_jsonl  # noqa: E402
from synth.runtime.live import LiveRuntime  # noqa: E402
from synth.stages.gates import leaves  # noqa: E402

EXAMPLES = ROOT / "examples" / "servers"


def run(name: str, n: int, out: Path) -> dict:
    folder = out / f"{name}-entry"
    (folder / "packs").mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / f"{name}.json", folder)
    pack = EXAMPLES / "packs" / f"{name}.pack.yaml"
    if pack.exists():
        shutil.copy(pack, folder / "packs")
    target = out / name
    command = ["synth", "generate", "--servers", str(folder), "--n", str(n), "--execute", "live", "--allow-exec"]
    started = time.perf_counter()
    done = subprocess.run([*command, "--out", str(target), "--overwrite"], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    convs = list(read_jsonl(target / "conversations.jsonl")) if (target / "manifest.json").exists() else []
    report = {"exit_code": done.returncode, "seconds": round(seconds, 1), "conversations": len(convs)}
    report.update(measure(convs))
    report.update(replay(folder, convs))
    return report


def measure(convs: list[dict]) -> dict:
    tools = errors = values = from_results = only_results = leaking = 0
    for conv in convs:
        messages = [Message.model_validate(m) for m in conv["messages"]]
        tools += sum(m.role == "tool" for m in messages)
        errors += sum(bool(m.is_error) for m in messages)
        for index, message in enumerate(messages):
            for call in message.tool_calls:
                evidence = Evidence(messages[:index])
                for _, value in leaves(call.arguments):
                    values += 1
                    if any(r.holds(value) for r in evidence.results):
                        from_results += 1
                        only_results += not evidence.said(value)
        texts = [m.content or "" for m in messages] + [json.dumps(c.arguments) for m in messages for c in m.tool_calls]
        leaking += leaks(texts) is not None
    return {
        "tool_results": tools,
        "error_results": errors,
        "error_share": round(errors / tools, 3) if tools else None,
        "argument_values": values,
        "values_from_results": from_results,
        "from_results_share": round(from_results / values, 3) if values else None,
        "only_from_results": only_results,
        "machine_leaks": leaking,
    }


def replay(folder: Path, convs: list[dict]) -> dict:
    server = load_registry(folder).servers[0]
    same, differs = 0, {}
    with Pool() as pool:
        for conv in convs:
            runtime = LiveRuntime(pool, server)
            results = {m["tool_call_id"]: m["content"] for m in conv["messages"] if m["role"] == "tool"}
            ok = True
            try:
                for message in conv["messages"]:
                    for call in message.get("tool_calls") or []:
                        got = asyncio.run(runtime.call(server.tool(call["name"]), call["arguments"]))
                        if got.content != results.get(call["id"]):
                            ok = False
                            differs[call["name"]] = differs.get(call["name"], 0) + 1
            finally:
                runtime.close()
            same += ok
    return {"replayed_identically": same, "replay_differs": differs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--servers", default="git,filesystem,memory,time,everything")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="live-worlds-"))
    report = {name: run(name, args.n, out) for name in args.servers.split(",")}
    print(json.dumps({"n": args.n, "out": str(out), "servers": report}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
