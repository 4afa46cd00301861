"""A tool that no pack entry serves still gets conversations, from the fallback, marked as such, and named in
the manifest, the card and the closing summary (never 0 conversations in silence)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from synth.cli.app import app
from synth.rundir import RunDir, read_jsonl

ROOT = Path(__file__).parents[1]
runner = CliRunner()


def test_a_tool_left_out_of_the_pack_is_served_by_the_fallback_and_named(tmp_path: Path):
    reg = tmp_path / "reg"
    (reg / "packs").mkdir(parents=True)
    shutil.copy(ROOT / "registry" / "HarunGuclu__weather_mcp.json", reg)
    pack = yaml.safe_load((ROOT / "registry" / "packs" / "HarunGuclu__weather_mcp.pack.yaml").read_text("utf-8"))
    del pack["tools"]["get_live_temp"]  # as pack build leaves out a tool whose entry never passed the checker
    (reg / "packs" / "weather.pack.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True), "utf-8")
    out = tmp_path / "run"
    result = runner.invoke(app, ["generate", "--servers", str(reg), "-n", "40", "--out", str(out)])
    assert result.exit_code == 0, result.output
    convs = list(read_jsonl(out / "conversations.jsonl"))
    by_author = {c["author"] for c in convs}
    fallback = [c for c in convs if c["author"] == "fallback"]
    assert by_author == {"pack", "fallback"}
    assert fallback and all("get_live_temp" in c["scenario"]["tools"] for c in fallback)
    assert all(c["author"] == "pack" for c in convs if "get_live_temp" not in c["scenario"]["tools"])
    manifest = RunDir(out).manifest()
    assert manifest["packs"]["tools_served_by_fallback"] == {"@HarunGuclu/weather_mcp": ["get_live_temp"]}
    assert manifest["coverage"]["used_tools"] == manifest["coverage"]["usable_tools"] == 4
    scored = [r for r in read_jsonl(out / "scored.jsonl") if r["gold_call"]["function"]["name"] == "get_live_temp"]
    assert scored and {r.get("author") for r in scored if r["score"] == "correct"} == {"fallback"}
    summary = " ".join(result.output.split())
    assert "1 tool of servers with a pack has no usable entry and is served by the fallback" in summary
    assert "@HarunGuclu/weather_mcp: get_live_temp" in summary and f"synth pack check {reg}" in summary
    card = (out / "README.md").read_text("utf-8")
    assert "`@HarunGuclu/weather_mcp`: get_live_temp" in card and "| fallback |" in card and "| pack |" in card
    # a trainer filters them: every public file without the fallback's rows
    pub = tmp_path / "pub"
    exported = runner.invoke(app, ["export", str(out), "--format", "jsonl", "--out", str(pub), "--without-fallback"])
    assert exported.exit_code == 0, exported.output
    for split, name in (("train", "train.jsonl"), ("valid", "valid.jsonl")):
        pack_lines = [c for c in convs if c["split"] == split and c["author"] == "pack"]
        lines = list(read_jsonl(pub / name))
        assert len(lines) == len(pack_lines)
        assert split == "valid" or len(lines) < sum(c["split"] == split for c in convs)  # some were the fallback's
        assert all(
            "get_live_temp" not in {t["function"]["name"] for m in x["messages"] for t in m.get("tool_calls") or []}
            for x in lines
        )
    # decision items (ask, decline, answer) carry no author; no item may be the fallback's
    assert all(r["item"]["metadata"].get("author") != "fallback" for r in read_jsonl(pub / "eval.jsonl"))
    assert {r["author"] for r in read_jsonl(pub / "scored.jsonl")} == {"pack"}
    assert {r["author"] for r in read_jsonl(pub / "conversations.jsonl")} == {"pack"}


def test_a_run_on_servers_without_packs_says_so_at_start_and_end_with_the_fix(tmp_path: Path):
    reg = tmp_path / "reg"
    reg.mkdir()
    shutil.copy(ROOT / "registry" / "kazuph__mcp-fetch.json", reg)
    result = runner.invoke(app, ["generate", "--servers", str(reg), "-n", "10", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    said = "1 of 1 servers have no server pack (@kazuph/mcp-fetch)"
    assert text.count(said) == 2 and text.index("note: " + said) < text.index("conversations accepted")
    assert f"Fix: synth pack build --servers {reg} --model gpt-4.1-mini (about 2 requests, about $" in text
    assert all(c["author"] == "fallback" for c in read_jsonl(tmp_path / "run" / "conversations.jsonl"))
