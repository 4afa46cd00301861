"""Publishing a run: the Hub layout loads back with ``datasets`` as the same records, the card is a real
card (its YAML parses, its plots are PNGs, same run same bytes), and ``synth push`` commits exactly
the layout through the huggingface_hub API (a recording double; no network) or fails clearly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
import pytest
import yaml
from conftest import content
from typer.testing import CliRunner

from synth.cli.app import app
from synth.config import Settings
from synth.export.card.build import read_header
from synth.export.card.plots import PLOTS
from synth.export.hf import dataset_dict
from synth.export.repo import export, hub_files
from synth.hub import push
from synth.pipeline import generate
from synth.rundir import read_json, read_jsonl

runner = CliRunner()
TOKEN = "hf_test_DO_NOT_LEAK_91c2"


def lines(path: Path) -> list[dict]:
    """The rows of a run file as published, whatever its storage (synth.rundir reads it)."""
    return list(read_jsonl(path))


@pytest.fixture(scope="module")
def run(tiny_registry, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("publish") / "run"
    generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=40, seed=3, split=(0.6, 0.2, 0.2)))
    return out


@pytest.fixture(scope="module")
def hub(run, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hub")
    result = runner.invoke(app, ["export", str(run), "--format", "hf", "--out", str(out), "--license", "mit"])
    assert result.exit_code == 0, result.output
    return out


def _plain(value):
    """A loaded row as the JSONL spells it: struct fields that are None were absent there."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _objects(message: dict) -> dict:
    """A JSONL chat message with its tool-call arguments parsed, as the hf export gives them."""
    out = dict(message)
    if "tool_calls" in out:
        out["tool_calls"] = [
            {**c, "function": {**c["function"], "arguments": json.loads(c["function"]["arguments"])}}
            for c in out["tool_calls"]
        ]
    return out


def _call(call: dict) -> dict:
    return _objects({"tool_calls": [call]})["tool_calls"][0]


def expected(run: Path, config: str, split: str) -> list[dict]:
    """What each config and split must hold, read from the run's JSONL and T-Eval files."""
    hf_split = {"train": "train", "validation": "valid", "test": "test"}[split]
    if config == "chat":
        return [
            {"messages": [_objects(m) for m in r["messages"]], "tools": r["tools"]}
            for r in lines(run / f"{hf_split}.jsonl")
        ]
    if config == "eval":
        out = []
        for line in lines(run / "eval.jsonl"):
            item = line["item"]
            out.append(
                {
                    "messages": [_objects(m) for m in item["messages"]],
                    "tools": item["tools"],
                    "expected_output": {
                        "role": "assistant",
                        "content": item["expected_output"].get("content"),
                        "tool_calls": [_call(c) for c in item["expected_output"]["tool_calls"]],
                    },
                    "metadata": {
                        "decision": "call",
                        **item["metadata"],
                        "parallel_calls": [_call(c) for c in item["metadata"].get("parallel_calls") or []],
                    },
                }
            )
        return out
    if config == "scored":
        return [
            {
                **r,
                "message_history": [_objects(m) for m in r["message_history"]],
                "tool_call": _call(r["tool_call"]),
                "gold_call": _call(r["gold_call"]),
            }
            for r in lines(run / "scored.jsonl")
            if r["split"] == hf_split
        ]
    if config == "decisions":
        return [
            {
                **r,
                "message_history": [_objects(m) for m in r["message_history"]],
                "tool_call": _call(r["tool_call"]),
            }
            for r in lines(run / "scored_decisions.jsonl")
            if r["split"] == hf_split
        ]
    if config == "preference":  # TRL's explicit-prompt conversational preference rows, negatives then decisions
        rows = [r for r in lines(run / "scored.jsonl") if r["score"] != "correct"]
        rows += lines(run / "scored_decisions.jsonl")
        return [
            {
                "id": r["id"],
                "conversation_id": r["conversation_id"],
                "server": r["server"],
                "split": r["split"],
                "prompt": [_objects(m) for m in r["message_history"]],
                "chosen": [r.get("gold_response") or {"role": "assistant", "tool_calls": [_call(r["gold_call"])]}],
                "rejected": [{"role": "assistant", "tool_calls": [_call(r["tool_call"])]}],
                "tools": [
                    {
                        "type": "function",
                        "function": {
                            "name": t["name"],
                            "description": t["description"],
                            "parameters": t["input_schema"],
                        },
                    }
                    for t in r["available_tools"]
                ],
                "label": r["score"],
                "subtype": r["subtype"],
                "decision": r.get("decision", "call"),
                "failure_reason": r["failure_reason"],
                **({"author": r["author"]} if r.get("author") else {}),  # who wrote it (issue 39)
            }
            for r in rows
            if r["split"] == hf_split
        ]
    subset = read_json(run / "teval" / f"{config.removeprefix('teval_')}.json")
    return [{"id": key, **value} for key, value in subset.items()]


