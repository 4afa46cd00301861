"""Shards: one run made in N slices on one machine or many, merged into the single run's bytes.

A run's scenario ``i`` depends only on (registry, seed, i), and so does what its author writes for
it (``Written`` or a ``StageFailure``: gates and reviewer included). Everything after that (dedup,
the ``n`` cap, splits, injection, exports, manifest) depends on the order and on the whole run. So
a shard (``synth generate --shards N --shard I``) writes only the first part, for the indexes
``i % N == I``, into ``shard.jsonl.gz`` (one line per scenario, in index order: the scenario, what
was written, and the token counts of the model calls it took); ``synth merge`` reads the shards
interleaved by index and feeds them to ``synth.pipeline.consume``, the very loop a single run
uses, so the merged folder is that run's, byte for byte.

A shard cannot know where the single run stops (the ``n``-th accepted conversation, after dedup
across all shards), so it goes on until it has enough conversations that passed its gates and
are not duplicates among its own (about n/N with a margin: ``enough``, or ``--shard-quota``), or to
the end of its slice. A merge
that needs a scenario past where a shard stopped fails naming the shard and the quota to make it
again with (synth.ray_shards does that by itself), rather than give a different run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import synth
from synth import rundir
from synth.config import Settings
from synth.errors import ConfigError, RunFolderError
from synth.llm.base import ChatResponse, request_report
from synth.pipeline import consume, generate
from synth.records import Scenario, StageFailure, Written, conversation_id
from synth.run_manifest import GENERATOR_VERSION
from synth.rundir import RunDir, read_json, write_atomic, write_json
from synth.scenarios.planner import Planner
from synth.scenarios.runplan import open_run
from synth.stages.dedup import Dedup

STREAM = "shard.jsonl.gz"  # per scenario of the slice, in index order
SHARD = "shard.json"  # the shard's manifest: identity, slice, counts; written last
MARGIN, SIGMAS, SPARE = 1.05, 3, 2  # the default quota, below


def enough(n: int, count: int, written: int, candidates: int) -> bool:
    """Whether a shard has made enough, by default: its share of ``n``, 5% for the ones duplicates of
    other shards' turn away, three standard deviations of how many a slice of the run's first
    scenarios holds (a binomial at the rate this shard sees) and two spare. A model run pays for every
    conversation past what the merge takes, so the margin stays small (1.08 times the share at 1,000
    a shard when one scenario in five is rejected); a merge that needs more says so."""
    share = n / count
    rate = candidates / written if written else 1.0
    return candidates >= math.ceil(MARGIN * share + SIGMAS * math.sqrt(share * (1 - rate)) + SPARE)


def more(quota: int) -> int:
    """The quota to make a shard again with when the merge needed more than it made."""
    return math.ceil(1.5 * quota) + SPARE


def identity(settings: Settings, count: int) -> dict[str, Any]:
    """What every shard of one run shares: the run's identity, the number of shards and the code
    that wrote them (another version may write other data for the same scenario)."""
    return {
        **settings.identity(),
        "shards": count,
        "synth_version": synth.__version__,
        "generator_version": GENERATOR_VERSION,
    }


def identity_of(folders: list[Path]) -> dict[str, Any]:
    """The identity of the run the shards in ``folders`` merge into (what its manifest will say)."""
    shards = read_shards(folders)
    return {
        k: v for k, v in shards[0][1]["identity"].items() if k not in ("shards", "synth_version", "generator_version")
    }


class _Slice:
    """The planner seen by a shard: its scenario ``k`` is the run's scenario ``index + k * count``."""

    def __init__(self, planner: Planner, count: int, index: int):
        self._planner, self._count, self._index = planner, count, index

    def scenario(self, k: int) -> Scenario:
        return self._planner.scenario(self._index + k * self._count)

    def __getattr__(self, name: str) -> Any:  # topics, order, servers: the run's
        return getattr(self._planner, name)


