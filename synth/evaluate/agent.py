"""``synth eval RUN --tasks``: a model as the agent on each exported task, scored by its verify.py.

A task of a server with a world runs the same way on a fresh copy of its world (the pack runtime in
process, ``WorldSession``); its verify.py reads the world's final state and what the agent said.

As MCPMark and tau-bench score agents: by the final state, not by how the calls look. Each task gets
a fresh copy of the store's seed database, served in this process through the SDK's in-memory
transport (the same tools and result text as ``synth serve store``). The model sees the conversation's
system prompt (with the store's policy) and the store's tools; the customer is simulated from the
task: they say what they said in the conversation, one message each time the agent answers in words,
and the episode ends when they have nothing left to say (or after ``MAX_STEPS`` model turns). Then the
task's verify.py runs on the database, with ``STORE_DB_PATH`` set, as MCPMark runs it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from synth.errors import BackendError, EndpointDown, SynthError
from synth.evaluate.run import Tell, bounded, closing
from synth.live.client import Limits, connect, result_text
from synth.llm.base import ChatBackend, ChatRequest
from synth.rundir import CONVERSATIONS, read_jsonl, write_json, write_jsonl
from synth.runtime.replay import RunWorlds
from synth.stages.gates import schema_error
from synth.store.server import build_server
from synth.store.shop import Store
from synth.tasks.replay import STORE, SeedStores
from synth.tasks.verify import read_meta, run_verify, task_folders
from synth.tasks.world_verify import run_verify as run_world_verify

MAX_STEPS = 30


async def run_task(
    task: Path, customer: list[str], system: str, backend: ChatBackend, model: str, stores: SeedStores
) -> dict[str, Any]:
    """One episode on a fresh store, then verify.py: the row of the report."""
    meta = read_meta(task)
    db = stores.fresh(meta["synth"]["seed"], meta["task_id"])
    store = Store.open(db, meta["synth"]["seed"])
    transcript: list[dict[str, Any]] = [*_system(system), {"role": "user", "content": customer[0]}]
    error = None
    try:
        async with connect(STORE, "store", Limits(30, 30), local=build_server(store)) as session:
            await _episode(session, customer, transcript, backend, model)
    except EndpointDown:  # nothing later will fare better: the whole eval stops with the reason (exit 4)
        raise
    except BackendError as exc:  # the model could not be asked: an error, not a failed task
        error = f"model request failed: {exc}"[:300]
    finally:
        store.close()
    passed, output = False, ""
    if not error:
        done = run_verify(task, db, said(transcript))
        passed, output = done.returncode == 0, done.stdout + done.stderr
    db.unlink(missing_ok=True)
    return _row(meta, passed, transcript, output, error)


def said(transcript: list[dict[str, Any]]) -> str:
    """Everything the agent said in words: what a task's answer checks read."""
    return "\n".join(m["content"] for m in transcript if m["role"] == "assistant" and m.get("content"))


def _row(
    meta: dict[str, Any], passed: bool, transcript: list[dict[str, Any]], output: str, error: str | None
) -> dict[str, Any]:
    return {
        "task_id": meta["task_id"],
        "category": meta["category_id"],
        "difficulty": meta["difficulty"],
        "passed": passed,
        "tool_calls": sum(m["role"] == "tool" for m in transcript),
        "gold_calls": len(meta["synth"]["gold_calls"]),
        "verify": output[-2000:],
        "error": error,
        "messages": transcript,
    }


class WorldSession:
    """A server's tools answered from a fresh world (the pack runtime), as the episode loop calls a live session."""

    def __init__(self, runtime: Any, server: Any):
        self.runtime, self.server = runtime, server

    async def tools(self) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in self.server.tools
        ]

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        tool = self.server.tool(name)
        if tool is None:
            return {"content": [{"type": "text", "text": f"Unknown tool: {name}"}], "isError": True}
        error = schema_error(tool.input_schema, arguments)
        if error is not None:  # the server's own input validation: a wrong call is not served
            return {"content": [{"type": "text", "text": f"Invalid arguments for {name}: {error}"}], "isError": True}
        done = self.runtime.call(tool, arguments)  # a pack runtime: computed, nothing to wait on
        return {"content": [{"type": "text", "text": done.content}], "isError": done.is_error}


async def run_world_task(
    task: Path, customer: list[str], system: str, backend: ChatBackend, model: str, worlds: RunWorlds
) -> dict[str, Any]:
    """One episode on a fresh copy of the task's world, then verify.py on its final state and the agent's words."""
    meta = read_meta(task)
    runtime, server = worlds.runtime(meta)
    transcript: list[dict[str, Any]] = [*_system(system), {"role": "user", "content": customer[0]}]
    error = None
    try:
        await _episode(WorldSession(runtime, server), customer, transcript, backend, model)
    except BackendError as exc:
        error = f"model request failed: {exc}"[:300]
    passed, output = False, ""
    if not error:
        assert runtime.world is not None
        done = run_world_verify(task, runtime.world.snapshot(), said(transcript))
        passed, output = done.returncode == 0, done.stdout + done.stderr
    return _row(meta, passed, transcript, output, error)


