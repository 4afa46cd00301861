"""Plausible wrong names for error injection: the names a model writes instead of the real ones.

camelCase for snake_case, a synonym (``location`` for ``city``), the singular for the plural, a
parameter of a sibling tool, a habitual extra (``units``), an invented tool name. Every function
proposes, best first; none decides a label (synth.stages.inject checks each candidate).
"""

from __future__ import annotations

import random
import re
from typing import Any

from synth.grade import FILLER_WORDS, loose, words

STOP = frozenset("the and for with from into that this about what when your have to by of in on a an".split())


def style(name: str) -> str:
    """The naming convention of a name: snake, kebab, camel or pascal."""
    if "_" in name:
        return "snake"
    if "-" in name:
        return "kebab"
    if re.search(r"[a-z][A-Z]", name):
        return "pascal" if name[:1].isupper() else "camel"
    return "snake"


def join(parts: list[str], how: str) -> str:
    if how == "kebab":
        return "-".join(parts)
    if how in ("camel", "pascal"):
        out = "".join(p.capitalize() for p in parts)
        return out if how == "pascal" else out[:1].lower() + out[1:]
    return "_".join(parts)


def plural(word: str) -> str:
    """The other number of an English noun."""
    low = word.lower()
    if low.endswith("ies"):
        out = word[:-3] + "y"
    elif low.endswith(("ses", "xes", "ches", "shes")):
        out = word[:-2]
    elif low.endswith("s"):
        out = word[:-1]
    elif low.endswith("y") and low[-2:-1] not in "aeiou":
        out = word[:-1] + "ies"
    else:
        out = word + ("es" if low.endswith(("x", "ch", "sh")) else "s")
    return out.upper() if word.isupper() else out


# --- wrong names --------------------------------------------------------------------------------


def _table(text: str) -> dict[str, list[str]]:
    """``"city: location town; q: query"`` -> {"city": ["location", "town"], "q": ["query"]}."""
    pairs = (item.split(":") for item in text.split(";") if item.strip())
    return {k.strip(): v.split() for k, v in pairs}


SYNONYMS = _table("""city: location city_name town; location: place address city;
    place: location destination; query: search_term keywords q; q: query search_query;
    search: query search_term; keyword: search_term query; keywords: search_terms query;
    term: query; days: num_days day_count duration; limit: max_results count size;
    count: limit num_items; page: page_number page_num; offset: skip start;
    id: identifier uid key; name: title label; title: name heading subject;
    description: details summary desc; content: body text; body: content text message;
    text: content body; message: text body content; email: email_address mail;
    url: link uri address; date: day when; symbol: ticker stock; ticker: symbol;
    username: user login; password: pass pwd; language: lang locale; lang: language;
    path: file_path filepath; file: filename file_path; tone: style voice;
    audience: target_audience readers; theme: style; size: dimensions; color: colour;
    position: coordinates coords; transcript: transcript_text text; summary: abstract overview;
    period: timeframe range; interval: frequency granularity; freq: frequency; hashtags: tags;
    tags: labels; raw: raw_html plain; source: content wikitext; comment: edit_summary note;
    role: user_role; full_name: display_name""")
_WORD_SYNONYMS = _table("""max: maximum limit; min: minimum; num: number; number: num count;
    start: begin from; end: finish to; from: origin source; to: destination target;
    id: identifier key; user: account; include: with; city: location; date: day; url: link;
    name: title; count: total; index: position; results: items; items: results; key: token;
    video: clip; word: words; type: kind; latest: last; older: before; newer: after""")
VERBS = _table("""get: fetch retrieve; fetch: get retrieve; retrieve: get fetch;
    search: find lookup; find: search lookup; list: get_all fetch_all; create: add new;
    add: create insert; update: edit modify; delete: remove; remove: delete; send: post;
    set: update configure; check: verify validate; generate: create make; run: execute;
    execute: run; read: get load; write: save; query: search; extract: parse get; scrape: fetch;
    summarize: generate_summary; take: start; export: download; ensure: create; lookup: search;
    count: compute tally; calculate: compute; analyze: inspect; download: fetch; upload: send;
    start: begin launch; stop: end halt; convert: transform; translate: convert;
    validate: check verify; scan: check; parse: extract; book: reserve; cancel: delete;
    manage: update; save: store; load: read; show: display; view: show; open: launch; close: end;
    connect: open link; navigate: go goto; track: monitor follow; gen: generate; make: create;
    post: publish send; install: add setup; upgrade: update; verify: check validate;
    describe: get explain; explain: describe""")
