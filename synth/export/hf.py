"""Hugging Face ``datasets`` export: one config per format, explicit ``Features``, parquet laid out as a Hub repo.

Configs and splits (a split with no rows is left out)::

    chat     train, validation   train.jsonl / valid.jsonl, tool-call arguments as objects
    eval     test                eval.jsonl, one row per gold call
    scored   train, validation, test   scored.jsonl by its split
    decisions   train, validation, test   scored_decisions.jsonl: a call where none should be, a guess
    preference  train, validation, test   prompt/chosen/rejected pairs (TRL) from scored negatives and decisions
    teval_*  test                one per T-Eval subset in teval/, when the run has them

Tool schemas, tool-call arguments and other free-form JSON use ``datasets.Json`` (datasets >= 5),
so rows load back as objects, not strings: ``tokenizer.apply_chat_template(messages, tools=tools)``
and TRL take a ``chat`` row as it is. The JSONL files keep OpenAI's JSON-string arguments.

Files: ``<config>/<split>-00000-of-0000N.parquet``, written in chunks so memory does not grow with
the run; the same run always gives the same bytes.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synth.export.hf_features import SPECS, hf_features, teval_features
from synth.export.preference import pair
from synth.rundir import (
    DECIDED,
    EVAL,
    SCORED,
    TEVAL,
    TRAIN,
    VALID,
    count_lines,
    lines,
    public_name,
    read_jsonl,
    stored,
    teval_rows,
)

if TYPE_CHECKING:
    from datasets import DatasetDict, Features

SPLIT_NAMES = {"train": "train", "valid": "validation", "test": "test"}
CHUNK_ROWS = 1000  # rows per parquet row group
SHARD_BYTES = 256 << 20  # start a new file after about this much JSON


# --- rows --------------------------------------------------------------------------------------


def _arguments(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) else raw


def _call(call: dict[str, Any]) -> dict[str, Any]:
    fn = call["function"]
    return {
        "id": call.get("id"),
        "type": call.get("type", "function"),
        "function": {"name": fn["name"], "arguments": _arguments(fn["arguments"])},
    }


def hf_message(m: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI chat message with its tool-call arguments as objects; absent keys are None."""
    calls = m.get("tool_calls")
    return {
        "role": m["role"],
        "content": m.get("content"),
        "tool_calls": [_call(c) for c in calls] if calls else None,
        "tool_call_id": m.get("tool_call_id"),
    }


def chat_row(line: dict[str, Any]) -> dict[str, Any]:
    return {"messages": [hf_message(m) for m in line["messages"]], "tools": line["tools"]}


def eval_row(line: dict[str, Any]) -> dict[str, Any]:
    item = line["item"]
    expected = item["expected_output"]
    return {
        "messages": [hf_message(m) for m in item["messages"]],
        "tools": item["tools"],
        "expected_output": {
            "role": expected["role"],
            "content": expected.get("content"),
            "tool_calls": [_call(c) for c in expected.get("tool_calls") or []],
        },
        "metadata": {
            "author": None,
            "call_index": None,
            "decision": "call",
            **item["metadata"],
            "parallel_calls": [_call(c) for c in item["metadata"].get("parallel_calls") or []],
        },
    }


def scored_row(line: dict[str, Any]) -> dict[str, Any]:
    return {
        "author": None,
        **line,
        "message_history": [hf_message(m) for m in line["message_history"]],
        "tool_call": _call(line["tool_call"]),
        "gold_call": _call(line["gold_call"]),
    }


def decision_row(line: dict[str, Any]) -> dict[str, Any]:
    return {
        "author": None,
        **line,
        "message_history": [hf_message(m) for m in line["message_history"]],
        "tool_call": _call(line["tool_call"]),
        "gold_response": hf_message(line["gold_response"]),
    }


def preference_row(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "author": None,
        **row,
        "prompt": [hf_message(m) for m in row["prompt"]],
        "chosen": [hf_message(m) for m in row["chosen"]],
        "rejected": [hf_message(m) for m in row["rejected"]],
    }


