"""A scenario's sandbox: the fresh folder a stateful server starts in, prepared from the entry's world, and
the one neutral name (``/workspace``) the data uses for it.

A registry entry's connection may carry ``sandbox`` (synth.records.Sandbox): files to write and commands
to run in the folder before the server starts (a git repository with history), and calls to make on the
server once it is up (entities in a memory graph). ``${SANDBOX}`` in the entry's args, env and cwd names
the folder, for servers that take their root as an argument or keep their state beside themselves.

The server works on the real folder, which is also its HOME, XDG folders and TMPDIR (``homed``); the conversation
sees ``/workspace``: arguments are mapped to the
real folder on the way out, results back on the way in, and what a result says about the machine that
made it (home folder, PATH, user and host names, temporary folders) is replaced by neutral values.
``leaks`` finds what is left, so a conversation that still holds it is rejected with its reason.
"""

from __future__ import annotations

import datetime as dt
import getpass
import os
import re
import socket
import subprocess
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from synth.errors import LiveError
from synth.records import SEEDED_TIME, Connection, Sandbox

WORKSPACE = "/workspace"
MARK = "${SANDBOX}"
RUN_TIMEOUT = 60.0
UMASK, FILE_MODE, DIR_MODE = 0o022, 0o644, 0o755  # one mode for what a sandbox's steps make, whatever the user's
_ENV_KEYS = (
    r"HOME|USER|USERNAME|LOGNAME|PATH|SHELL|PWD|OLDPWD|HOSTNAME|TMPDIR|MAIL|[A-Z_]*(?:TOKEN|SECRET|PASSWORD|API_KEY)"
)
# KEY=value, KEY: value, "KEY": "value" in an environment dump (a get-env tool, an error that prints os.environ)
_DUMP = re.compile(rf"""(?m)(?P<key>["']?\b(?:{_ENV_KEYS})\b["']?\s*[:=]\s*)(?P<q>["']?)(?P<value>[^"'\n,}}]*)(?P=q)""")
_TEMP = re.compile(rf"{re.escape(tempfile.gettempdir())}/synth-[\w.-]+")


def uses_folder(connection: Connection) -> bool:
    """Whether each scenario needs a folder of its own prepared: a sandbox, or ``${SANDBOX}`` in the entry."""
    text = " ".join([*connection.args, *connection.env.values(), connection.cwd or ""])
    return connection.sandbox is not None or MARK in text


def homed(folder: str) -> dict[str, str]:
    """Where a server in ``folder`` keeps what it writes for itself: its home, the XDG folders and TMPDIR all
    inside the sandbox, so a server that stores its state under HOME (``~/.local/share/todo``) starts empty in
    each scenario and never writes to the user's own files."""
    return {
        "HOME": folder,
        "XDG_DATA_HOME": f"{folder}/.local/share",
        "XDG_CONFIG_HOME": f"{folder}/.config",
        "XDG_CACHE_HOME": f"{folder}/.cache",
        "XDG_STATE_HOME": f"{folder}/.local/state",
        "TMPDIR": folder,
    }


def placed(connection: Connection, folder: str) -> Connection:
    """``connection`` run in ``folder``: ``${SANDBOX}`` in its args, env and cwd replaced by it, the folder as its
    working directory, and its HOME, XDG folders and TMPDIR in it (unless the entry's env sets them)."""
    put = lambda text: text.replace(MARK, folder)  # noqa: E731
    return connection.model_copy(
        update={
            "args": tuple(put(a) for a in connection.args),
            "env": {**homed(folder), **{k: put(v) for k, v in connection.env.items()}},
            "cwd": put(connection.cwd) if connection.cwd else folder,
        }
    )


def world_paths(sandbox: Sandbox | None) -> tuple[str, ...]:
    """What a sandbox's ``write`` steps put there, as the conversation sees it: each file as /workspace/<path>
    and each folder on the way with a trailing /, sorted (a value a server without a pack can name, and find)."""
    found: set[str] = set()
    for step in sandbox.steps if sandbox else ():
        for rel in step.write or {}:
            parts = Path(rel).parts
            found.add("/".join((WORKSPACE, *parts)))
            found.update("/".join((WORKSPACE, *parts[:k])) + "/" for k in range(1, len(parts)))
    return tuple(sorted(found))


