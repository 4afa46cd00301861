"""The command line: the app and its commands, one module per command group (synth.cli.*). No logic here;
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


def _plain_metavars() -> None:
    """typer 0.29 with click 8.5 prints ``<bool>`` beside every flag, as if it took a value, and
    ``<float range> [0.0<=x<=1.0]`` beside bounded numbers, a column so wide that at 80 columns the
    help beside it is cut ("outputs/<servers>-seed<…"). Flags show no type, numbers their plain type;
    the bounds are still checked, and a value out of them is refused with them."""
    from typer.core import TyperOption

    shown = TyperOption.display_type_rich
    if getattr(shown, "_synth", False):
        return

    def display_type_rich(self: TyperOption, ctx):
        if self.is_flag:
            return None
        text = shown(self, ctx)
        return text.replace(" range>", ">") if text else text

    display_type_rich._synth = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
    TyperOption._get_number_range_help_str = lambda self: ""  # type: ignore[method-assign]


_plain_metavars()
# Command groups are listed in the order they are added, and plain commands in theirs: keep both.
from synth.cli import audit as cli_audit  # noqa: E402
from synth.cli import eval as cli_eval  # noqa: E402
from synth.cli import generate as cli_generate  # noqa: E402
from synth.cli import pack as cli_pack  # noqa: E402
from synth.cli import publish as cli_publish  # noqa: E402
from synth.cli import registry as cli_registry  # noqa: E402
from synth.cli import serve as cli_serve  # noqa: E402
from synth.cli import shards as cli_shards  # noqa: E402
from synth.cli import tasks as cli_tasks  # noqa: E402
from synth.cli.common import fail, group  # noqa: E402

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

# `synth --help` lists the commands in the order a user meets them, in these panels (a test checks
# that every command is here, so a new one gets a place)
PANELS = {
    "Make a dataset": ("generate", "merge"),
    "Use it": ("export", "eval", "grade"),
    "Check and publish": ("card", "push", "review", "tasks"),
    "Your own data": ("audit", "derive"),
    "Servers and packs": ("registry", "pack", "serve"),
    "Upkeep": ("cache",),
}
ORDER = [name for names in PANELS.values() for name in names]


def _arrange() -> None:
    """Each command and group in its panel, in ORDER (typer lists plain commands before groups)."""
    panel = {name: title for title, names in PANELS.items() for name in names}

    def name_of(info) -> str:
        return (
            info.name
            or (info.typer_instance.info.name if hasattr(info, "typer_instance") else None)
            or (info.callback.__name__)
        )

    for infos in (app.registered_commands, app.registered_groups):
        for info in infos:
            info.rich_help_panel = panel.get(name_of(info))
        infos.sort(key=lambda info: ORDER.index(name_of(info)) if name_of(info) in ORDER else len(ORDER))


_arrange()


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
