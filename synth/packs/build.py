"""``synth pack build``: packs written by a model, a few requests per server (cost grows with tools, not rows).

Per server, the tools are asked for in groups small enough for one answer (all at once for most servers).
Each answer is parsed tool by tool and checked (synth.packs.check); every entry that passes is kept, and the
checker's messages for the rest go back to the model, naming each tool at fault, with a request for those
tools alone: at most ``ROUNDS`` answers per group. An answer cut off by its length, or with no JSON, splits
the group in two. Every request goes through the cache, so a rerun, or a build killed part way, replays what
was answered and pays only for the rest; a server whose pack file exists is kept as it is. Tools that never
pass are left out of the file and named in its header, and the generator's fallback serves them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from synth import templates
from synth.errors import BackendError, EndpointDown, ParseError
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse
from synth.llm.structured import extract_json, schema_of
from synth.packs.check import check_pack
from synth.packs.model import Pack, ToolPack, World
from synth.packs.rules import BUILT, RULES
from synth.records import ServerSpec, ToolSpec

TOKENS_PER_TOOL = 700  # what a pack entry costs in completion tokens, measured on hand-written packs
ROUNDS = 3  # answers per group of tools: the first, and two more with the checker's messages
GROUP_TOOLS = 8  # tools asked for in one request at most (an answer of ~6 kB)
GROUP_CHARS = 20_000  # and at most this much of their definitions
REASK_SHARE = 0.5  # the share of tools the estimate expects to be asked again once


class PackAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    tools: dict[str, ToolPack]
    world: World | None = None


@dataclass
class BuildReport:
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # server -> why it got no pack at all
    left_out: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # server -> tool -> last messages
    problems: list[str] = field(default_factory=list)
    requests: int = 0
    reasks: int = 0
    spent: list[ChatResponse] = field(default_factory=list)


@dataclass
class _Server:
    """One server's build: the entries kept so far and the last messages of each tool not yet kept."""

    server: ServerSpec
    kept: dict[str, ToolPack] = field(default_factory=dict)
    errors: dict[str, list[str]] = field(default_factory=dict)
    failure: str = ""
    world: World | None = None  # the kinds the answers gave (a later one may add kinds); entries touch it

    def pack(self, entries: dict[str, ToolPack] | None = None) -> Pack:
        return Pack(server=self.server.id, tools={**self.kept, **(entries or {})}, world=self.world)


def pack_path(out: Path, server: ServerSpec) -> Path:
    return out / f"{Path(server.source).name.rsplit('.', 1)[0]}.pack.yaml"


def groups(server: ServerSpec) -> list[list[ToolSpec]]:
    """The server's tools in request-sized groups, in the server's order."""
    out: list[list[ToolSpec]] = [[]]
    size = 0
    for tool in server.tools:
        chars = len(_tool_json(tool))
        if out[-1] and (len(out[-1]) >= GROUP_TOOLS or size + chars > GROUP_CHARS):
            out.append([])
            size = 0
        out[-1].append(tool)
        size += chars
    return [g for g in out if g]


def _tool_json(tool: ToolSpec) -> str:
    return json.dumps(_tool(tool), ensure_ascii=False, sort_keys=True)


def _tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description[:1500],
        "input_schema": tool.input_schema,
        **({"output_schema": tool.output_schema} if tool.output_schema else {}),
    }


def pack_request(server: ServerSpec, model: str, seed: int, tools: list[ToolSpec] | None = None) -> ChatRequest:
    """The first request for ``tools`` (default: all) of ``server``; the other tools are named for feeds."""
    asked = tools if tools is not None else list(server.tools)
    names = {t.name for t in asked}
    others = [f"{t.name}: {t.description.splitlines()[0][:100] if t.description else ''}" for t in server.tools]
    server_json = json.dumps(
        {"name": server.name, "description": server.description[:1500], "tools": [_tool(t) for t in asked]},
        ensure_ascii=False,
        sort_keys=True,
    )
    files = ("pack.system.j2", "pack.user.j2")
    return ChatRequest(
        role="pack",
        model=model,
        seed=seed,
        template_hash="+".join(map(templates.template_hash, files)),
        response_schema=schema_of(PackAnswer),
        schema_name="PackAnswer",
        messages=(
            {"role": "system", "content": templates.render(files[0], rules=RULES)},
            {
                "role": "user",
                "content": templates.render(
                    files[1],
                    server_json=server_json,
                    names=[t.name for t in asked],
                    others=[o for o, t in zip(others, server.tools, strict=True) if t.name not in names],
                ),
            },
        ),
    )


