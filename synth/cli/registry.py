"""``synth registry``: check registry folders, pull them from a registry API, import one from a live server."""

from __future__ import annotations

from pathlib import Path

import typer

from synth.cli.common import exits_on_error, fail, group

registry_app = group(
    "registry",
    "Check registry folders of MCP server definitions, import one from a live MCP "
    "server, or pull them from a registry API.",
)


@registry_app.command("lint")
def registry_lint(
    folder: Path = typer.Argument(..., help="Registry folder to check, read recursively."),
    warnings: bool = typer.Option(True, "--warnings/--errors-only", help="Also list warnings (fixed automatically)."),
) -> None:
    """One line per problem: file, server, tool, JSON pointer, what is wrong, how to fix it.

    Exits 1 when there are errors (unusable files or tools), 0 when there are only warnings.
    """
    from synth.registry import lint
    from synth.wording import plural

    with exits_on_error():
        problems = lint(folder)
    errors = sum(p.severity == "error" for p in problems)
    for p in problems:
        if warnings or p.severity == "error":
            typer.echo(p.line())
    typer.echo(f"{plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')} in {folder}", err=True)
    raise typer.Exit(1 if errors else 0)


_QUERY_HELP = "Search text and filters, e.g. 'is:deployed weather' or 'owner:mem0ai'. Default: every server."


@registry_app.command("pull")
def registry_pull(
    out: Path = typer.Option(..., "--out", "-o", help="Folder for the server files (one <owner>__<repo>.json each)."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="A Smithery-compatible registry API. Default: https://api.smithery.ai"
    ),
    query: str | None = typer.Option(None, "--query", "-q", help=_QUERY_HELP),
    limit: int | None = typer.Option(
        None,
        "--limit",
        min=1,
        help="Pull at most this many servers (in the registry's order; skipped and failed ones count).",
    ),
    concurrency: int = typer.Option(8, "--concurrency", "-c", min=1, max=64, help="Detail requests in flight."),
) -> None:
    """Download server definitions from a registry API into a folder `synth generate --servers` reads.

    The API key is read from SMITHERY_API_KEY (sent as a Bearer header, never written anywhere).
    Exits 1 when no server was pulled, 2 when the key is refused or the registry cannot be listed.
    """
    import asyncio
    import os

    from synth.errors import SynthError
    from synth.registry.pull import pull
    from synth.registry.smithery import DEFAULT_BASE_URL, KEY_ENV

    key = os.environ.get(KEY_ENV, "").strip()
    try:
        with _pull_progress() as tell:
            report = asyncio.run(
                pull(
                    out,
                    base_url=base_url or DEFAULT_BASE_URL,
                    key=key,
                    query=query,
                    limit=limit,
                    concurrency=concurrency,
                    progress=tell,
                )
            )
    except SynthError as exc:
        fail(str(exc))
    for line in [*(o.line() for o in report.outcomes if o.status != "pulled"), *report.notes]:
        typer.echo(line, err=True)
    typer.echo(report.closing_line())
    if not report.count("pulled"):
        typer.echo(
            "nothing was pulled: "
            + ("the registry listed no servers (check --query)" if not report.outcomes else "see the lines above"),
            err=True,
        )
        raise typer.Exit(1)


def _pull_progress():
    """A rich progress bar for ``pull``'s (phase, done, total) callback; closed even on errors."""
    from contextlib import contextmanager

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    @contextmanager
    def bar():
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, transient=True) as progress:
            task = progress.add_task("listing", total=None)

            def tell(phase: str, done: int, total: int | None) -> None:
                progress.update(
                    task,
                    description=f"{phase} servers" if phase == "pulling" else "listing pages",
                    completed=done,
                    total=total,
                )

            yield tell

    return bar()


@registry_app.command("import")
def registry_import(
    stdio: str | None = typer.Option(None, "--stdio", help='The server\'s command line, e.g. "python server.py".'),
    url: str | None = typer.Option(None, "--url", help="A Streamable HTTP endpoint, e.g. http://127.0.0.1:8000/mcp."),
    header: list[str] = typer.Option(
        [],
        "--header",
        help="NAME:VALUE for --url; write secrets as '${ENV_VAR}' (single quotes), read when connecting.",
    ),
    env: list[str] = typer.Option(
        [],
        "--env",
        help="NAME=VALUE for --stdio (the child sees only these plus HOME, PATH, ...); secrets as '${ENV_VAR}'.",
    ),
    cwd: str | None = typer.Option(None, "--cwd", help="Working folder for --stdio."),
    stateful: bool = typer.Option(
        False,
        "--stateful",
        help="The server keeps state: give each scenario a fresh one in its own sandbox (working folder, HOME, "
        "XDG folders, TMPDIR); '${SANDBOX}' in the command, --env or --cwd names that folder.",
    ),
    name: str | None = typer.Option(None, "--name", help="qualifiedName. Default: the server's own name."),
    out: Path = typer.Option(..., "--out", "-o", help="Registry folder to write the entry into."),
    timeout: float = typer.Option(20.0, "--timeout", min=0.1, help="Seconds to wait for the server."),
) -> None:
    """Connect to an MCP server, read initialize and tools/list, write its registry entry."""
    import shlex

    from synth.errors import LiveError, SynthError
    from synth.ingest.importer import describe, write_entry
    from synth.live.client import Limits
    from synth.records import Connection

    try:
        if bool(stdio) == bool(url):
            fail('give exactly one of --stdio "CMD ARGS..." or --url URL')
        pairs = [(h, ":") for h in header] + [(e, "=") for e in env]
        bad = [text for text, sep in pairs if sep not in text]
        if bad:
            fail(f"{bad[0]!r}: write --header as NAME:VALUE and --env as NAME=VALUE")
        headers = dict(h.split(":", 1) for h in header)
        connection = Connection(
            type="stdio" if stdio else "http",
            command=shlex.split(stdio)[0] if stdio else None,
            args=tuple(shlex.split(stdio)[1:]) if stdio else (),
            env=dict(e.split("=", 1) for e in env),
            cwd=cwd,
            url=url,
            headers={k.strip(): v.strip() for k, v in headers.items()},
            stateful=stateful,
        )
        entry = describe(connection, Limits(connect=timeout, call=timeout), name)
        path = write_entry(entry, out)
    except (LiveError, SynthError, ValueError) as exc:
        fail(str(exc))
    typer.echo(f"{path}: {entry['qualifiedName']} with {len(entry['tools'])} tools")
