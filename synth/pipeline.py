"""The only orchestrator: scenario -> query/plan/trajectory -> gates -> dedup -> split -> inject -> export.

Items are made one at a time and written as they are accepted, so memory does not grow with
the run (only the dedup index does, by one hash and one MinHash signature per request). Every scenario ends either
in the exports or in rejected.jsonl, and the funnel counts both.
"""

from __future__ import annotations

import hashlib
import shutil
import platform
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

import synth
from synth.llm.spend import Spend
from synth.config import Settings
from synth.export.chat import ToolNames, chat_line, eval_items
from synth.export.scored import scored_line
from synth.export.tasks import TASKS, TaskWriter
from synth.export.teval import TevalWriter
from synth.offline.scenario import Planner, rng_for
from synth.offline import vocab
from synth.offline.packed import write_packed
from synth.offline.values import Context
from synth.offline.writer import write
from synth.packs.load import Packs, usable_packs
from synth.packs.model import Pack
from synth.errors import ConfigError
from synth.runtime.pack import PackRuntime
from synth.runtime.simulated import SimulatedRuntime
from synth.records import Conversation, Funnel, Registry, Scenario, ServerSpec, StageFailure, Written, conversation_id
from synth.registry import load_registry
from synth.review.queue import QUEUE, Rules, conversation_item, conversation_reasons, lines_for
from synth.stages import gates
from synth.stages.dedup import Dedup
from synth.stages.inject import negatives
from synth import rundir, templates
from synth.rundir import RunDir, FILES, file_facts

if TYPE_CHECKING:  # the live client, pool and shop load the MCP SDK: imported only by runs that go live
    from synth.live.pool import Pool
    from synth.offline.shop import ShopFacts

SPLITS = ("train", "valid", "test")
GENERATOR_VERSION = 3
COMPACT = True  # the run folder's storage (synth.rundir); False writes the public rows plain, as before issue 18


def split_of(conversation_id: str, shares: tuple[float, float, float]) -> str:
    """The split a conversation belongs to, from its id alone: adding data never moves it."""
    h = int(hashlib.sha256(conversation_id.encode()).hexdigest()[:12], 16) / 16**12
    if h < shares[0]:
        return "train"
    return "valid" if h < shares[0] + shares[1] else "test"


@dataclass
class Tally:
    funnel: Funnel = field(default_factory=Funnel)
    splits: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SPLITS, 0))
    labels: dict[str, int] = field(default_factory=dict)
    subtypes: dict[str, int] = field(default_factory=dict)
    used_tools: set[str] = field(default_factory=set)
    sources: dict[str, dict[str, int]] = field(default_factory=dict)  # server -> tool-message origin -> count
    eval_items: int = 0
    turns: int = 0
    calls: int = 0
    multi_turn: int = 0


class RunWriter(rundir.RunWriter):
    """The run's files plus the T-Eval subsets, which are made as test conversations arrive; only the
    outputs asked for (``--outputs``), in the run folder's storage (synth.rundir)."""

    def __init__(self, out: Path, outputs: tuple[str, ...] = rundir.DEFAULT_OUTPUTS):
        off = {rundir.OUTPUT_FILES[o] for o in rundir.OUTPUT_FILES if o not in outputs}
        super().__init__(out, [name for name in FILES if name not in off], compact=COMPACT)
        for name in off:  # an earlier run's file of an output now off would read as this run's
            (out / name).unlink(missing_ok=True)
            (out / (name + rundir.GZ)).unlink(missing_ok=True)
        for folder in (rundir.TEVAL, TASKS):
            if folder not in outputs:
                shutil.rmtree(out / folder, ignore_errors=True)
        self.teval = TevalWriter(out, compact=COMPACT) if "teval" in outputs else None
        self.teval_counts: dict[str, int] = {}
        self.tasks = TaskWriter(out, lambda line: self.write("rejected.jsonl", line)) if "tasks" in outputs else None
        self.task_counts: dict[str, Any] = {}

    def write(self, name: str, record: Any) -> None:
        if name in self.files:
            super().write(name, record)

    def close(self) -> None:
        if not self.task_counts and self.tasks is not None:
            self.task_counts = self.tasks.close()
        super().close()
        if not self.teval_counts and self.teval is not None:
            self.teval_counts = self.teval.close()


