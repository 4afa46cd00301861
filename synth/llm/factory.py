"""Backends for a run, picked from a dict by each role's endpoint type, one client per distinct
endpoint, all behind one cache.

Types (``backend`` in [llm] or [roles.<role>] of synth.toml): ``openai``, any OpenAI-compatible API
(a key from ``api_key_env``, unless ``base_url`` points at a server that needs none), and ``local``,
a server you run (vLLM, Ollama, llama.cpp, LM Studio): ``base_url`` required, no key needed, and its
models cost $0 unless [prices] names them. So the user simulator can run on a local vLLM while the
planner asks a hosted reasoning model. ``offline`` is for the tool role only: its results come from
the server packs and the schema simulator (the pipeline gives the agents that runtime), no model.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from synth.config import OFFLINE_ROLES, ROLES, Endpoint, Settings
from synth.errors import BudgetError, ConfigError
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse
from synth.llm.spend import Spend


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


def _openai(settings: Settings, endpoint: Endpoint) -> ChatBackend:
    env = endpoint.api_key_env or settings.api_key_env
    key = os.environ.get(env)
    if not key and not endpoint.base_url:
        raise ConfigError(
            f"no API key: set {env} (or pass --api-key-env NAME of the variable that holds it), "
            "or point --base-url at an endpoint that needs none"
        )
    return _client(settings, endpoint, key, paced=True)


def _local(settings: Settings, endpoint: Endpoint) -> ChatBackend:
    if not endpoint.base_url:
        raise ConfigError(
            'a backend of type "local" needs base_url (in [llm] or its [roles.<role>] of synth.toml, or '
            '--base-url), e.g. base_url = "http://localhost:8000/v1" for vLLM'
        )
    key = os.environ.get(endpoint.api_key_env or "") or ""  # a local server may check a key; none is needed
    return _client(settings, endpoint, key, paced=False)


def _client(settings: Settings, endpoint: Endpoint, key: str | None, paced: bool) -> ChatBackend:
    """An OpenAI-compatible client for ``endpoint``; ``paced``: the run's --rpm/--tpm apply (a hosted API)."""
    from synth.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(
        base_url=endpoint.base_url,
        api_key=key or "unused",
        concurrency=endpoint.concurrency or settings.concurrency,
        rpm=settings.rpm if paced else None,
        tpm=settings.tpm if paced else None,
        timeout=settings.timeout,
        max_attempts=settings.max_attempts,
        max_tokens=endpoint.max_tokens,
        token_param=endpoint.token_param or "auto",
    )


BACKENDS: dict[str, Callable[[Settings, Endpoint], ChatBackend]] = {"openai": _openai, "local": _local}


def open_backends(settings: Settings) -> dict[str, Any]:
    """role -> backend. Roles that share an endpoint share one client; every role shares the cache.
    A role whose backend is ``offline`` (the tool role: see OFFLINE_ROLES) has none."""
    from synth.llm.cache import CachedBackend

    if settings.backend not in BACKENDS:
        raise ConfigError(f"unknown backend {settings.backend!r}; choose one of offline, {', '.join(BACKENDS)}")
    settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
    spend = Spend(settings.prices)  # paid calls of this run, all endpoints together
    clients: dict[Endpoint, Any] = {}
    out = {}
    for role in ROLES:
        if settings.offline(role):
            if role not in OFFLINE_ROLES:
                raise ConfigError(
                    f'[roles.{role}] backend = "offline": in an LLM run only {", ".join(OFFLINE_ROLES)} can be '
                    "offline (results from server packs and the simulator); for a run with no model at all, "
                    "use --backend offline"
                )
            continue
        endpoint = settings.endpoint(role).model_copy(update={"model": None})  # models share a client
        if endpoint not in clients:
            make = BACKENDS[endpoint.backend or settings.backend]
            clients[endpoint] = CachedBackend(
                Budgeted(make(settings, endpoint), spend, settings.budget_usd), settings.cache_path
            )
        out[role] = clients[endpoint]
    return out


def open_one(settings: Settings) -> Any:
    """One cached backend for the run's endpoint (``synth eval`` asks one model)."""
    from synth.llm.cache import CachedBackend

    make = BACKENDS.get(settings.backend)
    if make is None:
        raise ConfigError(f"unknown backend {settings.backend!r}; choose one of {', '.join(BACKENDS)}")
    settings.cache_path.parent.mkdir(parents=True, exist_ok=True)
    return CachedBackend(make(settings, settings.endpoint(None)), settings.cache_path)
