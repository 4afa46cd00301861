"""The publishing and review commands: export, card, push, review. Flags -> one call; imports are lazy."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup

from synth.cli.common import exits_on_error, fail


class _ReviewGroup(TyperGroup):
    """``synth review RUN`` starts a session; ``synth review apply RUN`` (and ``queue``) are subcommands."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["start", *args]
        return super().parse_args(ctx, args)


review_app = typer.Typer(
    cls=_ReviewGroup,
    no_args_is_help=True,
    help="Review doubtful items by hand: `synth review RUN` goes through review_queue.jsonl one item at a time "
    "(a accept, r reject, e edit in $EDITOR, n note, s skip, q quit; every decision is saved at once); "
    "`synth review apply RUN` folds the decisions back into the run.",
)


def _run_folder(run: Path) -> None:
    """A finished run folder, or exit: 2 when it is no run, 3 while another process writes it or when
    its run stopped part way (the message says how to finish it)."""
    from synth.rundir import RunDir

    with exits_on_error():
        RunDir(run).finished()


def _holding_run(command: Callable[..., Any]) -> Callable[..., Any]:
    """Run a command on a finished run folder while holding its lock, so no other process writes the
    folder while this one reads or rewrites it (and this one refuses while another does)."""

    @functools.wraps(command)
    def locked(*args: Any, **kwargs: Any) -> Any:
        from synth.rundir import RunDir, RunLock

        run = kwargs["run"]
        if not RunDir(run).is_run():
            _run_folder(run)  # exits: not a run folder (and nothing is created where none was)
        lock = RunLock(run)
        with exits_on_error():
            lock.acquire()
        try:
            _run_folder(run)
            return command(*args, **kwargs)
        finally:
            lock.release()

    return locked


@_holding_run
def export(
    run: Path = typer.Argument(..., help="A run folder made by synth generate."),
    format: str = typer.Option(
        "hf",
        "--format",
        "-f",
        help="hf: Hugging Face datasets parquet, one config per "
        "format, laid out as a Hub dataset repo with its card. jsonl: the public files as plain "
        "JSONL (train, valid, eval, scored and conversations .jsonl; teval/*.json), as OpenAI and T-Eval read them. "
        "dpo: the preference pairs alone (prompt, chosen, rejected, tools: TRL's layout) "
        "as preference/<split>-*.parquet.",
    ),
    out: Path | None = typer.Option(
        None,
        "--out",
        "-o",
        help="Where to write. Default: the run folder itself (hf); a folder of its own is needed for jsonl.",
    ),
    license: str | None = typer.Option(
        None, "--license", help="Card licence id (e.g. mit, cc-by-4.0). Default: the card's current one, else 'other'."
    ),
    pretty_name: str | None = typer.Option(None, "--pretty-name", help="Card title."),
    without_fallback: bool = typer.Option(
        False,
        "--without-fallback",
        help='With --format jsonl: leave out the rows of conversations the plain fallback wrote ("author": '
        '"fallback": tools no pack entry serves).',
    ),
) -> None:
    """Export a run as Hugging Face datasets: <config>/<split>-*.parquet plus README.md (the card) and tasks/."""
    if format == "jsonl":
        from synth.export.jsonl import export_jsonl

        if out is None:
            fail(
                f"--format jsonl needs --out: a folder for the plain files (the run folder {run} keeps some compressed)"
            )
        with exits_on_error():
            files = export_jsonl(run, out, without_fallback)
        typer.echo(f"wrote {len(files)} files to {out}: " + ", ".join(p.relative_to(out).as_posix() for p in files))
        return
    if format == "dpo":
        _export_pairs(run, out)
        return
    if format != "hf":
        fail(f"--format {format!r} is not known; use --format hf (parquet), jsonl (the plain public files) or dpo")
    from synth.export.repo import export as build

    with exits_on_error():
        written = build(run, out, license=license, pretty_name=pretty_name)
    target = out or run
    for config, splits in written.items():
        typer.echo(f"{config}: " + ", ".join(f"{s} {len(files)} file(s)" for s, files in splits.items()))
    tasks = sum(1 for _ in (target / "tasks").rglob("verify.py")) if (target / "tasks").is_dir() else 0
    typer.echo(
        f"wrote {sum(len(f) for s in written.values() for f in s.values())} parquet files and README.md"
        + (f" (and tasks/: {tasks} store tasks)" if tasks else "")
        + f" to {target}; load with datasets.load_dataset({str(target)!r}, 'chat')"
    )


def _export_pairs(run: Path, out: Path | None) -> None:
    """``synth export --format dpo``: the preference config alone, as parquet a DPO trainer loads."""
    from synth.export.hf import write_parquet

    if out is None:
        fail("--format dpo needs --out: a folder for the preference pairs")
    with exits_on_error():
        written = write_parquet(run, out, frozenset({"preference"}))
    splits = written.get("preference", {})
    if not splits:
        fail(
            f"{run} has no preference pairs: it holds no scored negatives and no decisions (--outputs scored,decisions)"
        )
    typer.echo(
        f"preference: {', '.join(f'{s} {len(f)} file(s)' for s, f in splits.items())} in {out / 'preference'}; "
        f"load with datasets.load_dataset('parquet', data_dir={str(out / 'preference')!r})"
    )


