"""String argument values: what a person would type for a parameter, from its name, format,
description and the tool it belongs to.

Rules are tried in order; the first that recognises the parameter gives the value and its
*kind* (how the request writer phrases it). The schema's own examples win over guesses, and
the last resort is a phrase about the conversation's topic, never a filler label.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from synth.live.sandbox import WORKSPACE
from synth.simulator import vocab
from synth.simulator.tables import table
from synth.simulator.values.context import ANCHOR, Context, seed_faker, words
from synth.simulator.values.string_rules import RULES

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("values/strings", "keywords", dict[str, re.Pattern[str]])

_QUOTED = table("values/strings", "quoted", re.Pattern[str])
_EG = table("values/strings", "eg", re.Pattern[str])
_CHOICES = table("values/strings", "choices", re.Pattern[str])
_PAREN_LIST = table("values/strings", "paren_list", re.Pattern[str])
# names, codes, URLs, paths
_TOKEN = table("values/strings", "token", re.Pattern[str])


def _split(text: str) -> list[str]:
    """``"binance, coinbase or kraken"`` -> the three names; anything wordy is not a value."""
    text = re.sub(r"\betc\.?|\band so on\b|\.\.\.", "", text)
    out = []
    for part in re.split(r",|\bor\b|\band\b|/(?=\s)|\||或|、|，", text):
        token = part.strip().strip("'\"`[]").strip()
        if " " in token and len(token.split()) <= 3 and token.replace(" ", "").isalnum():
            out.append(token)  # "Porto Alegre", "wt wt"
        elif _TOKEN.match(token):
            out.append(token)
    return out


def examples(description: str) -> list[str]:
    """Values a schema's description offers: quoted examples, "e.g. a, b", "(a, b, c)", "Valid x: a, b".

    A list that names kinds of value ("compound name, CID, SMILES", "https://, file:///") offers no value.
    """
    found = [m.strip() for m in _QUOTED.findall(description)]
    if found and not any(_KIND.search(f) for f in found):
        return found
    for pattern in (_EG, _CHOICES):
        for m in pattern.finditer(description):
            values = _split(m.group(1))
            if values and not any(_KIND.search(v) for v in values):
                return values
    for m in _PAREN_LIST.finditer(description):
        values = _split(m.group(1))
        if len(values) >= 2 and "," in m.group(1) and not any(_KIND.search(v) for v in values):
            return values
    return []


# "compound name", "user ID", "https://": what kind of value goes there, not a value
_KIND = table("values/strings", "kind", re.Pattern[str])


def _date(ctx: Context, span: int = 120) -> dt.date:
    return ANCHOR + dt.timedelta(days=ctx.rng.randint(-span // 4, span))


def _when(w: set[str], name: str, fmt: str, text: str, ctx: Context) -> tuple[Any, str] | None:
    """Dates and times: formats first, then names like startTime, end_dt, createdBefore, checkin."""
    rng = ctx.rng
    early = bool(w & _SETS["when.early"])
    timey = w & _TIME_WORDS
    if not (fmt in _POOLS["when.date-time"] or timey):
        return None
    if fmt == "time" or (w == {"time"} and "date" not in text):
        return f"{rng.randint(8, 18):02d}:{rng.choice((0, 15, 30, 45)):02d}", "time"
    d = _date(ctx, 30) if early else _date(ctx)
    if not early and w & _SETS["when.end"]:
        d = d + dt.timedelta(days=rng.randint(3, 10))
    if (
        fmt == "date"
        or "yyyy-mm-dd" in text
        or (w & _SETS["when.date"] and "time" not in w and "iso 8601 date-time" not in text)
    ):
        return d.isoformat(), "date"
    if w & _SETS["when.time"] or fmt:
        return f"{d.isoformat()}T{rng.randint(8, 18):02d}:{rng.choice((0, 15, 30, 45)):02d}:00Z", "datetime"
    return None


_SCHOLARLY = {
    "pmid": lambda r: str(r.randint(31000000, 39999999)),
    "pmcid": lambda r: f"PMC{r.randint(8000000, 11999999)}",
    "doi": lambda r: r.choice(vocab.DOIS),
    "isbn": lambda r: r.choice(vocab.ISBNS),
    "arxiv": lambda r: f"{r.randint(2101, 2605)}.{r.randint(10000, 19999)}",
    "nct": lambda r: f"NCT0{r.randint(4000000, 6999999)}",
}


def string_value(name: str, schema: dict[str, Any], description: str, ctx: Context) -> tuple[str, str]:
    """A value for a string parameter, and its kind."""
    rng = ctx.rng
    w = set(words(name))
    fmt = str(schema.get("format") or "")
    text = f"{name} {description}".lower()
    fake = seed_faker(rng)

    if fmt == "email" or (w & _SETS["string_value.email"] and not w & _SETS["string_value.subject"]):
        return fake.email(), "email"
    if w & _SETS["string_value.to"] and ("email" in text or "address" in text) and not w & {"id"}:
        return fake.email(), "email"
    # the description's own examples win over what the name or format suggests: an Instagram post URL where
    # one is shown, "localhost" where a database host is, not a URL or host from a stock list
    if ctx.world and (here := _in_world(w, ctx)) is not None:  # a path of the live server's world
        return here, "path"
    if (
        (found := examples(description))
        and not w & _SETS["string_value.password"]
        and not all(re.match(r"\d{4}-\d\d", f) for f in found)
    ):  # a date example shows a format: dates come below
        if all(_ZONE.match(f) for f in found):  # "e.g. 'America/New_York'" shows the form: any zone will do
            return rng.choice(sorted(set(vocab.ZONE_OFFSETS) - {"UTC"})), "name"
        return rng.choice(found), "url" if all(f.startswith("http") for f in found) else "text" if any(
            " " in f for f in found
        ) else "name"
    if (when := _when(w, name, fmt, text, ctx)) is not None:
        return when
    if fmt in _POOLS["string_value.uri"] or w & _SETS["string_value.url"]:
        if "github" in text or "repo" in w:
            return f"https://github.com/{rng.choice(vocab.GITHUB_PAIRS)}", "url"
        return rng.choice(vocab.URLS), "url"
    if fmt == "uuid" or "uuid" in w:
        return str(fake.uuid4()), "id"
    if fmt in ("ipv4", "ip") or w & {"ip"} or (w & {"target", "host"} and ("ip" in text or "network" in text)):
        return fake.ipv4_private() if "192.168" in text or "network" in text else fake.ipv4_public(), "id"
    if w & _SETS["string_value.domain"] and not w & {"id"} and not (w & {"name"} and not w & {"domain", "host"}):
        if _KEYWORDS["string_value.host"].search(text):
            return rng.choice(_POOLS["string_value.localhost"]), "name"
        return rng.choice(vocab.DOMAINS), "name"
    for key, make in _SCHOLARLY.items():
        if key in w or name.lower() == key or name.lower() == key + "s":
            return make(rng), "id"
    for rule in RULES:
        if (hit := rule(w, name, text, ctx)) is not None:
            return hit
    return _about(w, name, ctx)


_ZONE = table("values/strings", "zone", re.Pattern[str])
_DIR_WORDS = table("values/strings", "dir_words", set[str])
# a destination is new: never one that exists
_FILE_WORDS = table("values/strings", "file_words", set[str])
# words of a parameter's name that make it a date or a time
_TIME_WORDS = table("values/strings", "time_words", frozenset[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("values/strings", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("values/strings", "sets", dict[str, frozenset[str]])


def _in_world(w: set[str], ctx: Context) -> str | None:
    """A path the live server's sandbox really holds (``ctx.world``, as /workspace paths): a folder for a folder
    or repository (the top ones for a repository), or where the tool works on folders (list, tree, search); a
    new name inside a real folder where the tool creates something; a file for a file; None for other
    parameters."""
    if not w & (_DIR_WORDS | _FILE_WORDS):
        return None
    folders = [p.rstrip("/") for p in ctx.world if p.endswith("/")] or [WORKSPACE]
    files = [p for p in ctx.world if not p.endswith("/")]
    about = " ".join(ctx.about.split()[:6])  # the tool's name and the first words of what it does
    if _KEYWORDS["in_world.create"].search(about) and not w & {"repo", "repository"}:
        name = "drafts" if _KEYWORDS["in_world.folder"].search(about) else "new-note.md"
        return f"{ctx.rng.choice(folders)}/{name}"
    if w & _DIR_WORDS or _KEYWORDS["in_world.listing"].search(about):
        if w & {"repo", "repository"}:
            folders = [p for p in folders if p.count("/") == 2] or folders  # /workspace/<repo>
        return ctx.rng.choice(folders)
    return ctx.rng.choice(files) if files else None


def _about(w: set[str], name: str, ctx: Context) -> tuple[str, str]:
    """Last resort: a phrase about what the conversation is about, never a filler label.

    Its kind is ``guess``: the writer fills a required parameter with it but leaves an optional
    one out, as a person who does not know what a parameter wants would.
    """
    pool = vocab.QUERIES.get(ctx.topic, vocab.QUERIES["general"])
    return ctx.rng.choice(pool), "guess"
