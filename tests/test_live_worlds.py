"""Live servers that start from a world, against a real stdio server the tests start (tests/servers/world_server.py):
sandbox steps and ``${SANDBOX}``, the neutral /workspace path and the machine taken out of results, the result
size cap, a hang that prints one line and twice marks the server unreachable, guarded writes, and a run whose
live results are mostly errors (is_error recorded, labelled, in the card, exit 1)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from synth.cli.app import app
from synth.errors import LiveError
from synth.ingest.importer import describe
from synth.live.client import Limits
from synth.live.pool import Pool
from synth.live.sandbox import leaks
from synth.records import Connection
from synth.registry import load_registry
from synth.rundir import read_jsonl
from synth.runtime.live import LiveRuntime

WORLD = Path(__file__).parent / "servers" / "world_server.py"
runner = CliRunner()


def entry_folder(tmp_path: Path, stateful: bool = True, **connection: object) -> Path:
    """A registry folder with the world server's entry, as `synth registry import` writes it, plus ``connection``."""
    entry = describe(Connection(type="stdio", command=sys.executable, args=(str(WORLD),)), Limits(20, 20), "world")
    entry["connections"][0].update({"stateful": stateful, **connection})
    folder = tmp_path / "servers"
    folder.mkdir()
    (folder / "world.json").write_text(json.dumps(entry), encoding="utf-8")
    return folder


def calls(folder: Path, todo: list[tuple[str, dict]], pool: Pool) -> list:
    server = load_registry(folder).servers[0]
    runtime = LiveRuntime(pool, server)
    try:
        return [runtime.call(server.tool(name), args) for name, args in todo]  # type: ignore[arg-type]
    finally:
        runtime.close()


SANDBOX = {
    "env": {"NOTE": "seeded"},
    "steps": [
        {"write": {"notes.txt": "buy compost\n"}},
        {"run": [sys.executable, "-c", "import os; open('made.txt', 'w').write(os.environ['NOTE'])"]},
        {"call": {"tool": "where", "arguments": {"name": "made.txt"}}},
    ],
}


def test_a_sandbox_is_prepared_and_shown_as_workspace_with_the_machine_taken_out(tmp_path):
    folder = entry_folder(tmp_path, sandbox=SANDBOX, env={"NOTES": "${SANDBOX}/notes.txt"})
    with Pool(Limits(20, 20)) as pool:
        notes, made = calls(folder, [("where", {"name": "notes.txt"}), ("where", {"name": "made.txt"})], pool)
        again = calls(folder, [("where", {"name": "notes.txt"})], pool)[0]
    assert notes.data["file"] == "buy compost\n" and made.data["file"] == "seeded"  # write, then run, in order
    assert notes.data["cwd"] == "/workspace" and notes.data["env"]["NOTES"] == "/workspace/notes.txt"
    assert notes.data["env"]["HOME"] == "[redacted]" and notes.data["env"]["PATH"] == "[redacted]"
    text = notes.content
    assert tempfile.gettempdir() + "/synth-" not in text and os.environ["PATH"] not in text
    assert leaks([text]) is None and again.content == text  # a fresh sandbox gives the same answer
    assert leaks([f"cwd: {tempfile.gettempdir()}/synth-live-abc/x"]) == "a temporary folder"


def test_a_prepared_sandbox_has_fixed_times_and_modes_whatever_the_umask(tmp_path):
    import datetime as dt

    world = {"time": "2026-03-12T09:00:00Z", "steps": [{"write": {"notes/a.txt": "1"}}, SANDBOX["steps"][1]]}
    folder = entry_folder(tmp_path, sandbox={**world, "env": {"NOTE": "x"}})
    old = os.umask(0o077)  # a user whose files nobody else may read
    try:
        with Pool(Limits(20, 20)) as pool:
            seen = [calls(folder, [("stamp", {"name": n}) for n in ("notes/a.txt", "made.txt", "notes")], pool)]
            seen.append(calls(folder, [("stamp", {"name": n}) for n in ("notes/a.txt", "made.txt", "notes")], pool))
    finally:
        os.umask(old)
    when = dt.datetime(2026, 3, 12, 9, tzinfo=dt.UTC).timestamp()
    first = [r.data for r in seen[0]]
    assert [r["mtime"] for r in first] == [when] * 3  # written, made by a command, a folder: one fixed time
    assert [r["mode"] for r in first] == ["0o644", "0o644", "0o755"]
    assert [r.content for r in seen[1]] == [r.content for r in seen[0]]  # the same on a fresh sandbox


