"""Unexpected extras: a parameter the tool does not have, added to a gold call (``incorrect_parameter_names``).

A model adds a parameter it saw elsewhere: an optional parameter of another tool offered on the line, of the
server's other tools, of a server of the same domain or, for the controls of a listing, of any tool of the
registry; else one it adds from habit (synth.stages.names.EXTRAS: ``units`` for a forecast). A borrowed name
is added only where every word of it fits the tool (``_fits``), so a judge cannot tell it by its subject.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from synth.grade import branch, loose, words
from synth.memo import ByIdentity
from synth.records import ToolSpec
from synth.stages import names as nm
from synth.stages.candidates import Candidate, Ctx, ToolInfo

# parameters that shape a listing (how many, which order, which page, what to include): they fit any tool
# that returns several things, whatever its topic
_LISTING = frozenset(
    "limit max min num count size page offset cursor sort order by results per include exclude fields format".split()
)
_LISTS = frozenset("list search find browse top recent all results history".split())
# verbs of a tool that changes or makes something: its plural is what it acts on, not what it lists
_CHANGES = frozenset(
    "create update delete add remove set modify exchange return cancel send write run post put patch drop insert"
    " rename book convert calculate analyze import export start restore batch log manage".split()
)
# words of a description's layout, not of what the tool is about ("Parameters:", "Returns:")
_VACUOUS = frozenset("parameters params args arguments returns options data value values".split())
# words that shape a parameter without saying what about: ``include`` or ``is`` fit any subject
_SHAPING = frozenset("include exclude with only is has use show type mode all".split())

Borrowed = tuple[str, Any, str, bool]  # name, value, owner tool, whether a word of it is the tool's own


def _sample(schema: dict[str, Any]) -> Any:
    """A value a model would pass for a parameter it borrowed: its default, first choice or example, a
    plain number or boolean; None for a string with nothing to go on, or an empty default (a model does not
    pass "" for a parameter it added: no such parameter is borrowed)."""
    for key in ("default", "const"):
        if schema.get(key) not in (None, ""):
            return schema[key]
    for key in ("enum", "examples"):
        if isinstance(schema.get(key), list) and schema[key] and schema[key][0] not in (None, ""):
            return schema[key][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):  # a model writes 10, not 1.0, for a count it adds
        low = schema.get("minimum")
        return low if isinstance(low, int) and not isinstance(low, bool) and low > 0 else 10
    if kind == "boolean":
        return True
    return None


def _lists(tool: ToolInfo) -> bool:
    """Whether the tool returns several things: a listing verb, or a plural it does not change (get_stories,
    papers-references; not get_product_details, modify_user_address or exchange_delivered_order_items)."""
    plural = any(w.endswith("s") and not w.endswith(("ss", "us", "is", "details")) for w in tool.name_words)
    return bool(tool.name_words & _LISTS) or (plural and not tool.name_words & _CHANGES)


_SUFFIXES = ("ations", "ation", "ical", "ings", "ing", "ies", "ied", "ed", "es", "al", "s", "y")


def _stem(word: str) -> str:
    """A word without its ending: 'historical' and 'history', 'citations' and 'citation' are one word to a
    reader ('createdb' and 'create', 'analyze' and 'analyst' are not)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_READ: ByIdentity[tuple[frozenset[str], bool]] = ByIdentity()


def _read(tool: ToolInfo) -> tuple[frozenset[str], bool]:
    """The stems of the tool's words and whether it lists, once per tool."""
    known = _READ.get(tool)
    return known if known is not None else _READ.put((tool,), (frozenset(_stem(w) for w in tool.topic), _lists(tool)))


@lru_cache(maxsize=8192)
def _said(param: str) -> tuple[str, ...]:
    return tuple(w for w in words(param) if not w.isdigit())


def _fits(param: str, tool: ToolInfo) -> tuple[bool, bool]:
    """Whether a borrowed parameter reads as one this tool could take, and whether a word of it is the tool's
    own. Every word of its name must be a word of the tool (its name, description or parameters:
    ``referencesLimit`` on papers-references), a listing's control on a tool that lists (``limit`` on
    list-collections) or a word that names no subject (``include``), and one at least of the first two kinds.
    ``rec`` on ``ping``, ``limit`` on ``send_email`` and ``CPUPercentage`` on delete_tenants fit none (one
    word that fits was once enough, and let the last through)."""
    (stems, lists), said = _read(tool), _said(param)
    own = [w not in _VACUOUS and (w in tool.topic or _stem(w) in stems) for w in said]
    listing = [lists and w in _LISTING for w in said]
    if not said or not all(o or li or w in _SHAPING for w, o, li in zip(said, own, listing)):
        return False, False
    return any(own) or any(listing), any(own)


_OFFERS: ByIdentity[list[tuple[str, Any, str]]] = ByIdentity()


def _offers(tools: tuple[ToolSpec, ...] | tuple[ToolInfo, ...], strings: bool = True) -> list[tuple[str, Any, str]]:
    """The optional parameters of ``tools`` a model could pass with a value, once per name (name, value,
    owner); with ``strings`` false, only those whose value is a number or a flag (another domain's words,
    'dailyFees' or 'RELEVANCE', mean nothing on this tool)."""
    out: dict[str, tuple[str, Any, str]] = {}
    for other in tools:
        spec = other.spec if isinstance(other, ToolInfo) else other
        for param, schema in spec.properties.items():
            if param not in spec.required and param not in out:
                value = _sample(branch(schema))
                if value is not None and (strings or not isinstance(value, str)):
                    out[param] = (param, value, spec.name)
    return list(out.values())


