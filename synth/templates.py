"""The one jinja2 environment for everything in prompts/.

Templates get records, not pre-flattened strings. Text from registries (tool descriptions,
server names) is passed as values, so it is never compiled as template code.
"""

from __future__ import annotations

import hashlib
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import jinja2

from synth.errors import TemplateError


def shipped(package: str, folder: str) -> Path:
    """A top-level data folder (prompts/, registry/) that the wheel ships as ``synth.<package>``.

    An editable install does not map those folders, so fall back to the checkout's copy.
    """
    here = Path(__file__).resolve().parent
    installed = here / package
    return installed if installed.is_dir() else here.parent / folder


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    root = shipped("prompts", "prompts")
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        autoescape=False,
    )


def names() -> list[str]:
    return sorted(p.name for p in shipped("prompts", "prompts").iterdir() if p.name.endswith(".j2"))


@cache
def _template(name: str) -> jinja2.Template:
    try:
        return environment().get_template(name)
    except jinja2.TemplateError as exc:
        raise TemplateError(f"prompt template {name!r} cannot be loaded: {exc}. Check prompts/{name}.") from exc


def render(name: str, **records: Any) -> str:
    """Render ``prompts/<name>`` with the given records; a missing variable is an error."""
    try:
        return _template(name).render(**records).strip()
    except jinja2.TemplateError as exc:
        raise TemplateError(f"prompt template {name!r} failed to render: {exc}") from exc


def template_hash(name: str) -> str:
    """Hash of a template's source, for the manifest and for cache keys."""
    source = (shipped("prompts", "prompts") / name).read_text(encoding="utf-8")
    return hashlib.sha256(source.encode()).hexdigest()[:16]
