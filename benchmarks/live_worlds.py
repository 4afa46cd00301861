"""Live runs on the five reference MCP servers, each from its world (examples/servers): prints one JSON object.

    python benchmarks/live_worlds.py [--n 40] [--servers git,filesystem,memory,time,everything] [--out DIR]

Needs the servers installed (examples/servers/install.sh). For each server, ``synth generate --execute live
--allow-exec`` runs as a user runs it on the entry and its pack alone, then the accepted conversations are read:
- ``error_results``: tool messages whose result the server marked isError, of all tool messages;
- ``values_from_results``: argument values (leaves: each string, number or list item inside the arguments) that an
  earlier tool result of the same conversation holds (synth.facts.Evidence: as whole words, case-folded), of all
  argument values (``only_from_results``: of those, the ones the user never said);
- ``world_values``: the argument values that name something the server itself can list or search: held by the
  census of a fresh sandbox (CENSUS: the server's own listing calls, e.g. git log and branch, a search of the
  whole folder, the whole memory graph) or by an earlier result of the conversation. Free values the user brings
  (a commit message, a new branch's name, a note's text, a search phrase the world does not hold, a count) are
  not world values. ``world_from_results_share``: of the world values, the share an earlier result of the
  conversation held when the call was made (listed, then used), the issue's ">= 30% where the server can list
  or search"; a world value the user named without any listing before it counts against it;
- ``replayed_identically``: conversations whose calls, replayed in order on a fresh server in a fresh sandbox,
  give the conversation's tool messages again, byte for byte once the points in time the clock stamped during
  each run are marked (synth.live.sandbox.clocked: a file's creation time, which Linux lets no call set, and
  the access or modification time a call made); the sandbox's own seeded times must match exactly
  (``replay_differs`` names the tools whose results did not);
- ``distinct_calls``: different (tool, arguments) pairs among all calls, and ``duplicates``: scenarios the dedup
  stage turned away as the same request (how much a server without a pack varies its values);
- ``machine_leaks``: conversations whose text still holds a temporary folder, the home folder, PATH or the host.
"""

from __future__ import annotations

import argparse
import json
import os
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
from synth.live.sandbox import clocked, leaks  # noqa: E402
from synth.packs.load import usable_packs, with_worlds  # noqa: E402
from synth.records import Message, ServerSpec  # noqa: E402
from synth.registry import load_registry  # noqa: E402
from synth.rundir import read_jsonl  # noqa: E402
from synth.runtime.live import LiveRuntime  # noqa: E402
from synth.stages.gates import leaves  # noqa: E402

EXAMPLES = ROOT / "examples" / "servers"
NPM_BIN = ROOT / ".mcp-servers" / "node_modules" / ".bin"  # where install.sh puts the npm servers
REPO = "/workspace/weather-cli"
CENSUS: dict[str, list[tuple[str, dict]]] = {  # what each server lists of its fresh world, through its own tools
    "git": [
        ("git_log", {"repo_path": REPO, "max_count": 100}),
        ("git_branch", {"repo_path": REPO, "branch_type": "all"}),
        ("git_status", {"repo_path": REPO}),
    ],
    "filesystem": [("list_allowed_directories", {}), ("search_files", {"path": "/workspace", "pattern": "**/*"})],
    "memory": [("read_graph", {})],
}


def run(name: str, n: int, out: Path) -> dict:
    folder = out / f"{name}-entry"
    (folder / "packs").mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / f"{name}.json", folder)
    pack = EXAMPLES / "packs" / f"{name}.pack.yaml"
    if pack.exists():
        shutil.copy(pack, folder / "packs")
    target = out / name
    command = ["synth", "generate", "--servers", str(folder), "--n", str(n), "--execute", "live", "--allow-exec"]
    if not pack.exists():  # time and everything have no pack: their fallback conversations, marked (issue 39)
        command.append("--allow-fallback")
    started, since = time.perf_counter(), time.time()
    done = subprocess.run([*command, "--out", str(target), "--overwrite"], capture_output=True, text=True)
    seconds, until = time.perf_counter() - started, time.time()
    convs = list(read_jsonl(target / "conversations.jsonl")) if (target / "manifest.json").exists() else []
    report = {"exit_code": done.returncode, "seconds": round(seconds, 1), "conversations": len(convs)}
    server = world(folder)
    report.update(measure(convs, census(server, CENSUS.get(name, []))))
    report.update(replay(server, convs, (since, until)))
    calls = {json.dumps([c["name"], c["arguments"]], sort_keys=True) for v in convs for m in v["messages"]
             for c in m.get("tool_calls") or []}  # fmt: skip
    rejected = list(read_jsonl(target / "rejected.jsonl")) if (target / "rejected.jsonl").exists() else []
    report["distinct_calls"] = len(calls)
    report["duplicates"] = sum(r["reason"] == "exact_duplicate" for r in rejected)
    return report


def world(folder: Path) -> ServerSpec:
    """The entry as a run sees it: with its pack's sandbox, when the pack declares one."""
    registry = load_registry(folder)
    return with_worlds(registry, usable_packs(registry, folder)).servers[0]


def census(server: ServerSpec, todo: list[tuple[str, dict]]) -> list[Message]:
    """The results of the server's own listing calls on a fresh sandbox, as tool messages."""
    if not todo:
        return []
    with Pool() as pool:
        runtime = LiveRuntime(pool, server)
        try:
            got = [runtime.call(server.tool(t), a) for t, a in todo]  # type: ignore[arg-type]
        finally:
            runtime.close()
    return [Message(role="tool", tool_call_id=f"census{i}", content=r.content) for i, r in enumerate(got)]


def measure(convs: list[dict], listed: list[Message]) -> dict:
    tools = errors = values = from_results = only_results = leaking = world_values = world_listed = 0
    fresh = Evidence(listed)
    for conv in convs:
        messages = [Message.model_validate(m) for m in conv["messages"]]
        tools += sum(m.role == "tool" for m in messages)
        errors += sum(bool(m.is_error) for m in messages)
        for index, message in enumerate(messages):
            for call in message.tool_calls:
                evidence = Evidence(messages[:index])
                for _, value in leaves(call.arguments):
                    values += 1
                    earlier = any(r.holds(value) for r in evidence.results)
                    if earlier:
                        from_results += 1
                        only_results += not evidence.said(value)
                    if earlier or any(r.holds(value) for r in fresh.results):
                        world_values += 1
                        world_listed += earlier
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
        "world_values": world_values,
        "world_from_results": world_listed,
        "world_from_results_share": round(world_listed / world_values, 3) if world_values else None,
        "machine_leaks": leaking,
    }


def replay(server: ServerSpec, convs: list[dict], window: tuple[float, float]) -> dict:
    same, differs, since = (
        0,
        {},
        time.time(),
    )  # the pool prepares the next sandbox early: the replay's window opens here
    with Pool() as pool:
        for conv in convs:
            runtime = LiveRuntime(pool, server)
            results = {
                m["tool_call_id"]: clocked(m["content"], *window) for m in conv["messages"] if m["role"] == "tool"
            }
            ok = True
            try:
                for message in conv["messages"]:
                    for call in message.get("tool_calls") or []:
                        got = runtime.call(server.tool(call["name"]), call["arguments"])
                        if clocked(got.content, since, time.time()) != results.get(call["id"]):
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
    if NPM_BIN.is_dir():  # the npm servers install.sh put in the project, as tests/conftest.py does
        os.environ["PATH"] = f"{NPM_BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    report = {name: run(name, args.n, out) for name in args.servers.split(",")}
    print(json.dumps({"n": args.n, "out": str(out), "servers": report}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
