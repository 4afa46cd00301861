"""How people and tools name things: words of an identifier, numbers spelled out, what a tool is for.

The injector, the gates' grounding check and the failure reasons all read names the same way:
``startDate``, ``start_date`` and ``start-date`` are the words "start date", 4 is "four" in a
user's message, and a tool's purpose is its description's first sentence as a verb phrase.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import lru_cache
from typing import Any

from synth.records import ToolSpec

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[_\-\s.]+")


# a sentence in which the user announces a value to come ("I'll send the slug", "I'll look up its ID"): the
# offline author leaves it out of requests and realism.py counts what is left
PROMISE = re.compile(
    r"\bI'll (?:tell|give|paste|send|share|say|let you know|provide|read you|name (?:it|the|them|in)"
    r"|look (?:it |them )?up|find (?:the|its|it|them)|get you|confirm (?:the|its|how)|check (?:the|its)"
    r"|pull (?:the|its)|think of|dig (?:it |the )?up)\b",
    re.IGNORECASE,
)


_SCALES = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))
BASE_DATE = dt.date(2026, 5, 4)  # the simulated today: results are dated around it, answers leave its year out
_STAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(?:Z|UTC|[+-]\d{2}:?\d{2})?$"
)
_MONTHS = "January February March April May June July August September October November December".split()
_TIMED = {"time", "date", "at", "on", "start", "end", "created", "updated", "since", "until", "timestamp", "ts", "unix"}


_AT_AT = re.compile(r"\b(at|from|until|since|by) (\d{1,2} [A-Z][a-z]+(?: \d{4})?) at (\d{2}:\d{2})\b")


def timed(text: str) -> str:
    """A sentence with a time said after "at" or "from" as a person says it: "measured at 4 May at 14:00" ->
    "measured at 14:00 on 4 May"; an amount that rounds to itself is said to hold ("TVL went from $4.56 billion
    to $4.56 billion" -> "TVL held at about $4.56 billion")."""
    return _SAME.sub(r"held at about \1", _AT_AT.sub(r"\1 \3 on \2", text))


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"])")
_NAMED = re.compile(r"(?:^|[^,\s]\s)[A-Z][a-z]+ [A-Z]\.$")  # "by Diederik P." (not "Patel S, Mcdonald K.")


def sentences_of(text: str) -> list[str]:
    """An answer's sentences; an initial inside a name ends none ("New work by Diederik P. Kingma"), where the
    last initial of an author list ("Graham M, Patel S, Mcdonald K. Abstract: ...") does."""
    parts: list[str] = []
    for part in _SENTENCE.split(text):
        if parts and _NAMED.search(parts[-1]):
            parts[-1] += " " + part
        else:
            parts.append(part)
    return parts


_SAME = re.compile(
    r"\b(?:went|moved|changed|rose|fell|grew|dropped) from (\$?\d[\d.,]*(?: (?:million|billion|trillion))?) to \$?\1"
    r"(?![\d.,]*\d)"
)


def when_forms(value: Any, key: str = "") -> tuple[str, ...]:
    """Every way an answer says a date or a time (``when`` and its ``timed`` turn: "14:00 on 4 May")."""
    said = when(value, key)
    if said is None:
        return ()
    day, _, clock = said.partition(" at ")
    return (said, f"{clock} on {day}") if clock else (said,)


def when(value: Any, key: str = "") -> str | None:
    """A date or time as a person writes it: "2026-05-18 17:30:00" -> "18 May at 17:30", "2024-03-05" ->
    "5 March 2024", a unix time under a key that names a time (``start``, ``created_at``; not ``start_tvl``)
    likewise; None for anything else.
    The year is left out when it is the simulated today's; the zone is left out (a person says local time)."""
    if isinstance(value, str):
        m = _STAMP.match(value.strip())
        if m is None:
            return None
        y, mo, d, hh, mm, ss = (int(g) if g else None for g in m.groups())
        try:
            day = dt.date(y, mo, d)  # type: ignore[arg-type]
        except ValueError:
            return None
        clock = f"{hh:02d}:{mm:02d}" if hh is not None and (hh, mm, ss or 0) != (0, 0, 0) else None
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and key and words(key)[-1] in _TIMED:
        seconds = value / 1000 if 1e12 <= value < 2.2e12 else value
        if not 9.4e8 <= seconds < 2.2e9:  # 2000 to 2039: a count or an id is no time
            return None
        stamp = dt.datetime.fromtimestamp(seconds, dt.UTC)
        day, clock = stamp.date(), stamp.strftime("%H:%M").replace("00:00", "") or None
    else:
        return None
    said = f"{day.day} {_MONTHS[day.month - 1]}" + ("" if day.year == BASE_DATE.year else f" {day.year}")
    return f"{said} at {clock}" if clock else said