def offered_tools(conv_key: str, server: ServerSpec, used: tuple[str, ...], limit: int, seed: int) -> tuple[str, ...]:
    """The tools shown to the assistant: the used ones plus siblings, up to ``limit``, in server order."""
    others = [t.name for t in server.tools if t.name not in used]
    rng = rng_for(seed, "offer", conv_key)
    rng.shuffle(others)
    keep = set(used) | set(others[: max(0, limit - len(set(used)))])
    return tuple(t.name for t in server.tools if t.name in keep)


@rundir.writes_run(lambda settings, *_, **__: settings.out)  # one writer per run folder
def generate(settings: Settings, progress: Callable[[int, int], None] | None = None,
             backends: dict[str, Any] | None = None, shard: Any = None) -> dict[str, Any]:
    """Run the whole pipeline into ``settings.out``; returns the manifest.

    ``backends`` maps each agent role to a ChatBackend (the LLM path); without it the offline
    backend writes the conversations. Either way items reach the exports in scenario order, so
    the output does not depend on concurrency or timing. ``shard`` (synth.shards.Shard) makes
    this a shard run: only its slice of the scenario indexes is written, and into its shard file
    instead of the exports (``synth merge`` feeds the slices to ``consume``).
    """
    registry = load_registry(settings.servers)
    packs = usable_packs(registry, settings.servers)
    pool = _pool(settings, registry)
    shops: dict[int, ShopFacts] = {}
    planner = Planner(registry, settings.seed, packs.by_server)
    servers = {s.id: s for s in registry.servers}
    max_attempts = settings.n * 2 + 20 if planner.order else 0
    if shard is not None:  # scenario k of the slice is scenario I + k*N of the run
        planner, max_attempts = shard.slice(planner, max_attempts)
    else:
        RunDir(settings.out).start(settings.identity())  # status "running" until the final manifest replaces it
    offer = _offer(settings, servers)
    if backends is None:
        items: Iterator[tuple[Scenario, Any, list[Any]]] = (
            (sc, _offline(sc, servers[sc.server], planner, settings, packs.get(sc.server), pool, shops), [])
            for sc in map(planner.scenario, range(max_attempts)))
    else:
        from synth.agents.engine import OrderedRun

        items = OrderedRun(planner, servers, offer, backends, ToolNames(registry.servers), settings, max_attempts, pool)
    try:
        if shard is not None:
            return shard.write(items)
        return consume(settings, registry, packs, items, pool, progress)
    finally:
        if hasattr(items, "close"):  # closed already, unless consume failed before its loop (closing twice is harmless)
            items.close()
        for shop in shops.values():
            shop.close()
        if pool is not None:
            pool.close()


def _offer(settings: Settings, servers: dict[str, ServerSpec]) -> Callable[[Scenario], tuple[str, ...]]:
    return lambda sc: offered_tools(sc.id, servers[sc.server], sc.tools, settings.max_tools, settings.seed)


