"""Text the offline results quote: what known pages, files and messages say; values for
fields a description names; plain text transforms (reverse, upper-case, word count) and a
past-tense acknowledgement for command-like tools ("Make the avatar jump." -> "Made the avatar jump")."""

from __future__ import annotations

import re
from typing import Any

from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/texts", "keywords", dict[str, re.Pattern[str]])

# (title, text) of pages with no URL given
_PARAGRAPHS = table("results/texts", "paragraphs", tuple[tuple[str, str], ...])
# short, true-to-source summaries of values the writer uses
KNOWN = table("results/texts", "known", dict[str, str])
FILE_TEXT = table("results/texts", "file_text", dict[str, str])
URL_TITLES = table("results/texts", "url_titles", dict[str, str])


def page_text(url: str | None, text: str, args: dict[str, Any], i: int) -> tuple[str, str]:
    """(title, text) of a page: known pages say what they really say; others only what their address implies."""
    if url and url in KNOWN:
        return URL_TITLES.get(url, E.host(url)), KNOWN[url]
    if url:
        topic = E.url_topic(url)
        return (
            f"{topic.capitalize()} | {E.host(url)}",
            f"This page on {E.host(url)} covers {topic}: an overview, the main details and links to related pages.",
        )
    return _PARAGRAPHS[E.slot(text, args, i, len(_PARAGRAPHS))]


# --- text transforms and acknowledgements --------------------------------------------------------

TRANSFORMS = table("results/texts", "transforms", frozenset[str])


def transform(tool_words: list[str], args: dict[str, Any]) -> dict[str, Any] | None:
    """Plain text operations computed for real: reverse, change case, slugify, count words."""
    _, value = E.focus(args)
    value = FILE_TEXT.get(value, value)  # a known file's text, not its path
    w = set(tool_words)
    if "longest" in w and w & {"word", "words"}:
        found = [
            x
            for v in args.values()
            for s in (v if isinstance(v, list) else [v])
            if isinstance(s, str)
            for x in re.findall(r"[A-Za-z]+", s)
        ]
        best = max(found, key=len) if found else ""
        return {"word": best, "length": len(best)}
    if tool_words[:1] and tool_words[0] in _POOLS["transform.is"] and len(tool_words) > 1:
        return {"_".join(tool_words): bool(len(value) % 3), "checked_at": "2026-06-01T09:00:00Z"}
    if "reverse" in w:
        return {"result": value[::-1]}
    if w & {"uppercase", "upper"}:
        return {"result": value.upper()}
    if w & {"lowercase", "lower"}:
        return {"result": value.lower()}
    if "capitalize" in w:
        return {"result": value.title()}
    if w & {"slugify", "slug"}:
        return {"result": re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")}
    if w & _COUNTED and w & _SETS["transform.word"]:
        return {
            "words": len(value.split()),
            "characters": len(value),
            "characters_no_spaces": len(value.replace(" ", "")),
        }
    return None


COMMANDS = table("results/texts", "commands", frozenset[str])
_IRREGULAR = table("results/texts", "irregular", dict[str, str])
# what a count transform counts
_COUNTED = table("results/texts", "counted", frozenset[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/texts", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/texts", "sets", dict[str, frozenset[str]])


def past(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgklmnprt]", verb) and len(verb) <= 4:
        return verb + verb[-1] + "ed"
    return verb + "ed"


def ack(
    tool_name_words: list[str], description: str, ctx: Context, args: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """For a command-like tool ("Make the avatar jump."): a success flag and what was done, in the past tense,
    about what the call named ("Said hello to Ana Reis", not "Said hello to someone")."""
    first = re.split(r"(?<=[.!?])\s|\n", description.strip(), maxsplit=1)[0].strip().rstrip(".!")
    lead = re.findall(r"[A-Za-z]+", first[:20])
    verb = lead[0].lower() if lead and first[:1].isalpha() and first.isascii() else ""
    if verb.endswith("s") and verb[:-1] in COMMANDS:
        verb = verb[:-1]
    if verb in COMMANDS and len(first) <= 120:
        rest = first[len(lead[0]) :].strip()
        message = f"{past(verb).capitalize()} {rest}".strip()
    elif tool_name_words and tool_name_words[0] in COMMANDS and not description.strip():
        message = f"{past(tool_name_words[0]).capitalize()} {' '.join(tool_name_words[1:])}".strip()
    else:
        return None
    return {"success": True, "message": _named_in(message, args or {}), "completed_at": E.stamp(ctx, 0, 0.001)}


def _named_in(message: str, args: dict[str, Any]) -> str:
    """ "Equipped a specific item" with ``itemName="torch"`` -> "Equipped torch"; "someone" -> the name given."""
    said = {
        k: v for k, v in args.items() if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) <= 40
    }
    person = next((v for k, v in said.items() if set(words(k)) & _SETS["named_in.person"]), None)
    if person is not None:
        message = re.sub(r"\b(?:someone|somebody)\b", str(person), message)

    def value(m: re.Match[str]) -> str:
        found = next((v for k, v in said.items() if m.group(1).lower() in words(k)), None)
        return m.group(0) if found is None else str(found)

    return _KEYWORDS["named_in"].sub(value, message, count=1)
