"""Settings: built once by the CLI (or a caller) and passed down, never read from globals."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from synth.errors import ConfigError
from synth.rundir import CACHE

ROLES = ("query", "refine", "plan", "executor", "user", "tool", "review")
REVIEW_RULES = ("human", "flagged", "low_confidence", "disagree", "audit")  # what sends an item to review_queue.jsonl

# USD per million tokens (input, output); extend or override with [prices] in synth.toml.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
    "o4-mini": (1.10, 4.40),
}


# synth.llm.factory.BACKENDS: a hosted API, or a server you run (vLLM, Ollama, ...); for the tool role of an LLM
# run only: "offline" (every result from the server packs and the schema simulator, never a model) and "llm" (the
# run's model even where a pack could answer); unset, a server with a pack answers from it and others the model
EndpointType = Literal["openai", "local", "offline", "llm"]
ToolAnswers = Literal["packs", "offline", "model"]  # who answers an LLM run's tool calls (Settings.tool_answers)
OFFLINE_ROLES = ("tool",)  # the roles an LLM run can leave to the offline author
TokenParam = Literal["auto", "max_tokens", "max_completion_tokens"]  # how the length limit is sent


class Endpoint(BaseModel):
    """Where one role's requests go, and how to talk to it. Unset fields fall back to the run's
    defaults ([llm] in synth.toml, then the flags)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    backend: EndpointType | None = None
    concurrency: int | None = Field(None, ge=1)  # this endpoint's own request slots
    max_tokens: int | None = Field(None, ge=1)  # the answer's length limit (reasoning included, on reasoning models)
    # how the limit is sent: "auto" sends max_completion_tokens to reasoning models (o1, o3, o4, gpt-5 names)
    # and max_tokens otherwise, switching for the run on a 400 that refuses max_tokens
    token_param: TokenParam | None = None


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    servers: Path
    out: Path
    n: int = Field(500, ge=1, description="conversations to aim for in total")
    seed: int = 0
    split: tuple[float, float, float] = (0.8, 0.1, 0.1)
    backend: str = "offline"
    max_tools: int = Field(24, ge=1, description="tools offered per conversation (the used ones always are)")
    decisions: float = Field(
        0.2, ge=0, le=1, description="share of conversations with a turn to decline or to answer without a tool"
    )
    # an offline run writes no data for a server without a pack (the plain fallback's requests read like forms):
    # True puts the fallback's conversations in, marked "author": "fallback" (pipeline tests; issue 39)
    allow_fallback: bool = False
    # where tool results come from: the simulator (packs, schema), or the real servers of entries with a connection
    execute: Literal["simulated", "live"] = "simulated"
    allow_exec: bool = False  # live execution starts commands and contacts URLs from the registry: only when asked
    # the user's key variables (synth.live.secrets.guarded) a live entry may read anyway, each named by the user
    allow_env: tuple[str, ...] = ()
    connect_timeout: float = Field(20.0, gt=0, description="seconds to connect to a live server and initialize")
    call_timeout: float = Field(30.0, gt=0, description="seconds to wait for one live tools/call")
    # live safety: "guarded" runs writes only in a scenario's own sandbox, "allow" runs every tool, "read-only"
    # only the tools whose annotations say readOnlyHint
    live_writes: Literal["guarded", "allow", "read-only"] = "guarded"
    max_result_chars: int = Field(20_000, ge=100, description="a live result longer than this is cut or an error")
    result_overflow: Literal["cut", "error"] = "cut"
    # which optional outputs generate writes (synth.export.outputs.OUTPUTS); None: the ones on by default
    outputs: tuple[str, ...] | None = None
    # how the run folder stores them (synth.rundir.STORAGES): train/valid/eval plain and ready by default
    storage: Literal["ready", "compact", "plain"] = "ready"
    # the LLM path
    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    roles: dict[str, Endpoint] = Field(default_factory=dict)
    concurrency: int = Field(16, ge=1)
    rpm: int | None = None
    tpm: int | None = None
    timeout: float = Field(60.0, gt=0, description="seconds to wait for one model answer before retrying it")
    max_attempts: int = Field(6, ge=1, description="tries per model request on 429, 5xx, timeouts, dropped connections")
    max_tokens: int | None = Field(None, ge=1)
    token_param: TokenParam = "auto"
    budget_usd: float | None = None
    cache: Path | None = None  # default: <out>/cache.sqlite
    prices: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(PRICES))
    # the human review queue (review_queue.jsonl)
    audit: float = Field(0.02, ge=0, le=1, description="share of accepted items queued at random for a person")
    review_below: float = Field(0.7, ge=0, le=1, description="queue items the reviewer accepted with less confidence")
    review_rules: tuple[str, ...] = Field(
        REVIEW_RULES, description="which rules queue items: " + ", ".join(REVIEW_RULES)
    )

    @field_validator("split")
    @classmethod
    def _split_sums_to_one(cls, v: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(x < 0 for x in v) or abs(sum(v) - 1.0) > 1e-6:
            raise ValueError("split must be three non-negative shares that add up to 1, e.g. 0.8,0.1,0.1")
        return v

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, v: dict[str, Endpoint]) -> dict[str, Endpoint]:
        unknown = sorted(set(v) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown roles {unknown}; roles are {', '.join(ROLES)}")
        return v

    @field_validator("review_rules")
    @classmethod
    def _known_review_rules(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(v) - set(REVIEW_RULES))
        if unknown:
            raise ValueError(f"unknown review rules {unknown}; rules are {', '.join(REVIEW_RULES)}")
        return v

    def endpoint(self, role: str | None) -> Endpoint:
        """Everything one role's requests need (model, URL, key variable, type, limits): its own
        [roles.<role>] settings, else the run's; ``None``: the run's own."""
        own = self.roles.get(role, Endpoint()) if role else Endpoint()
        return Endpoint(
            model=own.model or self.model,
            base_url=own.base_url or self.base_url,
            api_key_env=own.api_key_env or self.api_key_env,
            backend=(None if own.backend == "llm" else own.backend)  # "llm": the tool role's model is the run's
            or ("openai" if self.backend == "offline" else self.backend),
            concurrency=own.concurrency or self.concurrency,
            max_tokens=own.max_tokens or self.max_tokens,
            token_param=own.token_param or self.token_param,
        )

    def offline(self, role: str) -> bool:
        """Whether ``role`` is answered without a model in an LLM run (OFFLINE_ROLES)."""
        return self.endpoint(role).backend == "offline"

    def tool_answers(self) -> ToolAnswers:
        """Who answers an LLM run's tool calls: "packs" (the default: a server with a pack answers from its
        world and templates, offline, free and consistent; a server without one, the model), "offline" (every
        server from its pack or the schema simulator) or "model" (always the model: [roles.tool] backend =
        "llm", or a model or endpoint of the tool role's own)."""
        own = self.roles.get("tool", Endpoint())
        if own.backend == "offline":
            return "offline"
        return "model" if own.backend is not None or own.model or own.base_url else "packs"

    def models(self) -> dict[str, str]:
        return {role: self.endpoint(role).model or self.model for role in ROLES}

    def unpriced(self) -> list[str]:
        """Models of this run with no price (their cost would read as $0 and no budget could stop them)."""
        if self.backend == "offline":
            return []
        local = {self.endpoint(r).model for r in ROLES if self.endpoint(r).backend == "local"}  # $0 unless priced
        return sorted({m for m in self.models().values() if m not in self.prices and m not in local})

    def identity(self) -> dict[str, Any]:
        """What makes a run this run and not another: the registry's content, seed, size and the flags
        that shape the data (not the budget, prices or concurrency, which a resume may change)."""
        from synth.rundir import tree_digest

        return {
            "registry_sha256": tree_digest(self.servers, skip=self.out) if self.servers.exists() else None,
            "seed": self.seed,
            "n": self.n,
            "split": list(self.split),
            "max_tools": self.max_tools,
            **({} if self.decisions == 0.2 else {"decisions": self.decisions}),
            **({"allow_fallback": True} if self.allow_fallback else {}),
            "execute": self.execute,
            **(
                {
                    "live": {
                        "writes": self.live_writes,
                        "max_result": self.max_result_chars,
                        "overflow": self.result_overflow,
                    }
                }
                if self.execute == "live"
                else {}
            ),
            "backend": self.backend,
            "model": None if self.backend == "offline" else self.models(),
            "review": {"audit": self.audit, "below": self.review_below, "rules": list(self.review_rules)},
            **({} if self.outputs is None else {"outputs": sorted(self.outputs)}),
        }

    def key_envs(self) -> list[str]:
        """The environment variables this run's model keys come from: the run's and every role's api_key_env."""
        return [self.api_key_env, *(endpoint.api_key_env or "" for endpoint in self.roles.values())]

    @property
    def cache_path(self) -> Path:
        return self.cache or self.out / CACHE


def parse_split(text: str) -> tuple[float, float, float]:
    """``"0.8,0.1,0.1"`` -> (0.8, 0.1, 0.1), with an error that says how to write it."""
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise ConfigError(f"--split {text!r} is not three numbers; write it as 0.8,0.1,0.1") from None
    if len(parts) != 3 or any(x < 0 for x in parts) or abs(sum(parts) - 1.0) > 1e-6:
        raise ConfigError(f"--split {text!r} must be three non-negative shares adding up to 1, e.g. 0.8,0.1,0.1")
    return parts


def read_toml(path: Path) -> dict[str, Any]:
    """``synth.toml``: [llm] defaults (model, base_url, api_key_env, concurrency, ...), [roles.<role>], [prices].

    Returns Settings fields; flags given on the command line override them.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"{path}: cannot be read as TOML: {exc}. Fix the file or pass --config another one."
        ) from None
    allowed = {"llm", "roles", "prices"}
    if set(data) - allowed:
        raise ConfigError(
            f"{path}: unknown sections {sorted(set(data) - allowed)}; use [llm], [roles.<role>] and [prices]"
        )
    out: dict[str, Any] = dict(data.get("llm", {}))
    if "roles" in data:
        out["roles"] = data["roles"]
    if "prices" in data:
        out["prices"] = {**PRICES, **{k: tuple(v) for k, v in data["prices"].items()}}
    try:  # check the shapes now, with the file's name in the message
        Settings(servers=Path("."), out=Path("."), **out)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(f"{path}: {'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
    return out