def test_every_config_and_split_loads_back_as_the_jsonl_records(run, hub, tmp_path):
    from datasets import Json, load_dataset

    header = read_header(hub / "README.md")
    configs = {c["config_name"]: [f["split"] for f in c["data_files"]] for c in header["configs"]}
    assert configs["chat"] == ["train", "validation"] and configs["eval"] == ["test"]
    assert configs["scored"] == ["train", "validation", "test"]
    assert set(configs["decisions"]) <= {"train", "validation", "test"} and configs["preference"]
    assert {c for c in configs if c.startswith("teval_")} == {
        f"teval_{p.name.split('.')[0]}" for p in (run / "teval").glob("*.json*")
    }
    for config, splits in configs.items():
        for split in splits:
            ds = load_dataset(str(hub), config, split=split, cache_dir=str(tmp_path / "cache"))
            want = expected(run, config, split)
            assert len(ds) == len(want) > 0, (config, split)
            assert [_plain(row) for row in ds] == [_plain(w) for w in want], (config, split)
    chat = load_dataset(str(hub), "chat", split="train", cache_dir=str(tmp_path / "cache"))
    call = next(c for m in chat[0]["messages"] if m["tool_calls"] for c in m["tool_calls"])
    assert isinstance(call["function"]["arguments"], dict)  # objects, as chat templates and TRL expect
    assert isinstance(chat[0]["tools"][0]["function"]["parameters"], dict)
    assert isinstance(chat.features["messages"].feature["tool_calls"].feature["function"]["arguments"], Json)
    # the JSONL keeps OpenAI's JSON-string arguments
    first = lines(run / "train.jsonl")[0]
    assert isinstance(
        next(m for m in first["messages"] if "tool_calls" in m)["tool_calls"][0]["function"]["arguments"], str
    )


def test_the_dataset_dict_is_the_parquet_content(run, hub, tmp_path):
    from datasets import load_dataset

    built = dataset_dict(run, "scored")
    assert set(built) == {"train", "validation", "test"}
    loaded = load_dataset(str(hub), "scored", cache_dir=str(tmp_path / "cache"))
    for split in built:
        assert built[split].features == loaded[split].features
        assert built[split].to_list() == loaded[split].to_list()


def test_layout_card_and_plots_are_byte_identical_for_the_same_run(run, hub, tmp_path):
    again = tmp_path / "again"
    export(run, again, license="mit")
    files = hub_files(hub)
    assert files == hub_files(again)
    assert {
        "README.md",
        "manifest.json",
        "plots/turns_per_conversation.png",
        "plots/tool_calls_per_conversation.png",
        "plots/tool_frequency.png",
        "plots/label_distribution.png",
        "plots/tool_results.png",
        "chat/train-00000-of-00001.parquet",
    } <= set(files)
    for name in files:
        assert (hub / name).read_bytes() == (again / name).read_bytes(), name


