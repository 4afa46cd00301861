"""Results from a server pack: its world where the tool touches one, else its templates; either way
consistent with the arguments and with earlier results (one id, one description; ``limit`` items)."""

from __future__ import annotations

import random
import re
from typing import Any

from synth.packs.draw import draw
from synth.packs.model import Pack, ToolPack
from synth.packs.template import Expander, Missing
from synth.packs.world import WorldState, serve
from synth.records import ToolSpec
from synth.runtime.base import ToolResult, ToolRuntime
from synth.runtime.identities import Identities, fit_limit
from synth.stages.consistency import OWNER_KEYS


class PackRuntime:
    """One scenario's calls answered from ``pack``; tools it has no entry for go to ``fallback``.

    ``fail`` holds the call numbers that get one of the tool's real failures instead of a result.
    ``world`` is the conversation's copy of the pack's world (None for a template-only pack): a tool
    with a ``world`` entry is answered from it. A detail call about an item an earlier list returned
    repeats that item's facts, a record whose id an earlier result described keeps that description,
    and a list follows the call's ``limit``, so a conversation never contradicts itself.
    """

    waits = False

    def __init__(
        self,
        pack: Pack,
        rng: random.Random,
        fallback: ToolRuntime,
        fail: frozenset[int] = frozenset(),
        world: WorldState | None = None,
    ):
        self.pack, self.rng, self.fallback, self.fail, self.world = pack, rng, fallback, fail, world
        self.step = 0
        self.items: list[dict[str, Any]] = []  # list items of earlier results
        self.said = ""  # the text of earlier results
        self.identities = Identities(world)
        self.owner: str | None = None  # whose records this conversation is about (OWNER_KEYS)

    def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> ToolResult:
        step, self.step = self.step, self.step + 1
        entry = self.pack.tools.get(tool.name)
        if entry is None:
            return self.fallback.call(tool, arguments)
        known = {p: s["default"] for p, s in tool.properties.items() if isinstance(s, dict) and "default" in s}
        defaults = set(known)
        expander = Expander(self.rng, world=self.world)
        for param, values in entry.values.items():  # what the tool used for parameters the call left out
            if param not in arguments and param not in known:
                try:
                    known[param] = draw(values, self.rng, expander)
                except Missing:
                    continue
        expander.args = {**known, **arguments}
        if step in self.fail and entry.failures:
            # a failure planned for the scenario; on a tool with a world, a "not found" for what an earlier result
            # showed would contradict it (memory 90 read back, then "Memory with ID 90 not found"): then only the
            # server's own failure (an outage), or none
            shown = entry.world is not None and self.world is not None and self._shown(arguments)
            own = ("internal_error",) if shown else None
            if own is None or any(f.label in own for f in entry.failures):
                return self._failure(entry, expander, labels=own)
        template = self.rng.choice(entry.results)
        unsent = {p: _empty(s) for p, s in tool.properties.items() if p not in arguments and p not in defaults}
        # a model's call may leave out a value a template shows and the pack has no value for: another of the
        # tool's templates, else the schema simulator (the offline author always gives what its templates need)
        for shape in (template, *(t for t in entry.results if t is not template)):
            try:
                return self._answer(entry, shape, expander, arguments, unsent)
            except Missing:
                continue
        return self.fallback.call(tool, arguments)

    def _answer(
        self, entry: ToolPack, template: Any, expander: Expander, arguments: dict[str, Any], unsent: dict[str, Any]
    ) -> ToolResult:
        if entry.world is not None and self.world is not None:
            served = serve(self.world, entry.world, template, expander.args, arguments, unsent)
            if served.missing is not None:  # an id the world does not hold: the tool's own "not found"
                return self._failure(entry, expander, served.missing)
            data = self.identities.learn(served.data, arguments)
        else:
            data = expander.value(template)
            data = fit_limit(data, arguments, template, expander)
            data = self.identities.settle(_agree(data, arguments, self.items), arguments)
        self.items.extend(_items(data))
        result = ToolResult.of(self._owned(data, arguments, template), "pack")
        self.said += "\n" + result.content
        return result

    def _owned(self, data: Any, arguments: dict[str, Any], template: Any) -> Any:
        """The result with its owner (``user_id``...) the conversation's customer: the first one an argument or
        a result named. A template that draws an owner per call ({pick:...}) gets it from the conversation: one
        conversation is about one person's records, so an order looked up after the customer was identified is
        that customer's. An owner the call names, or the template derives from the call ({table:...}: the
        account an email looks up), stays (the result is about whom it asked for)."""
        named = [arguments[k] for k in OWNER_KEYS if isinstance(arguments.get(k), str)]
        self.owner = self.owner or next(iter(named), None)
        if not isinstance(data, dict):
            return data
        for key in OWNER_KEYS:
            value = data.get(key)
            drawn = isinstance(template, dict) and str(template.get(key, "")).startswith("{pick:")
            if not isinstance(value, str) or value in named or not drawn:
                self.owner = self.owner or (value if isinstance(value, str) else None)
                continue
            if self.owner is None:
                self.owner = value
            elif value != self.owner:
                data = {**data, key: self.owner}
        return data

    def close(self) -> None:
        self.fallback.close()

    def _shown(self, arguments: dict[str, Any]) -> bool:
        """Whether a value the call names (an id, a name) was in an earlier result of this conversation."""
        return any(
            re.search(rf"(?<![\w-]){re.escape(str(v))}(?![\w-])", self.said)
            for v in arguments.values()
            if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) > 1
        )

    def _failure(
        self, entry: ToolPack, expander: Expander, missing: str | None = None, labels: tuple[str, ...] | None = None
    ) -> ToolResult:
        """One of the tool's failures (of ``labels``); for ``missing`` (an id the world lacks) a not-found one,
        never the server's own outage."""
        if missing is not None:
            labels = ("unable_to_accomplish", "input_error")
        failures = [f for f in entry.failures if labels is None or f.label in labels]
        if not failures:
            kind = entry.world.entity if entry.world else "item"
            return ToolResult.of(
                {"error": f"{kind} {missing!r} not found"}, "pack", is_error=True, outcome="unable_to_accomplish"
            )
        failure = self.rng.choice(failures)
        return ToolResult.of(expander.value(failure.result), "pack", is_error=True, outcome=failure.label)