def large(value: Any) -> str | None:
    """A large amount as a person writes it (21375055345 -> "21.38 billion"), None for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1e6:
        scale, word = next((s, w) for s, w in _SCALES if abs(value) >= s)
        return f"{value / scale:.2f}".rstrip("0").rstrip(".") + f" {word}"
    return None


# a machine enum a server returns for a state ('PHASE2', 'NOT_YET_RECRUITING'), said in words in an answer
_ENUM = re.compile(r"^(?=[A-Z0-9_]{4,}$)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
_CAMEL_STATE = re.compile(r"^[a-z]+(?:[A-Z][a-z]+)+$")
_STATE_KEYS = frozenset({"status", "phase", "phases", "state", "allocation", "type"})


def state(value: Any, key: str) -> str | None:
    """A state a server spells as an enum, as a person says it ('PHASE2' -> 'phase 2', 'NOT_YET_RECRUITING' ->
    'not yet recruiting'), when ``key`` (the last word of its field) names a state; else None."""
    if key not in _STATE_KEYS or not isinstance(value, str):
        return None
    if _CAMEL_STATE.match(value):  # Google's responseStatus
        return {"needsAction": "no reply yet"}.get(value, " ".join(words(value)))
    if not _ENUM.match(value):
        return None
    said = re.sub(r"(?<=[A-Z])(?=\d)", " ", value).replace("_", " ").lower()
    said = re.sub(r"phase (\d) phase (\d)", r"phase \1/\2", said)
    return {"active not recruiting": "active, not recruiting"}.get(said, said)


def words(name: str) -> list[str]:
    """``startDate`` / ``start_date`` / ``get-page`` -> ["start", "date"]."""
    return list(_words(name))


@lru_cache(maxsize=1 << 14)  # the same parameter and tool names are split for every call of a run
def _words(name: str) -> tuple[str, ...]:
    return tuple(w for w in _SPLIT.split(_CAMEL.sub("_", name).lower()) if w)


def loose(name: str) -> str:
    """A name as a lenient grader might match it: ``start_date`` ~ ``startDate``."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


_ONES = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
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


