"""Backends for a run, picked from a dict, one per distinct endpoint, all behind one cache."""

from __future__ import annotations

import os
from typing import Any, Callable

from synth.llm.spend import Spend
from synth.config import ROLES, Settings
from synth.errors import BudgetError, ConfigError
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse


class Budgeted:
    """Sits between the cache and the network: once ``--budget-usd`` is spent, paid calls stop.

    Cache hits never reach it, so a resumed run replays what was paid for and goes on from there.
    """

    def __init__(self, inner: ChatBackend, spend: Spend, budget: float | None):
        self.inner, self.spend, self.budget = inner, spend, budget

    async def complete(self, request: ChatRequest) -> ChatResponse:
        if self.budget is not None and self.spend.usd() >= self.budget:
            raise BudgetError(f"--budget-usd {self.budget} is spent; run again with --resume and a larger budget")
        response = await self.inner.complete(request)
        self.spend.add([response.model_copy(update={"model": f"{request.role}:{response.model or request.model}"})])
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()  # type: ignore[attr-defined]


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
    spend = Spend(settings.prices)  # paid calls of this run, all endpoints together
    clients: dict[tuple[str | None, str], Any] = {}
    out = {}
    for role in ROLES:
        endpoint = settings.endpoint(role)
        key = (endpoint.base_url, endpoint.api_key_env or settings.api_key_env)
        if key not in clients:
            clients[key] = CachedBackend(Budgeted(make(settings, *key), spend, settings.budget_usd), settings.cache_path)
        out[role] = clients[key]
    return out


def open_one(settings: Settings) -> Any:
    """One cached backend for the run's endpoint (``synth eval`` asks one model)."""
    from synth.llm.cache import CachedBackend

    make = BACKENDS.get(settings.backend)
    if make is None:
        raise ConfigError(f"unknown backend {settings.backend!r}; choose one of {', '.join(BACKENDS)}")
    settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
    return CachedBackend(make(settings, settings.base_url, settings.api_key_env), settings.cache_path)
