"""``synth generate --ray``: the shards of a run as Ray tasks, merged here into the run folder.

Each task gets the run's settings, the registry's files and its shard's earlier model cache as
bytes, makes its shard in a temporary folder of whatever machine it lands on, and returns the
shard's files as bytes; so a cluster needs synth installed on its nodes (and the API key in their
environment for a model run), but no shared disk. The shards' folders are kept in
``<out>/.shards/<I>-of-<N>/`` (a hidden folder: no part of the dataset): their caches make a second
run of the same command free, as ``cache.sqlite`` does for a single run. A merge that finds a
shard stopped too early (synth.shards.ShardShort) makes that shard again with a larger quota.

Ray is an optional extra (``pip install 'synth[ray]'``); without ``--ray-address`` a local Ray
instance is started with this machine's CPUs and stopped at the end.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from synth.config import Settings
from synth.errors import ConfigError, SynthError
from synth.shards import SHARD, STREAM, ShardShort, merge, more, record_requests, run_shard

HOME = ".shards"
CACHE = "cache.sqlite"


def shard_folder(out: Path, count: int, index: int) -> Path:
    return out / HOME / f"{index}-of-{count}"


def run_on_ray(
    settings: Settings,
    count: int,
    address: str | None = None,
    num_cpus: int | None = None,
    quota: int | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """Make the ``count`` shards of the run ``settings`` describes as Ray tasks and merge them into
    ``settings.out``; returns the merged manifest."""
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "--ray needs Ray: pip install 'synth[ray]' (or run the shards yourself with --shards N "
            "--shard I, then synth merge)"
        ) from None
    own = not ray.is_initialized()
    if own:
        local = (
            {} if address else {"num_cpus": num_cpus, "_node_ip_address": "127.0.0.1"}
        )  # a local Ray stays on loopback
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False, **local)  # type: ignore[arg-type]
    try:
        registry = ray.put(_registry_files(settings))
        task = ray.remote(num_cpus=1)(_shard_task)
        quotas = dict.fromkeys(range(count), quota)
        todo = list(range(count))
        while True:
            refs = {
                i: task.remote(
                    settings.model_dump_json(),
                    registry,
                    count,
                    i,
                    quotas[i],
                    _caches(shard_folder(settings.out, count, i)),
                )
                for i in todo
            }
            for i, ref in refs.items():
                _unpack(shard_folder(settings.out, count, i), _get(ray, ref))
            folders = [shard_folder(settings.out, count, i) for i in range(count)]
            try:
                manifest = merge(folders, settings.out, settings=settings, progress=progress)
            # that shard stopped too early for this run: again, with more room (its cache keeps what it made)
            except ShardShort as short:
                quotas[short.index], todo = more(short.quota), [short.index]
                continue
            _tidy(folders)
            return manifest
    finally:
        if own:
            ray.shutdown()


def _get(ray: Any, ref: Any) -> dict[str, bytes]:
    """A task's result; a SynthError raised in the task is raised here as itself (one clear line)."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, SynthError):
            raise cause from None
        raise


def _shard_task(
    settings_json: str, registry: dict[str, bytes], count: int, index: int, quota: int | None, cache: dict[str, bytes]
) -> dict[str, bytes]:
    """One shard, on whichever node Ray chose: the registry and cache unpacked into a temporary folder,
    the shard made there, its files returned."""
    settings = Settings.model_validate_json(settings_json)
    with tempfile.TemporaryDirectory(prefix="synth-shard-") as tmp:
        servers = Path(tmp) / "registry"
        for name, data in registry.items():
            path = servers / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if settings.servers.is_file():  # a registry of one file: its name is part of the registry's identity
            servers = servers / settings.servers.name
        out = Path(tmp) / "shard"
        out.mkdir()
        for name, data in cache.items():
            (out / name).write_bytes(data)
        shard = settings.model_copy(update={"servers": servers, "out": out, "cache": None})
        backends = None
        if shard.backend != "offline":
            from synth.llm.factory import open_backends

            backends = open_backends(shard)
        try:
            run_shard(shard, count, index, quota, backends)
        finally:
            if backends is not None:
                record_requests(out, backends)
        return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def _registry_files(settings: Settings) -> dict[str, bytes]:
    """The registry's files by relative name, as its identity (synth.rundir.tree_digest) counts them."""
    root = settings.servers
    if root.is_file():
        return {root.name: root.read_bytes()}
    out = settings.out.resolve()
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if (
            path.is_file()
            and not any(part.startswith(".") for part in rel.parts)
            and not path.resolve().is_relative_to(out)
        ):
            files[rel.as_posix()] = path.read_bytes()
    return files


def _unpack(folder: Path, files: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in (STREAM, SHARD):  # an old shard's files must not outlive a new one
        (folder / name).unlink(missing_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)


def _caches(folder: Path) -> dict[str, bytes]:
    """The shard's model cache from an earlier run of the same command (its SQLite file and any WAL)."""
    return {p.name: p.read_bytes() for p in sorted(folder.glob(CACHE + "*"))} if folder.is_dir() else {}


def _tidy(folders: list[Path]) -> None:
    """After the merge: the shards' data is in the run; what is kept is each one's cache (and requests)."""
    for folder in folders:
        for name in (STREAM, SHARD):
            (folder / name).unlink(missing_ok=True)
        if not any(folder.iterdir()):
            folder.rmdir()
    if folders and folders[0].parent.is_dir() and not any(folders[0].parent.iterdir()):
        folders[0].parent.rmdir()
