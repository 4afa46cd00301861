"""Load folders of MCP server definitions into validated, normalised ``Registry`` records."""

from synth.registry.lint import count_problems, format_problem, lint
from synth.registry.load import load_registry, registry_files
from synth.registry.normalize import normalize_schema

__all__ = ["count_problems", "format_problem", "lint", "load_registry", "normalize_schema", "registry_files"]
