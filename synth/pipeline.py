"""The only orchestrator: scenario -> query/plan/trajectory -> gates -> dedup -> split -> inject -> export.

Items are made one at a time and written as they are accepted, so memory does not grow with
the run (only the dedup index does, by one hash and one MinHash signature per request). Every scenario ends either
in the exports or in rejected.jsonl, and the funnel counts both.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from synth import run_manifest, rundir
from synth.config import Settings
from synth.errors import ConfigError
from synth.export.chat import ToolNames
from synth.export.outputs import left_off, run_files, writers
from synth.llm.spend import Spend
from synth.offline.author import OfflineAuthor
from synth.packs.load import Packs
from synth.records import Conversation, Registry, Scenario, ServerSpec, StageFailure, ToolSpec, Written, conversation_id
from synth.review.queue import QUEUE, Queue, Rules
from synth.run_manifest import Tally
from synth.rundir import RunDir
from synth.rundir.output import Accepted, Closed, Place
from synth.runtime.base import ToolRuntime
from synth.runtime.pick import offline_runtime
from synth.runtime.replay import replayer
from synth.scenarios.planner import Planner, rng_for
from synth.scenarios.runplan import open_run
from synth.scheduler import Author, InlineAuthor, Scheduler
from synth.stages import reader
from synth.stages.dedup import Dedup
from synth.stages.inject import kin, negatives

if TYPE_CHECKING:  # the live client and pool load the MCP SDK: imported only by runs that go live
    from synth.live.pool import Pool

# Offline scenarios cost nothing but time, so an offline run goes on past 2n + 20 while it still finds new
# conversations: it stops once the last WINDOW scenarios (fewer for a small n) gave fewer than 1 in
# PRODUCTIVE, or at PATIENCE * n + 20 scenarios. The LLM path keeps 2n + 20 (each scenario is paid for).
WINDOW, PRODUCTIVE, PATIENCE = 1000, 20, 50


STEP = 0x9E3779B97F4A7C15  # 2**64 / golden ratio: consecutive places land far apart on the circle


def split_of(place: int, shares: tuple[float, float, float], seed: int) -> str:
    """The split of the run's ``place``-th distinct conversation (in scenario order, so a larger --n,
    a resume or a merge of shards never moves one). Places walk a golden-ratio sequence from a point
    the seed picks, so every first N conversations fill the splits within a row or two of their shares:
    a 30-conversation run gets 2 to 4 valid rows where a hash of the id could give none (issue 31)."""
    start = int(hashlib.sha256(f"split:{seed}".encode()).hexdigest()[:16], 16)
    h = ((start + place * STEP) % 2**64) / 2**64
    if h < shares[0]:
        return "train"
    return "valid" if h < shares[0] + shares[1] else "test"


class RunWriter:
    """The run's outputs (synth.export.outputs), each accepted conversation told to every writer in registry
    order and then to the review queue (synth.review.queue.Queue), and rejected.jsonl, all in the run folder's
    storage (synth.rundir)."""

    def __init__(self, settings: Settings, worlds: Any = None):
        out, outputs = settings.out, settings.outputs
        files, folders = left_off(outputs)
        for name in files:  # an earlier run's file of an output now off would read as this run's
            (out / name).unlink(missing_ok=True)
            (out / (name + rundir.GZ)).unlink(missing_ok=True)
        for folder in folders:
            shutil.rmtree(out / folder, ignore_errors=True)
        self.files = rundir.RunWriter(out, [*run_files(outputs), rundir.REJECTED, QUEUE], storage=settings.storage)
        place = Place(out, settings.storage, self.files, self.reject, worlds)
        self.outputs = writers(outputs, place)
        self.queue = Queue(place, Rules.from_settings(settings))
        self.closed: dict[str, Closed] = {}  # output -> what its writer wrote and counted
        self.facts: dict[str, dict[str, Any]] = {}  # run file -> its lines and sha256, for the manifest

    def reject(self, line: dict[str, Any]) -> None:
        self.files.write(rundir.REJECTED, line)

    def add(self, item: Accepted) -> None:
        for output in (*self.outputs.values(), self.queue):
            output.add(item)

    def close(self) -> None:
        for name, output in {**self.outputs, "queue": self.queue}.items():
            if name not in self.closed:  # closed once, also when consume closes after a failure
                self.closed[name] = output.close()
        rejected = self.files.close()[rundir.REJECTED]  # after the writers: a writer may still reject (tasks)
        made = {file: facts for name in self.outputs for file, facts in self.closed[name].files.items()}
        self.facts = {**made, rundir.REJECTED: rejected, **self.closed["queue"].files}  # the manifest's order


def offered_tools(conv_key: str, server: ServerSpec, used: tuple[str, ...], limit: int, seed: int) -> tuple[str, ...]:
    """The tools shown to the assistant: the used ones plus siblings, up to ``limit``, in server order."""
    others = [t.name for t in server.tools if t.name not in used]
    rng = rng_for(seed, "offer", conv_key)
    rng.shuffle(others)
    keep = set(used) | set(others[: max(0, limit - len(set(used)))])
    return tuple(t.name for t in server.tools if t.name in keep)


@rundir.writes_run(lambda settings, *_, **__: settings.out)  # one writer per run folder
def generate(
    settings: Settings,
    progress: Callable[[int, int], None] | None = None,
    backends: dict[str, Any] | None = None,
    shard: Any = None,
) -> dict[str, Any]:
    """Run the whole pipeline into ``settings.out``; returns the manifest.

    ``backends`` maps each agent role to a ChatBackend (the LLM agents author the conversations);
    without it the offline author does. Either way one scheduler (synth.scheduler) runs the
    scenarios and items reach the exports in scenario order, so the output does not depend on
    concurrency or timing. ``shard`` (synth.shards.Shard) makes this a shard run: only its slice of
    the scenario indexes is written, and into its shard file instead of the exports (``synth merge``
    feeds the slices to ``consume``).
    """
    run = open_run(settings)  # the registry, packs and planner, as --dry-run sees them
    registry, packs, planner, servers = run.registry, run.packs, run.planner, run.servers
    pool = _pool(settings, registry)
    max_attempts = run.attempts()
    # offline scenarios cost nothing but time: an offline run may go on past 2n + 20 while productive (consume)
    last = max_attempts and settings.n * PATIENCE + 20 if backends is None else max_attempts
    if shard is not None:  # scenario k of the slice is scenario I + k*N of the run
        planner, last = shard.slice(planner, last)
    else:
        RunDir(settings.out).start(settings.identity())  # status "running" until the final manifest replaces it
    offer = _offer(settings, servers)
    author: Author | InlineAuthor
    if backends is None:
        author = OfflineAuthor(planner, servers, settings, packs.by_server, pool)
    else:  # the agents load the live client (the MCP SDK): imported only by LLM runs
        from synth.agents.author import LLMAuthor

        author = LLMAuthor(
            servers,
            offer,
            backends,
            ToolNames(registry.servers),
            settings.models(),
            settings.seed,
            pool,
            None if settings.tool_answers() == "model" else _offline_tools(settings, planner, packs),
        )
    wanted = None if shard is not None else settings.n  # a shard writes its slice whole (synth.shards)
    items: Iterator[tuple[Scenario, Any, list[Any]]] = Scheduler(  # type: ignore[assignment]
        author,
        planner.scenario,
        range(last),
        settings,
        wanted=wanted,
    )
    try:
        if shard is not None:
            return shard.write(items)
        return consume(settings, registry, packs, items, pool, progress, productive=backends is None)
    finally:
        if hasattr(items, "close"):  # closed already, unless consume failed before its loop (closing twice is harmless)
            items.close()
        if pool is not None:
            pool.close()


def _offline_tools(settings: Settings, planner: Planner, packs: Packs) -> Callable[[Scenario], ToolRuntime | None]:
    """The tool role of an LLM run answered without a model: each scenario's results from its server's pack
    and the schema simulator (synth.runtime.pick.offline_runtime); by default only for servers with a pack
    (None: the model answers the others), for every server when the role is offline."""
    every = settings.tool_answers() == "offline"

    def runtime(sc: Scenario) -> ToolRuntime | None:
        pack = packs.by_server.get(sc.server)
        if pack is None and not every:
            return None
        return offline_runtime(sc, pack, planner.topics[sc.server], settings.seed)

    return runtime


def _offer(settings: Settings, servers: dict[str, ServerSpec]) -> Callable[[Scenario], tuple[str, ...]]:
    return lambda sc: offered_tools(sc.id, servers[sc.server], sc.tools, settings.max_tools, settings.seed)


def consume(
    settings: Settings,
    registry: Registry,
    packs: Packs,
    items: Iterable[tuple[Scenario, Any, list[Any]]],
    pool: Pool | None = None,
    progress: Callable[[int, int], None] | None = None,
    productive: bool = False,
) -> dict[str, Any]:
    """Everything after writing, in scenario order: dedup, split, inject, export, the review queue,
    until ``settings.n`` are accepted; then the manifest. The one place this order-dependent part
    runs, for a whole run (``generate``) and for merged shards (synth.shards) alike. ``productive``
    (offline runs): past 2n + 20 scenarios, go on while the last WINDOW still gave 1 in PRODUCTIVE."""
    names = ToolNames(registry.servers)
    # a world server's task: its conversation replayed on a fresh world (synth.runtime.replay)
    worlds = replayer(packs.by_server, settings.seed)
    loop = _Loop(
        settings,
        {s.id: s for s in registry.servers},
        names,
        RunWriter(settings, worlds),
    )
    enough = _Enough(settings.n, productive)
    try:
        for scenario, written, responses in items:
            loop.take(scenario, written, responses)
            if hasattr(items, "accepted"):  # the scheduler starts only what the rest of the run needs
                items.accepted(loop.accepted)
            if progress:
                progress(loop.accepted, loop.attempts)
            if enough.reached(loop.accepted, loop.attempts):
                break
        if hasattr(items, "finish"):
            items.finish()
    finally:
        if hasattr(items, "close"):
            items.close()
        loop.writer.close()
    writer = loop.writer
    manifest = run_manifest.build(
        settings,
        registry,
        names,
        loop.tally,
        run_manifest.Outcome(loop.accepted, loop.attempts, loop.spend),
        run_manifest.Parts(packs, pool, writer.closed, writer.facts, loop.dedup),
    )
    RunDir(settings.out).write_manifest(manifest)  # atomic: a manifest is never half written
    return manifest


@dataclass
class _Enough:
    """When the loop stops: ``n`` accepted, or (``productive``, offline runs) past 2n + 20 scenarios
    once the last window gave fewer than 1 in PRODUCTIVE (the registry has run out of new conversations)."""

    n: int
    productive: bool
    mark: int = 0  # conversations accepted when the last window began

    def reached(self, accepted: int, attempts: int) -> bool:
        if accepted >= self.n:
            return True
        max_attempts = self.n * 2 + 20
        window = min(WINDOW, max_attempts)
        if self.productive and attempts % window == 0:
            if attempts >= max_attempts and (accepted - self.mark) * PRODUCTIVE < window:
                return True
            self.mark = accepted
        return False


class _Loop:
    """The state of ``consume``'s loop, and what it does with each written scenario."""

    def __init__(self, settings: Settings, servers: dict[str, ServerSpec], names: ToolNames, writer: RunWriter):
        self.settings, self.servers, self.names, self.writer = settings, servers, names, writer
        self.offer = _offer(settings, servers)
        self.tally = Tally()
        self.dedup = Dedup()
        self.spend = Spend(settings.prices)
        self.rules = Rules.from_settings(settings)
        self.accepted = self.attempts = 0
        self.placed = 0  # conversations past dedup: each one's place decides its split
        self.kin: dict[str, tuple[tuple[ToolSpec, ...], ...]] = {}

    def take(self, scenario: Scenario, written: Written | StageFailure, responses: list[Any]) -> None:
        """One scenario's outcome written where it belongs: rejected, held for a person, or accepted."""
        self.attempts += 1
        self.spend.add(responses)
        self.tally.funnel.enter("generate")
        written = _unless_leaking(scenario, self._unless_held(scenario, written))
        result = (
            written
            if isinstance(written, StageFailure)
            else _finish(
                scenario,
                written,
                self.servers[scenario.server],
                self._kin(scenario.server),
                self.offer(scenario),
                self.settings,
                self.tally,
                self.dedup,
                self.placed,
            )
        )
        if not isinstance(result, StageFailure):
            self.placed += 1
        if isinstance(result, StageFailure):
            self.tally.funnel.drop(result)
            self.writer.reject(result.to_json())
        elif result[0].review.verdict == "human":  # held for a person: it joins the data once accepted
            self.tally.funnel.enter("human_review")
            self.writer.queue.hold(result[0])
        else:
            self._accept(*result)

    def _kin(self, server: str) -> tuple[tuple[ToolSpec, ...], ...]:
        """The tools of ``server``'s same-domain servers (synth.stages.inject.kin), found once per server."""
        if server not in self.kin:
            self.kin[server] = kin(self.servers[server], self.servers.values())
        return self.kin[server]

    def _unless_held(self, scenario: Scenario, written: Written | StageFailure) -> Written | StageFailure:
        """A conversation the reviewer sent to a person is rejected when the run does not hold any."""
        if isinstance(written, Written) and written.review.verdict == "human" and "human" not in self.rules.rules:
            return StageFailure(
                stage="review",
                item_id=scenario.id,
                reason="reviewer_human",
                detail="; ".join(written.review.reasons)[:500] or "human",
            )
        return written

    def _accept(self, conv: Conversation, scored: list[Any], missed: list[StageFailure]) -> None:
        self.writer.add(Accepted(conv, self.servers[conv.server], scored, self.names))  # every output, the queue
        for failure in missed:  # a negative that could not be made for a call: counted and written
            self.writer.reject(failure.to_json())
        self.accepted += 1


