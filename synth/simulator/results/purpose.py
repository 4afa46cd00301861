"""What a tool *does*, from the words of its name or the leading verb of its description:
summarize, calculate, analyze, browse, run, trade... Pure functions of the tool; the result for
each purpose is built by ``synth.simulator.results.verbs.shape``."""

from __future__ import annotations

import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator.tables import table
from synth.simulator.values.values import words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/purpose", "keywords", dict[str, re.Pattern[str]])


def _each(purpose: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), purpose)


# word -> purpose. STRONG words decide before the themed packs; WEAK ones only after them.
STRONG = {
    **_each("summarize", "summarize summarise summarization summarizer tldr recap"),
    **_each("translate", "translate translation translator"),
    **_each(
        "calculate",
        "calculate calculator calc compute convert conversion converter estimate bmi subtract "
        "multiply divide sum power sqrt modulo average mean median factorial percentage arithmetic "
        "math permutations permutation combinations combination binomial gcd lcm variance stdev",
    ),
    **_each(
        "analyze",
        "analyze analyse analysis analyzer evaluate evaluation assess assessment audit review "
        "sentiment classify diagnose detect",
    ),
    **_each("generate", "generate gen generator compose brainstorm random dice uuid guid mnemonic"),
    **_each("validate", "validate validation validator lint linter verify verification"),
    **_each("simulate", "simulate simulation simulator predict prediction"),
    **_each(
        "think",
        "think thinking sequentialthinking reason reasoning reflect reflection mentalmodel "
        "decisionframework structuredargumentation scientificmethod metacognitivemonitoring "
        "visualreasoning collaborativereasoning systemsthinking debuggingapproach designpattern "
        "programmingparadigm smartthinking pentestthinking multiagentdebate lotuswisdom "
        "stochasticalgorithm",
    ),
    **_each("browser", "click navigate goto hover scroll screenshot act drag"),
    **_each("run", "run execute exec shell bash terminal powershell cmd command"),
    **_each(
        "market", "trade trades orderbook ohlcv candle candles candlestick candlesticks kline klines funding forex"
    ),
    **_each("crypt", "encrypt decrypt encode decode hash base64 hmac"),
    **_each("connect", "connect disconnect login logout authenticate initialize init"),
    **_each("echo", "echo"),
    **_each("transcribe", "transcribe transcription stt"),
    **_each("answer", "ask answer perplexity"),
    **_each("export", "download export"),
    # a change verb inside a getter's name ("crm_batch_delete_objects") is still a change
    **_each("delete", "delete remove purge"),
    **_each("create", "create insert"),
    **_each("update", "update edit modify rename"),
}
WEAK = {
    **_each("validate", "check test inspect"),
    **_each("simulate", "forecast"),
    **_each(
        "browser",
        "type fill press select tab dialog resize wait reload back forward snapshot close evaluate "
        "extract upload interact",
    ),
    **_each("market", "market exchange ticker markets"),
    **_each(
        "status",
        "status health healthcheck ping alive liveness readiness uptime heartbeat session version "
        "system whoami monitor",
    ),
    **_each("time", "time now clock timezone datetime"),
    **_each("logs", "log logs trace traces"),
    **_each("schema", "describe schema columns"),
    **_each("export", "save pdf"),
}
_BROWSERISH = table("results/purpose", "browserish", frozenset[str])
_CONTENT_NOUNS = table("results/purpose", "content_nouns", frozenset[str])
_LEAD_SKIP = table("results/purpose", "lead_skip", re.Pattern[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/purpose", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/purpose", "sets", dict[str, frozenset[str]])
# rows a record is made from, by the function (and field) that uses them
_ROWS = table("results/purpose", "rows", dict[str, tuple[tuple[Any, ...], ...]])


def _stem(word: str) -> str:
    for suffix, repl in _ROWS["stem.izes"]:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + repl
    return word


def lead_verb(description: str) -> str:
    """The first word of the description's first sentence, as a base verb: "Calculates ..." -> "calculate"."""
    first = re.split(r"(?<=[.!?])\s|\n", description.strip(), maxsplit=1)[0]
    first = _LEAD_SKIP.sub("", _LEAD_SKIP.sub("", first.strip()))
    w = re.findall(r"[A-Za-z]+", first)
    return _stem(w[0].lower()) if w else ""


def purposes(tool: ToolSpec, strong: bool = True) -> list[str]:
    """What the tool does, from its name words, in name order (``strong``: only words that outrank themes)."""
    w = [re.sub(r"\d+", "", x) for x in words(tool.name)]
    joined = "".join(w)
    if strong and (joined in STRONG or _KEYWORDS["purposes.reasoning"].search(joined) and len(w) <= 2):
        w = [joined if joined in STRONG else "thinking"]
    table = STRONG if strong else WEAK
    browsing = bool(set(w) & _BROWSERISH) or bool(_KEYWORDS["purposes.browsing"].search(tool.description))
    out: list[str] = []
    for word in w:
        p = table.get(word)
        if p is None and strong and word == "add" and set(w) & _SETS["purposes.number"]:
            p = "calculate"
        if p is None and strong and word == "draft" and word == w[0]:
            p = "generate"
        if p is None and strong and len(w) == 1 and word in _POOLS["purposes.max"]:
            p = "calculate"
        if strong and word in ("write", "create") and set(w) & _CONTENT_NOUNS:
            p = "generate"
        if p == "browser" and not strong and not browsing:
            continue
        if p == "validate" and word == "test" and browsing:
            continue
        if p == "analyze" and word == "evaluate" and browsing:
            p = "browser"
        if p and p not in out:
            out.append(p)
    return out


def described_purpose(tool: ToolSpec) -> str | None:
    """The purpose the description's leading verb names ("Summarizes the transcript ...")."""
    v = lead_verb(tool.description)
    p = STRONG.get(v) or (WEAK.get(v) if v not in _POOLS["described_purpose.p"] else None)
    if (
        p == "browser"
        and v not in _POOLS["described_purpose.click"]
        and not _KEYWORDS["described_purpose.browsing"].search(tool.description)
    ):
        return None
    return p