def _empty(schema: Any) -> Any:
    """What a service shows for a parameter nobody set that has no default: nothing, in the parameter's type."""
    kind = schema.get("type") if isinstance(schema, dict) else None
    return {} if kind == "object" else [] if kind == "array" else None


def _items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        return [x for v in data.values() if isinstance(v, list) for x in v if isinstance(x, dict)]
    if isinstance(data, list):
        return [x for x in data if isinstance(x, dict)]
    return []


IDENTITY = re.compile(
    r"(?i:(^|_)(id|uuid|key|slug|name|fullname|title|login|username|namespace|email|url|path|symbol|ticker|code)$)"
    r"|[a-z](Id|ID|Name|Key|Slug|Url|URL)$"
    r"|(?i:^(?:content|place|item|product|post|page|doc|stop|route|object)id$)"  # Korea Tourism's contentid
)


def _identifies(key: str) -> bool:
    """Whether an item's field names the item (an id, a slug, a title), rather than describing it: a detail
    call about "markdown" docs is not about the one earlier doc whose format was markdown."""
    return bool(IDENTITY.search(key))


def _agree(data: Any, arguments: dict[str, Any], items: list[dict[str, Any]]) -> Any:
    """Copy the facts of the earlier item this call is about (matched by an argument value) into the result."""
    # only values that can identify an item (an id, a name), never a small number such as a page or an index
    values = {
        str(v)
        for v in arguments.values()
        if (isinstance(v, str) and len(v) >= 3) or (isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 1000)
    }
    item = next(
        (
            x
            for x in items
            if any(str(v) in values for k, v in x.items() if isinstance(v, (str, int)) and _identifies(k))
        ),
        None,
    )
    if item is None or not isinstance(data, dict):
        return data
    target = data
    if len(data) == 1 and isinstance(next(iter(data.values())), dict):
        target = next(iter(data.values()))
    for key, value in item.items():
        if key in target and isinstance(value, (str, int, float)) and not isinstance(target[key], (dict, list)):
            target[key] = value
    return data