def preference_rows(run: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(HF split, pair) for every scored negative, then every decision (synth.export.preference)."""
    for name in (SCORED, DECIDED):
        if not stored(run / name).exists():
            continue
        for line in read_jsonl(run / name):
            if (row := pair(line)) is not None:
                yield SPLIT_NAMES[row["split"]], preference_row(row)


# --- the configs of a run ----------------------------------------------------------------------


@dataclass
class Config:
    name: str
    features: dict[str, Any]  # the spec: see synth.export.hf_features
    rows: Callable[[], Iterator[tuple[str, dict[str, Any]]]]  # (HF split, row), in file order
    json_columns: frozenset[str] = frozenset()
    description: str = ""


def teval_files(run: Path) -> list[Path]:
    """The T-Eval subsets of a run, plain or gzip (``plan_json.json``, ``plan_json.json.gz``)."""
    folder = run / TEVAL
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith((".json", ".jsonl", ".json.gz", ".jsonl.gz")))


def teval_name(path: Path) -> str:
    """A subset's name: its file name without the storage and format suffixes (``plan_json``)."""
    return Path(public_name(path)).stem


def configs(run: Path) -> list[Config]:
    """The configs this run has, in card order."""
    return _format_configs(run) + _teval_configs(run)


_SOURCES = {  # the run files each config reads
    "chat": (TRAIN, VALID),
    "eval": (EVAL,),
    "scored": (SCORED,),
    "decisions": (DECIDED,),
    "preference": (SCORED, DECIDED),
}


def _format_configs(run: Path) -> list[Config]:
    """chat, eval and scored, for the outputs the run wrote (one left out by --outputs has no config)."""

    def chat() -> Iterator[tuple[str, dict[str, Any]]]:
        for split, name in (("train", TRAIN), ("validation", VALID)):
            for line in read_jsonl(run / name):
                yield split, chat_row(line)

    def evalset() -> Iterator[tuple[str, dict[str, Any]]]:
        for line in read_jsonl(run / EVAL):
            yield "test", eval_row(line)

    def scored() -> Iterator[tuple[str, dict[str, Any]]]:
        for line in read_jsonl(run / SCORED):
            yield SPLIT_NAMES[line["split"]], scored_row(line)

    def decided() -> Iterator[tuple[str, dict[str, Any]]]:
        for line in read_jsonl(run / DECIDED):
            yield SPLIT_NAMES[line["split"]], decision_row(line)

    out = [
        Config(
            "chat",
            SPECS["chat"],
            chat,
            description="OpenAI chat fine-tuning conversations with tools "
            "(train.jsonl, valid.jsonl); tool-call arguments are objects, as chat templates expect",
        ),
        Config(
            "eval",
            SPECS["eval"],
            evalset,
            description="one item per gold tool call of the test split: "
            "the conversation so far, the tools, the expected call (eval.jsonl)",
        ),
        Config(
            "scored",
            SPECS["scored"],
            scored,
            description="gold calls and injected errors labelled correct, "
            "incorrect_tool, incorrect_parameter_names or incorrect_parameter_values, with the reason (scored.jsonl)",
        ),
        Config(
            "decisions",
            SPECS["decisions"],
            decided,
            description="a call where no call was right (unnecessary_call: a request no tool serves, a question "
            "the conversation already answers) or a value guessed where the assistant should have asked "
            "(guessed_value), with what the assistant rightly said (scored_decisions.jsonl)",
        ),
        Config(
            "preference",
            SPECS["preference"],
            lambda: preference_rows(run),
            description="preference pairs in TRL's conversational layout (prompt, chosen, rejected, tools): "
            "the gold call over each labelled negative, and the right no-call answer over the call, with the label",
        ),
    ]
    return [c for c in out if any(stored(run / name).exists() for name in _SOURCES[c.name])]


def _teval_configs(run: Path) -> list[Config]:
    """One config per T-Eval subset with records, its features read off them."""
    out = []
    for path in teval_files(run):
        if next(teval_rows(path), None) is None:
            continue
        feats, json_cols = teval_features(teval_rows(path))
        name = "teval_" + re.sub(r"[^A-Za-z0-9_]+", "_", teval_name(path))

        def rows(path: Path = path) -> Iterator[tuple[str, dict[str, Any]]]:
            for r in teval_rows(path):
                yield "test", r

        out.append(
            Config(
                name,
                feats,
                rows,
                frozenset(json_cols),
                description=f"T-Eval {teval_name(path)} subset, from the test split's gold conversations",
            )
        )
    return out


def _encode(row: dict[str, Any], json_columns: frozenset[str]) -> dict[str, Any]:
    # datasets keeps a str that parses as JSON as it is (so "42" would load back as 42): encode those columns here
    return {
        k: (json.dumps(v, ensure_ascii=False) if k in json_columns and v is not None else v) for k, v in row.items()
    }


def sizes(run: Path, specs: list[Config] | None = None) -> dict[str, dict[str, int]]:
    """Rows per config and split, without building anything (for the card); ``specs``: the run's configs."""
    out: dict[str, dict[str, int]] = {}
    for config in configs(run) if specs is None else specs:
        counts: dict[str, int] = {}
        if config.name == "chat":
            counts = {"train": count_lines(run / TRAIN), "validation": count_lines(run / VALID)}
        elif config.name == "eval":
            counts = {"test": count_lines(run / EVAL)}
        elif config.name == "scored":
            split = re.compile(r'"split": "(\w+)"')
            for _, text in lines(run / SCORED):  # the split without parsing the line, when it can be seen
                m = split.search(text)
                name = SPLIT_NAMES[m.group(1) if m else json.loads(text)["split"]]
                counts[name] = counts.get(name, 0) + 1
            counts = {s: counts[s] for s in ("train", "validation", "test") if s in counts}
        elif config.name in ("decisions", "preference"):
            for part, _ in config.rows():
                counts[part] = counts.get(part, 0) + 1
            counts = {s: counts[s] for s in ("train", "validation", "test") if s in counts}
        else:
            counts = {"test": sum(1 for _ in config.rows())}
        out[config.name] = {s: n for s, n in counts.items() if n}
    return out


# --- building ----------------------------------------------------------------------------------


def dataset_dict(run: Path, config: str) -> DatasetDict:
    """One config of the run as an in-memory ``DatasetDict`` (for Python users; the CLI writes parquet)."""
    from datasets import Dataset, DatasetDict

    spec = next((c for c in configs(run) if c.name == config), None)
    if spec is None:
        raise KeyError(f"{run} has no config {config!r}; it has {[c.name for c in configs(run)]}")
    by_split: dict[str, list[dict[str, Any]]] = {}
    for split, row in spec.rows():
        by_split.setdefault(split, []).append(_encode(row, spec.json_columns))
    features = hf_features(spec.features)
    return DatasetDict({s: Dataset.from_list(rows, features=features) for s, rows in by_split.items()})


class _Shards:
    """Parquet files of one split: row groups of CHUNK_ROWS, a new file every SHARD_BYTES of JSON."""

    def __init__(self, folder: Path, split: str, features: Features):
        self.folder, self.split, self.features = folder, split, features
        self.buffer: list[dict[str, Any]] = []
        self.bytes = 0
        self.writer: Any = None
        self.paths: list[Path] = []
        self.rows = 0

    def add(self, row: dict[str, Any], size: int) -> None:
        self.buffer.append(row)
        self.bytes += size
        self.rows += 1
        if len(self.buffer) >= CHUNK_ROWS:
            self._flush()
        if self.bytes >= SHARD_BYTES:
            self._flush()
            self._close_file()

    def _flush(self) -> None:
        import pyarrow.parquet as pq
        from datasets import Dataset

        if not self.buffer:
            return
        table = Dataset.from_list(self.buffer, features=self.features).data.table
        if self.writer is None:
            path = self.folder / f"{self.split}-{len(self.paths):05d}.partial"
            self.paths.append(path)
            self.writer = pq.ParquetWriter(path, table.schema)
        self.writer.write_table(table)
        self.buffer = []

    def _close_file(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
        self.bytes = 0

    def close(self) -> list[Path]:
        self._flush()
        self._close_file()
        final = []
        for i, path in enumerate(self.paths):
            target = path.with_name(f"{self.split}-{i:05d}-of-{len(self.paths):05d}.parquet")
            path.replace(target)
            final.append(target)
        return final


def write_parquet(run: Path, out: Path, only: frozenset[str] | None = None) -> dict[str, dict[str, list[Path]]]:
    """Every config of ``run`` (or those named in ``only``) as ``out/<config>/<split>-*.parquet``; returns the
    files by config and split.

    Folders of configs are replaced whole, so files of an earlier, larger build do not linger.
    """
    written: dict[str, dict[str, list[Path]]] = {}
    stale = [p for p in out.glob("teval_*") if p.is_dir()] + [out / c for c in _SOURCES]
    for folder in stale if only is None else [out / c for c in only]:
        shutil.rmtree(folder, ignore_errors=True)
    for config in configs(run):
        if only is not None and config.name not in only:
            continue
        folder = out / config.name
        folder.mkdir(parents=True, exist_ok=True)
        features = hf_features(config.features)
        shards: dict[str, _Shards] = {}
        for split, row in config.rows():
            sink = shards.get(split) or shards.setdefault(split, _Shards(folder, split, features))
            encoded = _encode(row, config.json_columns)
            sink.add(encoded, len(json.dumps(encoded, ensure_ascii=False, default=str)))
        written[config.name] = {split: sink.close() for split, sink in shards.items()}
        if not any(written[config.name].values()):
            folder.rmdir()
            del written[config.name]
    return written


def data_files(written_or_sizes: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The card's ``configs:`` entries for these configs and splits."""
    out = []
    for i, (config, splits) in enumerate(written_or_sizes.items()):
        entry: dict[str, Any] = {
            "config_name": config,
            "data_files": [{"split": s, "path": f"{config}/{s}-*.parquet"} for s in splits],
        }
        if i == 0:
            entry["default"] = True
        out.append(entry)
    return out
