"""The run folder (``outputs/<run>/``): its file names, the JSONL reader, the atomic writer, the manifest.

Everything that reads or writes a run's files goes through here, so a file's name, its spelling
(one JSON object per line, UTF-8 kept), its storage and how it is replaced (written beside under a
temporary name, then renamed over the old one, so a crash leaves the old file or the new one, never
half of each) are decided once.

Storage (issue 18): the big files are gzip-compressed (``scored.jsonl.gz``; fixed header, so the same
run gives the same bytes), and the tool list of a scored row is stored once in ``tools.jsonl.gz``
(each tool once, each list once as tool ids) and referenced from the row as ``"tools:<id>"``. The
files users upload or load (``train.jsonl``, ``valid.jsonl``, ``eval.jsonl``: READY) are plain public
rows by default (issue 31); ``--storage compact`` stores them compactly too. The readers here
(``read_jsonl``, ``lines``, ``read_json``) find a file under either spelling, undo both and give the
public row, byte for byte as it was made; ``synth export``
writes those rows out (``--format jsonl``: the plain files; ``hf``: parquet).

This module is the public face: it owns the manifest (``RunDir``) and decides who may write a folder
(``claim``); the names, storage, reader, writers (``Replacing``, ``RunWriter``), tool table, lock and
digests are in the modules of this package and re-exported here, so everyone imports ``synth.rundir``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from synth.errors import ConfigError, RunFolderError, SynthError
from synth.records import MANIFEST_VERSION, Manifest, RunStart
from synth.rundir.digest import count_lines, file_facts, tree_digest
from synth.rundir.lock import RunLock, command_line, left_by_killed, writer_of, writes_run
from synth.rundir.names import (
    CACHE,
    CARD,
    CHAT,
    COMPLETE,
    COMPRESSED,
    CONVERSATIONS,
    DECIDED,
    EVAL,
    EXPORTS,
    FILES,
    GZ,
    LOCK,
    LOG,
    MANIFEST,
    PLOTS,
    QUEUE,
    READY,
    REF,
    REJECTED,
    REQUESTS,
    RUNNING,
    SCORED,
    STOPPED,
    STORAGES,
    TASKS,
    TEVAL,
    TOOL_FIELDS,
    TOOLS,
    TRAIN,
    VALID,
    public_name,
    storage_name,
)
from synth.rundir.reading import dump_line, inflater, read_json, read_jsonl, read_jsonl_text, teval_rows
from synth.rundir.requests import ERROR_LABELS, read_requests, requests_line, spend_line
from synth.rundir.storage import is_compact, lines, open_text, open_write, other_spelling, parse_line, stored
from synth.rundir.tooltable import ToolTable, tool_table
from synth.rundir.writing import (
    Replacing,
    RunWriter,
    append_jsonl,
    sync_tree,
    write_atomic,
    write_json,
    write_jsonl,
)

__all__ = [  # the re-exported names, so `from synth.rundir import X` keeps working for every X it ever had
    "CACHE",
    "CARD",
    "CHAT",
    "COMPLETE",
    "COMPRESSED",
    "CONVERSATIONS",
    "DECIDED",
    "ERROR_LABELS",
    "EVAL",
    "EXPORTS",
    "FILES",
    "GZ",
    "LOCK",
    "LOG",
    "MANIFEST",
    "PLOTS",
    "QUEUE",
    "READY",
    "REF",
    "REJECTED",
    "REQUESTS",
    "RUNNING",
    "SCORED",
    "STOPPED",
    "STORAGES",
    "TASKS",
    "TEVAL",
    "TOOLS",
    "TOOL_FIELDS",
    "TRAIN",
    "VALID",
    "Replacing",
    "RunDir",
    "RunLock",
    "RunWriter",
    "ToolTable",
    "append_jsonl",
    "claim",
    "clear",
    "command_line",
    "count_lines",
    "dump_line",
    "file_facts",
    "inflater",
    "is_compact",
    "lines",
    "open_text",
    "open_write",
    "other_spelling",
    "parse_line",
    "public_name",
    "read_json",
    "read_jsonl",
    "read_jsonl_text",
    "read_requests",
    "requests_line",
    "spend_line",
    "resume_command",
    "storage_name",
    "stored",
    "teval_rows",
    "tool_table",
    "tree_digest",
    "sync_tree",
    "write_atomic",
    "write_json",
    "write_jsonl",
    "writer_of",
    "writes_run",
]


# --- the folder --------------------------------------------------------------------------------


class RunDir:
    """A run folder: paths of its files, their records, and its manifest."""

    def __init__(self, path: Path):
        self.path = path

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def records(self, name: str) -> Iterator[dict[str, Any]]:
        return read_jsonl(self.path / name)

    def is_run(self) -> bool:
        return (self.path / MANIFEST).is_file()

    def require(self, error: type[SynthError] = ConfigError) -> None:
        """``error`` unless this is a run folder (it has a manifest)."""
        if not self.is_run():
            raise error(f"{self.path} is not a run folder (no {MANIFEST}); pass the --out folder of synth generate")

    def read_manifest(self, error: type[SynthError] = ConfigError) -> Manifest | RunStart:
        """The manifest, typed: a RunStart while the run is being made, else a Manifest. ``error`` names
        the file and the fix when it is no run folder, is damaged, is not synth's, or is newer than this synth."""
        self.require(error)
        path = self.path / MANIFEST
        return parse_manifest(read_json(path, "manifest (it is damaged); make the run again", error), path, error)

    def manifest(self, error: type[SynthError] = ConfigError) -> dict[str, Any]:
        """The manifest as a JSON object, checked as ``read_manifest`` checks it."""
        return self.read_manifest(error).to_json()

    def write_manifest(self, manifest: Manifest | RunStart | dict[str, Any]) -> None:
        """Write the manifest as this synth's version (a dict is checked first: no malformed manifest is written)."""
        record = parse_manifest(manifest, self.path / MANIFEST) if isinstance(manifest, dict) else manifest
        record.manifest_version = MANIFEST_VERSION
        write_json(self.path / MANIFEST, record.to_json())

    def start(self, identity: dict[str, Any], command: str | None = None) -> None:
        """Mark the folder as a run being made (status "running", which run, how it was started)
        before any of its files is opened; the final manifest replaces this one."""
        self.path.mkdir(parents=True, exist_ok=True)
        self.write_manifest(
            RunStart(
                manifest_version=MANIFEST_VERSION,
                status="running",
                identity=identity,
                command=command or command_line(),
            )
        )

    def stop(self, why: str) -> None:
        """Mark an unfinished run as stopped part way (status "stopped", and why), so no reader takes it for
        a run still being made or a finished one; a finished run's manifest is left as it is."""
        try:
            manifest = self.read_manifest()
        except SynthError:
            return
        if isinstance(manifest, RunStart):
            self.write_manifest(manifest.model_copy(update={"status": STOPPED, "stopped": why}))

    def finished(self, error: type[SynthError] = ConfigError) -> Manifest:
        """The manifest of a finished run. RunFolderError while another process writes the folder, or
        when the run in it stopped part way (saying how to finish it); ``error`` when it is no run."""
        holder = writer_of(self.path)
        if holder is not None:
            raise RunFolderError(f"{self.path} is being written by {holder}; wait for it to end, then run this again")
        manifest = self.read_manifest(error)
        if isinstance(manifest, RunStart):
            raise RunFolderError(
                f"{self.path} holds an unfinished run (it stopped part way); finish it with: "
                f"{resume_command(manifest.to_json())}"
            )
        return manifest


