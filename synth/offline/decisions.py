"""The turns whose right move is no call, as the offline author writes them.

- **decline**: a request near the server's domain that none of its tools serves (a weather server asked
  to book a taxi); the assistant says it cannot, and names what it can do instead. A pack may author its
  server's declines (``declines``); otherwise they come from a pool by the server's topic, each kept only
  when no tool of the server has a word the request needs (a server with a ``book`` tool is never asked
  to book and declined); general requests (set a reminder, print this) only when no near one fits.
- **answer**: a follow-up the conversation already answers (which of the results has the highest price,
  what the humidity was): the assistant answers from the earlier result; calling again is wrong. A pack
  may author follow-ups per tool (``followups``); otherwise one is read off the result's own fields.
- **ask**: a required value the user left out (synth.offline.writer, synth.offline.packed); what a guess
  would have been is kept beside it.

Each gives a ``Decision`` record with the wrong call a model might make there, so the preference pairs
and the judge rows (synth.export.preference) have their rejected side.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from synth.offline.followups import followup
from synth.packs.model import Pack, ToolPack
from synth.records import Decision, Message, ToolCall, ToolSpec, content_hash
from synth.scenarios.planner import topic
from synth.wording import VERBS, words


@dataclass(frozen=True)
class Declined:
    """A request no tool serves: the text, what it asks for as a verb phrase, and words a tool doing it would have."""

    text: str
    cannot: str
    needs: tuple[str, ...]


def _d(text: str, cannot: str, needs: str) -> Declined:
    return Declined(text, cannot, tuple(needs.split()))


_ANY = (
    _d("Can you set a reminder on my phone for 7 tomorrow morning?", "set reminders", "reminder remind alarm"),
    _d("Could you email this to my manager when you're done?", "send emails", "email mail send message"),
    _d("Can you print this out for me?", "print documents", "print printer"),
    _d("Please order me a coffee from the place downstairs.", "place food orders", "order food coffee delivery"),
)
POOLS: dict[str, tuple[Declined, ...]] = {
    "weather": (
        _d("Can you book me a taxi to the airport for 6 am tomorrow?", "book rides", "book booking taxi ride"),
        _d(
            "Could you turn the heating up at home before I get back?",
            "control home devices",
            "heating thermostat device home",
        ),
        _d(
            "Please reschedule my outdoor meeting to Thursday.",
            "change calendar events",
            "calendar event meeting schedule reschedule",
        ),
        _d("Can you buy me a rain jacket online, size M?", "shop for things", "buy order purchase shop"),
    ),
    "news": (
        _d(
            "Can you subscribe me to the print edition of the Guardian?",
            "manage subscriptions",
            "subscribe subscription",
        ),
        _d("Please post this story to my Twitter account.", "post to social media", "post tweet twitter share social"),
        _d(
            "Could you write to the editor and complain about that headline?",
            "contact publishers",
            "email send contact editor",
        ),
        _d(
            "Can you translate the whole article into Japanese and save it as a PDF?",
            "translate and save documents",
            "translate pdf save",
        ),
    ),
    "crypto": (
        _d("Buy 0.5 ETH for me at the current price.", "place trades", "buy sell trade order swap"),
        _d(
            "Can you move my USDC from Coinbase to my Ledger wallet?",
            "move funds between wallets",
            "transfer send withdraw wallet",
        ),
        _d("Please file my crypto taxes for last year.", "file taxes", "tax taxes"),
        _d(
            "Can you set a price alert on my phone for when SOL drops below $100?",
            "set price alerts",
            "alert alerts notify notification",
        ),
    ),
    "finance": (
        _d("Buy 20 shares of NVDA for me at market open.", "place trades", "buy sell trade order"),
        _d("Can you open a brokerage account for me?", "open accounts", "account open"),
        _d(
            "Please transfer $500 from my checking account to savings.",
            "move money between accounts",
            "transfer payment pay",
        ),
        _d(
            "Could you call my financial adviser and set up a meeting?",
            "make calls or book meetings",
            "call phone meeting schedule",
        ),
    ),
    "code": (
        _d("Can you merge my open pull request into main?", "merge pull requests", "merge"),
        _d("Please deploy the latest build to production.", "deploy code", "deploy deployment release"),
        _d("Could you run the test suite on my laptop and tell me what fails?", "run code", "run execute test"),
        _d(
            "Can you invite my colleague Priya to the team's Slack channel?",
            "manage chat channels",
            "slack invite channel",
        ),
    ),
    "paper": (
        _d("Can you submit my manuscript to Nature for me?", "submit manuscripts", "submit submission"),
        _d("Please email the corresponding author and ask for the dataset.", "send emails", "email send contact mail"),
        _d(
            "Could you book me a seat at the conference in Vienna next month?",
            "book travel or events",
            "book booking register",
        ),
        _d(
            "Can you add these references to my Zotero library?",
            "manage reference libraries",
            "zotero library add save",
        ),
    ),
    "travel": (
        _d(
            "Can you check me in for my flight and send me the boarding pass?",
            "check in for flights",
            "checkin check-in boarding",
        ),
        _d("Please rent me a car at the airport for the week.", "rent cars", "car rental rent"),
        _d("Could you get me travel insurance for the trip?", "buy insurance", "insurance"),
        _d("Can you apply for my visa?", "handle visa applications", "visa"),
    ),
    "food": (
        _d(
            "Can you order this from the nearest supermarket for delivery?",
            "place grocery orders",
            "order delivery buy cart",
        ),
        _d(
            "Please book a table for two at an Italian place tonight.",
            "book restaurants",
            "book booking reservation table",
        ),
        _d("Could you set a timer for the pasta, 11 minutes?", "set timers", "timer alarm"),
    ),
    "health": (
        _d(
            "Can you book me an appointment with a cardiologist next week?",
            "book appointments",
            "book appointment schedule",
        ),
        _d(
            "Please refill my prescription at the pharmacy.",
            "refill prescriptions",
            "prescription refill pharmacy order",
        ),
        _d("Could you send my lab results to my GP?", "send medical records", "send email share"),
    ),
    "shop": (
        _d(
            "Can you track the parcel DHL is delivering to me today?", "track parcels", "track tracking parcel shipment"
        ),
        _d("Please leave a one-star review for the seller.", "write reviews", "review rating"),
        _d("Could you price-match this against Amazon for me?", "price-match", "price match compare amazon"),
    ),
    "maps": (
        _d("Can you book me a taxi from here to the station?", "book rides", "book booking taxi ride"),
        _d(
            "Please share my live location with my sister until I arrive.", "share your location", "share location live"
        ),
        _d(
            "Could you reserve a parking spot near the stadium for Saturday?", "reserve parking", "reserve parking book"
        ),
    ),
    "data": (
        _d("Can you restore last night's backup to the production server?", "restore backups", "backup restore"),
        _d("Please build me a dashboard in Grafana from these numbers.", "build dashboards", "dashboard grafana chart"),
        _d("Could you page the on-call engineer about the outage?", "page people", "page alert notify call"),
    ),
    "general": _ANY,
}


def _vocabulary(tools: tuple[ToolSpec, ...]) -> set[str]:
    """Every word of the server's tool names and descriptions, lower case, whole words."""
    return {w.lower() for t in tools for w in [*words(t.name), *re.findall(r"[A-Za-z]+", t.description)]}