def test_a_pack_declares_the_world_its_server_starts_from(tmp_path):
    """An entry as `registry import` writes it (no sandbox, not stateful) and a pack beside it with the world: each
    scenario's server starts in a fresh folder the pack's steps prepared, with no edit of the entry."""
    folder = entry_folder(tmp_path, stateful=False)
    entry = json.loads((folder / "world.json").read_text())
    entry["tools"] = [t for t in entry["tools"] if t["name"] == "where"]
    (folder / "world.json").write_text(json.dumps(entry))
    pack = {
        "pack": 1,
        "server": "world",
        "sandbox": {"steps": [{"write": {"notes.txt": "buy compost\n"}}]},
        "tools": {
            "where": {
                "goals": ["What does {name} say?", "Read {name} to me.", "Open {name}, please."],
                "values": {"name": ["notes.txt"]},
                "results": [{"cwd": "/workspace", "file": "x", "env": {}, "home_file": "/x"}],
                "answers": ["{name} says: {r.file}", "Here is {name}: {r.file}"],
            }
        },
    }
    (folder / "packs").mkdir()
    (folder / "packs" / "world.pack.json").write_text(json.dumps(pack), encoding="utf-8")
    out = tmp_path / "run"
    args = ["generate", "--servers", str(folder), "--out", str(out), "-n", "3", "--execute", "live", "--allow-exec"]
    result = runner.invoke(app, [*args, "--decisions", "0"])
    assert result.exit_code == 0, result.output
    convs = list(read_jsonl(out / "conversations.jsonl"))
    tools = [m for c in convs for m in c["messages"] if m["role"] == "tool"]
    assert len(convs) >= 2 and tools and all(m["source"] == "live" and not m["is_error"] for m in tools)
    assert all(json.loads(m["content"])["file"] == "buy compost\n" for m in tools)  # the pack's world, every time
    assert all(json.loads(m["content"])["cwd"] == "/workspace" for m in tools)


def test_a_sandbox_step_that_fails_names_the_step(tmp_path):
    bad = {"steps": [{"run": [sys.executable, "-c", "import sys; sys.exit('no git here')"]}]}
    folder = entry_folder(tmp_path, sandbox=bad)
    with Pool(Limits(20, 20)) as pool, pytest.raises(LiveError) as caught:
        calls(folder, [("where", {"name": "x"})], pool)
    assert caught.value.reason == "live_sandbox" and "sandbox step 0" in str(caught.value)
    assert "no git here" in str(caught.value)


@pytest.mark.parametrize("overflow", ["cut", "error"])
def test_a_result_over_the_cap_is_cut_with_a_marker_or_is_an_error(tmp_path, overflow):
    folder = entry_folder(tmp_path, stateful=False)
    with Pool(Limits(20, 20, max_result=500, overflow=overflow)) as pool:
        small, large = calls(folder, [("big", {"size": 400}), ("big", {"size": 100_000})], pool)
    assert not small.is_error and len(small.content) == 400
    if overflow == "cut":
        assert not large.is_error and large.content.startswith("lorem ipsum") and len(large.content) < 700
        assert large.content.endswith("[synth: cut here; the result was 100000 characters, capped at 500]")
    else:
        assert large.is_error and "over the cap of 500" in large.content and len(large.content) < 200