def prepare(sandbox: Sandbox | None, folder: str, name: str) -> None:
    """Write the files and run the commands of ``sandbox`` in ``folder``, in order (calls come later, on the
    server). A step that fails ends the scenario with a LiveError that names the step and the fix."""
    root = Path(folder).resolve()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(root),
        "LC_ALL": "C",
        **(sandbox.env if sandbox else {}),
    }
    for number, step in enumerate(sandbox.steps if sandbox else ()):
        for rel, text in (step.write or {}).items():
            target = (root / rel).resolve()
            if root not in target.parents:
                raise LiveError(
                    name,
                    f"sandbox step {number}: {rel!r} is outside the sandbox",
                    "write paths relative to it",
                    "live_sandbox",
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            target.chmod(FILE_MODE)
        if step.run:
            _run(step.run, str(root), env, name, number)
    settle(root, sandbox.time if sandbox else SEEDED_TIME)


def settle(root: Path, when: str) -> None:
    """Every file and folder of the prepared sandbox (a git repository's own files too) gets the time ``when``
    as its modification and access time, and the folders synth made get one mode, so what a tool says about
    them (a file's size, times and permissions) is the same on every machine and every fresh sandbox. A
    file's creation time (birth time) is the kernel's, which no call sets: see docs/live.md."""
    stamp = dt.datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()
    for path in [*sorted(root.rglob("*")), root]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(DIR_MODE)
        os.utime(path, (stamp, stamp), follow_symlinks=False)


def _run(argv: tuple[str, ...], cwd: str, env: dict[str, str], name: str, number: int) -> None:
    argv = tuple(a.replace(MARK, cwd) for a in argv)
    try:
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False, umask=UMASK
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LiveError(
            name,
            f"sandbox step {number} ({' '.join(argv)}): {exc}"[:300],
            "fix the entry's sandbox steps",
            "live_sandbox",
        ) from None
    if done.returncode != 0:
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        raise LiveError(
            name,
            f"sandbox step {number} ({' '.join(argv)}) exited {done.returncode}: {last[0][:160]}",
            "run the step by hand in an empty folder to see why",
            "live_sandbox",
        )


class Neutral:
    """Maps between the real sandbox folder and ``/workspace``, and takes the machine out of result text."""

    def __init__(self, folder: str | None):
        real = {folder, os.path.realpath(folder)} if folder else set()
        self.folders = sorted((f for f in real if f), key=len, reverse=True)
        self.folder = folder
        home = os.environ.get("HOME", "")
        self.home = home if len(home) > 1 else ""
        self.host = socket.gethostname() if len(socket.gethostname()) >= 4 else ""
        user = os.environ.get("USER") or os.environ.get("LOGNAME") or getpass.getuser()
        self.user = user if len(user) >= 4 and user not in ("root", "user") else ""
        self.path = os.environ.get("PATH", "")

    def to_real(self, value: Any) -> Any:
        """Arguments as the server must see them: ``/workspace`` becomes the real folder."""
        if self.folder is None:
            return value
        if isinstance(value, str):
            if value == WORKSPACE or value.startswith(WORKSPACE + "/"):
                return self.folder + value[len(WORKSPACE) :]
            return value
        if isinstance(value, list):
            return [self.to_real(v) for v in value]
        if isinstance(value, dict):
            return {k: self.to_real(v) for k, v in value.items()}
        return value

    def text(self, text: str) -> str:
        """A result's text with the sandbox as ``/workspace`` and the machine's own names replaced."""
        for folder in self.folders:
            text = text.replace(folder, WORKSPACE)
        text = _TEMP.sub(WORKSPACE, text)
        text = _DUMP.sub(lambda m: f"{m['key']}{m['q']}[redacted]{m['q']}", text)
        if self.path and len(self.path) > 8:
            text = text.replace(self.path, "[redacted]")
        if self.home:
            text = re.sub(rf"{re.escape(self.home)}(?=/|\b)", "/home/user", text)
        if self.host:
            text = re.sub(rf"\b{re.escape(self.host)}\b", "workstation", text)
        if self.user:
            text = re.sub(rf"\b{re.escape(self.user)}\b", "user", text)
        return text

    def value(self, value: Any) -> Any:
        """``text`` applied to every string inside a parsed result."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items()}
        return value


def leaks(texts: list[str]) -> str | None:
    """What of the generating machine is still in ``texts`` (a temporary folder, the home folder, the host
    name, PATH), named, or None: a conversation holding it is rejected, never kept."""
    found = Neutral(None)
    checks = [("a temporary folder", _TEMP.pattern)]
    if found.home and found.home != "/root":
        checks.append(("the home folder", re.escape(found.home) + r"(?=/|\b)"))
    checks.append(("the home folder", r"(?<![\w/])/root/"))
    if found.host:
        checks.append(("the host name", rf"\b{re.escape(found.host)}\b"))
    if found.path and len(found.path) > 8:
        checks.append(("PATH", re.escape(found.path)))
    for what, pattern in checks:
        for text in texts:
            if re.search(pattern, text):
                return what
    return None


_STAMPS = (  # how servers write a point in time: JavaScript's Date text (Node servers), ISO 8601
    (
        re.compile(r"\b[A-Z][a-z]{2} ([A-Z][a-z]{2} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4})(?: \([^)\n]*\))?"),
        lambda s: dt.datetime.strptime(s, "%b %d %Y %H:%M:%S GMT%z"),
    ),
    (
        re.compile(r"\b(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2}))"),
        lambda s: dt.datetime.fromisoformat(s.replace("Z", "+00:00")),
    ),
)
RUN_TIME = "[a time during the run]"


def clocked(text: str, since: float, until: float) -> str:
    """``text`` with every point in time between ``since`` and ``until`` (seconds since the epoch, a second's
    slack each side) written as RUN_TIME: what the clock stamped while the conversation ran (a file's creation
    time, which Linux lets no call set; the access time a read updates; a write's modification time). A
    conversation replays identically when its results and the replay's are equal after this, each with its
    own run's window: every other byte, the sandbox's seeded times included, must be the same."""

    def mark(found: re.Match[str], parse: Any) -> str:
        try:
            when = parse(found[1]).timestamp()
        except ValueError:
            return found[0]
        return RUN_TIME if since - 1 <= when <= until + 1 else found[0]

    for pattern, parse in _STAMPS:
        text = pattern.sub(partial(mark, parse=parse), text)
    return text
