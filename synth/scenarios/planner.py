"""Scenarios: which server, which tools in which order, how they chain.

Scenario ``i`` depends only on (registry, seed, i), so adding scenarios never changes earlier
ones. The primary tools are interleaved across servers, so the first T scenarios cover all
T usable tools once, whatever the servers' sizes.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Literal

from synth.packs.model import Pack
from synth.records import Link, Registry, Scenario, ServerSpec, ToolSpec, content_hash, make_id
from synth.scenarios.discover import Roles
from synth.scenarios.episodes import Capacity, plan_turns
from synth.simulator import vocab
from synth.simulator.toolnames import kind, singular
from synth.simulator.values.values import words
from synth.wording import intent

DECISION_SHARE = 0.2  # scenarios with a decline or an answer-from-context turn (Settings.decisions)
_ID_WORDS = {"id", "key", "slug", "uuid", "code", "number", "identifier", "ref", "symbol", "ticker"}
_PLACE_WORDS = {"city", "location", "place", "town", "destination"}
_GENERIC = {
    "get",
    "list",
    "search",
    "find",
    "tool",
    "all",
    "by",
    "the",
    "of",
    "for",
    "info",
    "details",
    "data",
    "mcp",
    "api",
}


def rng_for(*parts: object) -> random.Random:
    """Per-item randomness: a fresh stream from the item's own key, never a shared one."""
    return random.Random(int(content_hash(list(parts), 16), 16))


def topic(server: ServerSpec) -> str:
    """The subject a server is about, for choosing realistic search phrases and personas."""
    text = " ".join([server.id, server.name, server.category or "", *(t.name for t in server.tools[:20])]).lower()
    if "database" in text or "sql" in text or "data analysis" in text:
        return "data"
    if any(w in text for w in ("map", "geocod", "location", "place", "route")) and "weather" not in text:
        return "maps"
    best, hits = "general", 0
    for name, keys in vocab.TOPIC_WORDS.items():
        n = sum(text.count(k) for k in keys)
        if n > hits:
            best, hits = name, n
    return best


def _nouns(tool: ToolSpec) -> set[str]:
    return {singular(w) for w in words(tool.name)} - _GENERIC


def links_into(consumer: ToolSpec, server: ServerSpec) -> list[tuple[ToolSpec, str]]:
    """(producer, param) pairs: a list/search tool whose items carry a value ``consumer`` needs."""
    out = []
    for param in consumer.required:
        schema = consumer.properties.get(param)
        if not isinstance(schema, dict) or schema.get("type") not in ("string", "integer", None) or "enum" in schema:
            continue
        pw = set(words(param))
        entity = {singular(w) for w in pw - _ID_WORDS}
        for producer in server.tools:
            if producer.name == consumer.name or kind(producer) != "list":
                continue
            pn = _nouns(producer)
            is_id = bool(pw & _ID_WORDS) or param.endswith("Id")
            if is_id and ((entity and entity & pn) or (not entity and _nouns(consumer) & pn)):
                out.append((producer, param))
            elif pw & _PLACE_WORDS and pn & (_PLACE_WORDS | {"geocode"}):
                out.append((producer, param))
    return out


def decision_of(seed: int, index: int, share: float) -> Literal["decline", "answer"] | None:
    """The no-call turn scenario ``index`` holds, if any: ``share`` of scenarios hold one, half a decline and
    half an answer from context. From its own stream, so every other draw of the scenario stays as it was."""
    draw = rng_for(seed, "decision", index).random()
    if draw >= share:
        return None
    return "decline" if draw < share / 2 else "answer"


