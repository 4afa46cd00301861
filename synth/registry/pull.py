"""``synth registry pull``: copy a Smithery-compatible registry into a folder ``synth generate`` reads.

One file per server, named like the shipped registry (``@owner/repo`` -> ``owner__repo.json``).
A file is the server's detail **exactly as served** (the bytes of the answer) with one key added
at the front, ``"pulled": {"from": <detail URL>, "at": <UTC time>}``, so the tools a dataset was
made from can be traced to where and when they were read, and nothing about them is rewritten.

Decisions a user can rely on:
- A server whose detail lists no tools (``tools`` null, missing or empty) is *skipped*, not
  written: nothing can be generated from it. It is counted with the reason "no tools listed".
- ``--limit`` counts servers listed (skipped and failed ones included), in the registry's order.
- Names never leave ``out``: anything but letters, digits, ``.``, ``_`` and ``-`` becomes ``_``,
  and no name can become hidden or a pack file. Two names that map to one file (or to a file
  already there for another server) never overwrite each other: the later one gets a short hash
  of its name (``owner__repo-1a2b3c4d.json``) and a note says so. Pulling again updates files.
- A 401 stops the pull (files already written stay); every other failure is that server's.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synth.errors import RegistryError
from synth.registry.smithery import MAX_PAGE_SIZE, ApiFailure, SmitheryClient

PULLED_KEY = "pulled"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_STEM = 120
Progress = Callable[[str, int, "int | None"], None]  # (phase, done, total)


@dataclass(frozen=True)
class Outcome:
    """What happened to one listed server: pulled (with its file), skipped or failed (with why)."""

    index: int  # position in the listing
    name: str
    status: str  # "pulled" | "skipped" | "failed"
    short: str = ""  # the reason in a few words, for the closing line's counts
    reason: str = ""  # the whole story: what happened, what to try
    file: str | None = None

    def line(self) -> str:
        return f"{self.status} {self.name}: {self.reason}"


@dataclass
class PullReport:
    """Everything a pull did, for the CLI's lines and for benchmarks."""

    base_url: str
    out: Path
    outcomes: list[Outcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # renamed files, listing trouble, duplicates
    retries: int = 0
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    def reasons(self, status: str) -> str:
        counts = Counter(o.short for o in self.outcomes if o.status == status)
        return ", ".join(f"{short}: {n}" for short, n in counts.most_common())

    def closing_line(self) -> str:
        """pulled N, skipped N (reasons), failed N (reasons): the line a user reads first."""
        parts = [f"pulled {self.count('pulled')} of {len(self.outcomes)} servers into {self.out}"]
        for status in ("skipped", "failed"):
            n = self.count(status)
            parts.append(f"{status} {n}" + (f" ({self.reasons(status)})" if n else ""))
        tail = f"; {self.retries} requests retried" if self.retries else ""
        return ", ".join(parts) + tail + f" ({self.seconds:.1f} s)"

    def to_json(self) -> dict[str, Any]:
        return {
            "servers": len(self.outcomes),
            "pulled": self.count("pulled"),
            "skipped": self.count("skipped"),
            "failed": self.count("failed"),
            "skipped_reasons": dict(Counter(o.short for o in self.outcomes if o.status == "skipped")),
            "failed_reasons": dict(Counter(o.short for o in self.outcomes if o.status == "failed")),
            "retries": self.retries,
            "notes": len(self.notes),
            "seconds": round(self.seconds, 3),
        }


def file_stem(name: str) -> str:
    """A safe file stem for a qualifiedName: ``@owner/repo`` -> ``owner__repo``, ``exa`` -> ``exa``.

    Only ``[A-Za-z0-9._-]`` survive, so no separator or ``..`` can leave the folder; a leading dot
    (a hidden file the loader skips) and a ``.pack`` ending (read as a server pack) are avoided.
    """
    stem = _UNSAFE.sub("_", name.strip().lstrip("@").replace("/", "__")).lstrip(".")
    if stem.lower().endswith(".pack"):
        stem = stem[:-5] + "_pack"
    if not stem.strip("._-"):
        stem = "server-" + _short_hash(name)
    if len(stem) > _MAX_STEM:
        stem = stem[: _MAX_STEM - 9] + "-" + _short_hash(name)
    return stem


def _short_hash(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]


def assign_files(names: list[str], out: Path) -> tuple[dict[str, str], list[str]]:
    """File name per server, in listing order, and a note for each one renamed to avoid a clash.

    Clashes are compared without case (two files differing only in case are one on macOS and
    Windows); a file already in ``out`` is only reused when it holds the same server.
    """
    taken: dict[str, tuple[str, str]] = {}  # lowercased file name -> (server that has it, its file)
    files: dict[str, str] = {}
    notes: list[str] = []
    for name in names:
        plain = file_stem(name) + ".json"
        owner, file = taken.get(plain.lower()) or (_owner_on_disk(out / plain), plain)
        chosen = plain
        if owner is not None and owner != name:
            chosen = f"{plain[:-5]}-{_short_hash(name)}.json"
            notes.append(f"{name} and {owner} both map to {file}; {name} is written as {chosen}")
        taken[chosen.lower()] = (name, chosen)
        files[name] = chosen
    return files, notes


def _owner_on_disk(path: Path) -> str | None:
    """Which server an existing file holds (None when there is no file); an unreadable file is
    treated as someone else's, so it is never overwritten."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_bytes())
        owner = data.get("qualifiedName") if isinstance(data, dict) else None
    except (OSError, ValueError):
        owner = None
    return owner if isinstance(owner, str) else f"the file already at {path}"


def with_pulled(body: bytes, url: str, at: str) -> bytes:
    """The served body with ``"pulled": {"from", "at"}`` put first in its top-level object.

    Everything served stays byte for byte, so numbers, escapes and key order are exactly the
    registry's; the insertion copies the body's own spacing after ``{``.
    """
    text = body.decode("utf-8-sig")
    start = text.index("{") + 1
    rest = text[start:]
    gap = rest[: len(rest) - len(rest.lstrip())]  # "" when served compact, "\n  " when indented
    meta = json.dumps({PULLED_KEY: {"from": url, "at": at}}, ensure_ascii=False)[1:-1]
    comma = "" if rest.lstrip().startswith("}") else ","
    out = text[:start] + gap + meta + comma + rest
    return (out if out.endswith("\n") else out + "\n").encode("utf-8")


def _write(out: Path, file: str, data: bytes) -> None:
    """Write atomically (a hidden temporary file, then rename), so a killed pull leaves no half file."""
    target = out / file
    if target.resolve().parent != out.resolve():  # file_stem makes this impossible; keep it so
        raise RegistryError(f"refusing to write {file!r} outside {out}")
    temp = out / f".{file}.part"
    temp.write_bytes(data)
    os.replace(temp, target)


def _tools_problem(data: dict[str, Any]) -> str | None:
    """Why a detail cannot be used for generation, or None when it lists tools."""
    tools = data.get("tools")
    if tools is None:
        return "no tools listed" + (" (tools is null)" if "tools" in data else " (no tools key)")
    if not isinstance(tools, list):
        return f"no tools listed (tools is a {type(tools).__name__}, not a list)"
    if not tools:
        return "no tools listed (tools is empty)"
    return None


async def pull(
    out: Path,
    *,
    base_url: str,
    key: str,
    query: str | None = None,
    limit: int | None = None,
    concurrency: int = 8,
    progress: Progress | None = None,
    **client_options: Any,
) -> PullReport:
    """List the registry, fetch each server's detail and write one file per server into ``out``.

    Raises ``KeyRefused`` on a 401 and ``RegistryError`` when not even the first page can be
    listed; everything else ends up in the report.
    """
    started = time.perf_counter()
    report = PullReport(base_url=base_url, out=out)
    tell = progress or (lambda phase, done, total: None)
    if out.exists() and not out.is_dir():
        raise RegistryError(f"--out {out} is a file; give a folder (it is created when missing)")
    client = SmitheryClient(base_url, key, concurrency=concurrency, **client_options)  # checks URL and key
    out.mkdir(parents=True, exist_ok=True)
    async with client as api:
        try:
            names = await _list(api, query, limit, report, tell)
            files, notes = assign_files(names, out)
            report.notes.extend(notes)
            await _fetch_all(api, names, files, out, concurrency, report, tell)
        finally:
            report.retries = api.retries
    report.outcomes.sort(key=lambda o: o.index)
    report.seconds = time.perf_counter() - started
    return report


async def _list(
    api: SmitheryClient, query: str | None, limit: int | None, report: PullReport, tell: Progress
) -> list[str]:
    """qualifiedNames in listing order, unique, at most ``limit``; listing trouble becomes notes."""
    size = min(MAX_PAGE_SIZE, limit) if limit else MAX_PAGE_SIZE
    names: list[str] = []
    seen: set[str] = set()
    page, pages = 1, None
    while limit is None or len(names) < limit:
        tell("listing", page - 1, pages)
        try:
            fetched = await api.list_page(page, size, query)
        except ApiFailure as exc:
            if page == 1:
                raise RegistryError(f"cannot list the servers of {api.base_url}: {exc}") from None
            report.notes.append(
                f"listing stopped at page {page}: {exc}; the {len(names)} servers listed before it are pulled"
            )
            break
        entries = fetched.data.get("servers")
        if not isinstance(entries, list):
            what = f'the answer to {fetched.url} has no "servers" list (keys: {", ".join(sorted(fetched.data)[:8])})'
            if page == 1:
                raise RegistryError(
                    f"{what}; is {api.base_url} a Smithery-compatible registry API? "
                    "Check --base-url (e.g. https://api.smithery.ai)"
                )
            report.notes.append(f"listing stopped at page {page}: {what}")
            break
        if not entries:
            break
        new = 0
        for i, entry in enumerate(entries):
            name = entry.get("qualifiedName") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not name.strip():
                report.outcomes.append(
                    Outcome(
                        -1,
                        f"<page {page} entry {i}>",
                        "failed",
                        "no qualifiedName",
                        "the listing entry has no qualifiedName, so it cannot be fetched",
                    )
                )
            elif name in seen:
                report.notes.append(f"{name} is listed twice (page {page}); pulled once")
            elif limit is None or len(names) < limit:
                seen.add(name)
                names.append(name)
                new += 1
        pages = _total_pages(fetched.data)
        if pages is not None and page >= pages:
            break
        if new == 0:  # a paginator stuck on one page would otherwise never end
            report.notes.append(f"page {page} of the listing brought no new server; listing stopped there")
            break
        page += 1
    return names


def _total_pages(data: dict[str, Any]) -> int | None:
    pagination = data.get("pagination")
    value = pagination.get("totalPages") if isinstance(pagination, dict) else None
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


async def _fetch_all(
    api: SmitheryClient,
    names: list[str],
    files: dict[str, str],
    out: Path,
    concurrency: int,
    report: PullReport,
    tell: Progress,
) -> None:
    """Fetch details ``concurrency`` at a time; a KeyRefused cancels the rest and propagates."""
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int, name: str) -> Outcome:
        async with gate:
            return await _pull_one(api, index, name, files[name], out)

    tell("pulling", 0, len(names))
    tasks = [asyncio.create_task(one(i, name)) for i, name in enumerate(names)]
    try:
        for done, next_outcome in enumerate(asyncio.as_completed(tasks), start=1):
            report.outcomes.append(await next_outcome)
            tell("pulling", done, len(names))
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _pull_one(api: SmitheryClient, index: int, name: str, file: str, out: Path) -> Outcome:
    try:
        fetched = await api.detail(name)
    except ApiFailure as exc:
        return Outcome(index, name, "failed", exc.short, exc.reason)
    problem = _tools_problem(fetched.data)
    if problem is not None:
        return Outcome(
            index,
            name,
            "skipped",
            "no tools listed",
            f"{problem} in {fetched.url}; nothing to generate from, so no file was written",
        )
    if PULLED_KEY in fetched.data:
        return Outcome(
            index,
            name,
            "failed",
            f"detail has a {PULLED_KEY!r} key",
            f"the detail at {fetched.url} already has a {PULLED_KEY!r} key, which synth uses to record "
            "where a file came from; report this, the file was not written",
        )
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:
        _write(out, file, with_pulled(fetched.body, fetched.url, at))
    except (OSError, UnicodeDecodeError) as exc:
        return Outcome(index, name, "failed", "cannot write", f"cannot write {out / file}: {exc}")
    return Outcome(index, name, "pulled", reason=f"written to {file}", file=file)