def test_the_card_is_a_hub_card_with_stats_and_plots(run, hub):
    from huggingface_hub import DatasetCard

    text = (hub / "README.md").read_text(encoding="utf-8")
    header = yaml.safe_load(re.match(r"---\n(.*?)\n---\n", text, re.S).group(1))
    assert header["license"] == "mit" and header["task_categories"] and "tool-use" in header["tags"]
    assert header["size_categories"] == ["n<1K"]
    assert {c["config_name"] for c in header["configs"]} == {i["config_name"] for i in header["dataset_info"]}
    card = DatasetCard(text)  # huggingface_hub reads the same header
    assert card.data.license == "mit" and card.data.configs[0]["config_name"] == "chat"
    manifest = json.loads((run / "manifest.json").read_text())
    for section in (
        "## How it was made",
        "### Funnel",
        "## Labels",
        "## Tool coverage",
        "## Splits",
        "## Plots",
        "## Human review",
        "## Examples",
        "## Known limitations",
    ):
        assert section in text, section
    assert f"**Seed** {manifest['config']['seed']}" in text and "backend `offline`" in text
    assert f"synth generate --servers {manifest['config']['servers']} --n 40 --seed 3" in text
    for label, n in manifest["counts"]["scored"].items():
        assert f"| {label} | {n} |" in text
    assert "Same registry, seed and version give byte-identical files" in text  # an offline run keeps the promise
    for plot in PLOTS:  # the five, tool results by source and error included
        assert f"(plots/{plot}.png)" in text
        data = (hub / "plots" / f"{plot}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and b"Software" not in data and len(data) > 5000
    # the licence set once is kept when the card is made again without it
    assert runner.invoke(app, ["card", str(run), "--out", str(hub)]).exit_code == 0
    assert read_header(hub / "README.md")["license"] == "mit"


class RecordingApi:
    """The huggingface_hub API boundary, recorded: what would be created, listed, committed."""

    calls: list[tuple[str, tuple, dict]] = []
    remote: list[str] = []
    fail: BaseException | None = None

    def __init__(self, token=None):
        RecordingApi.calls.append(("init", (), {"token": token}))

    def create_repo(self, repo_id, **kwargs):
        RecordingApi.calls.append(("create_repo", (repo_id,), kwargs))
        if RecordingApi.fail is not None:
            raise RecordingApi.fail
        return f"https://huggingface.co/datasets/{repo_id}"

    def list_repo_files(self, repo_id, **kwargs):
        RecordingApi.calls.append(("list_repo_files", (repo_id,), kwargs))
        return list(RecordingApi.remote)

    def create_commit(self, repo_id, operations, **kwargs):
        RecordingApi.calls.append(("create_commit", (repo_id, list(operations)), kwargs))
        return "commit"


@pytest.fixture
def api(monkeypatch):
    import huggingface_hub

    RecordingApi.calls, RecordingApi.remote, RecordingApi.fail = [], [], None
    monkeypatch.setattr(huggingface_hub, "HfApi", RecordingApi)
    return RecordingApi


def test_push_commits_exactly_the_hub_layout(run, api, monkeypatch, caplog):
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    monkeypatch.setenv("MY_HF_TOKEN", TOKEN)
    api.remote = [
        ".gitattributes",
        "README.md",
        "chat/train-00000-of-00002.parquet",
        "chat/train-00001-of-00002.parquet",
        "notes/keep-me.md",
    ]
    result = runner.invoke(app, ["push", str(run), "--repo", "me/mcp-tools", "--private", "--token-env", "MY_HF_TOKEN"])
    assert result.exit_code == 0, result.output
    assert "pushed" in result.output and "me/mcp-tools" in result.output
    kinds = [c[0] for c in api.calls]
    assert kinds == ["init", "create_repo", "list_repo_files", "create_commit"]
    assert api.calls[0][2] == {"token": TOKEN}  # the token goes to HfApi, nowhere else
    assert api.calls[1][2] == {"repo_type": "dataset", "private": True, "exist_ok": True}
    repo, operations = api.calls[3][1]
    assert repo == "me/mcp-tools" and api.calls[3][2]["repo_type"] == "dataset"
    added = [op.path_in_repo for op in operations if isinstance(op, CommitOperationAdd)]
    deleted = [op.path_in_repo for op in operations if isinstance(op, CommitOperationDelete)]
    parquet = sorted(p.relative_to(run).as_posix() for p in run.glob("*/*.parquet"))
    assert added == sorted(
        [
            "README.md",
            "manifest.json",
            *[
                f"plots/{p}.png"
                for p in (
                    "label_distribution",
                    "tool_calls_per_conversation",
                    "tool_frequency",
                    "tool_results",
                    "turns_per_conversation",
                )
            ],
            *parquet,
        ]
    )
    assert {
        "chat/train-00000-of-00001.parquet",
        "chat/validation-00000-of-00001.parquet",
        "eval/test-00000-of-00001.parquet",
        "scored/train-00000-of-00001.parquet",
        "scored/validation-00000-of-00001.parquet",
        "scored/test-00000-of-00001.parquet",
    } <= set(parquet)
    assert any(p.startswith("teval_review_str/") for p in parquet)
    assert deleted == [
        "chat/train-00000-of-00002.parquet",
        "chat/train-00001-of-00002.parquet",
    ]  # an older push's shards
    for op in operations:
        if isinstance(op, CommitOperationAdd):
            assert Path(op.path_or_fileobj) == run / op.path_in_repo
    # no JSONL, cache, queue or log goes up; the token is in no file and no output
    assert not any(a.endswith(".jsonl") or a.endswith(".sqlite") for a in added)
    assert TOKEN not in result.output and TOKEN not in caplog.text
    for path in run.rglob("*"):
        if path.is_file():
            assert TOKEN.encode() not in content(path), path


def test_push_errors_are_clear_and_never_show_the_token(run, api, monkeypatch, tmp_path):
    from huggingface_hub.errors import HfHubHTTPError

    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))  # no saved login
    monkeypatch.delenv("MY_HF_TOKEN", raising=False)

    result = runner.invoke(app, ["push", str(run), "--repo", "me/tools", "--token-env", "MY_HF_TOKEN"])
    assert result.exit_code == 2
    assert "MY_HF_TOKEN is not set" in result.output and "huggingface.co/settings/tokens" in result.output
    result = runner.invoke(app, ["push", str(run), "--repo", "me/tools"])
    assert result.exit_code == 2 and "HF_TOKEN is not set" in result.output and "hf auth login" in result.output
    assert api.calls == []  # nothing was attempted without a token

    monkeypatch.setenv("HF_TOKEN", TOKEN)
    for bad in ("tools", "me/tools/extra", "-me/tools", "me/to..ols", "me/" + "x" * 97):
        result = runner.invoke(app, ["push", str(run), "--repo", bad])
        assert result.exit_code == 2 and "OWNER/NAME" in result.output, (bad, result.output)
    assert api.calls == []

    api.fail = httpx2.ConnectError("[Errno -3] Temporary failure in name resolution")
    result = runner.invoke(app, ["push", str(run), "--repo", "me/tools"])
    assert result.exit_code == 2 and "cannot reach the Hugging Face Hub" in result.output
    assert "nothing was committed" in result.output

    request = httpx2.Request(
        "POST", "https://huggingface.co/api/repos/create", headers={"authorization": f"Bearer {TOKEN}"}
    )
    api.fail = HfHubHTTPError(f"401 Unauthorized: bad token {TOKEN}", response=httpx2.Response(401, request=request))
    result = runner.invoke(app, ["push", str(run), "--repo", "me/tools"])
    assert result.exit_code == 2 and "refused the token (401" in result.output
    api.fail = HfHubHTTPError(
        f"403 Forbidden for {TOKEN}",
        response=httpx2.Response(403, request=request),
        server_message=f"You don't have the rights to create a dataset under this namespace {TOKEN}",
    )
    result = runner.invoke(app, ["push", str(run), "--repo", "someone-else/tools"])
    assert result.exit_code == 2 and "may not write to someone-else/tools" in result.output
    assert TOKEN not in result.output


