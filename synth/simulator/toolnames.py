"""What a tool's name says: the kind of tool it is (``get``, ``list`` or ``action``), the verb it
leads with, and the thing it is about, singular ("search_locations_tool": a location; the head
noun of "find_posts_by_tag" is a post). Pure functions of the name's words."""

from __future__ import annotations

from synth.records import ToolSpec
from synth.simulator.tables import table
from synth.simulator.values.values import words

LIST_VERBS = table("toolnames", "list_verbs", frozenset[str])
ACTION_VERBS = table("toolnames", "action_verbs", frozenset[str])
STOP = table("toolnames", "stop", frozenset[str])


def verb(tool: ToolSpec) -> str:
    w = words(tool.name)
    return w[0] if w else ""


def kind(tool: ToolSpec) -> str:
    """``list`` (returns items), ``action`` (changes something) or ``get`` (returns a record)."""
    w = words(tool.name)
    if w and w[0] in ACTION_VERBS:
        return "action"
    if w and (
        w[0] in LIST_VERBS
        or w[-1] in LIST_VERBS
        or "list" in w[:3]  # "sls_list_projects", "get_list_of_sheets"
        or (len(w) > 1 and w[0] == "get" and w[-1].endswith("s") and w[-1] not in _SETS["kind.details"])
    ):
        return "list"
    if w and (w[0] in ACTION_VERBS or w[-1] in ACTION_VERBS):
        return "action"
    return "get"


def subject(tool: ToolSpec) -> list[str]:
    """The words naming what a tool is about: ``pull_requests_create`` -> ["pull", "request"]."""
    rest = [w for w in words(tool.name) if w not in STOP and w not in LIST_VERBS and w not in ACTION_VERBS]
    return [*rest[:-1], singular(rest[-1])] if rest else ["item"]


def noun(tool: ToolSpec) -> str:
    """The thing a tool is about: ``search_locations_tool`` -> "location"."""
    return subject(tool)[-1]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(_POOLS["singular.sses"]):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_POOLS["singular.ss"]) and len(word) > 3 and word not in _PLURAL_ONLY:
        return word[:-1]
    return word


_PLURAL_ONLY = table("toolnames", "plural_only", frozenset[str])


GETTERS = LIST_VERBS | frozenset(
    """
    get fetch read show retrieve describe check view download export count calculate compute analyze
    validate summarize translate is has can
""".split()
)
CHANGES = table("toolnames", "changes", frozenset[str])
LINKERS = table("toolnames", "linkers", frozenset[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("toolnames", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("toolnames", "sets", dict[str, frozenset[str]])


def plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("y") and word[-2:-1] not in _POOLS["plural.a"]:
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(_POOLS["plural.x"]) else "s")


def head_noun(tool: ToolSpec) -> str:
    """The thing a tool returns: ``find_posts_by_tag`` -> "post" (``noun`` would say "tag")."""
    w = words(tool.name)
    cut = next((i for i, x in enumerate(w) if x in LINKERS and i > 1), None)
    if cut is None:
        return noun(tool)
    rest = [x for x in w[:cut] if x not in STOP and x not in LIST_VERBS and x not in ACTION_VERBS]
    return singular(rest[-1]) if rest else noun(tool)
