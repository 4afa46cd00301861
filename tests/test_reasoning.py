"""Reasoning models and a backend per role, against real loopback servers (tests/openai_server.py):
max_completion_tokens for reasoning models (by name, by setting, or learnt from a 400), no temperature
where only the default is taken, the thinking kept apart from the answer, and roles on different
endpoints of different types."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from pathlib import Path

import pytest
from fake_agents import respond, role_of
from openai_server import OpenAIServer, Reasoning
from pydantic import BaseModel

from synth.config import Settings, read_toml
from synth.errors import ConfigError
from synth.llm.base import ChatRequest
from synth.llm.factory import open_backends
from synth.llm.openai_backend import OpenAIBackend
from synth.llm.reasoning import is_reasoning_model
from synth.llm.structured import ask
from synth.pipeline import generate

REGISTRY = Path(__file__).parents[1] / "registry"


class Answer(BaseModel):
    steps: list[str]


def request(model: str, **kw) -> ChatRequest:
    return ChatRequest(role="plan", model=model, messages=({"role": "user", "content": "Plan a trip."},), **kw)


def complete(server: OpenAIServer, requests: list[ChatRequest], **kw):
    async def go():
        async with OpenAIBackend(base_url=server.base_url, api_key="k", backoff=0.001, **kw) as llm:
            return [await llm.complete(r) for r in requests], llm.stats

    return asyncio.run(go())


def sent(server: OpenAIServer) -> list[dict]:
    return [r.json for r in server.requests if r.path == "/v1/chat/completions"]


@pytest.mark.parametrize(
    "name, expected",
    [
        ("o1", True),
        ("o3-mini", True),
        ("o4-mini-2025-04-16", True),
        ("gpt-5", True),
        ("gpt-5-mini", True),
        ("openai/o3", True),
        ("gpt-4o-mini", False),
        ("gpt-4.1", False),
        ("qwen3-8b", False),
        ("gpt-oss-20b", False),
        ("model-o1x", False),
    ],
)
def test_reasoning_models_are_known_by_name(name, expected):
    assert is_reasoning_model(name) is expected


def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature():
    with OpenAIServer(reasoning=Reasoning()) as server:
        (answer,), stats = complete(server, [request("o3-mini")], max_tokens=300)
    body = sent(server)[0]
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body and "temperature" not in body
    assert [r.outcome for r in server.requests] == ["ok"] and stats.downgrades == 0
    assert answer.content == "You asked: Plan a trip." and answer.reasoning == Reasoning().thought


def test_a_400_refusing_max_tokens_switches_once_and_is_remembered(caplog):
    """A model whose name says nothing (a deployment alias): the endpoint's 400s teach the backend."""
    with OpenAIServer(reasoning=Reasoning(field="reasoning")) as server:
        answers, stats = complete(server, [request("my-deployment"), request("my-deployment", seed=2)], max_tokens=300)
    outcomes = [r.outcome for r in server.requests]
    assert outcomes == ["unsupported_param", "unsupported_param", "ok", "ok"]  # max_tokens, temperature, then learnt
    first, _, third, fourth = sent(server)
    assert first["max_tokens"] == 300 and third["max_completion_tokens"] == 300 and "temperature" not in third
    assert fourth["max_completion_tokens"] == 300 and "max_tokens" not in fourth and "temperature" not in fourth
    assert stats.downgrades == 2 and all(a.reasoning == Reasoning().thought for a in answers)
    assert "max_completion_tokens for the rest of the run" in caplog.text


def test_a_forced_parameter_refused_is_an_error_not_a_switch():
    """A parameter the setting names is not switched: the 400 is the answer, raised with its reason."""
    from synth.errors import BackendError

    with OpenAIServer(reasoning=Reasoning()) as server:
        with pytest.raises(BackendError, match="HTTP 400"):
            complete(server, [request("gpt-4o")], max_tokens=300, token_param="max_tokens")
    assert [r.outcome for r in server.requests] == ["unsupported_param"]  # forced: no switch, one request


def test_the_setting_forces_either_parameter():
    with OpenAIServer() as server:
        complete(server, [request("o1")], max_tokens=50, token_param="max_tokens")
        complete(server, [request("llama-3.1-8b")], max_tokens=50, token_param="max_completion_tokens")
    first, second = sent(server)
    assert first["max_tokens"] == 50 and "max_completion_tokens" not in first and first["temperature"] == 0.7
    assert second["max_completion_tokens"] == 50 and "max_tokens" not in second and "temperature" not in second


