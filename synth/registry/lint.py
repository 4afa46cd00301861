"""``lint`` of a registry folder: the problems loading it finds, one line each.

``synth registry lint DIR`` prints ``lint(DIR)`` one line per problem and exits 1 only on errors.
"""

from __future__ import annotations

from pathlib import Path

from synth.records import Problem
from synth.registry.load import load_registry, problem_key


def lint(root: Path | str) -> list[Problem]:
    """All problems found while loading ``root``, sorted by file, server, tool and pointer.

    Raises ``RegistryError`` only when the folder cannot be read at all (missing, or no registry files).
    """
    return sorted(load_registry(root).problems, key=problem_key)


def format_problem(p: Problem) -> str:
    """``file: server: tool at /pointer: severity: what (fix: ...)``, always on one line."""
    return " ".join(p.line().split())


def count_problems(problems: list[Problem]) -> dict[str, int]:
    """How many errors and warnings, for a summary line."""
    errors = sum(p.severity == "error" for p in problems)
    return {"errors": errors, "warnings": len(problems) - errors}
