"""``synth tasks``: the MCPMark-style tasks of a run (``synth tasks check RUN``)."""

from __future__ import annotations

from pathlib import Path

import typer

from synth.cli.common import group

tasks_app = group(
    "tasks", "MCPMark-style tasks (description.md, meta.json, verify.py): store runs and servers with a world."
)


@tasks_app.command("check")
def tasks_check(
    run: Path = typer.Argument(..., help="A run folder with tasks/ (synth generate on a store server, live)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print a line for every task, not only failures."),
) -> None:
    """Replay each task's gold calls on a fresh store and run its verify.py (it must pass), then run it on an
    untouched store (it must fail when the task changes the state). Exits 1 when any task is wrong."""
    from synth.cli.common import progress_bar
    from synth.rundir import TASKS
    from synth.runtime.replay import RunWorlds
    from synth.tasks.verify import check_tasks, task_folders

    if not (run / TASKS).is_dir():
        typer.echo(
            f"error: {run / TASKS} does not exist; tasks are written by `synth generate --execute live "
            "--allow-exec` on a store server (synth serve store)",
            err=True,
        )
        raise typer.Exit(2)

    checked = 0
    with progress_bar("checking tasks") as start:
        tell = start(sum(1 for _ in task_folders(run)))

        def say(name: str, problem: str | None) -> None:
            nonlocal checked
            checked += 1
            tell(checked)
            if problem:
                typer.echo(f"FAIL {name}: {problem}", err=True)
            elif verbose:
                typer.echo(f"ok   {name}")

        worlds: list[RunWorlds] = []  # the run's registry, read at the first world task

        def world(folder: Path, meta: dict) -> str | None:
            worlds[:] = worlds or [RunWorlds(run)]
            return worlds[0].check(folder, meta)

        report = check_tasks(run, say, world)
    total = len(report.passed) + len(report.failed)
    if not total:
        typer.echo(f"error: no task in {run / TASKS} (a task folder holds description.md and verify.py)", err=True)
        raise typer.Exit(2)
    typer.echo(
        f"{total} tasks: {len(report.passed)} passed, {len(report.failed)} failed (verify.py passes after the "
        "gold calls, and fails on an untouched store or world with nothing done or said)"
    )
    if report.failed:
        raise typer.Exit(1)
