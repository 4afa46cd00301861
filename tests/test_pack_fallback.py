"""A tool that no pack entry serves still gets conversations, from the fallback, marked as such, and named in
the manifest, the card and the closing summary (never 0 conversations in silence)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import yaml
from typer.testing import CliRunner

from synth.cli.app import app
from synth.export.outputs import defaults
from synth.rundir import RunDir, read_jsonl

ROOT = Path(__file__).parents[1]
runner = CliRunner()
EVERY = ",".join([*defaults(), "preference"])  # the default outputs and the preference pairs


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


def test_a_run_on_servers_without_packs_writes_none_of_their_data_and_says_how_to_fix_it(tmp_path: Path):
    """Issue 39: the fallback's conversations are not training data. A default run on a registry with one packed
    and one unpacked server writes only the packed one and says, at its start and in its summary, which server
    was left out and the command that fixes it; a registry with no pack at all is refused with that command;
    --allow-fallback puts them in, marked in every file whose format has room for it."""
    reg = tmp_path / "reg"
    (reg / "packs").mkdir(parents=True)
    shutil.copy(ROOT / "registry" / "kazuph__mcp-fetch.json", reg)
    shutil.copy(ROOT / "registry" / "HarunGuclu__weather_mcp.json", reg)
    shutil.copy(ROOT / "registry" / "packs" / "HarunGuclu__weather_mcp.pack.yaml", reg / "packs")
    out = tmp_path / "run"
    argv = ["generate", "--servers", str(reg), "-n", "12", "--out", str(out), "--outputs", EVERY]
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    said = "1 of 2 servers have no server pack (@kazuph/mcp-fetch): synth cannot write training data"
    assert text.count(said) == 2 and text.index("note: " + said) < text.index("conversations accepted")
    assert f"Fix: synth pack build --servers {reg} --model gpt-4.1-mini (about 2 requests, about $" in text
    assert "--allow-fallback" in text
    assert RunDir(out).manifest()["packs"]["servers_left_out"] == ["@kazuph/mcp-fetch"]
    for name in ("conversations.jsonl", "scored.jsonl", "preference.jsonl"):
        servers = {r["scenario"]["server"] if "scenario" in r else r["server"] for r in read_jsonl(out / name)}
        assert servers == {"@HarunGuclu/weather_mcp"}, name
    assert {r["item"]["metadata"]["server"] for r in read_jsonl(out / "eval.jsonl")} == {"@HarunGuclu/weather_mcp"}
    tools = {
        t["function"]["name"]
        for name in ("train.jsonl", "valid.jsonl")
        for r in read_jsonl(out / name)
        for t in r["tools"]
    }
    assert tools and "fetch" not in tools
    assert "left out of the data" in (out / "README.md").read_text("utf-8")

    (reg / "packs" / "HarunGuclu__weather_mcp.pack.yaml").unlink()
    refused = runner.invoke(app, ["generate", "--servers", str(reg), "-n", "12", "--out", str(tmp_path / "none")])
    text = " ".join(refused.output.split())
    assert refused.exit_code == 2 and "no server in" in text and "has a server pack" in text, text
    assert f"Fix: synth pack build --servers {reg} --model gpt-4.1-mini" in text and "--allow-fallback" in text
    assert not (tmp_path / "none").exists()

    allowed = tmp_path / "allowed"
    result = runner.invoke(app, [*argv[:-4], "--out", str(allowed), "--outputs", EVERY, "--allow-fallback"])
    assert result.exit_code == 0, result.output
    assert "2 of 2 servers have no server pack" in " ".join(result.output.split())
    assert {c["author"] for c in read_jsonl(allowed / "conversations.jsonl")} == {"fallback"}
    assert {r["author"] for r in read_jsonl(allowed / "scored.jsonl")} == {"fallback"}
    assert {r["author"] for r in read_jsonl(allowed / "preference.jsonl")} == {"fallback"}
    assert {r["item"]["metadata"]["author"] for r in read_jsonl(allowed / "eval.jsonl")} == {"fallback"}
    teval = [
        json.loads(p.read_bytes() if p.suffix == ".json" else gzip.decompress(p.read_bytes()))
        for p in (allowed / "teval").iterdir()
    ]
    records = [r for subset in teval for r in subset.values()]
    assert records and all((r.get("meta") or r["meta_data"])["author"] == "fallback" for r in records)
