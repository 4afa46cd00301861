"""The project's own test MCP server: a small task tracker, written with the SDK's MCPServer.

Stateful (its tasks live in ``tasks.json`` in the working folder, seeded on first start), with an
enum (priority), a nested object (the due date), and a tool that fails by rule (completing a task
that is already done). Run: ``python tasks_server.py`` (stdio) or ``python tasks_server.py --http PORT``.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

STATE = Path("tasks.json")
SEED = [
    {
        "id": "T-101",
        "title": "Renew the car insurance",
        "priority": "high",
        "due": {"date": "2026-06-01"},
        "project": "home",
        "done": False,
    },
    {
        "id": "T-102",
        "title": "Book flights to Lisbon",
        "priority": "normal",
        "due": {"date": "2026-06-12", "time": "09:00"},
        "project": "travel",
        "done": False,
    },
    {
        "id": "T-103",
        "title": "Send the Q2 report to Dana",
        "priority": "high",
        "due": {"date": "2026-05-29"},
        "project": "work",
        "done": True,
    },
    {
        "id": "T-104",
        "title": "Fix the garden gate",
        "priority": "low",
        "due": {"date": "2026-07-03"},
        "project": "home",
        "done": False,
    },
]
lock = threading.Lock()  # sync tools run on worker threads


class Due(BaseModel):
    date: Annotated[str, Field(description="Day the task is due, YYYY-MM-DD", pattern=r"^\d{4}-\d{2}-\d{2}$")]
    time: Annotated[str | None, Field(description="Time of day, HH:MM (24 h)", pattern=r"^\d{2}:\d{2}$")] = None


class Task(BaseModel):
    id: str
    title: str
    priority: Literal["low", "normal", "high"]
    due: Due
    project: str
    done: bool


class TaskList(BaseModel):
    tasks: list[Task]
    total: int


def _load() -> list[dict]:
    if not STATE.exists():
        _save(SEED)
    return json.loads(STATE.read_text())


def _save(tasks: list[dict]) -> None:
    STATE.write_text(json.dumps(tasks, indent=1))


def _find(tasks: list[dict], task_id: str) -> dict:
    for task in tasks:
        if task["id"] == task_id:
            return task
    raise ToolError(f"no task with id {task_id!r}; list_tasks shows the ids")


mcp = MCPServer(
    "tasks",
    version="1.2.0",
    instructions="A personal task tracker. Look tasks up with list_tasks before changing them.",
)


@mcp.tool()
def list_tasks(
    status: Annotated[Literal["open", "done", "all"], Field(description="Which tasks to list")] = "open",
    project: Annotated[str | None, Field(description="Only tasks of this project, e.g. home, work, travel")] = None,
) -> TaskList:
    """List tasks, soonest due first."""
    with lock:
        tasks = [
            t
            for t in _load()
            if (status == "all" or t["done"] == (status == "done")) and (project is None or t["project"] == project)
        ]
    tasks.sort(key=lambda t: (t["due"]["date"], t["id"]))
    return TaskList(tasks=[Task(**t) for t in tasks], total=len(tasks))


@mcp.tool()
def get_task(task_id: Annotated[str, Field(description="Task id such as T-101")]) -> Task:
    """Get one task with its due date, priority and project."""
    with lock:
        return Task(**_find(_load(), task_id))


@mcp.tool()
def create_task(
    title: Annotated[str, Field(description="What has to be done")],
    priority: Annotated[Literal["low", "normal", "high"], Field(description="How urgent it is")],
    due: Annotated[Due, Field(description="When it is due")],
    project: Annotated[str, Field(description="Project the task belongs to")] = "inbox",
) -> Task:
    """Add a task to the tracker."""
    with lock:
        tasks = _load()
        task = {
            "id": f"T-{101 + len(tasks)}",
            "title": title,
            "priority": priority,
            "due": due.model_dump(exclude_none=True),
            "project": project,
            "done": False,
        }
        _save([*tasks, task])
    return Task(**task)


@mcp.tool()
def complete_task(task_id: Annotated[str, Field(description="Task id such as T-101")]) -> Task:
    """Mark a task as done. A task that is already done cannot be completed again."""
    with lock:
        tasks = _load()
        task = _find(tasks, task_id)
        if task["done"]:
            raise ToolError(f"task {task_id} is already done")
        task["done"] = True
        _save(tasks)
    return Task(**task)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
