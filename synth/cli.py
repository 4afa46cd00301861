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
cache_app = typer.Typer(help="The SQLite cache of model calls that makes reruns and --resume free.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


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
    backend: Optional[str] = typer.Option(
        None, "--backend", help="offline (no key, the default) or openai (any OpenAI-compatible endpoint; chosen "
        "automatically when --base-url, OPENAI_BASE_URL or OPENAI_API_KEY is set)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", help="Model for every agent (per-role models: synth.toml)."),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
    api_key_env: Optional[str] = typer.Option(None, "--api-key-env", help="Name of the environment variable holding the API key."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-c", min=1, help="Requests in flight (cut on 429s)."),
    rpm: Optional[int] = typer.Option(None, "--rpm", min=1, help="Requests per minute at most."),
    tpm: Optional[int] = typer.Option(None, "--tpm", min=1, help="Tokens per minute at most."),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd", min=0, help="Start no new work once this much is spent."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Estimate calls, tokens and cost; call nothing."),
    resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run in --out from its cache."),
    config: Optional[Path] = typer.Option(None, "--config", help="synth.toml with [llm], [roles.<role>] and [prices]. "
                                          "Default: ./synth.toml when it exists."),
) -> None:
    """Generate conversations, an eval set and scored calls from a registry."""
    import os

    from synth.config import Settings, parse_split, read_toml
    from synth.errors import ConfigError, SynthError

    try:
        servers = servers or _default_servers()
        name = servers.resolve().name or "registry"
        if name == "default_registry":
            name = "registry"
        config = config or (Path("synth.toml") if Path("synth.toml").is_file() else None)
        fields = read_toml(config) if config else {}
        flags = {"model": model, "base_url": base_url or os.environ.get("OPENAI_BASE_URL"), "api_key_env": api_key_env,
                 "concurrency": concurrency, "rpm": rpm, "tpm": tpm, "budget_usd": budget_usd}
        fields.update({k: v for k, v in flags.items() if v is not None})
        if backend is None:
            wants_llm = fields.get("base_url") or os.environ.get(fields.get("api_key_env", "OPENAI_API_KEY"))
            backend = "openai" if wants_llm or "model" in fields else "offline"
        run_out = out or Path("outputs") / f"{name}-seed{seed}-n{n}"
        settings = Settings(servers=servers, out=run_out, n=n, seed=seed, split=parse_split(split),
                            max_tools=max_tools, backend=backend, **fields)
        if resume and not settings.cache_path.exists():
            raise ConfigError(f"--resume: {settings.cache_path} does not exist; resume a run by giving the same --out "
                              "(and the same flags) as the run that was interrupted")
        if dry_run:
            from synth.agents.estimate import estimate

            _print_estimate(estimate(settings))
            return
        manifest = _run_with_progress(settings)
    except SynthError as exc:
        _fail(str(exc))
        return
    from synth.summary import print_summary

    print_summary(manifest, settings.out)


def _print_estimate(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"dry run: {report['scenarios']} scenarios (no request sent)", header_style="bold")
    for column in ("role", "model", "calls", "prompt tokens", "completion tokens", "usd"):
        table.add_column(column, justify="left" if column in ("role", "model") else "right")
    for row in report["roles"]:
        table.add_row(row["role"], row["model"], str(row["calls"]), str(row["prompt_tokens"]),
                      str(row["completion_tokens"]), f"{row['usd']:.4f}")
    Console().print(table)
    Console().print(f"total: {report['calls']} calls, about {report['prompt_tokens'] + report['completion_tokens']:,} tokens, "
                    f"about ${report['usd']:.2f} (prices per million tokens: synth.config.PRICES, extend with \\[prices] in synth.toml)")


def _run_with_progress(settings):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from synth.pipeline import generate as run

    backends = None
    if settings.backend != "offline":
        from synth.llm.factory import open_backends

        backends = open_backends(settings)

    columns = (TextColumn("[bold]generating"), BarColumn(), MofNCompleteColumn(), TextColumn("accepted,"),
               TextColumn("{task.fields[tried]} tried"), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("generate", total=settings.n, tried=0)
        return run(settings, lambda accepted, tried: bar.update(task, completed=accepted, tried=tried), backends)


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


@cache_app.command("stats")
def cache_stats(path: Path = typer.Argument(..., help="A run folder (its cache.sqlite) or a cache file.")) -> None:
    """Entries, hits, calls and tokens of a cache, overall and by agent role."""
    import json

    from synth.llm.cache import stats

    file = path / "cache.sqlite" if path.is_dir() else path
    if not file.exists():
        _fail(f"{file} does not exist; pass a run folder made with an LLM backend or its cache.sqlite")
    typer.echo(json.dumps(stats(file), indent=2))


if __name__ == "__main__":  # pragma: no cover
    app()