class Planner:
    """Precomputes the tool order and chain options of a registry once per run."""

    def __init__(
        self,
        registry: Registry,
        seed: int,
        packs: dict[str, Pack] | None = None,
        decisions: float = DECISION_SHARE,
        left_out: frozenset[str] = frozenset(),
        live: bool = False,
    ):
        """``left_out``: servers no scenario is planned for (synth.scenarios.runplan.left_out: no pack to write
        them from on an offline run without --allow-fallback)."""
        self.registry = registry
        self.left_out = left_out
        self.live = live  # a live run: a server without a pack that is a store discovers, then acts
        self.stores: dict[str, Roles | None] = {}
        self.seed = seed
        self.packs = packs or {}
        self.decisions = decisions
        self.servers = {s.id: s for s in registry.servers}
        self.topics = {s.id: topic(s) for s in registry.servers}
        self.chains: dict[str, list[tuple[ToolSpec, ToolSpec, str]]] = defaultdict(list)
        for server in registry.servers:
            for tool in server.tools:
                for producer, param in links_into(tool, server):
                    entry = (producer, tool, param)
                    self.chains[tool.key].append(entry)
                    self.chains[producer.key].append(entry)
        self.order = self._interleave()
        self.capacity = {name: Capacity.of(pack) for name, pack in self.packs.items() if pack.tools}

    def _packed(self, index: int, rng: random.Random, primary: ToolSpec, server: ServerSpec, pack: Pack) -> Scenario:
        # the round: how often each tool has been the primary one before this scenario
        spent = index // len(self.order)
        tools, links, turns, fail = plan_turns(primary, pack, server, rng, spent, self.capacity.get(server.id))
        names = tuple(tools)
        decision = decision_of(self.seed, index, self.decisions)
        return Scenario(
            id=make_id(
                "scn", self.seed, index, server.id, names, [t for t in turns], fail, *[d for d in [decision] if d]
            ),
            index=index,
            server=server.id,
            tools=names,
            links=tuple(links),
            persona="",
            multi_turn=rng.random() < 0.55,
            turns=tuple(turns),
            fail=tuple(fail),
            decision=decision,
        )

    def _discovered(self, index: int, primary: ToolSpec, server: ServerSpec) -> Scenario | None:
        """A live server without a pack that is a store synth can read (synth.scenarios.discover): the act first,
        then the tools it looks with and creates with, one request (synth.offline.discovered writes it)."""
        if server.id not in self.stores:
            self.stores[server.id] = Roles.of(server)
        roles = self.stores[server.id]
        names = roles.tools(primary) if roles is not None else None
        if names is None:
            return None
        sid = make_id("scn", self.seed, index, server.id, names, "discover")
        return Scenario(id=sid, index=index, server=server.id, tools=names, persona="")

    def _interleave(self) -> list[ToolSpec]:
        queues = []
        for server in sorted(self.registry.servers, key=lambda s: content_hash([self.seed, s.id])):
            if server.id in self.left_out:
                continue
            tools = sorted(server.tools, key=lambda t: content_hash([self.seed, t.key]))
            queues.append(tools)
        order: list[ToolSpec] = []
        depth = 0
        while any(depth < len(q) for q in queues):
            order.extend(q[depth] for q in queues if depth < len(q))
            depth += 1
        return order

    def scenario(self, index: int) -> Scenario:
        if not self.order:
            raise ValueError("no usable tools")
        rng = rng_for(self.seed, "scenario", index)
        primary = self.order[index % len(self.order)]
        server = self.servers[primary.server]
        pack = self.packs.get(server.id)
        if pack is not None and primary.name in pack.tools:
            return self._packed(index, rng, primary, server, pack)
        if self.live and pack is None and server.connection is not None:
            found = self._discovered(index, primary, server)
            if found is not None:
                return found
        # no pack, or none for this tool (the model's entry never passed the checker): the plain fallback
        # serves it, so every usable tool gets its share of conversations
        tools: list[ToolSpec] = [primary]
        links: list[Link] = []
        options = self.chains.get(primary.key, [])
        if options and rng.random() < 0.7:
            producer, consumer, param = rng.choice(options)
            tools = [producer, consumer]
            links = [Link(from_step=0, field=param, to_step=1, param=param)]
        if len(server.tools) > len(tools) and rng.random() < 0.25:
            shared = {p for t in tools for p in t.properties}
            said = {intent(t) for t in tools}  # two tools that do the same thing would be one request said twice
            extras = [
                t for t in server.tools if t not in tools and shared & set(t.properties) and intent(t) not in said
            ]
            if extras:
                tools.append(rng.choice(sorted(extras, key=lambda t: t.name)))
        persona_pool = vocab.PERSONAS.get(self.topics[server.id], vocab.PERSONAS["general"])
        persona = rng.choice(persona_pool) if rng.random() < 0.5 else ""
        names = tuple(t.name for t in tools)
        multi = rng.random() < 0.3
        decision = decision_of(self.seed, index, self.decisions)
        return Scenario(
            id=make_id("scn", self.seed, index, server.id, names, *[d for d in [decision] if d]),
            index=index,
            server=server.id,
            tools=names,
            links=tuple(links),
            persona=persona,
            multi_turn=multi,
            decision=decision,
        )