def test_a_hang_prints_one_line_and_a_server_that_hangs_twice_is_unreachable(tmp_path, capfd):
    folder = entry_folder(tmp_path, stateful=False)
    with Pool(Limits(20, 0.5)) as pool:
        for _ in range(2):
            with pytest.raises(LiveError) as caught:
                calls(folder, [("slow", {"seconds": 5})], pool)
            assert caught.value.reason == "live_timeout"
        with pytest.raises(LiveError) as refused:  # the third scenario is refused at once
            calls(folder, [("big", {"size": 3})], pool)
    assert refused.value.reason == "live_hung" and "hung twice" in str(refused.value)
    err = capfd.readouterr().err.splitlines()
    lines = [line for line in err if "hung" in line]
    assert len(lines) == 2 and "its scenario is rejected" in lines[0] and "marked unreachable" in lines[1]


def test_writes_are_guarded_by_default_allowed_on_request_and_a_read_only_run_is_one_flag(tmp_path):
    plain = entry_folder(tmp_path, stateful=False)
    victim = tmp_path / "keep.txt"
    victim.write_text("mine")
    with Pool(Limits(20, 20)) as pool, pytest.raises(LiveError) as caught:
        calls(plain, [("erase", {"path": str(victim)})], pool)
    assert caught.value.reason == "write_refused" and "destructive" in str(caught.value) and victim.exists()
    with Pool(Limits(20, 20), writes="read-only") as pool:
        assert calls(plain, [("big", {"size": 5})], pool)[0].content == "lorem"
        with pytest.raises(LiveError, match="read-only"):
            calls(plain, [("erase", {"path": "x"})], pool)
    boxed = tmp_path / "boxed"
    boxed.mkdir()
    sandboxed = entry_folder(boxed, sandbox={"steps": [{"write": {"a.txt": "1"}}]})
    with Pool(Limits(20, 20)) as pool:  # inside its own sandbox a destructive tool runs, outside it does not
        assert calls(sandboxed, [("erase", {"path": "/workspace/a.txt"})], pool)[0].content == "erased /workspace/a.txt"
        with pytest.raises(LiveError, match="outside the scenario's sandbox"):
            calls(sandboxed, [("erase", {"path": str(victim)})], pool)
    with Pool(Limits(20, 20), writes="allow") as pool:
        calls(plain, [("erase", {"path": str(victim)})], pool)
    assert not victim.exists()


def test_a_run_whose_live_results_are_mostly_errors_says_so_and_exits_1(tmp_path):
    folder = entry_folder(tmp_path, stateful=False)
    entry = json.loads((folder / "world.json").read_text())
    entry["tools"] = [t for t in entry["tools"] if t["name"] == "lookup"]
    (folder / "world.json").write_text(json.dumps(entry))
    out = tmp_path / "run"
    args = ["generate", "--servers", str(folder), "--out", str(out), "-n", "3", "--execute", "live", "--allow-exec"]
    result = runner.invoke(app, [*args, "--allow-fallback"])  # the entry has no pack: the fallback's calls (issue 39)
    assert result.exit_code == 1, result.output
    assert "live tool results are errors" in result.output
    convs = list(read_jsonl(out / "conversations.jsonl"))
    tools = [m for c in convs for m in c["messages"] if m["role"] == "tool"]
    assert tools and all(m["is_error"] is True and m["source"] == "live" for m in tools)
    assert all(label == "input_error" for c in convs for label in c["review"]["step_labels"])
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["execute"]["errors"]["world"]["live"] == len(tools)
    assert "Most live results are errors" in (out / "README.md").read_text()