EXTRAS = [
    (set(t.split()), n, v)
    for t, n, v in (  # (words of the tool that invite it, name, value)
        ("weather forecast temperature temp climate", "units", "metric"),
        ("weather forecast", "include_hourly", True),
        ("search find query list lookup", "sort_by", "relevance"),
        ("search find query list", "max_results", 10),
        ("stock price finance crypto currency market", "currency", "USD"),
        ("signup register invite onboard", "send_welcome_email", True),
        ("create add post update", "notify", True),
        ("page document post file article wiki", "include_metadata", True),
        ("url fetch scrape web page download", "timeout", 30),
        ("date time schedule calendar history", "timezone", "UTC"),
        ("summary summarize generate post text", "max_length", 280),
        ("", "language", "en"),
        ("", "verbose", True),
        ("", "response_format", "json"),
        ("", "include_details", True),
        ("", "max_retries", 3),
    )
]


def plural_renamed(name: str) -> list[str]:
    """``keywords`` -> ``keyword``, ``tag`` -> ``tags``: the other number of the last word."""
    parts, how = words(name), style(name)
    if not parts or len(parts[-1]) < 3 or not parts[-1].isalpha():
        return []
    return [join(parts[:-1] + [plural(parts[-1])], how)]


def sibling_params(name: str, own: list[str], others: list[tuple[str, list[str]]]) -> list[tuple[str, str]]:
    """Parameters of sibling tools a model may carry over: (name, tool), the likeliest first.

    A sibling parameter sharing a word or a synonym with ``name`` comes first (``location`` of
    ``search_places`` for ``city``); others only when the sibling has few parameters.
    """
    mine = set(words(name)) | {w for s in SYNONYMS.get("_".join(words(name)), []) for w in s.split("_")}
    taken = {loose(p) for p in own}
    ranked: list[tuple[int, str, str]] = []
    for tool, params in others:
        for p in params:
            if loose(p) in taken:
                continue
            overlap = len(set(words(p)) & mine)
            if overlap or len(params) <= 2:
                ranked.append((-overlap, p, tool))
    ranked.sort()
    return list(dict.fromkeys((p, t) for _, p, t in ranked))


def case_renamed(name: str) -> list[str]:
    """``start_date`` <-> ``startDate``: the same words in the other convention."""
    parts = words(name)
    if len(parts) < 2:
        return []
    return [join(parts, "camel" if style(name) in ("snake", "kebab") else "snake")]


def synonym_renamed(name: str, rng: random.Random) -> list[str]:
    """``city`` -> ``location``, ``query`` -> ``search_term``, ``maxResults`` -> ``maxItems``."""
    parts, how = words(name), style(name)
    out = list(SYNONYMS.get("_".join(parts), []))
    for i, part in enumerate(parts):
        out += ["_".join(parts[:i] + [alt] + parts[i + 1 :]) for alt in _WORD_SYNONYMS.get(part, [])]
    rng.shuffle(out)
    return [join(x.split("_"), how) for x in dict.fromkeys(out)]


def extra_params(topic: set[str], props: list[str], rng: random.Random) -> list[tuple[str, Any]]:
    """Parameters a model adds from habit (``units``, ``sort_by``), styled like the tool's own."""
    taken = {loose(p) for p in props}
    taken |= {loose(s) for p in props for s in SYNONYMS.get("_".join(words(p)), [])}
    how = next((style(p) for p in props if len(words(p)) > 1), "snake")
    fitting = [(n, v) for t, n, v in EXTRAS if t & topic]
    generic = [(n, v) for t, n, v in EXTRAS if not t]
    rng.shuffle(fitting)
    rng.shuffle(generic)
    return [
        (join(n.split("_"), how), v)
        for n, v in fitting + generic
        if loose(n) not in taken and not set(SYNONYMS.get(n, [])) & set(props)
    ]


def hallucinated_names(name: str, noun: str, rng: random.Random) -> list[str]:
    """Names a model invents for a tool it needs: ``get_forecast`` -> ``fetch_forecast``.

    ``noun`` (from the first parameter) gives a verb-only tool an object: ``fetch`` -> ``get_url``.
    """
    parts, how = words(name), style(name)
    core = [p for p in parts if p not in FILLER_WORDS] or parts
    at = next((i for i, p in enumerate(core) if p in VERBS), None)  # "git_create_tag": verb second
    head, verb, rest = (core[:at], core[at], core[at + 1 :]) if at is not None else ([], "", core)
    if verb and noun and all(w in STOP for w in rest):
        rest = [noun]  # "fetch" -> "get_url", "navigate_to" -> "go_city"
    out = [join(head + alt.split("_") + rest, how) for alt in VERBS.get(verb, [])]
    rng.shuffle(out)
    if not verb:
        out.append(join(["get"] + core, how))
    if rest:
        out.append(join(head + rest + [rng.choice(("lookup", "info", "details"))], how))
    if len(rest) >= 2:
        out.append(join(head + [verb or "get"] + rest[-1:], how))
    if verb and rest:
        out.append(join(head + rest, how))
    return list(dict.fromkeys(out))