def declines_for(server_tools: tuple[ToolSpec, ...], server: Any, pack: Pack | None) -> list[Declined]:
    """The declines this server can be asked: the pack's own, else its topic's pool and the general one,
    each only when no tool of the server has a word the request needs."""
    if pack is not None and pack.declines:
        return [Declined(d.text, d.cannot, ()) for d in pack.declines]
    vocab = _vocabulary(server_tools)
    near = [d for d in POOLS.get(topic(server), ()) if not vocab & set(d.needs)]
    return near or [d for d in _ANY if not vocab & set(d.needs)]  # the general ones only when no near one fits


_PREPOSITIONS = frozenset({"from", "in", "of", "for", "with", "to", "at", "on", "into"})


def _can(tool: ToolSpec) -> str | None:
    """What a tool does, offered in plain words from its name ("look up the weather forecast", "look up news by
    country", "convert a file"), never its description read out; None when the name says it in no words a person
    uses (``egfr_epi``, ``papers-match``)."""
    name = [w for w in words(tool.name) if w not in _NAME_NOISE]
    at = next((i for i, w in enumerate(name) if w in VERBS), None)
    if at is None:
        return None
    if name[at] == "batch" and at + 1 < len(name) and name[at + 1] in VERBS:  # batch_create_objects: create
        at += 1
    rest = name[at + 1 :]
    by = rest.index("by") if "by" in rest else len(rest)  # news by country: the "by" part is said as it is
    thing, tail = [w for w in rest[:by] if w not in _VAGUE], [w for w in rest[by + 1 :] if w not in _VAGUE]
    if (
        not thing
        or thing[0] in _PREPOSITIONS  # get_latest_from_category: not "look up a from category"
        or set(thing) & _HOW_MANY
        or any(not w.isalpha() or (len(w) <= 3 and w not in _SHORT) for w in thing + tail)
    ):
        return None
    verb = name[at] if name[at] in _OWN_VERBS else "look up" if name[at] in _READS else name[at]
    last = thing[-1]
    if verb == "search" or last in _MASS or (last.endswith("s") and not last.endswith(("ss", "us", "is"))):
        article = ""  # search Wikipedia, look up news, look up locations
    elif verb == "look up" and thing[0] in _THE:
        article = "the "
    elif verb == "look up" or verb in _ONE_OF:
        article = "an " if thing[0][0] in "aeio" else "a "
    else:
        article = ""
    said = f"{verb} {article}{' '.join(thing)}"
    return f"{said} by {' '.join(tail)}" if tail and tail != thing else said