async def _episode(
    session: Any, customer: list[str], transcript: list[dict[str, Any]], backend: ChatBackend, model: str
) -> None:
    """The agent and the customer take turns (the customer says the next line when the agent stops calling
    tools) until the customer has said all or MAX_STEPS agent turns passed; the transcript grows in place."""
    tools = [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["inputSchema"]},
        }
        for t in await session.tools()
    ]
    said = 1
    for _ in range(MAX_STEPS):
        request = ChatRequest(
            role="agent", model=model, messages=tuple(transcript), tools=tuple(tools), temperature=0.0, seed=0
        )
        answer = await backend.complete(request)
        if answer.tool_calls:
            transcript.append({"role": "assistant", "content": answer.content, "tool_calls": list(answer.tool_calls)})
            for call in answer.tool_calls:
                transcript.append(
                    {"role": "tool", "tool_call_id": call.get("id"), "content": await _execute(session, call)}
                )
            continue
        transcript.append({"role": "assistant", "content": answer.content or ""})
        if said >= len(customer):
            break
        transcript.append({"role": "user", "content": customer[said]})
        said += 1


async def _execute(session: Any, call: dict[str, Any]) -> str:
    """A tool call as the agent made it; arguments that are not a JSON object get the error a harness gives."""
    fn = call.get("function") or {}
    try:
        arguments = json.loads(fn.get("arguments") or "{}")
    except ValueError:
        return f"Error: the arguments of {fn.get('name')} are not valid JSON"
    if not isinstance(arguments, dict):
        return f"Error: the arguments of {fn.get('name')} must be a JSON object"
    return result_text(await session.call(str(fn.get("name")), arguments))


def evaluate_tasks(
    run: Path, backend: ChatBackend, model: str, out: Path, limit: int, progress: Callable[[int], Tell] | None = None
) -> dict[str, Any]:
    """Every task of ``run`` with ``model`` as the agent; writes episodes.jsonl and tasks_report.json into ``out``.
    ``progress(total)`` gives the callback that hears each finished task."""
    tasks = list(task_folders(run))
    if not tasks:
        raise SynthError(
            f"{run}: no tasks/ folder with tasks; tasks come from servers whose pack has a world, and from "
            "`synth generate --execute live --allow-exec` on a registry with the store"
        )
    convs = {c["id"]: c for c in read_jsonl(run / CONVERSATIONS, "conversations file", required=True)}

    stores = SeedStores()
    worlds: list[RunWorlds] = []  # the run's registry and packs, read at the first world task

    async def one(task: Path) -> dict[str, Any]:
        meta = read_meta(task)
        conv = convs.get(meta["synth"]["conversation_id"])
        if conv is None:
            raise SynthError(
                f"{task}: its conversation {meta['synth']['conversation_id']} is not in {run / CONVERSATIONS}"
            )
        customer = [m["content"] for m in conv["messages"] if m["role"] == "user"]
        system = next((m["content"] for m in conv["messages"] if m["role"] == "system"), "")  # none: the agent has none
        if "scenario" in meta["synth"]:
            worlds[:] = worlds or [RunWorlds(run)]
            return await run_world_task(task, customer, system, backend, model, worlds[0])
        return await run_task(task, customer, system, backend, model, stores)

    try:
        tell = progress(len(tasks)) if progress else None
        rows = asyncio.run(closing(backend, bounded([one(t) for t in tasks], limit, tell)))
    finally:
        stores.close()
    scored = [r for r in rows if not r["error"]]
    by: dict[str, dict[str, list[bool]]] = {"category": {}, "difficulty": {}}
    for r in scored:
        for key in by:
            by[key].setdefault(r[key], []).append(r["passed"])
    report = {
        "model": model,
        "run": run.as_posix(),
        "tasks": len(rows),
        "errors": len(rows) - len(scored),
        "passed": sum(r["passed"] for r in scored),
        "pass_rate": round(sum(r["passed"] for r in scored) / len(scored), 4) if scored else 0.0,
        **{
            f"by_{key}": {
                k: {"tasks": len(v), "pass_rate": round(sum(v) / len(v), 4)} for k, v in sorted(groups.items())
            }
            for key, groups in by.items()
        },
    }
    write_jsonl(out / "episodes.jsonl", rows)
    write_json(out / "tasks_report.json", report)
    return report


def _system(text: str) -> list[dict[str, Any]]:
    """The agent's system message: the conversation's prompt, or none when the conversation had none."""
    return [{"role": "system", "content": text}] if text else []