def test_lint_warns_about_tools_that_need_task_support_or_the_network():
    everything = Path(__file__).parents[1] / "examples" / "servers"
    result = runner.invoke(app, ["registry", "lint", str(everything)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any("simulate-research-query at /tools/12/execution/taskSupport: warning" in line for line in lines)
    assert any("gzip-file-as-resource at /tools/8/annotations/openWorldHint: warning" in line for line in lines)


def test_a_feed_reads_a_value_out_of_a_text_result():
    import random

    from synth.packs.template import Missing, answer_slot, fed, get_path

    log = "Commit history:\nCommit: 42d22a1\nMessage: Start a changelog\n\nCommit: 825df8e\nMessage: Document usage\n"
    assert get_path(log, "~Commit: (\\w+)") == "42d22a1"
    assert {get_path(log, "~Commit: (\\w+)", random.Random(i)) for i in range(20)} == {"42d22a1", "825df8e"}
    found = {"content": "/workspace/notes/todo.txt\n/workspace/recipes/focaccia.md"}
    assert get_path(found, "content~(?m)^(/workspace/\\S+)$") == "/workspace/notes/todo.txt"
    with pytest.raises(Missing):
        get_path(found, "content~^(/elsewhere/\\S+)$")
    assert fed("Dana Okafor", {"type": "array", "items": {"type": "string"}}) == ["Dana Okafor"]
    assert fed("main", {"type": "string"}) == "main"
    assert answer_slot("re:Message: (.+)", {}, log) == "Start a changelog"
    graph = {"relations": [{"from": "Dana Okafor", "to": "Lisbon office", "relationType": "works_at"}, {"from": "a",
             "to": "b", "relationType": "leads"}]}  # fmt: skip
    assert get_path(graph, "relations.*") == graph["relations"][0]  # any item: the first, or one drawn
    assert {get_path(graph, "relations.*.to", random.Random(i)) for i in range(20)} == {"Lisbon office", "b"}
    from synth.packs.template import spoken

    link = spoken(fed(graph["relations"][0], {"type": "array", "items": {"type": "object"}}))
    assert link == "the works_at link from Dana Okafor to Lisbon office"  # said as it reads, its type as stored


def test_replay_equality_marks_only_the_times_the_clock_stamped_during_the_run():
    import time

    from synth.live.sandbox import RUN_TIME, clocked

    now = time.time()
    stamp = time.strftime("%a %b %d %Y %H:%M:%S GMT+0000 (Coordinated Universal Time)", time.gmtime(now))
    text = f"created: {stamp}\nmodified: Thu Mar 12 2026 09:00:00 GMT+0000 (Coordinated Universal Time)\n"
    marked = clocked(text + "at " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)), now - 5, now + 5)
    seeded = "Thu Mar 12 2026 09:00:00 GMT+0000 (Coordinated Universal Time)"
    assert marked == f"created: {RUN_TIME}\nmodified: {seeded}\nat {RUN_TIME}"
    assert clocked(text, now + 100, now + 200) == text  # a time outside the run is data: it must match


def test_a_server_without_a_pack_gets_values_that_vary_and_paths_its_world_holds(tmp_path):
    import random

    from synth.live.sandbox import world_paths
    from synth.records import Sandbox
    from synth.simulator.values.context import Context
    from synth.simulator.values.strings import string_value

    zone = "IANA timezone name (e.g., 'America/New_York', 'Europe/London')."
    zones = {string_value("timezone", {"type": "string"}, zone, Context(rng=random.Random(i)))[0] for i in range(40)}
    assert len(zones) >= 8 and all("/" in z for z in zones)  # not the description's first example every time
    world = Sandbox.model_validate({"steps": [{"write": {"weather-cli/README.md": "x", "weather-cli/src/a.py": "y"}}]})
    paths = world_paths(world)
    assert paths == ("/workspace/weather-cli/", "/workspace/weather-cli/README.md", "/workspace/weather-cli/src/",
                     "/workspace/weather-cli/src/a.py")  # fmt: skip
    ctx = Context(rng=random.Random(3), world=paths)
    assert (
        string_value("repo_path", {"type": "string"}, "Path to the Git repository.", ctx)[0] == "/workspace/weather-cli"
    )
    files = {string_value("path", {"type": "string"}, "File to read", Context(rng=random.Random(i), world=paths))[0]
             for i in range(20)}  # fmt: skip
    assert files == {"/workspace/weather-cli/README.md", "/workspace/weather-cli/src/a.py"}
