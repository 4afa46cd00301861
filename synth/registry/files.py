"""Registry files: which files under a folder are server definitions, and each one's document as JSON values
(or the one Problem saying where it stops parsing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from synth.records import Problem

SUFFIXES = (".json", ".yaml", ".yml")
PACK_SUFFIXES = (".pack.yaml", ".pack.yml", ".pack.json")


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc] # libyaml's parser when present: packs are large
    """YAML read the way JSON would be: dates stay strings, so schemas and hashes hold JSON values only."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_yaml(text: str) -> Any:
    """One YAML document as JSON values (registry files and packs alike)."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass


def registry_files(folder: Path) -> list[Path]:
    """Registry files under ``folder``, sorted by relative path; hidden files and folders are skipped."""
    found = []
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.name.endswith(PACK_SUFFIXES):  # a server pack sits beside its server; it is not one
            continue
        if path.suffix.lower() in SUFFIXES and path.is_file() and not any(p.startswith(".") for p in rel.parts):
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def parse(path: Path, rel: str) -> tuple[Any, Problem | None]:
    """The file's document, or one error Problem saying where it stops parsing."""

    def bad(what: str, fix: str) -> tuple[Any, Problem]:
        return None, Problem(severity="error", file=rel, what=what, fix=fix)

    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return bad(f"file is not UTF-8 text (bad byte at offset {exc.start})", "save the file as UTF-8")
    except OSError as exc:
        return bad(f"file cannot be read: {exc.strerror or exc}", "check the file's permissions")
    if not text.strip():
        return bad("empty file", "put a server definition in it, or delete it")
    try:
        if path.suffix.lower() == ".json":
            try:
                return json.loads(text), None
            except json.JSONDecodeError as exc:
                return bad(
                    f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                    "fix the JSON syntax at that position (a JSON linter shows the exact spot)",
                )
        try:
            return _jsonish(read_yaml(text)), None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            return bad(
                f"not valid YAML: {reason}{at}", "fix the YAML syntax at that position (indentation, quotes, colons)"
            )
    except RecursionError:
        return bad("file is nested too deeply (or holds a recursive YAML alias)", "flatten the document")


def _jsonish(value: Any) -> Any:
    """YAML values as JSON values: string keys, lists for sequences and sets, strings for anything else."""
    if isinstance(value, dict):
        return {str(k): _jsonish(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_jsonish(v) for v in value), key=repr)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