def _unless_leaking(scenario: Scenario, written: Written | StageFailure) -> Written | StageFailure:
    """A conversation with live results that still holds the generating machine (a temporary folder, the home
    folder, PATH, the host name) after the sandbox's mapping is rejected with what it holds, never kept."""
    if isinstance(written, StageFailure) or not any(m.source == "live" for m in written.trajectory.messages):
        return written
    from synth.live.sandbox import leaks

    texts = [m.content or "" for m in written.trajectory.messages]
    texts += [json.dumps(c.arguments, ensure_ascii=False) for c in written.trajectory.calls]
    found = leaks(texts)
    if found is None:
        return written
    return StageFailure(
        stage="execute", item_id=scenario.id, reason="machine_leak", detail=f"the conversation holds {found}"
    )


def _pool(settings: Settings, registry: Registry) -> Pool | None:
    """The live servers' pool, when this run executes live and some entry has a connection."""
    if settings.execute != "live" or not any(s.connection for s in registry.servers):
        return None
    from synth.live import secrets

    if not settings.allow_exec:
        raise ConfigError(live_refusal(registry))
    keys = secrets.guarded(settings.key_envs())
    refused = secrets.refusal(registry.servers, keys, settings.allow_env)
    if refused:
        raise ConfigError(refused)
    secrets.seal(keys, settings.allow_env)  # the model clients hold their keys already
    from synth.live.client import Limits
    from synth.live.pool import Pool

    return Pool(
        Limits(
            connect=settings.connect_timeout,
            call=settings.call_timeout,
            max_result=settings.max_result_chars,
            overflow=settings.result_overflow,
        ),
        writes=settings.live_writes,
    )