@dataclass
class Shard:
    """Shard ``index`` of ``count`` of the run ``settings`` describes (``settings.out``: the shard's folder)."""

    settings: Settings
    count: int
    index: int
    quota: int | None = None
    attempts: int = 0  # the single run's number of scenarios at most (set by ``slice``)

    def __post_init__(self) -> None:
        if self.count < 1 or not 0 <= self.index < self.count:
            raise ConfigError(
                f"--shard {self.index} with --shards {self.count}: the shard is a number from 0 to {self.count - 1}"
            )
        if self.settings.budget_usd is not None:
            raise ConfigError(
                "--budget-usd cannot be split over shards (each would spend it); estimate the run with "
                "--dry-run and give the shards no budget"
            )
        if self.settings.execute == "live":
            raise ConfigError(
                "--execute live cannot be sharded yet: live servers keep state and reachability per "
                "process, so shards could differ from the single run; run it as one process"
            )

    def slice(self, planner: Planner, attempts: int) -> tuple[_Slice, int]:
        """The planner and number of scenarios of this shard, from the single run's."""
        self.attempts = attempts
        return _Slice(planner, self.count, self.index), len(range(self.index, attempts, self.count))

    def write(self, items: Any) -> dict[str, Any]:
        """Write ``items`` (this slice's scenarios, in order) to the shard file until the quota; then its manifest."""
        counts = {"written": 0, "candidates": 0}
        slice_size = len(range(self.index, self.attempts, self.count))
        try:
            write_atomic(self.settings.out / STREAM, _lines(items, self, counts))
        finally:  # not ``finish``: a shard cancels what is in flight past its quota rather than pay for it
            if hasattr(items, "close"):
                items.close()
        manifest = {
            "status": rundir.COMPLETE,
            "shard": {"count": self.count, "index": self.index},
            "identity": identity(self.settings, self.count),
            "settings": json.loads(self.settings.model_dump_json()),
            "scenarios": {
                "run": self.attempts,
                "slice": slice_size,
                "written": counts["written"],
                "exhausted": counts["written"] == slice_size,
            },
            "quota": self.quota or counts["candidates"],  # the default's, where it stopped
            "candidates": counts["candidates"],
            "files": {STREAM: rundir.file_facts(self.settings.out / STREAM)},
        }
        write_json(self.settings.out / SHARD, manifest)
        return manifest


def _lines(items: Any, shard: Shard, counts: dict[str, int]) -> Iterator[str]:
    """One line per scenario; stops once enough of them passed the gates and are new to this shard."""
    seen = Dedup()  # counting only: the merge dedups across shards, in order
    for k, (scenario, written, responses) in enumerate(items):
        index = shard.index + k * shard.count
        if scenario.index != index:
            raise RuntimeError(f"shard {shard.index}: item {k} is scenario {scenario.index}, not {index}")
        kind = "written" if isinstance(written, Written) else "failure"
        spent = ",".join(
            ChatResponse(model=r.model, usage=r.usage, cached=r.cached, key=r.key).model_dump_json() for r in responses
        )
        yield (
            f'{{"i":{index},"scenario":{scenario.model_dump_json()},"{kind}":{written.model_dump_json()},'
            f'"responses":[{spent}]}}\n'
        )
        counts["written"] += 1
        if isinstance(written, Written) and written.review.verdict == "accept":
            if not seen.check("", written.query.text, conversation_id(written.trajectory.messages)):
                counts["candidates"] += 1
        if (
            counts["candidates"] >= shard.quota
            if shard.quota
            else enough(shard.settings.n, shard.count, counts["written"], counts["candidates"])
        ):
            return


