"""One writer per run folder: an ``flock`` on ``<folder>/.synth.lock`` holding the writer's pid and command."""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shlex
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from synth.errors import RunFolderError
from synth.rundir.names import LOCK

_held: dict[tuple[str, int], list[Any]] = {}  # (folder, thread) -> [lock fd, depth]: re-entrant per thread
_F = TypeVar("_F", bound=Callable[..., Any])


def command_line() -> str:
    """How this process was started, for lock files and messages (``synth generate -n 5 ...``)."""
    argv = list(sys.argv)
    if argv and (argv[0] == "-m" or argv[0].endswith(("synth", "cli.py", "__main__.py"))):
        argv[0] = "synth"
    return shlex.join(argv) if argv else "synth"


def _flock(fd: int, kind: int) -> bool:
    """Take the lock without blocking; a few short tries, so a reader's brief look does not refuse a writer."""
    for attempt in range(4):
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except OSError:
            if attempt < 3:
                time.sleep(0.03)
    return False


def _holder(fd: int) -> str:
    """The pid and command written in a lock file, as a phrase for messages."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        info = json.loads(os.read(fd, 1 << 16).decode("utf-8") or "{}")
    except (OSError, ValueError):
        info = {}
    if not isinstance(info, dict) or "pid" not in info:
        return "another synth process"
    return f"pid {info['pid']} ({info.get('command') or 'synth'})"


_left_by_killed: set[str] = set()  # folders whose lock file, when taken, still named a writer that had died


def left_by_killed(folder: Path) -> bool:
    """Whether the lock this process took on ``folder`` had been left behind by a writer that was killed."""
    return os.path.realpath(folder) in _left_by_killed


class RunLock:
    """The exclusive right to write a run folder: ``flock`` on ``<folder>/.synth.lock``, which the OS
    drops when the holder exits or dies, so a lock left by a killed run is never in the way. The
    holder's pid and command are written inside for the message the next writer gets. Re-entrant
    in one thread (the CLI and the pipeline both take it); another thread or process is refused."""

    def __init__(self, folder: Path, command: str | None = None):
        self.folder = folder
        self.command = command

    def _key(self) -> tuple[str, int]:
        return os.path.realpath(self.folder), threading.get_ident()

    def acquire(self) -> None:
        key = self._key()
        if key in _held:
            _held[key][1] += 1
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / LOCK
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            if not _flock(fd, fcntl.LOCK_EX):
                holder = _holder(fd)
                os.close(fd)
                raise RunFolderError(
                    f"{self.folder} is being written by {holder}; wait for it to end, or give another --out"
                ) from None
            try:  # a holder that just finished unlinks the file: make sure ours is the one on disk
                if os.fstat(fd).st_ino == os.stat(path).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        if os.fstat(fd).st_size:  # a holder that ended normally removes the file: this one was killed
            _left_by_killed.add(key[0])
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "command": self.command or command_line()}).encode("utf-8"))
        _held[key] = [fd, 1]

    def release(self) -> None:
        key = self._key()
        entry = _held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            del _held[key]
            (self.folder / LOCK).unlink(missing_ok=True)  # before the unlock, so no one locks a file about to go
            os.close(entry[0])

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *_: Any) -> None:
        self.release()


def writes_run(folder_of: Callable[..., Path]) -> Callable[[_F], _F]:
    """Decorate a function that writes a run folder: it runs holding that folder's RunLock."""

    def wrap(fn: _F) -> _F:
        @functools.wraps(fn)
        def locked(*args: Any, **kwargs: Any) -> Any:
            with RunLock(folder_of(*args, **kwargs)):
                return fn(*args, **kwargs)

        return locked  # type: ignore[return-value]

    return wrap


def writer_of(folder: Path) -> str | None:
    """Who holds the folder's lock right now (pid and command), or None (no one, or this thread)."""
    if (os.path.realpath(folder), threading.get_ident()) in _held:
        return None
    try:
        fd = os.open(folder / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return _holder(fd)
    finally:
        os.close(fd)
    return None