def test_thinking_in_the_content_does_not_break_structured_answers():
    """Without a reasoning parser the thinking arrives inside the content, with a JSON-looking guess in it."""
    with OpenAIServer(reasoning=Reasoning(think_tags=True, refuse_max_tokens=False)) as server:

        async def go():
            async with OpenAIBackend(base_url=server.base_url, api_key="k") as llm:
                spent = []
                return await ask(llm, request("qwen3-8b"), Answer, "plan", "s1", spent), spent

        answer, spent = asyncio.run(go())
    assert isinstance(answer, Answer) and len(spent) == 1  # no re-ask: the answer parsed the first time
    assert spent[0].reasoning == Reasoning().thought and not spent[0].content.startswith("<think>")


def _llm_settings(out: Path, base_url: str, toml: Path, seed: int) -> Settings:
    """Six conversations of an LLM run against ``base_url`` (no key needed), with ``toml``'s roles."""
    return Settings(
        servers=REGISTRY,
        out=out,
        n=6,
        seed=seed,
        backend="openai",
        base_url=base_url,
        api_key_env="SYNTH_NO_SUCH_KEY",
        concurrency=4,
        **read_toml(toml),
    )


def test_a_role_can_use_another_endpoint_of_another_type(tmp_path):
    """The user simulator on a "local" server (no key, no price), every other role on a hosted reasoning model."""
    toml = tmp_path / "synth.toml"
    with OpenAIServer(respond, reasoning=Reasoning()) as hosted, OpenAIServer(respond) as local:
        toml.write_text(
            f'[llm]\nmodel = "o4-mini"\nmax_tokens = 2000\n\n[roles.user]\nbackend = "local"\n'
            f'base_url = "{local.base_url}"\nmodel = "qwen3-8b"\nconcurrency = 2\n'
        )
        settings = _llm_settings(tmp_path / "run", hosted.base_url, toml, seed=3)
        assert settings.unpriced() == []  # o4-mini has a price; the local model is $0 without one
        manifest = generate(settings, backends=open_backends(settings))
    assert manifest["funnel"]["accepted"] == 6
    local_roles = {role_of(r.json) for r in local.requests}
    hosted_roles = {role_of(r.json) for r in hosted.requests}
    assert local_roles == {"user"} and "user" not in hosted_roles and {"query", "plan", "executor"} <= hosted_roles
    assert all("max_completion_tokens" in r.json and "temperature" not in r.json for r in hosted.requests)
    assert all(r.json.get("max_tokens") == 2000 and r.json["model"] == "qwen3-8b" for r in local.requests)
    assert {k.split(":")[0] for k in manifest["tokens"] if k.endswith(":qwen3-8b")} == {"user"}
    assert all(r.outcome == "ok" for r in hosted.requests + local.requests)


def test_a_local_endpoint_needs_a_base_url(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the other roles' hosted endpoint is fine
    toml = tmp_path / "synth.toml"
    toml.write_text('[roles.user]\nbackend = "local"\nmodel = "qwen3-8b"\n')
    settings = Settings(servers=REGISTRY, out=tmp_path / "run", backend="openai", **read_toml(toml))
    with pytest.raises(ConfigError, match="needs base_url"):
        open_backends(settings)


def test_an_unknown_endpoint_type_names_the_file_and_the_choices(tmp_path):
    toml = tmp_path / "synth.toml"
    toml.write_text('[roles.user]\nbackend = "vertex"\n')
    with pytest.raises(ConfigError) as caught:
        read_toml(toml)
    assert str(toml) in str(caught.value) and "roles.user.backend" in str(caught.value) and "local" in str(caught.value)


def test_the_readme_example_of_an_endpoint_per_role_parses(tmp_path):
    examples = re.findall(r"```toml\n(.*?)```", (Path(__file__).parents[1] / "docs" / "models.md").read_text(), re.S)
    (tmp_path / "synth.toml").write_text(next(x for x in examples if 'backend = "local"' in x))
    settings = Settings(servers=tmp_path, out=tmp_path, backend="openai", **read_toml(tmp_path / "synth.toml"))
    user, plan = settings.endpoint("user"), settings.endpoint("plan")
    assert (user.backend, user.base_url, user.model, user.concurrency, user.max_tokens) == (
        "local",
        "http://localhost:8000/v1",
        "Qwen/Qwen3-8B",
        8,
        4000,
    )
    assert (plan.backend, plan.model, plan.base_url) == ("openai", "o4-mini", None)
    assert settings.unpriced() == []  # o4-mini is priced; the local model costs nothing


def test_the_tool_role_can_be_offline_in_an_llm_run(tmp_path):
    """[roles.tool] backend = "offline": the model writes the dialogue, tool results come from the server
    packs and the schema simulator; no request of the tool role reaches the endpoint, and the run is
    the same bytes twice."""
    toml = tmp_path / "synth.toml"
    toml.write_text('[roles.tool]\nbackend = "offline"\n')
    runs = []
    with OpenAIServer(respond) as hosted:
        for name in ("a", "b"):
            settings = _llm_settings(tmp_path / name, hosted.base_url, toml, seed=5)
            manifest = generate(settings, backends=open_backends(settings))
            runs.append(manifest)
            assert manifest["funnel"]["accepted"] == 6
    roles = {role_of(r.json) for r in hosted.requests}
    assert "tool" not in roles and {"query", "plan", "executor"} <= roles
    convs = [json.loads(line) for line in gzip.open(tmp_path / "a" / "conversations.jsonl.gz", "rt")]
    sources = {m.get("source") for c in convs for m in c["messages"] if m["role"] == "tool"}
    assert sources and sources <= {"pack", "simulated"}, sources
    assert not any(k.startswith("tool:") for k in runs[0]["tokens"])  # no tokens spent on tool results
    same = [p.name for p in (tmp_path / "a").iterdir() if p.suffix == ".gz"]
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in same)


