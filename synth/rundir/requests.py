"""``requests.json``: what getting a model's answers took, one entry per process that worked on the run.

Timing and retries differ between two makings of the same run, so they stay out of the manifest (and the
card only points here). A process rewrites its own entry every second while it runs (``ProcessEntry``), so
one that is killed leaves what it had sent up to a second before it died.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from synth.rundir.names import REQUESTS


def _total(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The entries summed: numbers added, nested counts (errors, sent, kept, discarded) added key by key."""
    total: dict[str, Any] = {"errors": {}}
    for entry in entries:
        for key, value in entry.items():
            if isinstance(value, dict):
                bucket = total.setdefault(key, {})
                for k, v in value.items():
                    bucket[k] = bucket.get(k, 0) + v
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                total[key] = total.get(key, 0) + value
    return total


def requests_line(entries: list[dict[str, Any]]) -> str | None:
    """Requests, retries by cause, re-asks and time spent waiting, summed over ``entries`` (requests.json)."""
    if not entries:
        return None
    total = _total(entries)
    errors = total["errors"]
    causes = ", ".join(f"{label} {errors[kind]}" for kind, label in ERROR_LABELS if errors.get(kind))
    return (
        f"{total.get('requests', 0)} requests for {total.get('calls', 0)} model calls; {total.get('retries', 0)} retries"  # noqa: E501
        + (f" ({causes})" if causes else "")
        + f", {total.get('reasks', 0)} re-asks of answers that did not validate, "
        f"{total.get('failures', 0)} calls failed past their retries, {total.get('downgrades', 0)} output-format "
        f"downgrades; {total.get('waited_s', 0):.1f} s spent waiting before retries"
    )


def spend_line(entries: list[dict[str, Any]]) -> str | None:
    """Answers and tokens sent, kept (the scenarios the run used) and discarded (scenarios started that the
    run no longer needed once it had enough, dropped at their next request), summed over ``entries``."""
    total = _total(entries)
    if "sent" not in total:
        return None

    def part(counts: dict[str, int]) -> str:
        return f"{counts.get('calls', 0)} calls, {counts.get('prompt_tokens', 0):,} tokens in / {counts.get('completion_tokens', 0):,} out"  # noqa: E501

    thrown = total.get("discarded", {})
    line = f"sent {part(total['sent'])}; kept {part(total.get('kept', {}))}; discarded {part(thrown)}"
    if thrown.get("calls") or total.get("unsent"):
        line += (
            f" (scenarios started past the end of the run, dropped once it had enough; {total.get('unsent', 0)} of "
            "their requests were never sent; running the same command again may send those again)"
        )
    return line


ERROR_LABELS = (
    ("rate_limit", "429 rate limits"),
    ("server_error", "5xx"),
    ("timeout", "timeouts"),
    ("connection", "connection failures"),
    ("invalid_response", "unreadable bodies"),
    ("cut_answer", "cut answers"),
    ("bad_request", "other 4xx"),
    ("auth", "auth errors"),
    ("not_found", "404s"),
)


def read_requests(out: Path) -> list[dict[str, Any]]:
    """The entries of ``requests.json`` (one per process that worked on the run), or []."""
    try:
        data = json.loads((out / REQUESTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


class ProcessEntry:
    """This process's entry in ``requests.json``: ``report()`` (the counters so far, or None) written as the
    entry every ``every`` seconds from a background thread while inside ``with``, and once more on leaving.
    Other processes' entries are kept as they are; this one's is told apart by its ``process`` id."""

    def __init__(self, out: Path, command: str, report: Callable[[], dict[str, Any] | None], every: float = 1.0):
        self.out, self.command, self.report, self.every = out, command, report, every
        self.process = f"{os.getpid()}-{time.time_ns()}"
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="synth-requests", daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.write()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.write()
            except (RuntimeError, OSError):  # counters changed while read, or a full disk: the next tick tries again
                continue

    def write(self) -> None:
        from synth.rundir.writing import write_json

        with self._lock:
            report = self.report()
            if report is None or not self.out.is_dir():
                return
            others = [e for e in read_requests(self.out) if e.get("process") != self.process]
            write_json(self.out / REQUESTS, [*others, {"command": self.command, "process": self.process, **report}])
