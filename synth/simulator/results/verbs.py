"""Results shaped by what a tool *does*: a summary for summarize, a number with a unit for
calculate, ``valid`` and issues for validate, page state for a browser click, stdout for a
command, trades for a market, status fields for health/session/info.

``synth.simulator.results.purpose`` reads what the tool does from its name and description; ``shape``
builds the result for that purpose, a pure function of (tool, args, ctx.rng).
"""

from __future__ import annotations

import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator.results import content, judgements, shapes, texts, things
from synth.simulator.results import entities as E
from synth.simulator.results.calculate import calculate
from synth.simulator.tables import table
from synth.simulator.values.values import Context, words


def shape(p: str, tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The result of a tool whose purpose is ``p``, or None when no shape is known for it."""
    text = " ".join(words(tool.name)) + " " + tool.description[:300].lower()
    return _SHAPES[p](tool, args, ctx, text) if p in _SHAPES else None


# --- summarize / translate -------------------------------------------------------------------------

# when only an id is given, the content is unknown: any plausible content of that kind will do
_ABOUT = table("results/verbs", "about", dict[str, tuple[str, ...]])
_TRANSLATIONS = table("results/verbs", "translations", dict[str, dict[str, str]])
# argument words whose value is the text to summarize
_TEXT_KEYS = table("results/verbs", "text_keys", frozenset[str])
# what an id-only summary is about, by the words of the tool's text
_CONTENT_KINDS = table("results/verbs", "content_kinds", tuple[tuple[str, tuple[str, ...]], ...])
# a language's name and code, by how a request writes it (a code names itself)
_LANG = table("results/verbs", "lang", dict[str, str])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/verbs", "sets", dict[str, frozenset[str]])
# words that name other words (a field's value by what was asked), by the function that uses them
_MAPS = table("results/verbs", "maps", dict[str, dict[str, str]])


def _summarize(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    key, value = E.focus(args)
    count = len(value.split())
    if set(words(tool.name)) & _SETS["summarize.fact"]:
        sentences = [x.strip() for x in re.split(r"(?<=[.!?])\s+", value) if len(x.split()) > 2] or [value]
        if "keyword" in tool.name.lower():
            return {
                "keywords": sorted({x.lower() for x in re.findall(r"[A-Za-z]{5,}", value)}, key=lambda x: (-len(x), x))[
                    :5
                ]
            }
        return {"facts": sentences[:5], "count": min(len(sentences), 5)}
    if value in texts.KNOWN:
        summary = texts.KNOWN[value]
    elif value.startswith("http"):
        summary = f"The page on {E.host(value)} is about {E.url_topic(value)}; it gives an overview, the main details and links to related pages."
    elif count > 6 and set(words(key)) & _TEXT_KEYS:
        first = re.split(r"(?<=[.!?])\s+", value.strip())[0]
        if len(first.split()) > 25:  # cut at a clause boundary, never mid-phrase
            head = first[: len(" ".join(first.split()[:25]))]
            first = (head[: head.rfind(",")] if "," in head else head).rstrip(" ,;") + "..."
        audience = str(next((v for k, v in args.items() if "audience" in k.lower()), "")).lower()
        lead = _MAPS["summarize.lead"].get(audience, "")
        summary = lead + (first[0].lower() + first[1:] if lead and not first[:2].isupper() else first)
    else:
        kind = next(
            (k for k, keys in _CONTENT_KINDS if any(x in text for x in keys)),
            "document",
        )
        summary = rng.choice(_ABOUT[kind])
    out: dict[str, Any] = {"summary": summary}
    if count > 3:
        out["original_words"] = count
    out["summary_words"] = len(summary.split())
    return out


def _translate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    _, value = E.focus(args)
    target = next((str(v) for k, v in args.items() if set(words(k)) & _SETS["translate.target"]), "") or next(
        (str(v) for k, v in args.items() if set(words(k)) & _SETS["translate.language"]), "es"
    )
    code = _LANG.get(target.lower().split("-")[0], target.lower()[:2])
    known = _TRANSLATIONS.get(value, {})
    if code in known:
        return {"translated_text": known[code], "source_language": "en", "target_language": code}
    if code == "en" or not value:
        return {
            "translated_text": value,
            "source_language": "en",
            "target_language": "en",
            "note": "text is already in English",
        }
    return {
        "source_language": "en",
        "target_language": code,
        "characters": len(value),
        "status": "queued",
        "job_id": E.ident("translation", ctx),
        "estimated_seconds": ctx.rng.randint(2, 20),
    }


_SHAPES: dict[str, Any] = {
    "summarize": _summarize,
    "translate": _translate,
    "calculate": calculate,
    "transcribe": lambda tool, args, ctx, text: things.record(["transcript"], text, args, ctx),
    "answer": lambda tool, args, ctx, text: content.answer(args, ctx),
}
_SHAPES.update(shapes.SHAPES)
_SHAPES.update(content.SHAPES)
_SHAPES.update(judgements.SHAPES)