def run_shard(
    settings: Settings, count: int, index: int, quota: int | None = None, backends: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Make one shard into ``settings.out``; returns its manifest (see ``Shard.write``)."""
    shard = Shard(settings, count, index, quota)
    claim_shard(settings.out)
    (settings.out / SHARD).unlink(missing_ok=True)  # the old manifest must not vouch for a new, half-written file
    return generate(settings, None, backends, shard=shard)


def claim_shard(folder: Path) -> None:
    """A shard goes into an empty folder or one holding a shard (made again: same bytes), never over a run."""
    if RunDir(folder).is_run():
        raise RunFolderError(f"{folder} holds a run (manifest.json); give each shard a folder of its own with --out")


def record_requests(out: Path, backends: dict[str, Any]) -> None:
    """What getting the answers took (synth.llm.base.request_report), appended to the folder's requests.json."""
    report = request_report(backends)
    if report is None:
        return
    path = out / rundir.REQUESTS
    earlier = read_json(path, "requests file") if path.exists() else []
    write_json(path, [*(earlier if isinstance(earlier, list) else []), {"command": rundir.command_line(), **report}])


# --- merge ---------------------------------------------------------------------------------------


def read_shards(folders: list[Path]) -> list[tuple[Path, dict[str, Any]]]:
    """The shards' folders and manifests in shard order, checked to be all the shards of one run."""
    if not folders:
        raise ConfigError("synth merge needs the shard folders: synth merge SHARD_0 SHARD_1 ... --out DIR")
    found: list[tuple[Path, dict[str, Any]]] = []
    for folder in folders:
        if not (folder / SHARD).is_file():
            raise ConfigError(
                f"{folder} is not a shard (no {SHARD}); make one with synth generate --shards N --shard I "
                f"--out {folder}"
                + (" (it finished? a shard that stopped part way has none)" if (folder / STREAM).exists() else "")
            )
        manifest = read_json(folder / SHARD, "shard manifest; make the shard again")
        if not isinstance(manifest, dict) or manifest.get("status") != rundir.COMPLETE or "shard" not in manifest:
            raise ConfigError(f"{folder / SHARD}: not a finished shard's manifest; make the shard again")
        found.append((folder, manifest))
    first_folder, first = found[0]
    for folder, manifest in found[1:]:
        if manifest["identity"] != first["identity"]:
            raise ConfigError(
                f"{folder} and {first_folder} are shards of different runs ({_difference(first['identity'], manifest['identity'])}); "  # noqa: E501
                "merge only the shards made with the same registry, seed, --n and flags"
            )
    count = first["shard"]["count"]
    by_index: dict[int, Path] = {}
    for folder, manifest in found:
        index = manifest["shard"]["index"]
        if index in by_index:
            raise ConfigError(
                f"shard {index} of {count} is given twice ({by_index[index]} and {folder}); give each shard once"
            )
        by_index[index] = folder
    missing = [i for i in range(count) if i not in by_index]
    if missing:
        raise ConfigError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {count} "
            f"{'are' if len(missing) > 1 else 'is'} missing; make {'them' if len(missing) > 1 else 'it'} with "
            f"synth generate --shards {count} --shard I and give every shard's folder"
        )
    return sorted(found, key=lambda fm: fm[1]["shard"]["index"])


