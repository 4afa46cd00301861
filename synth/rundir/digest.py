"""Line counts and sha256 of run files (the manifest's ``files``) and of a registry folder (a run's identity)."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path
from typing import Any

from synth.rundir.names import GZ
from synth.rundir.storage import stored


def count_lines(path: Path) -> int:
    """Lines of a file, counted in chunks (0 when it is absent)."""
    return file_facts(path, digest=False)["lines"] if stored(path).exists() else 0


def file_facts(path: Path, digest: bool = True) -> dict[str, Any]:
    """Line count and sha256 of a file's content (uncompressed, so the hash does not depend on the
    storage or the zlib version), read in chunks so memory stays flat however big it is."""
    sha, count = hashlib.sha256(), 0
    path = stored(path)
    with gzip.open(path, "rb") if path.suffix == GZ else open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            if digest:
                sha.update(chunk)
            count += chunk.count(b"\n")
    return {"lines": count, "sha256": sha.hexdigest()} if digest else {"lines": count}


def tree_digest(folder: Path, skip: Path | None = None) -> str:
    """sha256 over the relative names and bytes of every file under ``folder`` (a registry's identity),
    leaving out hidden files and anything under ``skip`` (a run folder kept inside the registry)."""
    sha = hashlib.sha256()
    root = folder if folder.is_dir() else folder.parent
    skipped = skip.resolve() if skip is not None else None

    def kept(p: Path) -> bool:
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(root).parts):
            return False
        return skipped is None or not p.resolve().is_relative_to(skipped)

    for p in sorted(p for p in root.rglob("*") if kept(p)) if folder.is_dir() else [folder]:
        sha.update(p.relative_to(root).as_posix().encode("utf-8") + b"\0")
        with open(p, "rb") as f:
            while chunk := f.read(1 << 20):
                sha.update(chunk)
        sha.update(b"\0")
    return sha.hexdigest()
