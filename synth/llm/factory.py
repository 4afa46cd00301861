"""Backends for a run, picked from a dict, one per distinct endpoint, all behind one cache."""

from __future__ import annotations

import os
from typing import Any, Callable

from synth.config import ROLES, Settings
from synth.errors import ConfigError
from synth.llm.base import ChatBackend


def _openai(settings: Settings, base_url: str | None, api_key_env: str) -> ChatBackend:
    from synth.llm.openai_backend import OpenAIBackend

    key = os.environ.get(api_key_env)
    if not key and not base_url:
        raise ConfigError(f"no API key: set {api_key_env} (or pass --api-key-env NAME of the variable that holds it), "
                          "or point --base-url at an endpoint that needs none")
    return OpenAIBackend(base_url=base_url, api_key=key or "unused", concurrency=settings.concurrency,
                         rpm=settings.rpm, tpm=settings.tpm, timeout=settings.timeout)


BACKENDS: dict[str, Callable[[Settings, str | None, str], ChatBackend]] = {"openai": _openai}


def open_backends(settings: Settings) -> dict[str, Any]:
    """role -> backend. Roles that share an endpoint share one client; every role shares the cache."""
    from synth.llm.cache import CachedBackend

    make = BACKENDS.get(settings.backend)
    if make is None:
        raise ConfigError(f"unknown backend {settings.backend!r}; choose one of offline, {', '.join(BACKENDS)}")
    settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
    clients: dict[tuple[str | None, str], Any] = {}
    out = {}
    for role in ROLES:
        endpoint = settings.endpoint(role)
        key = (endpoint.base_url, endpoint.api_key_env or settings.api_key_env)
        if key not in clients:
            clients[key] = CachedBackend(make(settings, *key), settings.cache_path)
        out[role] = clients[key]
    return out
