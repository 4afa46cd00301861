"""The command line: flags -> Settings -> one call. No logic here; imports are lazy so --help is fast."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(
    help="Turn MCP server definitions into tool-use datasets: training conversations, "
    "per-call eval sets and scored calls for tool-call judges.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
registry_app = typer.Typer(help="Check registry folders of MCP server definitions.", no_args_is_help=True)
app.add_typer(registry_app, name="registry")


def _fail(message: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _default_servers() -> Path:
    from synth.templates import shipped

    return shipped("default_registry", "registry")


@app.command()
def generate(
    servers: Optional[Path] = typer.Option(
        None, "--servers", "-s", help="Folder of server definitions (Smithery JSON/YAML, MCP tools/list, "
        "OpenAI tools arrays), read recursively. Default: the registry shipped with synth."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Run folder. Default: outputs/<servers>-seed<S>-n<N>."),
    n: int = typer.Option(500, "--n", "-n", min=1, help="Conversations to aim for in total, spread over servers and tools."),
    seed: int = typer.Option(0, "--seed", help="Same registry + seed = byte-identical output."),
    split: str = typer.Option("0.8,0.1,0.1", "--split", help="train,valid,test shares, by hash of the conversation id."),
    max_tools: int = typer.Option(24, "--max-tools", min=1, help="Tools offered per conversation (used ones always)."),
) -> None:
    """Generate conversations, an eval set and scored calls from a registry (offline backend, no key needed)."""
    from synth.config import Settings, parse_split
    from synth.errors import SynthError

    try:
        servers = servers or _default_servers()
        name = servers.resolve().name or "registry"
        if name == "default_registry":
            name = "registry"
        settings = Settings(servers=servers, out=out or Path("outputs") / f"{name}-seed{seed}-n{n}", n=n, seed=seed,
                            split=parse_split(split), max_tools=max_tools)
        manifest = _run_with_progress(settings)
    except SynthError as exc:
        _fail(str(exc))
        return
    from synth.summary import print_summary

    print_summary(manifest, settings.out)


def _run_with_progress(settings):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from synth.pipeline import generate as run

    columns = (TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(), TextColumn("accepted,"),
               TextColumn("{task.fields[tried]} tried"), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("generate", total=settings.n, tried=0)
        return run(settings, lambda accepted, tried: bar.update(task, completed=accepted, tried=tried))


@registry_app.command("lint")
def registry_lint(
    folder: Path = typer.Argument(..., help="Registry folder to check, read recursively."),
    warnings: bool = typer.Option(True, "--warnings/--errors-only", help="Also list warnings (fixed automatically)."),
) -> None:
    """One line per problem: file, server, tool, JSON pointer, what is wrong, how to fix it.

    Exits 1 when there are errors (unusable files or tools), 0 when there are only warnings.
    """
    from synth.errors import SynthError
    from synth.registry import lint

    try:
        problems = lint(folder)
    except SynthError as exc:
        _fail(str(exc))
        return
    errors = sum(p.severity == "error" for p in problems)
    for p in problems:
        if warnings or p.severity == "error":
            typer.echo(p.line())
    typer.echo(f"{errors} errors, {len(problems) - errors} warnings in {folder}", err=True)
    raise typer.Exit(1 if errors else 0)


if __name__ == "__main__":  # pragma: no cover
    app()