def test_only_the_tool_role_can_be_offline_in_an_llm_run(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    toml = tmp_path / "synth.toml"
    toml.write_text('[roles.plan]\nbackend = "offline"\n')
    settings = Settings(servers=REGISTRY, out=tmp_path / "run", backend="openai", **read_toml(toml))
    with pytest.raises(ConfigError) as caught:
        open_backends(settings)
    assert (
        "roles.plan" in str(caught.value) and "tool" in str(caught.value) and "--backend offline" in str(caught.value)
    )


def test_a_dry_run_prices_the_tool_role_only_where_a_model_answers_it(tmp_path):
    """Offline, and by default on a registry whose servers all have packs, the tool role costs nothing;
    [roles.tool] backend = "llm" prices a model's answer for every call."""
    from synth.agents.estimate import estimate

    def tool_calls(report: dict) -> int:
        return {r["role"]: r for r in report["roles"]}["tool"]["calls"]

    base = {"servers": REGISTRY, "out": tmp_path / "run", "n": 5, "backend": "openai", "model": "gpt-4o-mini"}
    reports = {}
    for backend in ("offline", "llm", None):
        toml = tmp_path / f"{backend}.toml"
        toml.write_text(f'[roles.tool]\nbackend = "{backend}"\n' if backend else "")
        reports[backend] = estimate(Settings(**base, **read_toml(toml)))
    offline, model, packs = reports["offline"], reports["llm"], reports[None]
    tool = {r["role"]: r for r in offline["roles"]}["tool"]
    assert tool["calls"] == tool["prompt_tokens"] == 0 and tool["usd"] == 0
    assert tool_calls(packs) == 0 and packs["usd"] == offline["usd"]  # every shipped server has a pack
    assert tool_calls(model) > 0 and model["usd"] > offline["usd"]
    assert offline["calls"] == model["calls"] - tool_calls(model)


def test_the_tool_role_asks_the_model_only_for_servers_without_a_pack(tmp_path, tiny_registry):
    """By default an LLM run's tool results come from a server's pack where it has one (its world and
    templates: offline, free, consistent) and from the model elsewhere; [roles.tool] backend = "llm" asks
    the model for every call."""
    import shutil

    registry = tmp_path / "registry"
    shutil.copytree(tiny_registry, registry)
    packed = {p.name.removesuffix(".pack.yaml") for p in (registry / "packs").glob("*.pack.yaml")}
    sources: dict[str | None, dict[str, set]] = {}
    with OpenAIServer(respond) as hosted:
        for backend in (None, "llm"):
            toml = tmp_path / f"{backend}.toml"
            toml.write_text(f'[roles.tool]\nbackend = "{backend}"\n' if backend else "")
            settings = _llm_settings(tmp_path / str(backend), hosted.base_url, toml, seed=5)
            settings = settings.model_copy(update={"servers": registry, "n": 12})
            generate(settings, backends=open_backends(settings))
            convs = [json.loads(line) for line in gzip.open(tmp_path / str(backend) / "conversations.jsonl.gz", "rt")]
            found: dict[str, set] = {}
            for c in convs:
                server = c["scenario"]["server"].lstrip("@").replace("/", "__")  # the pack file's name
                found.setdefault(server, set()).update(m.get("source") for m in c["messages"] if m["role"] == "tool")
            sources[backend] = found
    default, llm = sources[None], sources["llm"]
    assert {s for s in default if s in packed} and {s for s in default if s not in packed}  # both kinds were made
    for server, seen in default.items():
        assert seen <= ({"pack", "simulated"} if server in packed else {"llm"}), (server, seen)
    assert all(seen <= {"llm"} for seen in llm.values()), llm
