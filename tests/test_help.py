"""Every help page as a newcomer sees it in an 80-column terminal: commands in the order a user meets
them, generate's options in panels, nothing cut short, and no bracket eaten as markup."""

from __future__ import annotations

import re
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from synth.cli.app import ORDER, PANELS, app

runner = CliRunner()


def pages() -> list[tuple[str, ...]]:
    """The argv of every help page: synth, each command, each group and each of its commands."""
    root = typer.main.get_command(app)
    found: list[tuple[str, ...]] = [()]

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):  # a group (typer 0.29 carries its own click)
            for name, sub in command.commands.items():
                found.append((*path, name))
                walk(sub, (*path, name))

    walk(root, ())
    return found


def render(argv: tuple[str, ...]) -> str:
    result = runner.invoke(app, [*argv, "--help"], env={"COLUMNS": "80", "TERMINAL_WIDTH": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def texts(argv: tuple[str, ...]) -> list[str]:
    """The help texts a page is made of: the command's own and each of its parameters'."""
    command: Any = typer.main.get_command(app)
    for name in argv:
        command = command.commands[name]
    return [command.help or "", *(getattr(p, "help", None) or "" for p in command.params)]


@pytest.mark.parametrize("argv", pages(), ids=lambda argv: " ".join(argv) or "synth")
def test_a_help_page_at_80_columns_cuts_nothing_and_loses_no_bracket(argv):
    shown = render(argv)
    assert max(len(line) for line in shown.splitlines()) <= 80
    assert "…" not in shown, shown  # rich cuts a text that does not fit with an ellipsis
    flat = " ".join(re.sub(r"[│╭╮╰╯─]", " ", shown).split())
    for text in texts(argv):
        for token in re.findall(r"\\?\[[^\]\s]*\]", text):  # [ray], [llm], [roles.<role>]: markup would eat them
            assert token.lstrip("\\") in flat, f"synth {' '.join(argv)} --help lost {token}"


def test_commands_come_in_the_order_a_user_meets_them_in_panels():
    shown = render(())
    listed = re.findall(r"^│ (\w+)\s{2,}", shown, re.M)
    assert listed == [c for c in ORDER], listed
    assert listed[0] == "generate"
    for title in PANELS:
        assert f"─ {title} " in shown
    registered = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert registered == set(ORDER), "a new command needs a place in synth.cli.app.PANELS"


def test_generate_groups_its_options_in_panels():
    shown = render(("generate",))
    panels = re.findall(r"╭─ ([^─]+?) ─", shown)
    assert panels == ["Options", "Registry and size", "Output", "Model", "Live servers", "Scale"]
    assert "pip install 'synth[ray]'" in " ".join(shown.replace("│", " ").split())
