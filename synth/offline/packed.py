"""The offline author with a server pack: a conversation as a person would have it.

One to three requests (the scenario's ``turns``), each in the person's own words from the pack's
goals. A required value the request leaves out is asked for and given in a later turn, sometimes
with a change of mind; independent calls go out together; a chained call takes its value from the
earlier result; each request ends with an answer written from its result. Calls go through a
``ToolRuntime``, so the same author writes over pack results, the simulator or a live server.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, cast

from synth.offline import decisions as D
from synth.offline import language
from synth.packs import items
from synth.packs.draw import arguments, goal_params, phrase_of
from synth.packs.model import Draw, Feed, Goal, Pack, Pool, ToolPack, goal_of
from synth.packs.template import Expander, Missing, answer_slot, fed, fill, get_path, spoken
from synth.packs.world import WorldState, key_of
from synth.records import (
    Decision,
    Message,
    Plan,
    Query,
    Scenario,
    ServerSpec,
    ToolCall,
    ToolSpec,
    Trajectory,
    content_hash,
)
from synth.runtime.base import ToolResult, ToolRuntime
from synth.scenarios.made import made
from synth.scenarios.planner import rng_for
from synth.scenarios.system_prompts import opening
from synth.stages.consistency import OWNER_KEYS
from synth.stages.gates import schema_error
from synth.stages.reader import credential, internal, reads
from synth.wording import PROMISE, timed

GREET = (
    "Hi! ",
    "Hey! ",
    "Hello. ",
    "Hi there. ",
    "Good morning. ",
    "Hey there! ",
    "Morning! ",
    "Hi, quick one. ",
    "Hello there. ",
    "Hey, quick question. ",
    "Good afternoon. ",
    "Hiya! ",
)
P_GREET = 0.05  # people mostly start with the need itself; a stock greeting must not become the data's opening
# how a later request opens: mostly with the need itself; now and then a word for the last answer, none of
# them common enough to be a tic (realism.py counts each one's share of conversations)
P_FOLLOW = 0.3
FOLLOW = (
    "Thanks! ",
    "Great, thanks. ",
    "Perfect. ",
    "That helps. ",
    "Thank you. ",
    "Nice. ",
    "OK. ",
    "Got it. ",
    "Cool. ",
    "Good to know. ",
    "Makes sense. ",
    "Appreciated. ",
    "Right. ",
    "Interesting. ",
    "Cheers. ",
    "Okay, good. ",
    "Alright. ",
    "Ah, OK. ",
    "Useful, thanks. ",
    "Brilliant. ",
)
SAY = ("{value}.", "It's {value}.", "{value}, please.", "Use {value}.", "Let's go with {value}.")
CHANGE = (
    "Actually, make that {new} instead of {old}.",
    "Sorry, I meant {new}, not {old}.",
    "Wait, use {new} rather than {old}.",
    "On second thought, {new} instead of {old}.",
)
# two requests in one message: mostly just one after the other, as people write them
P_JOIN = 0.3
JOIN = (
    " Separately: ",
    " One more thing. ",
    " Second thing: ",
    " Also: ",
    " Oh, and one more. ",
    " Plus: ",
    " Another thing: ",
    " And one more: ",
    " While you're at it: ",
    " On another note: ",
    " Next: ",
    " Unrelated: ",
    " After that: ",
    " And: ",
)
POINT = (
    "That's {value} again.",
    "Still {value}.",
    "Use the same {noun}, {value}.",
    "Same one as before: {value}.",
    "({value} again.)",
    "Same {noun} as before ({value}).",
    "Same {noun} as last time, {value}.",
)
P_CHANGE = 0.25
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=;)\s+")


def unpromised(text: str) -> str:
    """The request without a sentence that announces a value to come ("I'll send the slug."): a person leaves
    a value out because they did not think of it, and the question that follows is cued by the gap, not by
    a phrase. A text that is all promise stays as it is."""
    parts = _SENTENCE.split(text)
    kept = [p for p in parts if not PROMISE.search(p)]
    if not kept or len(kept) == len(parts):
        return text
    out = " ".join(kept).strip()
    return out[:-1] + "." if out.endswith(";") else out


@dataclass
class _Request:
    """One user request: its text, the values it states, and what it leaves for the assistant to ask."""

    text: str
    steps: tuple[int, ...]
    args: dict[int, dict[str, Any]]
    withheld: list[tuple[int, str]]
    stated: list[tuple[int, str]] = field(default_factory=list)
    # the last step of each goal -> the goal and its steps: a goal with items is answered from them, the
    # first step of a chain too ({first:r.path}), so that step gets no answer of its own
    goals: dict[int, tuple[Goal, tuple[int, ...]]] = field(default_factory=dict)


_ENDS = re.compile(
    r"(?i)(^|_)(from|to|source|target|src|dst|dest|origin|destination|in|out|input|output)(_|$)"
    r"|(From|To|Source|Target|In|Out)(?=[A-Z]|$)"
)


def _same_ends(args: dict[str, Any]) -> str | None:
    """Two ends of one move that got the same value (from_currency and to_currency both EUR, ext_in and
    ext_out both pdf): a request no one makes. Names the pair, or None."""
    ends: dict[str, tuple[str, Any]] = {}
    for param, value in args.items():
        stem = _ENDS.sub("_", param).strip("_").lower()
        if stem == param.lower() or not isinstance(value, str):
            continue
        if stem in ends and ends[stem][1] == value:
            return f"{ends[stem][0]}={param}"
        ends.setdefault(stem, (param, value))
    return None


class PackAuthor:
    """Writes one scenario's conversation from ``pack``, calling tools through ``runtime``."""

    def __init__(self, scenario: Scenario, server: ServerSpec, pack: Pack, seed: int, runtime: ToolRuntime):
        self.scenario, self.server, self.pack, self.runtime = scenario, server, pack, runtime
        self.rng = rng_for(seed, "pack", scenario.id)
        world = getattr(runtime, "world", None)  # values drawn from the world the results come from
        if world is None and pack.world is not None:  # a live server: the world it was seeded from
            world = WorldState.fresh(pack.world, seed, scenario.id)
        self.expander = Expander(self.rng, world=world)
        tools = [server.tool(n) for n in scenario.tools]
        assert all(tools), "scenario names a tool the server does not have"
        self.tools = cast(list[ToolSpec], tools)
        self.links = {lk.to_step: lk for lk in scenario.links}
        self.args: dict[int, dict[str, Any]] = {}
        self.fresh = False  # a request that would repeat a call: no value reused from that tool's earlier call
        self.results: dict[int, ToolResult] = {}
        # a read's call -> the step that made it, since the last write: a later request that needs the same
        # listing reads the result already in the conversation instead of calling again (the served step)
        self.made: dict[str, int] = {}
        self.served: dict[int, int] = {}
        self.messages: list[Message] = opening(server, seed, scenario.id)
        self.withheld: list[str] = []
        self.used: set[str] = set()  # the goals this conversation has asked
        self.composing: list[dict[str, Any]] = []  # the values the message's earlier parts said
        self.first = ""
        # the no-call turns (synth.offline.decisions) draw from their own stream: the rest reads as without them
        self.decisions: list[Decision] = []
        self.drng = rng_for(seed, "decision", scenario.id)
        self.opener: str | None = None  # how the first request opens after a decline

    def entry(self, step: int) -> ToolPack:
        return self.pack.tools[self.scenario.tools[step]]

    def write(self) -> tuple[Query, Plan, Trajectory]:
        declined, where = self._declined()
        offer = list({t.name: t for t in self.tools}.values())
        if declined is not None and where in ("first", "alone"):
            self.decisions.append(D.add_decline(self.messages, declined, offer, self.drng, self._guess_args))
            self.first = self.messages[-2].content or ""
            self.opener = self.drng.choice(D.AFTER_NO)
        if where != "alone":
            for number, steps in enumerate(self.scenario.turns or ((0,),)):
                self._turn(number, steps)
        if declined is not None and where == "last":
            opener = self.drng.choice(D.ALSO)
            self.decisions.append(D.add_decline(self.messages, declined, offer, self.drng, self._guess_args, opener))
        if self.scenario.decision == "answer":
            answer = D.add_answer(self.messages, self.drng, self.pack.tools.get, self.drng.choice(FOLLOW))
            self.decisions += [answer] if answer is not None else []
        return self._records(where == "alone" and declined is not None)

    def _declined(self) -> tuple[D.Declined | None, str | None]:
        """The request to decline and where it goes, when the scenario holds one and the server has any."""
        if self.scenario.decision != "decline":
            return None, None
        options = D.declines_for(self.server.tools, self.server, self.pack)
        if not options:
            return None, None
        declined = self.drng.choice(options)
        return declined, D.place(self.drng, declined)

    def _guess_args(self, tool: ToolSpec) -> dict[str, Any]:
        """Arguments a model reaching for ``tool`` would make up: drawn from the pack, as a guess would be."""
        entry = self.pack.tools.get(tool.name)
        if entry is None:
            return {}
        try:
            return arguments(entry, tool.required, self.drng, Expander(self.drng), {})
        except Missing:
            return {}

    def _guess(self, step: int, param: str, args: dict[str, Any]) -> ToolCall | None:
        """The call a model would make with ``param`` guessed instead of asked: another value of the pack's."""
        if step in self.links or param not in self.entry(step).values:
            return None
        for _ in range(4):
            try:
                value = arguments(self.entry(step), [param], self.drng, Expander(self.drng), {}).get(param)
            except Missing:
                return None
            if value is not None and value != args.get(param):
                guessed = {**args, param: value}
                cid = f"call_{content_hash([self.scenario.id, step, 'guess'], 12)}"
                return ToolCall(id=cid, name=self.scenario.tools[step], arguments=guessed)
        return None

    def _records(self, alone: bool) -> tuple[Query, Plan, Trajectory]:
        tools = self.scenario.tools
        kept = [i for i in range(len(tools)) if not alone and i not in self.served]  # each call made once
        place = {i: k for k, i in enumerate(kept)}

        def after(i: int) -> tuple[int, ...]:  # the step a chained call reads from (the one that served it)
            source = self.served.get(self.links[i].from_step, self.links[i].from_step) if i in self.links else None
            return (place[source],) if source in place else ()

        steps = [(tools[i], self.args.get(i, {}), after(i)) for i in kept]
        key = [(n, self.args.get(i)) for i, n in enumerate(tools)]  # every tool, a declined request's too
        return made(
            self.scenario.id,
            self.first,
            steps,
            self.messages,
            withheld=self.withheld,
            decisions=self.decisions,
            plan_key=key,
        )

    # --- one request ---------------------------------------------------------------------

    def _turn(self, number: int, steps: tuple[int, ...]) -> None:
        request = self._compose(steps)
        if number == 0:
            opener = self.rng.choice(GREET) if self.rng.random() < P_GREET else ""
            opener = opener if self.opener is None else self.opener
        else:
            opener = self.rng.choice(FOLLOW) if self.rng.random() < P_FOLLOW else ""
        text = opener + request.text
        if number == 0:
            self.first = text
        self.messages.append(Message(role="user", content=text))
        # a value asked for once holds for every request of the turn that needs one of its kind (the pack draws it
        # the same way): "Which coin?" "Monero." is not asked again; an object's id and a job's id are two asks
        # two writes are two things ("delete one of my notes ... and update one": two notes, two asks)
        answered: dict[str, tuple[Any, Any, int]] = {}
        for k, (step, param) in enumerate(request.withheld):
            self.withheld.append(f"{step}.{param}")
            kind = self.entry(step).values.get(param)
            kind = kind.pool if isinstance(kind, Pool) else kind  # the values drawn, however each is phrased
            had = answered.get(param)
            if (
                had is not None
                and (had[1] == kind or credential(param))  # one token opens every call of the session
                and self._holds(step, param, had[0])
                and (credential(param) or not (self._writes(step) or self._writes(had[2])))
            ):
                request.args[step][param] = had[0]
                continue
            entry = self.entry(step)
            question = self._asked(entry, param, request.args[step])
            guess = self._guess(step, param, request.args[step])
            self.decisions.append(D.ask_decision(len(self.messages), guess, param))
            self.messages.append(Message(role="assistant", content=question))
            value = request.args[step][param]
            answered[param] = (value, kind, step)
            said = self._said(entry, param, value)
            reply = fill(self.rng.choice(entry.say.get(param) or SAY), lambda s, said=said: said)  # type: ignore[misc]
            if k == 0 and self.scenario.multi_turn and self.rng.random() < P_CHANGE:
                reply = self._change(request, reply)
            self.messages.append(Message(role="user", content=reply))
        self._call(request)

    def _names_entity(self, step: int, param: str) -> bool:
        """Whether ``param`` of a writing step names one of the world's entities (an id it draws from the world)."""
        return self._writes(step) and isinstance(self.entry(step).values.get(param), Draw)

    @staticmethod
    def _session(param: str) -> bool:
        """Whether ``param`` holds for the whole session (a token, the customer), whatever the request is about."""
        return param in OWNER_KEYS or credential(param)

    def _writes(self, step: int) -> bool:
        """Whether the step's tool changes its world (creates, updates or deletes an entity)."""
        touch = self.entry(step).world
        return touch is not None and touch.op in ("create", "update", "delete")

    def _said(self, entry: ToolPack, param: str, value: Any) -> str:
        return phrase_of(entry.values.get(param), value) or spoken(value)

    def _change(self, request: _Request, reply: str) -> str:
        """The person changes one value they stated: the earlier value stays in the conversation."""
        for step, param in request.stated:
            values = self.entry(step).values.get(param)
            old = request.args[step][param]
            if any(param in case for case in self.entry(step).cases):
                continue  # a value of a case agrees with the others (and with the result written for them)
            if not isinstance(values, list) or not isinstance(old, str) or len(values) < 2:
                continue
            new = self.expander.value(self.rng.choice([v for v in values if v != old] or [old]))
            if new == old or not isinstance(new, str) or new in request.args[step].values():  # not EUR to EUR
                continue
            request.args[step][param] = new
            return f"{reply} " + self.rng.choice(CHANGE).format(new=new, old=old)
        return reply

    def _compose(self, steps: tuple[int, ...]) -> _Request:
        """The request for ``steps``; a goal whose slots these values cannot fill gives way to another."""
        self.fresh = False
        for _ in range(3):
            try:
                request = self._compose_once(steps)
            except Missing:
                continue
            if not self._repeats(request):
                return request
            self.fresh = True  # the same call again ("Same id as before"): a value of its own this time
        return self._compose_once(steps)  # a fourth try; Missing again is the scenario's counted failure

    def _repeats(self, request: _Request) -> bool:
        """Whether a call of the request is one already made with the same arguments, no write since."""
        made: set[str] = set()
        for step, args in self.args.items():
            name = self.scenario.tools[step]
            key = json.dumps([name, args], sort_keys=True)
            made = made | {key} if reads(name) else set()
        return any(json.dumps([self.scenario.tools[s], a], sort_keys=True) in made for s, a in request.args.items())

    def _compose_once(self, steps: tuple[int, ...]) -> _Request:
        self.composing = []
        if len(steps) == 1 and steps[0] in self.links and self.links[steps[0]].from_step < steps[0]:
            return self._then(steps[0])
        chained = len(steps) == 2 and steps[1] in self.links
        if chained:
            feed = self._feed(steps[0], steps[1])
            goals = [goal_of(g) for g in feed.goals] if feed else []
            if goals:
                return self._fill(self._pick(goals, steps), steps)
            return self._fill(self._pick([goal_of(g) for g in self.entry(steps[0]).goals], steps[:1]), steps)
        parts = []
        for s in steps:  # a part reuses what an earlier part of the message said ("in acme/api ... and its PRs")
            parts.append(self._fill(self._pick([goal_of(g) for g in self.entry(s).goals], (s,)), (s,)))
            said = {p: parts[-1].args[step][p] for step, p in parts[-1].stated}  # not what it left to ask
            self.composing = [*self.composing, said]
        merged = parts[0]
        for other in parts[1:]:
            merged.text += (self.rng.choice(JOIN) if self.rng.random() < P_JOIN else " ") + other.text
            merged.steps += other.steps
            merged.args.update(other.args)
            merged.withheld += other.withheld
            merged.stated += other.stated
            merged.goals.update(other.goals)
        # a token or the customer a later part states holds for the parts before it: one message gives one token
        # ("Schedule ... Here's my token: T. Show me ..." is not asked for a token, nor answered with a second one)
        stated = {p: merged.args[s][p] for s, p in merged.stated if credential(p) or p in OWNER_KEYS}
        for s, p in list(merged.withheld):
            if p in stated and self._holds(s, p, stated[p]):
                merged.args[s][p] = stated[p]
                merged.withheld.remove((s, p))
        return merged

    def _then(self, step: int) -> _Request:
        """A request on what an earlier request's result showed (a feed's ``then``): the value is read from that
        result now, so the person can name what they saw. A result that holds none (an error) leaves a request
        of the tool's own."""
        link, feed = self.links[step], self._feed(self.links[step].from_step, step)
        try:
            value = get_path(self.results[link.from_step].data, link.field, self.rng)
        except (Missing, KeyError):
            value = None
        if feed is None or not feed.then or value is None:
            del self.links[step]
            return self._fill(self._pick([goal_of(g) for g in self.entry(step).goals], (step,)), (step,))
        given = {link.param: fed(value, self.tools[step].properties.get(link.param))}
        return self._fill(self._pick([goal_of(g) for g in feed.then], (step,)), (step,), given)

    def _feed(self, producer: int, consumer: int) -> Feed | None:
        link = self.links[consumer]
        return next(
            (
                f
                for f in self.entry(producer).feeds
                if f.to == self.scenario.tools[consumer] and f.param == link.param and f.path == link.field
            ),
            None,
        )

    def _holds(self, step: int, param: str, value: Any) -> bool:
        """Whether a value the person gave for an earlier step holds for ``param`` of ``step``: valid for its
        schema, and one of the pack's values when the pack lists the only ones its results are written for
        (a base currency of EUR: a USD given for another tool would not fit the EUR rates)."""
        tool = self.tools[step]
        if schema_error({"type": "object", "properties": {param: tool.properties[param]}}, {param: value}) is not None:
            return False
        pool = self.entry(step).values.get(param)
        world = self.expander.world
        if isinstance(pool, Draw) and world is not None:  # a story's id, not a comment's that shares the name
            name = pool.field or world.spec.entities[pool.entity].id
            return any(key_of(e.get(name, "")) == key_of(value) for e in world.entities(pool.entity))
        pool = pool.pool if isinstance(pool, Pool) else pool
        closed = isinstance(pool, list) and all(not (isinstance(v, str) and "{" in v) for v in pool)
        return not closed or value in pool  # type: ignore[operator]

    def _user_said(self, value: Any) -> bool:
        """Whether the person said ``value`` in an earlier message (else a tool returned it)."""
        said = " ".join(m.content or "" for m in self.messages if m.role == "user").lower()
        return str(value).lower() in said or spoken(value).lower() in said

    def _asked(self, entry: ToolPack, param: str, args: dict[str, Any]) -> str:
        """The question for ``param``: the pack's, its slots filled from the step's other values ("Which database is
        movies in?"), or a plain one when the pack has none or it names a value the step lacks."""
        plain = f"Sure. Which {' '.join(language.words(param))} should I use?"
        if (question := entry.ask.get(param)) is None:
            return plain

        def slot(name: str) -> str:
            if name == param or name not in args:
                raise Missing(name)
            return self._said(entry, name, args[name])

        try:
            return fill(question, slot)
        except Missing:
            return plain

    def _pick(self, goals: list[Goal], steps: tuple[int, ...]) -> Goal:
        """A goal; when the scenario wants a value asked for, prefer goals that leave a required value out.

        A goal that promises a value ("I'll tell you which table") is not picked when that value is one the
        person already gave: it would not be asked for, and the promise would go unkept."""
        known = {p for a in self.args.values() for p in a}

        def left_out(goal: Goal) -> set[str]:
            said = set(goal_params(goal))
            return {
                p
                for s in steps
                for p in self.tools[s].required
                if p not in said and not (s in self.links and self.links[s].param == p)
            }

        goals = [g for g in goals if g.text not in self.used] or goals  # no request twice in one conversation
        # a token the person gave already is not pasted again ("Here's my token: ..." once a conversation)
        given = {p for a in [*self.args.values(), *self.composing] for p in a if credential(p)}
        goals = [g for g in goals if not set(goal_params(g)) & given] or goals
        # a goal that leaves out a value a tool returned in an earlier turn would reuse it unsaid (the person cannot
        # be asked for it): one that says it comes first
        returned = {p for a in self.args.values() for p, v in a.items() if not credential(p) and not self._user_said(v)}
        goals = [g for g in goals if not left_out(g) & returned] or goals
        gaps = [(g, left_out(g)) for g in goals]
        kept = [(g, gap) for g, gap in gaps if not (gap and gap <= known and PROMISE.search(g.text))] or gaps
        preferred = [g for g, gap in kept if bool(gap) == self.scenario.multi_turn]
        goal = self.rng.choice(preferred or [g for g, _ in kept])
        self.used.add(goal.text)
        return goal

    def _fill(self, goal: Goal, steps: tuple[int, ...], given: dict[str, Any] | None = None) -> _Request:
        said = goal_params(goal)
        owner: dict[str, int] = {}
        for param in said:  # a slot belongs to the first step that has the parameter
            owner[param] = next((s for s in steps if param in self.tools[s].properties), steps[0])
        args: dict[int, dict[str, Any]] = {}
        withheld: list[tuple[int, str]] = []
        for s in steps:
            tool = self.tools[s]
            fed = self.links[s].param if s in self.links else None
            mine = [p for p in said if owner[p] == s]
            needed = [p for p in tool.properties if (p in tool.required or p in mine) and p != fed]
            fixed = {p: v for p, v in goal.set.items() if owner.get(p) == s}
            # a value the person already gave (an account, a token, the item of the first step) holds for the
            # next step too, unless this request states a new one; same name and a value valid here
            # this request's own values first (one entity per slot: "the Bergen article ... its history section"
            # is Bergen's), then the latest turn's; a request that would repeat a call takes none of that tool's
            # values but the session's (a token, the customer)
            # (a value the person said in an earlier turn is not carried: the request that leaves it out is asked
            # about, and the person answers afresh: "Which team?" may be another team this time)
            earlier_turns = [
                {
                    p: v
                    for p, v in a.items()
                    if p in OWNER_KEYS
                    or credential(p)
                    or not (self._user_said(v) or (self.fresh and self.tools[s].name == tool.name))
                }
                for s, a in reversed(self.args.items())
            ]
            # a write takes no entity from another request (a note just deleted is not the one "out of date")
            # an earlier part about another entity lends nothing: "a PR in kestrel-data/ml-features ... a repository in
            # the quarry-analytics workspace" does not make the second ml-features (its slug is asked for)
            alike = [c for c in self.composing if not {p for p in c if p in mine and not self._session(p)}]
            apart = [*alike, *earlier_turns]
            for earlier in [*({"": a} for a in args.values()), *({"apart": a} for a in apart)]:
                (where, values), *_ = earlier.items()
                fixed.update(
                    {
                        p: v
                        for p, v in values.items()
                        if p in needed
                        and (p not in mine or p in OWNER_KEYS or credential(p))  # one customer, one token
                        and p not in fixed
                        and self._holds(s, p, v)
                        and not (where and p not in OWNER_KEYS and self._names_entity(s, p))
                    }
                )
            args[s] = arguments(self.entry(s), needed, self.rng, self.expander, fixed) | (given or {})
            if (pair := _same_ends(args[s])) is not None:  # EUR into EUR: another draw, or another goal
                raise Missing(pair)
            # given in this message, or what the session holds (a token) or a tool returned: not asked again; a
            # value the person gave in an earlier turn is asked for when the request leaves it out ("Which map?"),
            # so it is said where the request needs it, never pointed at ("Same map as before (100347019).")
            shared = {p for k, a in args.items() if k != s for p in a} | set(goal.set)
            shared |= {p for a in self.composing for p in a}
            shared |= {p for a in earlier_turns for p in a}  # a token, the customer, what a tool returned
            shared &= set(fixed)
            withheld += [
                (s, p)
                for p in tool.required
                if p in args[s] and p not in mine and p != fed and p not in shared and not internal(tool, p)
            ]

        def slot_text(slot: str) -> str:
            if slot not in owner or slot not in args[owner[slot]]:
                raise Missing(slot)
            return self._said(self.entry(owner[slot]), slot, args[owner[slot]][slot])

        text = unpromised(fill(goal.text, slot_text))
        stated = [(owner[p], p) for p in said if p in args[owner[p]] and p not in goal.set and p not in (given or {})]
        return _Request(
            text=text, steps=steps, args=args, withheld=withheld, stated=stated, goals={steps[-1]: (goal, steps)}
        )

    # --- calls and the answer ----------------------------------------------------------------

    def _call(self, request: _Request) -> None:
        inside = set(request.steps)
        first = tuple(s for s in request.steps if not (s in self.links and self.links[s].from_step in inside))
        later = [s for s in request.steps if s not in first]
        for batch in (first, *((s,) for s in later)):
            calls = []
            for s in batch:
                args = dict(request.args[s])
                if s in self.links and self.links[s].param not in args:  # a value read at the request keeps
                    link = self.links[s]
                    try:
                        value = get_path(self.results[link.from_step].data, link.field, self.rng)
                        args[link.param] = fed(value, self.tools[s].properties.get(link.param))
                    except (Missing, KeyError):
                        pass  # the gates reject the call with its reason: a missing value is never invented
                self.args[s] = args
                key = json.dumps([self.scenario.tools[s], args], sort_keys=True)
                if key in self.made:  # the same read, no write since: its result is in the conversation
                    self.served[s] = self.made[key]
                    self.results[s] = self.results[self.made[key]]
                    continue
                calls.append(
                    ToolCall(
                        id=f"call_{content_hash([self.scenario.id, s], 12)}",
                        name=self.scenario.tools[s],
                        arguments=args,
                    )
                )
            if not calls:
                continue
            self.messages.append(Message(role="assistant", tool_calls=tuple(calls)))
            for s, call in zip([s for s in batch if s not in self.served], calls):
                self.results[s] = self.runtime.call(self.tools[s], call.arguments)
                self.messages.append(self.results[s].message(call.id))
                key = json.dumps([call.name, call.arguments], sort_keys=True)
                self.made = {**self.made, key: s} if reads(call.name) else {key: s}  # the same write again: done
        # every step is answered, a chain's first one too: "list our tables, then dump orders" asked for both;
        # what only repeats, or offers what the next answer gives, is left out (language.told)
        answers = {s: self._answer(s, request.goals.get(s)) for s in request.steps}
        covered = {s for last, (_, span) in request.goals.items() if answers[last][1] for s in span[:-1]}
        answer = language.told([answers[s][0] for s in request.steps if s not in covered], request.text)
        self.messages.append(Message(role="assistant", content=timed(answer)))

    def _answer(self, step: int, goal: tuple[Goal, tuple[int, ...]] | None = None) -> tuple[str, bool]:
        """The answer to one step: from the items its goal asks for (each said from the result, or why not;
        ``{first:...}`` from the result of the chain's first step), else one of the tool's answers whose slots
        the result fills. True with an answer from the items."""
        result, args, entry = self.results[step], self.args[step], self.entry(step)

        def lookup(slot: str) -> str:
            if slot.startswith("first:") and goal is not None:
                first = goal[1][0]
                return answer_slot(slot[len("first:") :], self.args[first], self.results[first].data)
            return answer_slot(slot, args, result.data)

        options = [f.answer for f in entry.failures] if result.is_error else list(entry.answers)
        self.rng.shuffle(options)
        if goal is not None and goal[0].items and not result.is_error:
            try:
                return items.answer(goal[0], lookup, args, result.data), True
            except Missing:
                pass  # the frame names a value this result lacks: the tool's answers
        for text in options:
            try:
                return fill(text, lookup), False
            except Missing:
                continue
        return language.reply(self.tools[step], args, result), False


def write_packed(
    scenario: Scenario, server: ServerSpec, pack: Pack, seed: int, runtime: ToolRuntime
) -> tuple[Query, Plan, Trajectory]:
    return PackAuthor(scenario, server, pack, seed, runtime).write()