_SYNTH_KEYS = {"manifest_version", "synth_version", "generator_version", "status"}


def parse_manifest(data: Any, path: Path, error: type[SynthError] = ConfigError) -> Manifest | RunStart:
    """A manifest's JSON as its record. Four ways to fail, each told apart: not a JSON object (damaged),
    none of synth's keys (another tool's file), a version newer than this synth, or keys that do not
    hold what they should (damaged; or, unversioned, written by a synth from before manifests were)."""
    again = "make the run again (synth generate with its --out and --overwrite)"
    if not isinstance(data, dict):
        raise error(f"{path}: damaged: a manifest is a JSON object, this is {type(data).__name__}; {again}")
    if not _SYNTH_KEYS & data.keys():
        keys = ", ".join(list(data)[:6]) or "no keys"
        raise error(f"{path}: not a synth manifest (it has {keys}); give the --out folder of a synth generate run")
    version = data.get("manifest_version", 0)  # 0: from before manifests were versioned; the keys are the same
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise error(f"{path}: damaged: manifest_version is {version!r}, not a version number; {again}")
    if version > MANIFEST_VERSION:
        raise error(
            f"{path}: manifest_version {version} is newer than this synth reads ({MANIFEST_VERSION}); "
            "upgrade synth (pip install -U synth) to read this run"
        )
    model = RunStart if data.get("status") in (RUNNING, STOPPED) else Manifest
    try:
        return model.model_validate({"manifest_version": version, **data})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(manifest)"
        what = f"{where}: {first['msg'].lower()}" + (
            f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        )
        if "manifest_version" not in data:
            raise error(
                f"{path}: written by synth {data.get('synth_version', '(unknown)')} before manifests were "
                f"versioned, and not readable now ({what}); {again} with this synth"
            ) from None
        raise error(f"{path}: damaged: {what}; {again}") from None