_NAME_NOISE = {"tool", "mcp", "api", "controller"}
_READS = {"get", "fetch", "retrieve", "list", "find", "query", "read", "show", "view", "lookup", "browse"}
_OWN_VERBS = {"search"}  # "search Wikipedia": no "look up" for these
_ONE_OF = {"create", "add", "send", "convert", "delete", "update", "analyze", "debug", "download", "upload", "cancel"}
_VAGUE = {"detailed", "paginated", "details", "raw", "v1", "v2", "v3", "basic", "advanced", "all", "latest", "common"}
_HOW_MANY = {"many", "one", "multiple", "bulk", "batch"}  # update-many: how many, not what
_MASS = {"data", "info", "news", "weather", "metadata", "content", "information", "time", "documentation"}
_THE = {
    "current",
    "latest",
    "live",
    "recent",
    "top",
    "daily",
    "hourly",
    "local",
    "weather",
    "market",
    "next",
    "historical",
}
_SHORT = {"pr", "doc", "map", "bus", "app", "job", "tag", "log", "url", "bmi", "tvl", "key", "row", "day"}


SAY_NO = (
    "Sorry, I can't {cannot} from here: none of my tools does that. I can {a}, or {b}, if either helps.",
    "That's not something I can do; I have no way to {cannot}. What I can do is {a}, or {b}.",
    "I'm not able to {cannot} with the tools I have. I could {a} instead, or {b}.",
    "I can't help with that one: I can't {cannot}. I can {a}, though, or {b}.",
)
SAY_NO_ONE = (
    "Sorry, I can't {cannot} from here: none of my tools does that. What I can do is {a}.",
    "That's outside what I can do; I have no way to {cannot}. I can {a}, if that helps.",
)


SAY_NO_ELSE = (
    "Sorry, I can't {cannot} from here: none of my tools does that. Is there anything else I can help with?",
    "That's not something I can do; I have no way to {cannot}. Anything else I can look into for you?",
)


def decline_reply(declined: Declined, tools: list[ToolSpec], rng: random.Random) -> str:
    """The assistant's no: what it cannot do, and one or two things it can (``tools``: what to offer), or a
    short offer of other help when no tool says what it does in words a person would use."""
    offers: list[str] = []
    for tool in tools:
        can = _can(tool)
        if can is not None and can not in offers:
            offers.append(can)
    if len(offers) >= 2:
        a, b = rng.sample(offers, 2)
        return rng.choice(SAY_NO).format(cannot=declined.cannot, a=a, b=b)
    if offers:
        return rng.choice(SAY_NO_ONE).format(cannot=declined.cannot, a=offers[0])
    return rng.choice(SAY_NO_ELSE).format(cannot=declined.cannot)


