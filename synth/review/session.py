"""``synth review RUN``: a person goes through the review queue in the terminal, one item at a time.

Keys: a accept, r reject, e edit (opens $VISUAL/$EDITOR on the item's JSON and checks it on
return), n note, s skip, q quit. Every decision is written to review_queue.jsonl at once (the
whole file replaced atomically), so quitting or a crash loses nothing. Items already decided are
not shown again.

Keys come from a function (``read_key``), so tests and scripts feed them; in a terminal one key
press is read without Enter.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from synth.errors import ConfigError
from synth.records import ServerSpec
from synth.review.edit import EditError, check, editable, parse
from synth.review.queue import QueueItem, read_queue, write_queue

KEYS = "[bold]a[/] accept  [bold]r[/] reject  [bold]e[/] edit  [bold]n[/] note  [bold]s[/] skip  [bold]q[/] quit"
RESULT_LINES = 14  # a tool result longer than this is cut on screen (the queue keeps it whole)


def terminal_key() -> str:
    """One key press; in a pipe, the next non-blank character ("" at the end of input)."""
    if not sys.stdin.isatty():
        while True:
            ch = sys.stdin.read(1)
            if not ch or not ch.isspace():
                return ch
    if os.name == "nt":  # pragma: no cover
        import msvcrt

        return msvcrt.getwch()  # type: ignore[attr-defined]
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setraw(fd)
        ch = sys.stdin.read(1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
    if ch in ("\x03", "\x04"):  # Ctrl-C, Ctrl-D
        return "q"
    return ch


def terminal_line(prompt: str) -> str:
    """A line of text (a note). In a pipe the key was read alone, so what follows it on its line is
    the note; when nothing does (``n`` then Enter), the note is the next line."""
    if not sys.stdin.isatty():
        print(prompt, end="", flush=True)
        rest = sys.stdin.readline()
        if rest.strip():
            return rest.rstrip("\r\n")
        return sys.stdin.readline().rstrip("\r\n")
    try:
        return input(prompt)
    except EOFError:
        return ""


def edit_text(text: str) -> str:
    """``text`` after the person edited it in their editor ($VISUAL, $EDITOR, else the platform's), through
    ``click.edit`` (a temporary .json file, removed afterwards); unchanged text when they saved nothing."""
    try:
        edited = click.edit(text, extension=".json", require_save=False)
    except click.ClickException as exc:
        raise EditError(f"{exc.format_message()}; nothing was changed (set $EDITOR to an editor that works)") from None
    return text if edited is None else str(edited)


@dataclass
class Session:
    run: Path
    console: Console
    reviewer: str
    read_key: Callable[[], str] = terminal_key
    read_line: Callable[[str], str] = terminal_line
    editor: Callable[[str], str] = edit_text  # the item's JSON in, the edited JSON out
    servers: Callable[[str], ServerSpec] | None = None  # server id -> spec, for checking edits
    now: Callable[[], str] = field(default=lambda: _now())

    def start(self) -> dict[str, int]:
        """Go through the undecided items; returns how many of each decision were made."""
        items = read_queue(self.run)
        todo = [i for i, item in enumerate(items) if item.decision is None]
        made: dict[str, int] = {"accept": 0, "reject": 0, "edit": 0, "skip": 0}
        if not todo:
            self.console.print(
                f"nothing to review in {self.run}: all {len(items)} queued items are decided. "
                f"Fold them in with: synth review apply {self.run}"
            )
            return made
        for position, index in enumerate(todo, 1):
            fresh = True
            while True:
                item = items[index]
                self._show(item, position, len(todo), items, fresh)
                fresh = False
                key = (self.read_key() or "q").lower()
                if key == "q":
                    self._bye(items)
                    return made
                if key == "s":
                    made["skip"] += 1
                    break
                if key == "n":
                    note = self.read_line("note: ").strip()
                    items[index] = item.model_copy(update={"note": note or None})
                    write_queue(self.run, items)
                    continue
                if key in ("a", "r"):
                    decision = "accept" if key == "a" else "reject"
                    items[index] = self._decide(item, decision)
                    write_queue(self.run, items)
                    made[decision] += 1
                    break
                if key == "e":
                    edited = self._edit(item)
                    if edited is None:
                        continue  # refused: the item stays, undecided
                    items[index] = self._decide(item, "edit", edited)
                    write_queue(self.run, items)
                    made["edit"] += 1
                    break
                self.console.print(f"[yellow]unknown key {key!r}[/]: {KEYS}")
        self._bye(items)
        return made

    def _decide(self, item: QueueItem, decision: str, edited: Any = None) -> QueueItem:
        return item.model_copy(
            update={"decision": decision, "edited": edited, "reviewer": self.reviewer, "decided_at": self.now()}
        )

    def _edit(self, item: QueueItem) -> Any | None:
        """The checked edit, or None (refused, with the reason on screen)."""
        try:
            edited = parse(self.editor(json.dumps(editable(item), indent=2, ensure_ascii=False) + "\n"))
            if self.servers is None:
                raise EditError("edits are checked against the run's registry, which is not available; pass --servers")
            return check(item, edited, self.servers(item.server))
        except (EditError, ConfigError) as exc:
            self.console.print(f"[bold red]edit refused:[/] {escape(str(exc))}", soft_wrap=True)
            self.console.print("The item stays in the queue, undecided: press e to edit again, or another key.")
            return None

    def _bye(self, items: list[QueueItem]) -> None:
        left = sum(i.decision is None for i in items)
        self.console.print(
            f"saved: {len(items) - left} of {len(items)} queued items decided, {left} left. "
            f"Fold them in with: synth review apply {self.run}"
        )

    # --- drawing ---------------------------------------------------------------------------

    def _show(self, item: QueueItem, position: int, total: int, items: list[QueueItem], fresh: bool) -> None:
        decided = sum(i.decision is not None for i in items)
        c = self.console
        if fresh and c.is_terminal:  # one item on screen at a time; a refused edit's message stays in view
            c.clear()
        c.print(Rule(f"item {position} of {total} to review  ·  {decided}/{len(items)} decided"))
        c.print(f"why: [bold magenta]{escape(', '.join(item.why))}[/]", soft_wrap=True)  # the reason comes first
        for line in item.detail:
            c.print(f"  [magenta]{escape(line)}[/]", soft_wrap=True)
        facts = [
            f"[bold]{item.kind}[/] on {escape(item.server)}",
            f"split {item.split}",
            f"suggested: [bold]{item.suggested_label}[/]",
        ]
        if item.held:
            facts.append("[yellow]held out of the data until accepted[/]")
        c.print("  ·  ".join(facts))
        if item.decided_by == "gates":
            c.print(_gates_line(item.record), soft_wrap=True)
        elif item.model_review:
            r = item.model_review
            c.print(
                f"reviewer model: {r.get('verdict')} (confidence {r.get('confidence')}), steps "
                f"{', '.join(r.get('step_labels') or []) or '-'}"
                + (f"; {escape('; '.join(r.get('reasons') or []))}" if r.get("reasons") else ""),
                soft_wrap=True,
            )
        if item.note:
            c.print(f"note: {escape(item.note)}")
        if item.kind == "conversation":
            c.print(_transcript(item.item["turns"]))
        else:
            c.print(_transcript(item.item["turns"], title="conversation so far"))
            c.print(_calls(item.item))
        c.print(KEYS)


def _json(value: Any, limit: int | None = None) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False) if not isinstance(value, str) else value
    lines = text.splitlines()
    if limit and len(lines) > limit:
        lines = lines[:limit] + [f"... ({len(text.splitlines()) - limit} more lines)"]
    return "\n".join(lines)


def _transcript(turns: list[dict[str, Any]], title: str = "conversation") -> Panel:
    parts: list[Any] = []
    for turn in turns:
        role = turn["role"]
        if role == "tool":
            body = Text(_json(turn["result"], RESULT_LINES), style="dim")
            parts.append(Panel(body, title=f"tool result: {turn['name']}", title_align="left", border_style="dim"))
            continue
        style = {"user": "bold cyan", "assistant": "bold green", "system": "bold white"}.get(role, "bold")
        if turn.get("text"):
            text = turn["text"] if role != "system" else turn["text"][:200] + ("…" if len(turn["text"]) > 200 else "")
            parts.append(Text.assemble((f"{role}: ", style), text))
        for call in turn.get("calls", []):
            parts.append(
                Text.assemble((f"{role} calls ", style), (call["name"], "bold yellow"), " ", _json(call["arguments"]))
            )
    return Panel(Group(*parts), title=title, title_align="left")


def _calls(item: dict[str, Any]) -> Group:
    table = Table(show_header=True, header_style="bold", expand=True)
    table.add_column(f"this call: {item['label']} / {item['subtype']}", ratio=1)
    table.add_column("gold call", ratio=1)
    table.add_row(
        Text.assemble((item["call"]["name"], "bold yellow"), "\n", _json(item["call"]["arguments"])),
        Text.assemble((item["gold_call"]["name"], "bold green"), "\n", _json(item["gold_call"]["arguments"])),
    )
    return Group(table, Text.assemble(("why it is wrong: ", "bold"), item["failure_reason"] or "-"))


def _now() -> str:
    from synth.review.apply import utc_now

    return utc_now()


def _gates_line(record: dict[str, Any]) -> str:
    """What decided a conversation no model reviewed: the deterministic gates, and the labels its results gave."""
    review = record.get("review") or {}
    gates: dict[str, list[bool]] = {}
    for g in review.get("gates") or []:
        gates.setdefault(g.get("gate", "?"), []).append(bool(g.get("passed")))
    counts = ", ".join(f"{name} {sum(v)}/{len(v)}" for name, v in gates.items()) or "no calls"
    labels = ", ".join(review.get("step_labels") or []) or "-"
    return f"decided by the gates (no reviewer model ran): {review.get('verdict')}; {counts}; steps {labels}"
