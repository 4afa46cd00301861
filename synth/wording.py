"""How people and tools name things: words of an identifier, numbers spelled out, what a tool is for.

The injector, the gates' grounding check and the failure reasons all read names the same way:
``startDate``, ``start_date`` and ``start-date`` are the words "start date", 4 is "four" in a
user's message, and a tool's purpose is its description's first sentence as a verb phrase.
"""

from __future__ import annotations

import re
from functools import lru_cache

from synth.records import ToolSpec

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[_\-\s.]+")


def words(name: str) -> list[str]:
    """``startDate`` / ``start_date`` / ``get-page`` -> ["start", "date"]."""
    return list(_words(name))


@lru_cache(maxsize=1 << 14)  # the same parameter and tool names are split for every call of a run
def _words(name: str) -> tuple[str, ...]:
    return tuple(w for w in _SPLIT.split(_CAMEL.sub("_", name).lower()) if w)


def loose(name: str) -> str:
    """A name as a lenient grader might match it: ``start_date`` ~ ``startDate``."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spell(n: int) -> str:
    """4 -> "four", 150 -> "one hundred fifty": how a user writes it, or a model passes text."""
    if n < 0:
        return "minus " + spell(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    if n < 1000:
        return _ONES[n // 100] + " hundred" + (" " + spell(n % 100) if n % 100 else "")
    if n < 1_000_000:
        return spell(n // 1000) + " thousand" + (" " + spell(n % 1000) if n % 1000 else "")
    return str(n)


_LABEL = re.compile(r"^(?:\[[^\]]*\]\s*|(?:legacy|deprecated|experimental|beta)(?:\s+tool)?\s*:\s*"
                    r"|tool\s*:\s*|this tool\s+|use this(?: tool)? to\s+"
                    r"|(?:a )?tool (?:to|that|for)\s+)+", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|。|\s(?:Args|Arguments|Parameters|Returns|Example)s?\s*:")
FILLER_WORDS = {"tool", "tools", "func", "fn", "mcp"}
_VERBS = set("""get fetch retrieve search find list create add update delete remove send set check
    generate run execute read write query extract scrape summarize take export ensure lookup look
    count calculate compute analyze analyse download upload start stop convert translate validate
    verify scan parse book cancel manage save load show display view open close connect navigate
    track make post install upgrade describe explain return provide monitor move copy rename fill
    click capture compare design build record store insert edit modify replace submit publish
    schedule""".split())
_AS_GET = {"return", "provide"}  # "returns X" reads as "get X" after "the user wants to"


def purpose(spec: ToolSpec) -> str:
    """"Legacy tool: Get current temperature for a city (...)." -> "get current temperature ..."."""
    text = _LABEL.sub("", " ".join(spec.description.split()))
    sentence = re.sub(r"\s*\([^)]*\)", "", _SENTENCE.split(text, 1)[0]).strip().rstrip(".!:; ")
    if len(sentence) > 110:
        sentence = sentence[:110].rsplit(" ", 1)[0].rstrip(",;:")
    if not sentence:
        sentence = " ".join(w for w in words(spec.name) if w not in FILLER_WORDS)
    return sentence if sentence[1:2].isupper() else sentence[:1].lower() + sentence[1:]


def _base(word: str) -> str | None:
    w = word.lower()
    stems = (w, w[:-3] + "y" if w.endswith("ies") else "",
             w[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else "",
             w[:-1] if w.endswith("s") else "")
    stem = next((s for s in stems if s in _VERBS), None)
    return "get" if stem in _AS_GET else stem


def infinitive(phrase: str) -> str | None:
    """"retrieves URLs and extracts text" -> "retrieve URLs and extract text"; None if no verb."""
    first, _, rest = phrase.partition(" ")
    verb = _base(first)
    if verb is None:
        return None
    rest = re.sub(r"\b(and|or|then)\s+(\w+)",
                  lambda g: f"{g.group(1)} {_base(g.group(2)) or g.group(2)}", rest)
    return f"{verb} {rest}".strip()


def plural(count: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``0 errors``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