def nearest(text: str, tools: list[ToolSpec]) -> ToolSpec:
    """The tool whose name and description share the most words with ``text``: the one a model reaches for."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) > 2}
    return max(tools, key=lambda t: (len(said & {w.lower() for w in _vocabulary((t,))}), -tools.index(t)))


def decline_decision(message: int, request: str, tool: ToolSpec, arguments: dict[str, Any], cannot: str) -> Decision:
    """The decline at ``message``: the wrong move is calling the nearest tool anyway."""
    wrong = ToolCall(id=f"call_{content_hash([request, tool.name], 12)}", name=tool.name, arguments=arguments)
    why = (
        f"no tool can {cannot}; {tool.name} does not do what was asked, so the right move is to say so, not to call it"
    )
    return Decision(kind="decline", message=message, wrong=wrong, why=why)


def answer_decision(message: int, call: ToolCall) -> Decision:
    """The answer from context at ``message``: the wrong move is making the earlier call again."""
    wrong = ToolCall(id=f"call_{content_hash([message, call.id], 12)}", name=call.name, arguments=call.arguments)
    why = f"the earlier {call.name} result already holds the answer; calling it again adds nothing"
    return Decision(kind="answer", message=message, wrong=wrong, why=why)


def ask_decision(message: int, call: ToolCall | None, param: str) -> Decision:
    """The question at ``message``: the wrong move is a call with a guessed ``param``."""
    said = " ".join(words(param))
    why = f"the user never gave the {said}; a call with a guessed '{param}' acts on a value nobody said"
    return Decision(kind="ask", message=message, wrong=call, why=why)


AFTER_NO = ("OK, never mind. ", "Ah, fair enough. ", "No worries. ", "OK. ", "Right. ", "", "")
ALSO = ("Also, ", "One more thing: ", "Oh, and ", "", "")
PLACES = (("alone", 0.25), ("first", 0.35), ("last", 0.4))


_POINTS = re.compile(r"\b(?:that|those|these|this|it|them)\b", re.IGNORECASE)  # "book that apartment"


_OPENING = re.compile(r"^(?:When|Which|What|What's|Sorry|Remind|Did|And|How|Is|Are|Was|Were|Does|Do|Can|Could|Of|So)\b")


def _lowered(ask: str) -> str:
    """A question after an opener ("Also, ..."): its first word in lower case, unless it is a name."""
    return ask[:1].lower() + ask[1:] if _OPENING.match(ask) else ask


def place(rng: random.Random, declined: Declined) -> str:
    """Where a decline goes: the whole conversation, before the requests the tools serve, or after them;
    a request that points at something ("book that apartment") only after them, where there is something."""
    draw, edge = rng.random(), 0.0
    if _POINTS.search(declined.text):
        return "last"
    for name, share in PLACES:
        edge += share
        if draw < edge:
            return name
    return PLACES[-1][0]


def add_decline(
    messages: list[Message],
    declined: Declined,
    offer: list[ToolSpec],
    rng: random.Random,
    args_for: Callable[[ToolSpec], dict[str, Any]],
    opener: str = "",
) -> Decision:
    """The user's out-of-scope request and the assistant's no, appended to ``messages``."""
    text = declined.text if not opener else opener + declined.text[:1].lower() + declined.text[1:]
    messages.append(Message(role="user", content=text))
    messages.append(Message(role="assistant", content=decline_reply(declined, offer, rng)))
    tool = nearest(declined.text, offer)
    return decline_decision(len(messages) - 1, declined.text, tool, args_for(tool), declined.cannot)


def add_answer(
    messages: list[Message], rng: random.Random, entry_of: Callable[[str], ToolPack | None], opener: str = ""
) -> Decision | None:
    """A follow-up on the latest successful tool result of the latest request and its answer from that
    result, appended to ``messages``; None (nothing appended) when the request's results give nothing to ask
    about. An earlier request's result is not asked about: "And the serving size?" after a chocolate bar is
    about the bar, not the can of cola before it."""
    calls = {c.id: c for m in messages for c in m.tool_calls}
    stated = next((m.content or "" for m in reversed(messages) if m.role == "assistant" and m.content), "")
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    for m in reversed(messages[last_user + 1 :]):
        call = calls.get(m.tool_call_id or "") if m.role == "tool" else None
        if call is None or (m.content or "").startswith(("Error", "error")):
            continue
        found = followup(m.content or "", call.arguments, stated, entry_of(call.name), rng)
        if found is None:
            continue
        ask, say = found
        messages.append(
            Message(
                role="user", content=opener + (_lowered(ask) if opener.rstrip().endswith((",", ":", " and")) else ask)
            )
        )
        messages.append(Message(role="assistant", content=say))
        return answer_decision(len(messages) - 1, call)
    return None