def _fitting(tool: ToolInfo, offers: list[tuple[str, Any, str]]) -> list[Borrowed]:
    """The offered parameters (``_offers``) this tool lacks and could take, sorted by name."""
    taken = {loose(p) for p in tool.spec.properties}
    out = []
    for param, value, owner in offers:
        if loose(param) not in taken:
            fit, own = _fits(param, tool)
            if fit:
                out.append((param, value, owner, own))
    return sorted(out, key=lambda x: x[0])


# words in -s that are no list of things one could cap: a cap on them reads wrong ("max_news")
_UNCOUNTED = frozenset(
    "news details series directions fees yields dexs stablecoincharts types parameters arguments options settings"
    " returns provides includes supports allows gets lists contains".split()
)


def _coined(tool: ToolInfo) -> list[Borrowed]:
    """A cap a model coins from the plural of the tool's name (``maxStories`` for getStories), styled like its
    parameters, when the tool lists and has no cap of its own."""
    props = tool.spec.properties
    if not _lists(tool) or any(set(words(p)) & {"limit", "max", "count", "size", "num"} for p in props):
        return []
    how = _style(tool)
    proper = {w.lower() for w in tool.spec.name.replace("_", " ").replace("-", " ").split() if w[:1].isupper()}
    nouns = [w for w in words(tool.spec.name) if _plural(w) and w not in proper]
    taken = {loose(p) for p in props}
    return [(n, 10, "", True) for n in (nm.join(["max", w], how) for w in nouns) if loose(n) not in taken]


def _style(tool: ToolInfo) -> str:
    """How the tool's parameters are spelled (snake, camel, pascal), from one of several words, else its name."""
    how = next((nm.style(p) for p in tool.spec.properties if len(words(p)) > 1), nm.style(tool.spec.name))
    return how if how != "kebab" else "snake"


def _plural(word: str) -> bool:
    """A plural noun of things one could count or include ("stories", "comments"; not "news" or "analytics")."""
    return (
        len(word) > 4
        and word.endswith("s")
        and not word.endswith(("ss", "us", "ics", "is"))
        and word not in _UNCOUNTED | _LISTS | _LISTING
    )


def _restyled(tool: ToolInfo, found: list[Borrowed]) -> list[Borrowed]:
    """Names seen on another server, written in this tool's convention (max_results -> maxResults)."""
    how = _style(tool)
    return [(nm.join(words(b[0]), how), *b[1:]) for b in found]


_NEAR = (4.0, 2.0, 1.0, 0.5)  # weights of the offered tools', the server's, same-domain servers' and the rest's
_KIN: ByIdentity[list[Borrowed]] = ByIdentity()


def borrowed_extras(c: Ctx, rng: random.Random) -> list[tuple[str, Any, str]]:
    """Optional parameters of other tools that this tool lacks and could take, (name, value, owner): the
    offered tools' first, then those of each tier of ``c.kin`` (the server's tools, same-domain servers',
    the registry's listing controls), each tier shuffled; within that order, a name with a word of the tool's
    own (``includeArchived`` on a search of archives) before a listing's bare control (``limit``). The owner
    is named only when the tool is offered on the line (a judge can see it)."""
    offered = {s.spec.name for s in c.siblings}
    groups = [_fitting(c.tool, _offers(c.siblings))]
    for tier, tools in enumerate(c.kin):  # (the server's, same-domain servers', the rest's): kept for the run
        known = _KIN.get(c.tool.spec, tools)
        if known is None:
            offers = _OFFERS.get(tools) or _OFFERS.put((tools,), _offers(tools, strings=tier < 2))
            known = _KIN.put(
                (c.tool.spec, tools), _restyled(c.tool, _fitting(c.tool, offers)) if tier else _fitting(c.tool, offers)
            )
        groups.append(known)
    weighted: list[tuple[float, Borrowed]] = [(2.0, b) for b in _coined(c.tool)]
    seen: set[str] = set()
    for near, known in zip(_NEAR, groups):
        group = [b for b in known if loose(b[0]) not in seen]
        seen |= {loose(b[0]) for b in group}
        weighted += [(near * (2 if b[3] else 1), b) for b in group]
    ranked = sorted(weighted, key=lambda wb: -(rng.random() ** (1 / wb[0])))  # a draw weighted by nearness
    return [(name, value, owner if owner in offered else "") for _, (name, value, owner, _) in ranked]


def unexpected_extra(c: Ctx, rng: random.Random) -> Iterator[Candidate]:
    """A parameter the tool does not have, added to the gold call: a borrowed one (``borrowed_extras``), else
    one a model adds from habit that fits the tool's topic (``units`` for a forecast)."""
    props, tool = list(c.tool.spec.properties), c.gold.name
    listed = ", ".join(f"'{p}'" for p in props[:6]) + (", ..." if len(props) > 6 else "")
    habits = [(n, v, "") for n, v in nm.extra_params(set(c.tool.topic), props, rng)]
    for name, value, owner in [*borrowed_extras(c, rng)[:4], *habits[:4]]:
        if name in c.gold.arguments:
            continue
        whose = f" (a parameter of {owner})" if owner else ""
        reason = (
            f"'{name}' is not a parameter of {tool}{whose}; it accepts only {listed}."
            if props
            else f"{tool} takes no parameters, but the call passes '{name}'{whose}."
        )
        yield Candidate("unexpected_extra", c.call({**c.gold.arguments, name: value}), reason)
