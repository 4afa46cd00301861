"""What every command module shares: the one error line, its exit code, and command groups."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

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


@contextmanager
def stops_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP (what ``kill``, systemd, Docker, Kubernetes and Ray send, and a closed terminal)
    raise ``Stopped`` in the main thread, so a run stops as on Ctrl-C; the handlers before are put back."""
    import signal

    from synth.errors import Stopped

    def stop(signum: int, frame: object) -> None:
        raise Stopped(signum)

    wanted = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    before = {s: signal.signal(s, stop) for s in wanted}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int], Callable[[int], None]]]:
    """A bar on stderr for a long command (tasks check, eval, review apply, push): done of total, time
    spent and time left. Yields ``start(total)``, which gives ``tell(done)``; the bar goes when the work
    ends, leaving the command's own lines (rich draws nothing when stderr is no terminal)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)

        def start(total: int) -> Callable[[int], None]:
            bar.update(task, total=total)
            return lambda done: bar.update(task, completed=done)

        yield start


def group(name: str, help: str) -> typer.Typer:
    """A command group (``synth pack``, ``synth tasks``...) that prints its help when given no command;
    ``app.add_typer(group)`` adds it under ``name``."""
    return typer.Typer(name=name, help=help, no_args_is_help=True)


# Settings every model command (generate, pack build, eval) takes the same way: a flag, else synth.toml's
# [llm], else the default. The advice printed after a failed request (synth.llm.openai_wire.ADVICE) names
# only these flags; a test holds it to that.
MODEL_FLAGS = ("model", "base_url", "api_key_env", "concurrency", "rpm", "tpm", "timeout", "max_attempts")


def timeout_option(default: float) -> Any:
    return typer.Option(
        None,
        "--timeout",
        min=0.1,
        help=f"Seconds to wait for one model answer before retrying it (default {default:g}; \\[llm] timeout "
        "in synth.toml).",
    )


def attempts_option() -> Any:
    return typer.Option(
        None,
        "--max-attempts",
        min=1,
        help="Tries per model request on 429, 5xx, timeouts and dropped connections (default 6; \\[llm] "
        "max_attempts in synth.toml).",
    )


def config_option() -> Any:
    return typer.Option(
        None,
        "--config",
        help="synth.toml with \\[llm], \\[roles.<role>] and \\[prices]. Default: ./synth.toml when it exists.",
    )


def rate_options() -> tuple[Any, Any]:
    return (
        typer.Option(None, "--rpm", min=1, help="Requests per minute at most."),
        typer.Option(None, "--tpm", min=1, help="Tokens per minute at most."),
    )


def model_fields(config: Path | None, flags: dict[str, Any]) -> dict[str, Any]:
    """Settings fields for a model command: synth.toml (``config``, else ./synth.toml when it exists) with
    the model flags that were given (MODEL_FLAGS) over it, and OPENAI_BASE_URL when no URL is named."""
    import os

    from synth.config import read_toml

    config = config or (Path("synth.toml") if Path("synth.toml").is_file() else None)
    fields = read_toml(config) if config else {}
    fields.update({k: flags[k] for k in MODEL_FLAGS if flags.get(k) is not None})
    if not fields.get("base_url") and os.environ.get("OPENAI_BASE_URL"):
        fields["base_url"] = os.environ["OPENAI_BASE_URL"]
    return fields