_LABEL = re.compile(
    r"^(?:\[[^\]]*\]\s*|(?:legacy|deprecated|experimental|beta)(?:\s+tool)?\s*:\s*"
    r"|tool\s*:\s*|this tool\s+|use this(?: tool)? to\s+"
    r"|(?:a )?tool (?:to|that|for)\s+)+",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|。|\s(?:Args|Arguments|Parameters|Returns|Example)s?\s*:")
FILLER_WORDS = {"tool", "tools", "func", "fn", "mcp"}
_VERBS = set(
    """get fetch retrieve search find list create add update delete remove send set check
    generate run execute read write query extract scrape summarize take export ensure lookup look
    count calculate compute analyze analyse download upload start stop convert translate validate
    verify scan parse book cancel manage save load show display view open close connect navigate
    track make post install upgrade describe explain return provide monitor move copy rename fill
    click capture compare design build record store insert edit modify replace submit publish
    schedule""".split()
)
_AS_GET = {"return", "provide"}  # "returns X" reads as "get X" after "the user wants to"


def purpose(spec: ToolSpec) -> str:
    """ "Legacy tool: Get current temperature for a city (...)." -> "get current temperature ..."."""
    text = _LABEL.sub("", " ".join(spec.description.split()))
    sentence = re.sub(r"\s*\([^)]*\)", "", _SENTENCE.split(text, 1)[0]).strip().rstrip(".!:; ")
    if len(sentence) > 110:
        sentence = sentence[:110].rsplit(" ", 1)[0].rstrip(",;:")
    if not sentence:
        sentence = " ".join(w for w in words(spec.name) if w not in FILLER_WORDS)
    return sentence if sentence[1:2].isupper() else sentence[:1].lower() + sentence[1:]


def _base(word: str) -> str | None:
    w = word.lower()
    stems = (
        w,
        w[:-3] + "y" if w.endswith("ies") else "",
        w[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else "",
        w[:-1] if w.endswith("s") else "",
    )
    stem = next((s for s in stems if s in _VERBS), None)
    return "get" if stem in _AS_GET else stem


def infinitive(phrase: str) -> str | None:
    """ "retrieves URLs and extracts text" -> "retrieve URLs and extract text"; None if no verb."""
    first, _, rest = phrase.partition(" ")
    verb = _base(first)
    if verb is None:
        return None
    rest = re.sub(r"\b(and|or|then)\s+(\w+)", lambda g: f"{g.group(1)} {_base(g.group(2)) or g.group(2)}", rest)
    return f"{verb} {rest}".strip()


def plural(count: int, noun: str) -> str:
    """``1 error``, ``2 errors``, ``0 errors``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


# --- what a tool does, as a request would say it (the offline author's requests, T-Eval thoughts) ---

# a sentence ends at its stop, at a blank line, or at a line break before a capital or a list item; a line break
# inside a sentence ("for a single clinical\ntrial identified by ...") is only a wrapped line
_CLAUSE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n+|\n(?=\s*(?:[-*#>|]|[A-Z0-9]))")
_DOC_SECTION = re.compile(r"\n\s*(?:Args|Arguments|Parameters|Params|Returns?|Raises|Examples?)\b[^\n]{0,30}:")
_LEAD = re.compile(
    r"^(?:(?:this|the)\s+(?:tool|function|endpoint|api|method|server)\s+(?:will\s+|can\s+|is used to\s+|allows you to\s+|lets you\s+|helps you\s+)?"  # noqa: E501
    r"|(?:use (?:this|the) tool to|use this to|use to|tool to|tool that|tool for|a tool (?:to|that|for)|function to|used to|allows? (?:you|users) to|lets? you|helps? you|enables? (?:you to)?|this will|will)\s+)",  # noqa: E501
    re.I,
)
# Instructions aimed at the model inside a tool description are data, not a request a user would make.
_INJECTED = re.compile(
    r"\b(?:ignore (?:all |any )?(?:previous|prior|above)|when you (?:read|see|use) this|you must|"
    r"system prompt|do not tell|before using this tool|<important>|instead of the user)",
    re.I,
)
_MARKUP = re.compile(r"[`*#>\[\]_]{1,3}")
VERBS = set(
    """get retrieve fetch search list find create add send post update delete remove set write upload read check look
    query calculate convert generate return provide show display analyze analyse compare translate summarize
    summarise download run execute book schedule cancel track monitor browse explore discover validate verify
    extract parse open close save load scrape crawl lookup resolve estimate predict recommend identify count merge
    move rename edit publish manage start stop register subscribe invite assign archive mark describe explain plan
    draw render format encode decode perform simulate make tell give visit place multiply subtract divide type
    switch go use view decrypt encrypt broadcast handle reverse launch reveal hash ping roll flip greet echo wait
    submit process log finish continue print batch record report request reserve obtain access scan test evaluate
    measure notify insert store disconnect connect reload take click navigate fill press scroll hover select
    enable disable reset clear sync import export share follow transfer swap approve sign deposit withdraw buy
    sell trade refresh restart inspect review fork clone commit pull push watch play pause capture sum compute
    solve sort filter replace compress resize crop rotate transcribe think remember recall forget modify change
    install deploy build debug lint preview visualize geocode shorten initialize configure apply attach detach
    upgrade organize append prepend copy reply comment retweet unsubscribe mute vote scale boot shutdown demote
    promote taint cordon uncordon drain annotate label patch undo resume equip jump attack dig craft mine pick
    drop say join leave ask""".split()
)


def intent(tool: ToolSpec) -> str:
    """What the tool does, as an imperative clause: "get the weather forecast for a city"."""
    description = "" if _INJECTED.search(tool.description or "") else tool.description or ""
    # an identifier in the description ("Execute led_control command") is said in words, as a person says it
    description = re.sub(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b", lambda m: " ".join(words(m.group(0))), description)
    description = _DOC_SECTION.split(description)[0]  # the parameter list is not what the tool does
    for sentence in _CLAUSE_END.split(_MARKUP.sub("", description).strip()):
        clause = _clause(sentence)
        if clause is not None:
            return clause
    return name_intent(tool.name)


def _clause(sentence: str) -> str | None:
    """One sentence of a description as an imperative clause, or None when it does not say what the tool does."""
    text = _LEAD.sub("", sentence.strip().rstrip(".!:;")).strip()
    text = re.split(r"\s+(?:-|–|—)\s+|;|:|\(|\bArgs\b|(?<=\S)\s+Returns?\b", text)[0].strip().rstrip(",")
    w = text.split()
    if len(w) < 2 or sum(c.isascii() for c in text) < 0.9 * len(text):  # "CHA₂DS₂-VASc" is English
        return None
    if w[0].lower() in ("a", "an") and len(w) > 2:  # "A detailed tool for planning" -> "use a detailed tool ..."
        w = ["use", w[0].lower(), *w[1:]]
    first = _base_verb(w[0].lower())
    first = "get" if first in _AS_GET else first  # "Returns historical rates" is asked as "get historical rates"
    if w[0].lower() in _HOW | _NOTES:
        return None  # a condition or a note about the tool, not what it does
    if not w[0][:1].isalpha() or w[1].startswith("/"):  # "POST /api/stopTyping" names an endpoint
        return None  # a list item or markup ("- project_name: ..."), not what the tool does
    if not _is_verb(first, w[0]) and not _LINKED.search(text):
        # "Instagram downloader", "Updatescene tool description", a line in another language: no thing to
        # look up; the next sentence (often the English one) or the tool's name says what it does
        return None
    if not _is_verb(first, w[0]):
        w = ["look", "up", (w[0] if w[0][1:2].isupper() else w[0].lower())] + w[1:]
    else:
        w[0] = first
    w = w[: min(_how_starts(w), 16)]
    while w and w[-1].lower().strip(",") in _DANGLING:
        w.pop()
    w[-1] = w[-1].rstrip(",")
    return " ".join(w)


def _how_starts(w: list[str]) -> int:
    """Where the clause turns from what is done to what to how ("using an absolute path with security
    validation"): a person names the goal, and a request that copies the description teaches a model to
    match descriptions."""
    return next(
        (
            i
            for i, x in enumerate(w)
            if i >= (4 if w[:2] == ["look", "up"] else 2)
            and (
                x.lower().strip(",") in _HOW
                or (x.lower() in ("and", "or") and i + 1 < len(w) and _base_verb(w[i + 1].lower()) in VERBS)
            )
        ),
        len(w),
    )


def name_intent(name: str) -> str:
    """The tool's name as a clause, for a tool whose description says nothing usable."""
    name_words = [x for x in words(name) if x not in {"tool", "mcp", "api", "controller"}]
    at = next((i for i, x in enumerate(name_words) if _base_verb(x) in VERBS), None)
    if at:  # "sls_describe_logstore" -> "describe logstore": the verb leads, a prefix is no part of the request
        name_words = [_base_verb(name_words[at]), *(name_words[at + 1 :] or name_words[:at])]
    elif name_words and at is None:
        name_words = ["look", "up", *name_words]
    return " ".join(name_words) or "help with this"


_NOTES = set("if note when this it the these use must required".split())  # a sentence about the tool starts so
_DANGLING = set("a an the of for and or to with in by on along".split())  # no clause ends on these


_HOW = set(
    """using with via through that which without including so while when based according if optionally
    returning""".split()
)
_LINKED = re.compile(r"\s(?:for|of|about|in|from|by|on|near|between)\s", re.I)  # "weather forecast for a city"
_NOT_VERBS = set(
    """news status statistics details analytics settings metrics series this is has was access process address its us
    class glass always various previous""".split()
)


_PLURAL_ENDINGS = (("ies", "y"), ("ches", "ch"), ("shes", "sh"), ("sses", "ss"), ("xes", "x"))


def _base_verb(word: str) -> str:
    """``fetches`` -> fetch, ``retrieves`` -> retrieve, ``queries`` -> query; other words unchanged."""
    if word in VERBS:
        return word
    for suffix, repl in (*_PLURAL_ENDINGS, ("es", "e"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and word[: -len(suffix)] + repl in VERBS:
            return word[: -len(suffix)] + repl
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3 and word not in _NOT_VERBS:
        # a description's first word in the third person ("Performs", "Analyzes") is a verb
        for suffix, repl in (*_PLURAL_ENDINGS, ("zes", "ze"), ("s", "")):
            if word.endswith(suffix):
                return word[: -len(suffix)] + repl
    return word


def _is_verb(word: str, original: str) -> bool:
    return word in VERBS or word != original.lower() or word.endswith(("ate", "ize", "ise", "ify"))
