"""The command line: the app and its commands, one module per command group (synth.cli_*). No logic here;
imports are lazy so --help is fast."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(
    help="Turn MCP server definitions into tool-use datasets: training conversations, "
    "per-call eval sets and scored calls for tool-call judges.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _no_flag_metavar() -> None:
    """typer 0.29 with click 8.5 prints ``<bool>`` beside every flag, as if it took a value; flags show none."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_synth", False):
        return

    def display_type_rich(self: TyperOption, ctx):
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._synth = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


_no_flag_metavar()
# Command groups are listed in the order they are added, and plain commands in theirs: keep both.
from synth import (  # noqa: E402
    cli_audit,
    cli_eval,
    cli_generate,
    cli_pack,
    cli_publish,
    cli_registry,
    cli_serve,
    cli_shards,
    cli_tasks,
)
from synth.cli_common import fail, group  # noqa: E402

app.add_typer(cli_registry.registry_app)  # registry lint, pull, import
cache_app = group("cache", "The SQLite cache of model calls that makes reruns and --resume free.")
app.add_typer(cache_app)
cli_publish.register(app)  # export, card, push; review
app.add_typer(cli_pack.pack_app)  # pack check, schema, build
app.add_typer(cli_serve.serve_app)  # serve store
app.add_typer(cli_tasks.tasks_app)  # tasks check
cli_shards.register(app)  # merge
cli_generate.register(app)  # generate (--shards/--ray through cli_shards)
cli_eval.register(app)  # grade, eval
cli_audit.register(app)  # derive, audit


@cache_app.command("stats")
def cache_stats(path: Path = typer.Argument(..., help="A run folder (its cache.sqlite) or a cache file.")) -> None:
    """Entries, hits, calls and tokens of a cache, overall and by agent role."""
    import json

    from synth.llm.cache import stats

    file = path / "cache.sqlite" if path.is_dir() else path
    if not file.exists():
        fail(f"{file} does not exist; pass a run folder made with an LLM backend or its cache.sqlite")
    typer.echo(json.dumps(stats(file), indent=2))


if __name__ == "__main__":  # pragma: no cover
    app()