def live_refusal(registry: Registry) -> str:
    """The one line said when live execution was asked for without --allow-exec: which entries would start,
    and the environment variables each would read."""
    from synth.live.secrets import reads

    named = [f"{s.id}{_reading(reads(s.connection))}" for s in registry.servers if s.connection]
    return (
        f"--execute live would start commands or contact URLs from {len(named)} registry entr"
        f"{'y' if len(named) == 1 else 'ies'} ({', '.join(named[:5])}{', ...' if len(named) > 5 else ''}); "
        "an entry could be anyone's, so nothing was started. Read their connections, then add --allow-exec."
    )


def _reading(names: tuple[str, ...]) -> str:
    return f" reading {', '.join('$' + n for n in names)}" if names else ""


def _finish(
    scenario: Scenario,
    written: Written,
    server: ServerSpec,
    kin: tuple[tuple[ToolSpec, ...], ...],
    offered: tuple[str, ...],
    settings: Settings,
    tally: Tally,
    dedup: Dedup,
    place: int,
):
    """Dedup, split and inject one written conversation (the ``place``-th past dedup)."""
    funnel = tally.funnel
    funnel.leave("generate")
    query, trajectory = written.query, written.trajectory
    funnel.enter("reader")
    found = reader.read(trajectory.messages, server, query.withheld, scenario.tools)
    tally.read += 1
    for gate, lines in found.items():
        tally.reader[gate] = tally.reader.get(gate, 0) + bool(lines)
    flags = reader.decide(found, scenario.id)
    if isinstance(flags, StageFailure):
        return flags
    funnel.leave("reader")
    funnel.enter("dedup")
    conv_id = conversation_id(trajectory.messages)
    seen = dedup.check("", query.text, conv_id)  # one scope: the whole run, across servers
    if seen:
        return StageFailure(
            stage="dedup", item_id=conv_id, reason=seen[0], detail=f"same request as {seen[1]}: {query.text[:200]}"
        )
    funnel.leave("dedup")
    conv = Conversation(
        id=conv_id,
        scenario=scenario,
        query=query,
        plan=written.plan,
        messages=trajectory.messages,
        tools=offered,
        review=written.review.model_copy(update={"flags": flags}) if flags else written.review,
        split=split_of(place, settings.split, settings.seed),
        author=written.author,
        decisions=trajectory.decisions,
    )
    if conv.review.verdict == "human":  # negatives are derived when a person accepts it (synth review apply)
        return conv, [], []
    funnel.enter("inject", len(conv.calls))
    scored, missed = negatives(conv, server, settings.seed, kin)
    for f in missed:
        funnel.drop(f)
    funnel.leave("inject", len(conv.calls))
    return conv, scored, missed