def _difference(a: dict[str, Any], b: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return "; ".join(f"{k}: {str(a.get(k))[:40]} vs {str(b.get(k))[:40]}" for k in keys[:3])


class ShardShort(ConfigError):
    """The merge needs a scenario past where a shard stopped (its quota was too small for this run)."""

    def __init__(self, folder: Path, index: int, count: int, manifest: dict[str, Any], needed: int):
        self.index, self.quota = index, manifest["quota"]
        written = manifest["scenarios"]["written"]
        super().__init__(
            f"shard {index} of {count} ({folder}) stopped after {written} scenarios, at its quota of {self.quota} "
            f"conversations, and the merge needs scenario {needed} from it: more of this run's conversations were "
            f"turned away (duplicates across shards, rejections) than its margin covers. Make that shard again with "
            f"--shard-quota {more(self.quota)} (same command otherwise), then merge again"
        )


class Interleaved:
    """The shards' lines in the single run's order (scenario 0, 1, 2, ...): what ``consume`` iterates."""

    def __init__(self, shards: list[tuple[Path, dict[str, Any]]]):
        self.shards = shards
        self.count = len(shards)
        self.files = [rundir.open_text(folder / STREAM) for folder, _ in shards]
        self.total = sum(m["scenarios"]["slice"] for _, m in shards)  # the run's scenarios at most

    def __iter__(self) -> Iterator[tuple[Scenario, Written | StageFailure, list[ChatResponse]]]:
        for i in range(self.total):
            k = i % self.count
            folder, manifest = self.shards[k]
            text = self.files[k].readline()
            if not text:
                if manifest["scenarios"]["exhausted"]:
                    raise ConfigError(
                        f"{folder / STREAM} ends before scenario {i}, which its manifest says it holds; "
                        "the shard is damaged: make it again"
                    )
                raise ShardShort(folder, k, self.count, manifest, i)
            yield _parse(text, i, folder)

    def close(self) -> None:
        for f in self.files:
            f.close()


def _parse(text: str, i: int, folder: Path) -> tuple[Scenario, Written | StageFailure, list[ChatResponse]]:
    try:
        line = json.loads(text)
        if line["i"] != i:
            raise ValueError(f"holds scenario {line['i']} where scenario {i} belongs")
        written: Written | StageFailure = (
            Written.model_validate(line["written"])
            if "written" in line
            else StageFailure.model_validate(line["failure"])
        )
        return (
            Scenario.model_validate(line["scenario"]),
            written,
            [ChatResponse.model_validate(r) for r in line["responses"]],
        )
    except (ValueError, KeyError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        raise ConfigError(
            f"{folder / STREAM}: the line of scenario {i} cannot be read ({str(exc)[:200]}); the shard "
            "is damaged or from another synth: make it again"
        ) from None


@rundir.writes_run(lambda folders, out, **_: out)  # one writer per run folder
def merge(
    folders: list[Path],
    out: Path,
    *,
    settings: Settings | None = None,
    servers: Path | None = None,
    progress: Any = None,
) -> dict[str, Any]:
    """Merge the shards in ``folders`` into the run folder ``out``; returns its manifest. ``settings``
    (the run's, as given to the shards) defaults to the first shard's, with ``servers`` if given."""
    shards = read_shards(folders)
    first = shards[0][1]
    if settings is None:
        recorded = Settings.model_validate(first["settings"])
        settings = recorded.model_copy(update={"servers": servers or recorded.servers, "cache": None})
    settings = settings.model_copy(update={"out": out})
    if not settings.servers.exists():
        raise ConfigError(
            f"the shards were made from the registry {settings.servers}, which is not here; give its "
            "folder with --servers"
        )
    if identity(settings, len(shards)) != first["identity"]:
        raise ConfigError(
            f"the registry or flags differ from the shards' ({_difference(first['identity'], identity(settings, len(shards)))}); "  # noqa: E501
            f"give --servers the registry folder the shards were made from"
        )
    run = open_run(settings)  # the registry, packs and planner the shards were made with, as generate opens them
    RunDir(out).start(settings.identity())
    manifest = consume(
        settings, run.registry, run.packs, Interleaved(shards), None, progress, productive=settings.backend == "offline"
    )
    _merge_requests(out, [folder for folder, _ in shards])
    return manifest


def _merge_requests(out: Path, folders: list[Path]) -> None:
    """The shards' requests.json entries, one list (timing, not data: it stays out of the manifest)."""
    entries = [
        e
        for folder in folders
        if (folder / rundir.REQUESTS).exists()
        for e in read_json(folder / rundir.REQUESTS, "requests file") or []
    ]
    if entries:
        write_json(out / rundir.REQUESTS, entries)