def estimate(servers: list[ServerSpec], model: str, price: tuple[float, float] | None) -> dict[str, Any]:
    """Requests, tokens and dollars for building packs of ``servers``: one request per group of tools, and
    re-asks for about half the tools (each re-ask sends the conversation so far again)."""
    prompt = completion = requests = 0
    for server in servers:
        for group in groups(server):
            sent = sum(len(m["content"]) for m in pack_request(server, model, 0, group).messages) // 4
            answer = TOKENS_PER_TOOL * len(group)
            requests += 1 + (REASK_SHARE > 0)
            prompt += sent + (sent + answer)  # the first request, then one re-ask carrying the answer
            completion += answer + int(answer * REASK_SHARE)
    usd = (prompt * price[0] + completion * price[1]) / 1e6 if price else None
    return {
        "servers": len(servers),
        "requests": requests,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "usd": usd,
    }


async def build(
    servers: list[ServerSpec],
    out: Path,
    backend: ChatBackend,
    model: str,
    seed: int,
    progress: Callable[[str], None] | None = None,
) -> BuildReport:
    """Write a pack for every server in ``servers`` that has none in ``out`` yet."""
    out.mkdir(parents=True, exist_ok=True)
    report = BuildReport()

    async def one(server: ServerSpec) -> None:
        path = pack_path(out, server)
        if path.exists():
            report.skipped.append(server.id)
        else:
            state = _Server(server)
            for group in groups(server):  # in turn: each group is checked with the entries kept before it
                await _group(state, group, backend, model, seed, report)
            _recheck(state)
            if state.kept:
                _write(path, state, report)
            else:
                report.failed[server.id] = state.failure or "no tool's entry passed the checker"
                report.left_out[server.id] = state.errors
        if progress:
            progress(server.id)

    await asyncio.gather(*(one(s) for s in servers))
    report.written.sort()
    report.skipped.sort()
    return report


async def _group(
    state: _Server, tools: list[ToolSpec], backend: ChatBackend, model: str, seed: int, report: BuildReport
) -> None:
    """Ask for ``tools`` until each passes or ROUNDS answers were given; split the group when an answer is cut."""
    request = pack_request(state.server, model, seed, tools)
    todo = [t.name for t in tools]
    for round_ in range(ROUNDS):
        try:
            response = await backend.complete(request)
        except EndpointDown:
            raise
        except BackendError as exc:
            state.failure = f"backend_error: {exc}"[:300]
            return
        report.requests += 1
        report.reasks += round_ > 0
        report.spent.append(response)
        try:
            entries, messages = parse_answer(response, todo, state)
        except ParseError as exc:
            if len(todo) > 1:  # too long for one answer: ask for each half on its own
                half = len(todo) // 2
                picked = [t for t in tools if t.name in todo]
                for part in (picked[:half], picked[half:]):
                    await _group(state, part, backend, model, seed, report)
                return
            messages = {todo[0]: [f"{todo[0]}: {exc}"]}
            entries = {}
        state.kept.update(entries)
        for name in entries:
            state.errors.pop(name, None)
        todo = [name for name in todo if name not in state.kept]
        for name in todo:
            state.errors[name] = messages.get(name, [f"{name}: no entry was written [tools]"])
        if not todo:
            return
        request = request.model_copy(update={"messages": (*request.messages, *_reask(response, todo, messages))})


def _recheck(state: _Server) -> None:
    """The whole pack once more: a feed into a tool of a later group is checked against that tool's entry
    now; an entry that fails here is left out with its messages (asked again by no one: rare)."""
    found: dict[str, list[str]] = {}
    for p in check_pack(state.pack(), state.server, "pack"):
        if p.severity == "error" and p.tool in state.kept:
            field = p.pointer.removeprefix(f"/tools/{p.tool}").lstrip("/") or "(entry)"
            found.setdefault(p.tool, []).append(f"{p.tool}, {field}: {p.what}. Fix: {p.fix}")
    for name, lines in found.items():
        del state.kept[name]
        state.errors[name] = lines


