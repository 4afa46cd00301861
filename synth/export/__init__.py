"""Exports: the run's files in the shapes other tools read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator


def jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The records of a JSONL file the run wrote, one at a time; nothing when the file is absent."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as f:
        for text in f:
            if text.strip():
                yield json.loads(text)