@_holding_run
def card(
    run: Path = typer.Argument(..., help="A run folder made by synth generate."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Where to write README.md and plots/. Default: the run."),
    license: str | None = typer.Option(None, "--license", help="Licence id for the Hub (e.g. mit, cc-by-4.0)."),
    pretty_name: str | None = typer.Option(None, "--pretty-name", help="Card title."),
) -> None:
    """Write the dataset card (README.md with the Hub YAML header, stats, examples) and its PNG plots."""
    from synth.export.card.build import write_card

    path = write_card(run, out, license=license, pretty_name=pretty_name)
    typer.echo(f"wrote {path} and {path.parent / 'plots'}/*.png")


@_holding_run
def push(
    run: Path = typer.Argument(..., help="A run folder made by synth generate."),
    repo: str = typer.Option(..., "--repo", help="Hub dataset repo, OWNER/NAME; created when it does not exist."),
    private: bool = typer.Option(False, "--private", help="Create the repo private."),
    token_env: str | None = typer.Option(
        None,
        "--token-env",
        help="Environment variable holding a Hub token "
        "with write access. Default: HF_TOKEN, else the `hf auth login` token.",
    ),
    message: str | None = typer.Option(None, "--message", "-m", help="Commit message."),
) -> None:
    """Upload the run to the Hugging Face Hub: parquet per config, the card with its plots, manifest.json, tasks/."""
    from synth.hub import check_repo_id, find_token
    from synth.hub import push as upload

    with exits_on_error():
        check_repo_id(repo)
        token = find_token(token_env)
        pushed = upload(run, repo, token=token, private=private, message=message)
    typer.echo(
        f"pushed {len(pushed.uploaded)} files to {pushed.url}"
        + (" (private)" if private else "")
        + (f"; removed {len(pushed.deleted)} files of an earlier push" if pushed.deleted else "")
    )


@review_app.command("start", hidden=True)
@_holding_run
def review_start(
    run: Path = typer.Argument(..., help="A run folder with review_queue.jsonl."),
    reviewer: str | None = typer.Option(None, "--reviewer", help="Your name in the audit trail. Default: $USER."),
    servers: Path | None = typer.Option(
        None,
        "--servers",
        help="The registry the run was made from (to check edits). Default: the folder named in manifest.json.",
    ),
) -> None:
    """Go through the review queue one item at a time."""
    import getpass

    from rich.console import Console

    from synth.review.session import Session

    with exits_on_error():
        session = Session(
            run=run,
            console=Console(highlight=False),
            reviewer=reviewer or getpass.getuser(),
            servers=_server_lookup(run, servers),
        )
        session.start()


def _server_lookup(run: Path, servers: Path | None):
    """server id -> ServerSpec from the run's registry, loaded on the first edit and checked per server."""
    loaded: dict[str, Any] = {}

    def lookup(server_id: str):
        from synth.review.apply import check_snapshot, read_manifest, run_registry

        if not loaded:
            loaded["manifest"] = read_manifest(run)
            loaded["registry"] = run_registry(run, loaded["manifest"], servers, set())
        check_snapshot(
            loaded["manifest"], loaded["registry"], {server_id}, servers or loaded["manifest"]["config"]["servers"]
        )
        return loaded["registry"].server(server_id)

    return lookup


@review_app.command("apply")
@_holding_run
def review_apply(
    run: Path = typer.Argument(..., help="A run folder with decisions in review_queue.jsonl."),
    servers: Path | None = typer.Option(
        None, "--servers", help="The registry the run was made from. Default: the folder named in manifest.json."
    ),
) -> None:
    """Fold the decisions back in: splits, rejected.jsonl, re-derived negatives, exports, manifest, card,
    review_log.jsonl."""
    from synth.review.apply import apply

    with exits_on_error():
        report = apply(run, servers)
    if report.nothing:
        typer.echo(f"nothing to apply in {run}: every decision is already in review_log.jsonl")
        return
    typer.echo(
        f"applied {report.applied} decisions ("
        + ", ".join(f"{d} {n}" for d, n in sorted(report.decisions.items()))
        + f"): {report.joined} held "
        f"conversations joined their split, {report.removed} items left the data; exports, manifest and card "
        "rebuilt; audit trail in review_log.jsonl"
    )
    for line in report.refused:
        typer.echo(f"refused (back in the queue): {line}", err=True)
    if report.refused:
        raise typer.Exit(1)


@review_app.command("queue")
@_holding_run
def review_queue(
    run: Path = typer.Argument(..., help="A run folder."),
    audit: float = typer.Option(0.02, "--audit", min=0.0, max=1.0, help="Share of accepted items to audit at random."),
    below: float = typer.Option(
        0.7, "--min-confidence", min=0.0, max=1.0, help="Queue items the reviewer accepted with less confidence."
    ),
    rules: str = typer.Option(
        "human,low_confidence,disagree,audit", "--rules", help="Which rules queue items, comma-separated."
    ),
) -> None:
    """Choose the queue again with other rules (held and already decided items are kept)."""
    from synth.config import REVIEW_RULES
    from synth.review.queue import Rules, rebuild
    from synth.rundir import RunDir

    chosen = tuple(r.strip() for r in rules.split(",") if r.strip())
    unknown = sorted(set(chosen) - set(REVIEW_RULES))
    if unknown:
        fail(f"--rules: unknown {unknown}; rules are {', '.join(REVIEW_RULES)}")
    seed = RunDir(run).manifest()["config"]["seed"]
    with exits_on_error():
        report = rebuild(run, Rules(audit=audit, min_confidence=below, rules=chosen, seed=seed))
    typer.echo(
        f"review_queue.jsonl: {report.kept + report.added} items ({report.kept} kept, {report.added} chosen): "
        + (", ".join(f"{w} {n}" for w, n in sorted(report.by_reason.items())) or "none")
    )


def register(app: typer.Typer) -> None:
    """Add export, card, push and the review commands to the ``synth`` app."""
    app.command("export")(export)
    app.command("card")(card)
    app.command("push")(push)
    app.add_typer(review_app, name="review")
