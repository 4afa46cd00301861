"""``synth pack build``: packs written by a model, one request per server (cost grows with tools, not rows).

Every answer goes through the run's cache, so a rerun or an interrupted build costs nothing for the
servers already asked; a server whose pack file exists is skipped. What the model writes is
checked like any pack: tools with errors are left out of the file and listed in its header, so
the generator uses the plain fallback for them until a person fixes them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from synth import templates
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse
from synth.llm.structured import ask
from synth.packs.check import check_pack
from synth.packs.model import Pack, ToolPack
from synth.records import ServerSpec, StageFailure

TOKENS_PER_TOOL = 700  # what a pack entry costs in completion tokens, measured on hand-written packs


class PackAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    tools: dict[str, ToolPack]


@dataclass
class BuildReport:
    written: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    spent: list[ChatResponse] = field(default_factory=list)


def pack_path(out: Path, server: ServerSpec) -> Path:
    return out / f"{Path(server.source).name.rsplit('.', 1)[0]}.pack.yaml"


def _server_json(server: ServerSpec) -> str:
    return json.dumps(
        {
            "name": server.name,
            "description": server.description[:1500],
            "tools": [
                {
                    "name": t.name,
                    "description": t.description[:1500],
                    "input_schema": t.input_schema,
                    **({"output_schema": t.output_schema} if t.output_schema else {}),
                }
                for t in server.tools
            ],
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def pack_request(server: ServerSpec, model: str, seed: int) -> ChatRequest:
    names = ("pack.system.j2", "pack.user.j2")
    return ChatRequest(
        role="pack",
        model=model,
        seed=seed,
        template_hash="+".join(map(templates.template_hash, names)),
        messages=(
            {"role": "system", "content": templates.render(names[0])},
            {"role": "user", "content": templates.render(names[1], server_json=_server_json(server))},
        ),
    )


def estimate(servers: list[ServerSpec], model: str, price: tuple[float, float] | None) -> dict[str, Any]:
    """Requests, tokens and dollars for building packs of ``servers`` (one request each, plus re-asks)."""
    prompt = sum(
        len(pack_request(s, model, 0).messages[0]["content"] + pack_request(s, model, 0).messages[1]["content"]) // 4
        for s in servers
    )
    completion = TOKENS_PER_TOOL * sum(len(s.tools) for s in servers)
    usd = (prompt * price[0] + completion * price[1]) / 1e6 if price else None
    return {
        "servers": len(servers),
        "requests": len(servers),
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
            answer = await ask(backend, pack_request(server, model, seed), PackAnswer, "pack", server.id, report.spent)
            if isinstance(answer, StageFailure):
                report.failed[server.id] = f"{answer.reason}: {answer.detail}"[:300]
            else:
                _write(path, server, Pack(server=server.id, tools=answer.tools), report)
        if progress:
            progress(server.id)

    await asyncio.gather(*(one(s) for s in servers))
    report.written.sort()
    report.skipped.sort()
    return report


def _write(path: Path, server: ServerSpec, pack: Pack, report: BuildReport) -> None:
    problems = [p for p in check_pack(pack, server, path.name) if p.severity == "error"]
    broken = sorted({p.tool for p in problems if p.tool})
    kept = pack.model_copy(update={"tools": {k: v for k, v in pack.tools.items() if k not in broken}})
    header = [
        f"# Server pack for {server.id}, written by a model with `synth pack build`: read it and edit it.",
        "# Format: registry/packs/README.md. Check with: synth pack check <registry folder>",
    ]
    if broken:
        header.append(f"# Left out (errors; the fallback serves them until fixed): {', '.join(broken)}")
        header += [f"#   {p.line()}" for p in problems[:20]]
        report.problems += [p.line() for p in problems]
    body = yaml.safe_dump(
        {"pack": 1, **kept.model_dump(mode="json", exclude_defaults=True)},
        sort_keys=False,
        allow_unicode=True,
        width=120,
    )
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(header) + "\n" + body, encoding="utf-8")
    tmp.replace(path)  # a killed build never leaves half a pack that a rerun would skip
    report.written.append(server.id)