def consume(settings: Settings, registry: Registry, packs: Packs, items: Iterable[tuple[Scenario, Any, list[Any]]],
            pool: Pool | None = None, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Everything after writing, in scenario order: dedup, split, inject, export, the review queue,
    until ``settings.n`` are accepted; then the manifest. The one place this order-dependent part
    runs, for a whole run (``generate``) and for merged shards (synth.shards) alike."""
    names = ToolNames(registry.servers)
    servers = {s.id: s for s in registry.servers}
    offer = _offer(settings, servers)
    tally = Tally()
    dedup = Dedup()
    spend = Spend(settings.prices)
    writer = RunWriter(settings.out, settings.outputs)
    rules = Rules.from_settings(settings)
    accepted = attempts = 0
    try:
        for scenario, written, responses in items:
            attempts += 1
            spend.add(responses)
            tally.funnel.enter("generate")
            if isinstance(written, Written) and written.review.verdict == "human" and "human" not in rules.rules:
                written = StageFailure(stage="review", item_id=scenario.id, reason="reviewer_human",
                                       detail="; ".join(written.review.reasons)[:500] or "human")
            result = written if isinstance(written, StageFailure) else _finish(scenario, written, servers[scenario.server], offer(scenario), settings, tally, dedup)
            if isinstance(result, StageFailure):
                tally.funnel.drop(result)
                writer.write("rejected.jsonl", result.to_json())
            elif result[0].review.verdict == "human":  # held for a person: it joins the data once accepted
                tally.funnel.enter("human_review")
                writer.write(QUEUE, conversation_item(result[0], conversation_reasons(result[0], rules), held=True))
            else:
                conv, scored, missed = result
                rows = _export(conv, scored, servers[conv.server], names, writer, tally)
                for line in lines_for(conv, rows, rules):
                    writer.write(QUEUE, line)
                for failure in missed:  # a negative that could not be made for a call: counted and written
                    writer.write("rejected.jsonl", failure.to_json())
                accepted += 1
            if progress:
                progress(accepted, attempts)
            if accepted >= settings.n:
                break
        if hasattr(items, "finish"):
            items.finish()
    finally:
        if hasattr(items, "close"):
            items.close()
        writer.close()
    manifest = _manifest(settings, registry, names, tally, accepted, attempts, spend)
    manifest["packs"] = packs.summary(registry)
    manifest["execute"] = {"mode": settings.execute, "results": {k: dict(sorted(v.items())) for k, v in sorted(tally.sources.items())},
                           "unreachable": {name: str(error) for name, error in sorted((pool.dead if pool else {}).items())}}
    manifest["teval"] = writer.teval_counts
    manifest["tasks"] = writer.task_counts
    manifest["dedup"] = dedup.report()
    RunDir(settings.out).write_manifest(manifest)  # atomic: a manifest is never half written
    return manifest


def _pool(settings: Settings, registry: Registry) -> Pool | None:
    """The live servers' pool, when this run executes live and some entry has a connection."""
    if settings.execute != "live" or not any(s.connection for s in registry.servers):
        return None
    if not settings.allow_exec:
        raise ConfigError(live_refusal(registry))
    from synth.live.client import Limits
    from synth.live.pool import Pool

    return Pool(Limits(connect=settings.connect_timeout, call=settings.call_timeout))


def live_refusal(registry: Registry) -> str:
    """The one line said when live execution was asked for without --allow-exec."""
    named = [s.id for s in registry.servers if s.connection]
    return (f"--execute live would start commands or contact URLs from {len(named)} registry entr"
            f"{'y' if len(named) == 1 else 'ies'} ({', '.join(named[:5])}{', ...' if len(named) > 5 else ''}); "
            "an entry could be anyone's, so nothing was started. Read their connections, then add --allow-exec.")


def _shop(pool: Pool | None, server: ServerSpec, shops: dict[int, ShopFacts]) -> ShopFacts | None:
    """What the customers of synth's store know (its seed database), when ``server`` is that store."""
    if pool is None or server.connection is None:
        return None
    from synth.live.pool import store_seed
    from synth.offline.shop import ShopFacts

    seed = store_seed(server.connection)
    if seed is None:
        return None
    if seed not in shops:  # one read-only copy of the seed database per run
        shops[seed] = ShopFacts(pool.store_copy(seed, pool.scratch()))  # type: ignore[union-attr]
    return shops[seed]


def _offline(scenario: Scenario, server: ServerSpec, planner: Planner, settings: Settings,
             pack: Pack | None, pool: Pool | None = None,
             shops: dict[int, ShopFacts] | None = None) -> Written | StageFailure:
    """The offline author plus the gates: what the agents give on the LLM path.

    Calls go to the server's real MCP server when the run is live and the entry has a connection;
    else to its pack, else to the schema simulator.
    """
    live = None
    if pool is not None and server.connection is not None:
        from synth.runtime.live import LiveRuntime

        live = LiveRuntime(pool, server)
    try:
        if live is not None and (shop := _shop(pool, server, shops if shops is not None else {})) is not None:  # synth's store: customer-service tasks
            from synth.offline.shop import write_shop

            query, plan, trajectory = write_shop(scenario, server, shop, settings.seed, live)
        elif pack is not None and scenario.turns is not None:
            rng = rng_for(settings.seed, "runtime", scenario.id)
            fallback = SimulatedRuntime(Context(rng=rng, topic=planner.topics[server.id], city=rng.choice(vocab.CITIES)[0]))
            runtime = live or PackRuntime(pack, rng, fallback, frozenset(scenario.fail or ()))
            query, plan, trajectory = write_packed(scenario, server, pack, settings.seed, runtime)
        else:
            query, plan, trajectory = write(scenario, server, planner.topics[server.id], settings.seed, live)
    except Exception as exc:  # a schema the writer cannot handle must not end the run; it is counted
        if live is not None:
            from synth.live.client import LiveError

            if isinstance(exc, LiveError):  # the server could not be reached or broke off: the scenario ends with its line
                return StageFailure(stage="execute", item_id=scenario.id, reason=exc.reason, detail=str(exc)[:500])
        return StageFailure(stage="generate", item_id=scenario.id, reason=type(exc).__name__,
                            detail=f"{server.id} {scenario.tools}: {exc}"[:500])
    finally:
        if live is not None:
            live.close()
    review = gates.review(trajectory, server)
    if review.verdict != "accept":
        return gates.failure(review, scenario.id).model_copy(update={"raw": {"server": server.id, "tools": list(scenario.tools)}})
    return Written(query=query, plan=plan, trajectory=trajectory, review=review)


def _finish(scenario: Scenario, written: Written, server: ServerSpec, offered: tuple[str, ...], settings: Settings,
            tally: Tally, dedup: Dedup):
    """Dedup, split and inject one written conversation."""
    funnel = tally.funnel
    funnel.leave("generate")
    query, trajectory = written.query, written.trajectory
    funnel.enter("dedup")
    conv_id = conversation_id(trajectory.messages)
    seen = dedup.check("", query.text, conv_id)  # one scope: the whole run, across servers
    if seen:
        return StageFailure(stage="dedup", item_id=conv_id, reason=seen[0], detail=f"same request as {seen[1]}: {query.text[:200]}")
    funnel.leave("dedup")
    conv = Conversation(
        id=conv_id, scenario=scenario, query=query, plan=written.plan, messages=trajectory.messages,
        tools=offered, review=written.review, split=split_of(conv_id, settings.split),  # type: ignore[arg-type]
    )
    if conv.review.verdict == "human":  # negatives are derived when a person accepts it (synth review apply)
        return conv, [], []
    funnel.enter("inject", len(conv.calls))
    scored, missed = negatives(conv, server, settings.seed)
    for f in missed:
        funnel.drop(f)
    funnel.leave("inject", len(conv.calls))
    return conv, scored, missed


def _export(conv: Conversation, scored, server: ServerSpec, names: ToolNames, writer: RunWriter,
            tally: Tally) -> list[dict[str, Any]]:
    split = conv.split or "train"
    rows = []
    writer.write("conversations.jsonl", conv.to_json())
    if split in ("train", "valid"):
        if f"{split}.jsonl" in writer.files:
            writer.write(f"{split}.jsonl", chat_line(conv, server, names))
    else:
        if rundir.EVAL in writer.files:
            for item in eval_items(conv, server, names):
                writer.write(rundir.EVAL, item)
                tally.eval_items += 1
        if writer.teval is not None:
            writer.teval.add(conv, server, scored)
    if writer.tasks is not None:
        writer.tasks.add(conv, server)  # an MCPMark-style task, when the conversation is on a live store
    for record in scored:
        rows.append(scored_line(record, server, conv.tools, split))  # the review queue's lines are made from these
        writer.write(rundir.SCORED, rows[-1])
        tally.labels[record.score] = tally.labels.get(record.score, 0) + 1
        key = f"{record.score}/{record.subtype}"
        tally.subtypes[key] = tally.subtypes.get(key, 0) + 1
    tally.splits[split] += 1
    tally.used_tools.update(f"{server.id}/{c.name}" for c in conv.calls)
    sources = tally.sources.setdefault(server.id, {})
    for m in conv.messages:
        if m.role == "tool":
            sources[m.source or "unknown"] = sources.get(m.source or "unknown", 0) + 1
    tally.turns += len(conv.messages)
    tally.calls += len(conv.calls)
    tally.multi_turn += bool(conv.query.withheld)
    return rows


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def _manifest(settings: Settings, registry: Registry, names: ToolNames, tally: Tally, accepted: int, attempts: int,
              spend: Spend) -> dict[str, Any]:
    usable = [t.key for t in registry.tools]
    unused = sorted(set(usable) - tally.used_tools)
    files = {name: file_facts(settings.out / name) for name in FILES if rundir.stored(settings.out / name).exists()}
    errors = [p for p in registry.problems if p.severity == "error"]
    return {
        "status": rundir.COMPLETE,
        "synth_version": synth.__version__,
        # Bumped whenever the same seed and registry give different offline output, so a change of
        # data is always named: 2 = server packs (requests from goals, several requests per conversation,
        # parallel calls, answers from results), fallback answers in varied forms, no stock persona sentence;
        # 3 = near-duplicate requests found across all servers with MinHash LSH (was: pairwise within a server).
        "generator_version": GENERATOR_VERSION,
        "backend": settings.backend,
        "model": None if settings.backend == "offline" else settings.models(),
        "tokens": spend.by,
        "cost_usd": round(spend.usd(), 6),
        "stopped_by_budget": settings.budget_usd is not None and accepted < settings.n and spend.usd() >= settings.budget_usd,
        "config": {
            "servers": settings.servers.as_posix(),
            "n": settings.n,
            "seed": settings.seed,
            "split": dict(zip(SPLITS, settings.split)),
            "max_tools": settings.max_tools,
            "execute": settings.execute,
            "outputs": list(settings.outputs),
            "review": {"audit": settings.audit, "below": settings.review_below, "rules": list(settings.review_rules)},
        },
        "versions": {
            "python": ".".join(platform.python_version_tuple()[:2]),
            **{p: _version(p) for p in ("pydantic", "jsonschema", "faker", "jinja2")},
        },
        "prompts": {name: templates.template_hash(name) for name in templates.names()},
        "registry": {
            "servers": len(registry.servers),
            "usable_tools": len(usable),
            "skipped_servers": registry.skipped_servers,
            "skipped_tools": registry.skipped_tools,
            "errors": [p.line() for p in errors],
            "warnings": sum(1 for p in registry.problems if p.severity == "warning"),
            "snapshot": [
                {"id": s.id, "source": s.source,
                 "tools": [{"name": t.name, "schema_hash": t.schema_hash} for t in s.tools]}
                for s in registry.servers
            ],
        },
        "identity": settings.identity(),  # what --resume and a new run into this folder are checked against
        "tool_names": names.renamed(),
        "funnel": {
            "scenarios": attempts,
            "accepted": accepted,
            "entered": tally.funnel.entered,
            "left": tally.funnel.left,
            "dropped": tally.funnel.reasons,
        },
        "counts": {
            "conversations": accepted,
            "splits": tally.splits,
            "multi_turn": tally.multi_turn,
            "tool_calls": tally.calls,
            "messages": tally.turns,
            "eval_items": tally.eval_items,
            "scored": dict(sorted(tally.labels.items())),
            "scored_subtypes": dict(sorted(tally.subtypes.items())),
        },
        "coverage": {
            "usable_tools": len(usable),
            "used_tools": len(usable) - len(unused),
            "share": round((len(usable) - len(unused)) / len(usable), 4) if usable else 0.0,
            "unused": unused,
        },
        "files": files,
    }
