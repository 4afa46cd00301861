"""``synth grade`` and ``synth eval``: score predictions, or ask a model and score its answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from synth.cli.common import (
    attempts_option,
    config_option,
    exits_on_error,
    fail,
    progress_bar,
    rate_options,
    timeout_option,
)


def register(app: typer.Typer) -> None:
    app.command()(grade)
    app.command("eval")(eval_command)


def grade(
    eval_file: Path | None = typer.Option(None, "--eval", help="eval.jsonl (or a run folder)."),
    teval: Path | None = typer.Option(
        None,
        "--teval",
        help='A T-Eval subset file (teval/<subset>_<json|str>.json); predictions are then {"id", "prediction"} lines.',
    ),
    predictions: Path = typer.Option(..., "--predictions", help='One line per item: {"id", "tool_calls", "content"}.'),
    out: Path | None = typer.Option(None, "--out", help="Report JSON. Default: report.json beside the predictions."),
    lenient: str = typer.Option(
        "", "--lenient", help="Opt-in leniency: defaults, int_float, strings (comma-separated) or all."
    ),
    compare: Path | None = typer.Option(None, "--compare", help="Another report.json to show side by side."),
) -> None:
    """Grade predictions against an eval file: overall, per server, per tool, per diagnosis."""
    from synth.evaluate.report import eval_items, print_report
    from synth.evaluate.report import grade as run_grade
    from synth.rundir import read_jsonl, write_json, write_jsonl

    if teval is not None:
        _grade_teval(teval, predictions, out)
        return
    if eval_file is None:
        fail("give --eval eval.jsonl (tool calls) or --teval teval/<subset>.json (T-Eval answers)")
    with exits_on_error():
        _finished_if_run(eval_file)
        report, rows = run_grade(
            eval_items(eval_file), read_jsonl(predictions, "predictions file", required=True), _leniency(lenient)
        )
        other = _read_report(compare) if compare else None
    target = out or predictions.parent / "report.json"
    write_json(target, report)
    write_jsonl(target.parent / "graded.jsonl", rows)
    print_report(report, other)
    typer.echo(f"report: {target}")
    if report.get("errors"):
        fail(f"{report['errors']} predictions are errors (their requests failed); they are left out of the scores", 1)


def _grade_teval(subset: Path, predictions: Path, out: Path | None) -> None:
    import json

    from synth.errors import SynthError
    from synth.evaluate.teval import score_subset
    from synth.rundir import public_name, read_json, read_jsonl, write_json

    name = Path(public_name(subset)).stem  # plan_json, from teval/plan_json.json or its stored .json.gz
    try:
        records = read_json(subset, "T-Eval subset")
        answers = {
            str(p.get("id")): str(p.get("prediction", ""))
            for p in read_jsonl(predictions, "predictions file", required=True)
        }
        report = score_subset(name, records, answers)
    except (OSError, ValueError) as exc:
        fail(f"{subset}: not a T-Eval subset synth wrote ({exc})")
    except SynthError as exc:
        fail(str(exc), exc.exit_code)
    target = out or predictions.parent / f"teval_{name}_report.json"
    write_json(target, report)
    typer.echo(json.dumps(report))


def _finished_if_run(source: Path) -> None:
    """Refuse a run folder while it is being written, or when it stopped part way (an eval file passes)."""
    from synth.rundir import RunDir

    if source.is_dir() and RunDir(source).is_run():
        RunDir(source).finished()


def _leniency(text: str):
    from synth.errors import ConfigError
    from synth.grade import Leniency

    try:
        return Leniency.parse(text)
    except ValueError as exc:
        raise ConfigError(f"--lenient: {exc}") from None


def _read_report(path: Path) -> dict:
    from synth.rundir import read_json

    return read_json(path, "--compare report (a report.json written by synth eval or synth grade)")


def eval_command(
    source: Path = typer.Argument(
        ..., help="A run folder (its eval.jsonl; scored.jsonl with --judge) or an eval file."
    ),
    model: str = typer.Option(..., "--model", "-m", help="The model to evaluate."),
    base_url: str | None = typer.Option(
        None, "--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL or OpenAI)."
    ),
    api_key_env: str | None = typer.Option(None, "--api-key-env", help="Environment variable holding the API key."),
    concurrency: int | None = typer.Option(None, "--concurrency", "-c", min=1, help="Requests in flight (default 16)."),
    rpm: int | None = rate_options()[0],
    tpm: int | None = rate_options()[1],
    timeout: float | None = timeout_option(60),
    max_attempts: int | None = attempts_option(),
    config: Path | None = config_option(),
    out: Path | None = typer.Option(
        None, "--out", help="Where predictions and the report go. Default: <run>/eval-<model>."
    ),
    lenient: str = typer.Option("", "--lenient", help="Opt-in leniency: defaults, int_float, strings or all."),
    compare: Path | None = typer.Option(None, "--compare", help="A report.json to compare with (base vs fine-tuned)."),
    judge: bool = typer.Option(False, "--judge", help="Evaluate the model as a tool-call judge on scored.jsonl."),
    tasks: bool = typer.Option(
        False,
        "--tasks",
        help="Run the model as the agent on the run's tasks (a fresh store or world each, the person "
        "simulated from the task) and score each by its verify.py.",
    ),
) -> None:
    """Ask a model for each eval item's next tool call and grade it.

    With --judge it judges scored calls; with --tasks it solves the run's tasks (the store's and those of every
    server with a world), scored by the final state and the answer.
    """
    import re

    from synth.evaluate.run import evaluate

    flags = dict(locals())
    with exits_on_error():
        folder = source if source.is_dir() else source.parent
        _finished_if_run(source)
        kind = "judge" if judge else "tasks" if tasks else "eval"
        target = out or folder / f"{kind}-{re.sub(r'[^A-Za-z0-9._-]+', '_', model)}"
        backend, concurrency = _open_backend(folder, target, flags)
        if tasks:
            _solve_tasks(folder, backend, model, target, concurrency)
            return
        if judge:
            _judge(source, backend, model, target, concurrency)
            return
        other = _read_report(compare) if compare else None
        with progress_bar(f"asking {model}") as start:
            report = evaluate(source, backend, model, target, concurrency * 2, _leniency(lenient), start)
    _print_evaluation(report, other, target)


def _open_backend(folder: Path, target: Path, flags: dict) -> tuple[Any, int]:
    """The endpoint of the model under evaluation (its cache in ``target``; flags over synth.toml's [llm]),
    and the requests to keep in flight."""
    from synth.cli.common import model_fields
    from synth.config import Settings
    from synth.llm.factory import open_one

    fields = model_fields(flags["config"], flags)
    fields.pop("roles", None)  # the model under evaluation is the one endpoint
    settings = Settings(servers=folder, out=target, backend="openai", **fields)
    return open_one(settings), settings.concurrency


def _solve_tasks(folder: Path, backend, model: str, target: Path, concurrency: int) -> None:
    """--tasks: the model as the agent on every task (store and worlds); exit 4 when some could not be run
    (the model could not be asked), as the per-call eval does, naming the first reason."""
    from synth.evaluate.agent import evaluate_tasks
    from synth.rundir import read_jsonl

    with progress_bar(f"{model} on the tasks") as start:
        report = evaluate_tasks(folder, backend, model, target, concurrency, start)
    typer.echo(
        f"{model}: {report['passed']} of {report['tasks'] - report['errors']} tasks pass their "
        f"verify.py ({report['pass_rate']:.1%}); {report['errors']} could not be run"
    )
    for category, row in report["by_category"].items():
        typer.echo(f"  {category}: {row['pass_rate']:.1%} of {row['tasks']}")
    typer.echo(f"episodes and report: {target}")
    if report["errors"]:
        first = next((r["error"] for r in read_jsonl(target / "episodes.jsonl") if r.get("error")), "?")
        fail(
            f"{report['errors']} of {report['tasks']} tasks could not be run ({first}); they are left out of the "
            "pass rate; run again when the endpoint works (answers already received are cached)",
            4,
        )


def _judge(source: Path, backend, model: str, target: Path, concurrency: int) -> None:
    """--judge: the model labels scored calls; exit 4 when requests failed (a rerun asks only those again)."""
    from synth.evaluate.run import judge as run_judge

    with progress_bar(f"{model} judging") as start:
        report = run_judge(source, backend, model, target, concurrency * 2, start)
    _print_judge(report)
    typer.echo(f"report: {target / 'judge_report.json'}")
    if report.get("errors"):
        fail(
            f"{report['errors']} of {report['items'] + report['errors']} judge requests failed; they are left "
            "out of the accuracy; run again when the endpoint works (answers already received are cached)",
            4,
        )


def _print_evaluation(report: dict, other: dict | None, target: Path) -> None:
    """The graded next calls; exit 4 when requests failed, naming the first failure."""
    from synth.evaluate.report import print_report
    from synth.rundir import read_jsonl

    print_report(report, other)
    typer.echo(f"predictions and report: {target}")
    if report.get("errors"):
        first = next((r for r in read_jsonl(target / "graded.jsonl") if r.get("error")), {})
        fail(
            f"{report['errors']} of {report['items'] + report['errors']} requests failed ({(first.get('details') or ['?'])[0]}); "  # noqa: E501
            "they are left out of the scores; run again when the endpoint works (answers already received are cached)",
            4,
        )


def _print_judge(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"judge {report['model']}: accuracy {report['accuracy']:.3f} on {report['items']} calls",
        header_style="bold",
    )
    labels = list(report["per_label"])
    table.add_column("expected \\ predicted")
    for label in [*labels, "unparsed"]:
        table.add_column(label.replace("incorrect_", "inc. "), justify="right")
    table.add_column("precision", justify="right")
    table.add_column("recall", justify="right")
    for label in labels:
        row = report["confusion"][label]
        table.add_row(
            label,
            *(str(row[p]) for p in [*labels, "unparsed"]),
            f"{report['per_label'][label]['precision']:.3f}",
            f"{report['per_label'][label]['recall']:.3f}",
        )
    Console().print(table)