def parse_answer(
    response: ChatResponse, todo: list[str], state: _Server
) -> tuple[dict[str, ToolPack], dict[str, list[str]]]:
    """The entries of ``todo`` in one answer that pass the checker, and the messages for the others (tool ->
    lines naming the tool, the field, what is wrong and the fix). ParseError: a cut answer, or no JSON."""
    if response.finish_reason == "length":
        raise ParseError("the answer was cut off at its length limit")
    doc = extract_json(response.content)
    raw = doc.get("tools", doc) if isinstance(doc, dict) else None
    if not isinstance(raw, dict):
        raise ParseError('the answer is not a JSON object {"tools": {...}}')
    entries: dict[str, ToolPack] = {}
    messages: dict[str, list[str]] = {}
    for name in todo:
        if name not in raw:
            messages[name] = [f"{name}: no entry was written; write one under this exact name [tools]"]
            continue
        try:
            entries[name] = ToolPack.model_validate(raw[name])
        except ValidationError as exc:
            messages[name] = [_shape_message(name, e) for e in exc.errors()[:6]]
    if isinstance(doc, dict) and doc.get("world") is not None:
        try:  # a world that does not validate is left out: entries touching it come back with the reason
            state.world = _merged(state.world, World.model_validate(doc["world"]))
        except ValidationError:
            pass
    trial = state.pack(entries)
    for p in check_pack(trial, state.server, "answer"):
        held = p.severity == "error" or p.what.endswith(tuple(f"[{rule}]" for rule in BUILT))
        for tool in _owners(p, entries) if held else []:
            field = p.pointer.removeprefix(f"/tools/{tool}").lstrip("/") or "(entry)"
            messages.setdefault(tool, []).append(f"{tool}, {field}: {p.what}. Fix: {p.fix}")
    return {k: v for k, v in entries.items() if k not in messages}, messages


def _merged(kept: World | None, given: World) -> World:
    """The world so far with the kinds a later answer adds (a submission kind for the tool that lists them);
    a kind already kept stays as it was, so earlier entries keep what they were checked against."""
    if kept is None:
        return given
    return World(entities={**given.entities, **kept.entities})


def _owners(p: Any, entries: dict[str, ToolPack]) -> list[str]:
    """The entries a problem goes back to: its tool, or for a problem of the world itself (a ref to nothing, a
    seed without ids) the entries of this answer that touch that kind, so the model hears of it."""
    if p.tool is not None:
        return [p.tool] if p.tool in entries else []
    kind = p.pointer.removeprefix("/world/entities/").split("/")[0] if p.pointer.startswith("/world/") else ""
    return [n for n, e in entries.items() if e.world is not None and (e.world.entity == kind or not kind)]


def _shape_message(tool: str, error: Any) -> str:
    where = "/".join(str(x) for x in error.get("loc", ())) or "(entry)"
    return f"{tool}, {where}: {error.get('msg', 'invalid')}. Fix: follow the entry format above [shape]"


def _reask(response: ChatResponse, todo: list[str], messages: dict[str, list[str]]) -> tuple[dict[str, str], ...]:
    lines = [line for name in todo for line in messages.get(name, [])]
    text = (
        f"The checker found problems in {len(todo)} of the entries ({', '.join(todo)}); the other entries "
        "passed and are kept. Each line names the tool, the field, what is wrong and the fix:\n"
        + "\n".join(f"- {line}" for line in lines)
        + f"\n\nAnswer again with the JSON object holding corrected entries for these tools only: {', '.join(todo)}."
    )
    return ({"role": "assistant", "content": response.content or ""}, {"role": "user", "content": text})


def _write(path: Path, state: _Server, report: BuildReport) -> None:
    server = state.server
    left = sorted(t.name for t in server.tools if t.name not in state.kept)
    header = [
        f"# Server pack for {server.id}, written by a model with `synth pack build`: read it and edit it.",
        "# Format: registry/packs/README.md. Check with: synth pack check <registry folder>",
    ]
    if left:
        header.append(f"# Left out, served by the fallback until fixed (their last errors follow): {', '.join(left)}")
        lines = [line for name in left for line in state.errors.get(name, [])]
        header += [f"#   {line}" for line in lines[:30]]
        report.left_out[server.id] = {name: state.errors.get(name, []) for name in left}
        report.problems += [f"{server.id}: {line}" for line in lines]
    pack = Pack(
        server=server.id,
        tools={t.name: state.kept[t.name] for t in server.tools if t.name in state.kept},
        world=state.world if any(e.world for e in state.kept.values()) else None,
    )
    body = yaml.safe_dump(
        {"pack": 1, **pack.model_dump(mode="json", exclude_defaults=True)},
        sort_keys=False,
        allow_unicode=True,
        width=120,
    )
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(header) + "\n" + body, encoding="utf-8")
    tmp.replace(path)  # a killed build never leaves half a pack that a rerun would skip
    report.written.append(server.id)