def test_push_without_a_run_folder_says_so(tmp_path):
    with pytest.raises(Exception, match="not a run folder"):
        push(tmp_path, "me/tools", token=TOKEN, api_factory=RecordingApi)


def test_the_card_says_why_a_huge_enum_is_repeated_on_every_line(tmp_path):
    from synth.config import Settings
    from synth.export.card.build import write_card
    from synth.pipeline import generate

    registry = tmp_path / "reg"
    registry.mkdir()
    codes = [f"SKU-{i:05d}" for i in range(5000)]
    tools = [
        {
            "name": "get_product",
            "description": "Look up one product by its SKU code.",
            "inputSchema": {
                "type": "object",
                "properties": {"sku": {"type": "string", "enum": codes}},
                "required": ["sku"],
            },
        },
        {
            "name": "list_orders",
            "description": "List the orders placed in one city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    ]
    (registry / "shop.json").write_text(json.dumps({"qualifiedName": "@t/shop", "displayName": "Shop", "tools": tools}))
    run = tmp_path / "run"
    generate(Settings(servers=registry, out=run, n=12, seed=1, allow_fallback=True))  # no pack: the fallback writes
    card = " ".join(write_card(run).read_text().split())
    assert "`get_product` (" in card and "repeated on every line that offers them" in card
    assert "no shared tool table" in card


def test_the_card_features_are_what_datasets_writes(run):
    """The card spells features without importing ``datasets``; ``datasets`` reads them back unchanged,
    and the parquet files carry exactly those features."""

    from datasets import Features

    from synth.export.hf import configs
    from synth.export.hf_features import features_yaml, hf_features

    for config in configs(run):
        spelled = features_yaml(config.features)
        assert Features._from_yaml_list(spelled)._to_yaml_list() == spelled, config.name
        assert hf_features(config.features)._to_yaml_list() == spelled
    header = read_header(run / "README.md")
    assert {i["config_name"]: i["features"] for i in header["dataset_info"]} == {
        c.name: features_yaml(c.features) for c in configs(run)
    }


def test_the_card_is_written_without_importing_datasets(run, tmp_path):
    """``datasets`` costs about 90 MB of memory: a run's card (every ``synth generate``) does without it."""
    import shutil
    import subprocess
    import sys

    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    code = (
        "import sys; from pathlib import Path; from synth.export.card.build import write_card; "
        f"write_card(Path({str(copy)!r})); "
        "assert 'datasets' not in sys.modules, 'the card imported datasets'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (copy / "README.md").read_bytes() == (run / "README.md").read_bytes()
