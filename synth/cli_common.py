"""What every command module shares: the one error line, its exit code, and command groups."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one error line and exit with ``code`` (see the exit codes in synth.errors and docs/exit-codes.md)."""
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True).print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@contextmanager
def exits_on_error() -> Iterator[None]:
    """A SynthError raised inside becomes its error line and its exit code, so a command says what went
    wrong in one line instead of a traceback."""
    from synth.errors import SynthError

    try:
        yield
    except SynthError as exc:
        fail(str(exc), exc.exit_code)


def group(name: str, help: str) -> typer.Typer:
    """A command group (``synth pack``, ``synth tasks``...) that prints its help when given no command;
    ``app.add_typer(group)`` adds it under ``name``."""
    return typer.Typer(name=name, help=help, no_args_is_help=True)
