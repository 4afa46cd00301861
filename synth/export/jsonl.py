"""The run's public files as plain JSONL, the shapes synth has always published: OpenAI fine-tuning
lines (train.jsonl, valid.jsonl), Foundry eval items (eval.jsonl), limbic scored rows (scored.jsonl),
T-Eval subsets (teval/*.json), and conversations.jsonl, the gold conversations they are all made from
(scenario, plan, review, split, where each tool result came from and whether it was an error). A run folder
stores the bulky ones compactly (synth.rundir); this writes them out row for row, each line the bytes it had
when it was made."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from synth.errors import ConfigError
from synth.rundir import (
    CONVERSATIONS,
    DECIDED,
    EVAL,
    SCORED,
    TEVAL,
    TRAIN,
    VALID,
    dump_line,
    open_text,
    read_jsonl,
    stored,
    write_atomic,
)

# conversations.jsonl is the canonical record (each tool message's source and is_error, the review's step
# labels): OpenAI's fine-tuning lines take no key of synth's on a message, so it travels beside them
PUBLIC = (TRAIN, VALID, EVAL, SCORED, DECIDED, CONVERSATIONS)


def export_jsonl(run: Path, out: Path, without_fallback: bool = False) -> list[Path]:
    """Write the public files of ``run`` into ``out`` (not the run folder: its files are stored there
    under the same names); returns the files written. Streamed: memory does not grow with the run.
    ``without_fallback``: leave out every row of a conversation the plain fallback wrote (``"author":
    "fallback"``: no pack entry for its tools); the fine-tuning lines, which carry no marker so that they
    upload as they are, are matched to their conversations by order within their split."""
    if out.resolve() == run.resolve():
        raise ConfigError(
            f"--format jsonl writes the public files beside nothing else: give an --out other than the run ({run})"
        )
    written = []
    authors = _chat_authors(run) if without_fallback else {}
    for name in PUBLIC:
        if stored(run / name).exists():
            rows = read_jsonl(run / name)
            if without_fallback:
                rows = _kept(name, rows, authors.get(name, []))
            write_atomic(out / name, (dump_line(row) for row in rows))
            written.append(out / name)
    folder = run / TEVAL
    if folder.is_dir():
        (out / TEVAL).mkdir(parents=True, exist_ok=True)
        for path in sorted(folder.iterdir()):
            if path.name.endswith((".json", ".json.gz")):
                target = out / TEVAL / path.name.removesuffix(".gz")
                with open_text(path) as src:
                    write_atomic(target, src)
                written.append(target)
    return written


def _chat_authors(run: Path) -> dict[str, list[str]]:
    """train.jsonl / valid.jsonl -> the author of each of its lines, in order (one line per conversation of
    that split, written in the conversations' order)."""
    out: dict[str, list[str]] = {TRAIN: [], VALID: []}
    for conv in read_jsonl(run / CONVERSATIONS):
        name = {"train": TRAIN, "valid": VALID}.get(conv.get("split") or "")
        if name is not None and (conv.get("review") or {}).get("verdict") != "human":
            out[name].append(conv.get("author") or "")
    return out


def _kept(name: str, rows: Iterator[Any], authors: list[str]) -> Iterator[Any]:
    if name in (EVAL, SCORED, DECIDED, CONVERSATIONS):  # rows that carry their author
        for row in rows:
            author = (row.get("item") or {}).get("metadata", {}).get("author") if name == EVAL else row.get("author")
            if author != "fallback":
                yield row
        return
    count = 0
    for count, row in enumerate(rows, 1):
        if count > len(authors):
            break
        if authors[count - 1] != "fallback":
            yield row
    if count != len(authors):
        raise ConfigError(
            f"{name} has {count} lines but conversations.jsonl has {len(authors)} conversations in its split: the "
            "lines cannot be matched to their authors; export without --without-fallback"
        )