def resume_command(manifest: dict[str, Any]) -> str:
    """The command that finishes an unfinished run: the one that started it, with --resume."""
    command = str(manifest.get("command") or "synth generate ... (with the flags of the first run)")
    return command if " --resume" in command else command + " --resume"


# --- who may write a folder --------------------------------------------------------------------

LEFT_BY_RUN = (*FILES, MANIFEST, LOG, CARD, REQUESTS)  # what --overwrite clears (besides plots/ and teval/)


def claim(folder: Path, identity: dict[str, Any], *, resume: bool = False, overwrite: bool = False) -> None:
    """Check that a run with ``identity`` may be written into ``folder`` (the caller holds its lock):
    the same run may always be run again (that is how an unfinished one is finished); a different
    one only with ``overwrite``, which clears the old run's files first; ``resume`` needs the same run."""
    run = RunDir(folder)
    if resume and overwrite:
        raise ConfigError("--resume continues the run in --out and --overwrite replaces it: give one of them")
    manifest: dict[str, Any] | None = None
    if run.is_run():
        try:
            manifest = run.manifest()
        except ConfigError:
            manifest = {}
    if manifest is None:
        if resume and _only_started(folder):  # killed during start-up, before its manifest: the run starts now
            return
        if resume:
            raise RunFolderError(
                f"--resume: {folder} holds no run to continue (no {MANIFEST}); start the run without "
                "--resume, or give the --out of the run that stopped"
            )
        left = [name for name in FILES if stored(folder / name).exists()]
        if left and not overwrite:
            raise RunFolderError(
                f"{folder} holds run files ({', '.join(left)}) but no {MANIFEST}, so it is not known which "
                "run made them; give --overwrite to replace them, or another --out"
            )
        return
    there = manifest.get("identity")
    if there == identity and not (folder / LOG).exists():
        return
    if overwrite:
        clear(folder)
        return
    if there == identity:  # the same run, but people's review decisions are folded into its files
        raise RunFolderError(
            f"{folder} holds this run with review decisions applied ({LOG}); making it again would "
            "drop them. Give --overwrite to start over, or another --out"
        )
    what = _difference(there, identity)
    if resume:
        raise RunFolderError(
            f"--resume only continues the same run, and {folder} holds another ({what}); give the "
            "flags of that run, or --overwrite without --resume to replace it"
        )
    raise RunFolderError(f"{folder} holds a different run ({what}); give --overwrite to replace it, or another --out")


def _only_started(folder: Path) -> bool:
    """Whether ``folder`` holds only what a run killed before its manifest leaves: its lock (still naming the
    dead writer), maybe its model cache."""
    started = {LOCK, CACHE, CACHE + "-wal", CACHE + "-shm", CACHE + "-journal"}
    return left_by_killed(folder) and all(p.name in started for p in folder.iterdir())


def _difference(there: Any, asked: dict[str, Any]) -> str:
    if not isinstance(there, dict):
        return "made by an older synth or another tool, which did not record what run it is"
    parts = []
    for key, value in asked.items():
        old = there.get(key)
        if old != value:
            parts.append(
                "other registry content"
                if key == "registry_sha256"
                else f"{key} {_short(old)} there, {_short(value)} asked"
            )
    return "; ".join(parts) or "other settings"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, (int, float, str)) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def clear(folder: Path) -> None:
    """Remove what a run wrote into ``folder`` (its files, card, plots and T-Eval subsets); the
    model-call cache stays, since its entries are keyed by content and serve any run."""
    import shutil

    for name in (*LEFT_BY_RUN, TOOLS):
        (folder / name).unlink(missing_ok=True)
        (folder / (name + GZ)).unlink(missing_ok=True)
    for sub in (PLOTS, TEVAL):
        if (folder / sub).is_dir():
            shutil.rmtree(folder / sub)
