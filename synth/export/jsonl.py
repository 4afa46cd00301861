"""The run's public files as plain JSONL, the shapes synth has always published: OpenAI fine-tuning
lines (train.jsonl, valid.jsonl), Foundry eval items (eval.jsonl), limbic scored rows (scored.jsonl),
T-Eval subsets (teval/*.json), and conversations.jsonl, the gold conversations they are all made from
(scenario, plan, review, split, where each tool result came from and whether it was an error). A run folder
stores the bulky ones compactly (synth.rundir); this writes them out row for row, each line the bytes it had
when it was made."""

from __future__ import annotations

from pathlib import Path

from synth.errors import ConfigError
from synth.rundir import (
    CONVERSATIONS,
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
PUBLIC = (TRAIN, VALID, EVAL, SCORED, CONVERSATIONS)


def export_jsonl(run: Path, out: Path) -> list[Path]:
    """Write the public files of ``run`` into ``out`` (not the run folder: its files are stored there
    under the same names); returns the files written. Streamed: memory does not grow with the run."""
    if out.resolve() == run.resolve():
        raise ConfigError(
            f"--format jsonl writes the public files beside nothing else: give an --out other than the run ({run})"
        )
    written = []
    for name in PUBLIC:
        if stored(run / name).exists():
            write_atomic(out / name, (dump_line(row) for row in read_jsonl(run / name)))
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
