"""Result shapes for tools that *judge* what they are given: analyze (sentiment, security, SEO,
technicals, code, images, data, text) and validate (emails, links, phones, code, documents).
Used through ``synth.simulator.results.verbs``; the verdict depends on the words of the tool."""

from __future__ import annotations

import random
import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/judgements", "keywords", dict[str, re.Pattern[str]])

_SECURITY = table("results/judgements", "security", tuple[tuple[str, str], ...])
_SEO = table("results/judgements", "seo", tuple[str, ...])
_CODE = table("results/judgements", "code", tuple[tuple[str, str, int, str], ...])
_LINT = table("results/judgements", "lint", tuple[tuple[str, str], ...])
_INVALID = table("results/judgements", "invalid", tuple[str, ...])
_POSITIVE = table("results/judgements", "positive", frozenset[str])
_NEGATIVE = table("results/judgements", "negative", frozenset[str])
_ABOUT_CODE = table("results/judgements", "about_code", str)
_LABELS = table("results/judgements", "labels", tuple[str, ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/judgements", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/judgements", "sets", dict[str, frozenset[str]])


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def analyze(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """What an analysis finds, by what the tool analyses: the first topic its words name."""
    rng = ctx.rng
    _, value = E.focus(args)
    if _has(r"sentiment|emotion|tone", text):
        return _sentiment(value, rng)
    if _has(r"secur|vulnerab|threat|malware|risk|injection|xss|exploit|ssl|tls|port", text):
        return _security_scan(ctx)
    if _has(r"\bseo\b|lighthouse|website|web ?page|performance|accessibility", text) or value.startswith("http"):
        url = value if value.startswith("http") else E.host(rng.choice(vocab.URLS))
        return {"url": url, "score": rng.randint(48, 96), "issues": rng.sample(_SEO, rng.randint(2, 3))}
    if _has(r"stock|ticker|symbol|share|equity|technical|portfolio", text):
        return _technicals(rng)
    code = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["analyze.code"]),
        None,
    )
    if code is not None:
        return _code_review(code, rng)
    if _has(_ABOUT_CODE, text):
        return _repo_review(rng)
    if _has(r"image|photo|picture|visual|screenshot", text):
        return _image_labels(rng)
    if _has(r"\bdata|csv|dataset|table|column|statistic|distribution", text):
        return _data_profile(rng)
    if len(value.split()) > 3:
        return _text_stats(value, rng)
    score = round(rng.uniform(5.5, 9.4), 1)
    rating = "good" if score >= 7 else "fair"
    return {"score": score, "scale": "0-10", "rating": rating, "confidence": round(rng.uniform(0.7, 0.95), 2)}


def _sentiment(value: str, rng: random.Random) -> dict[str, Any]:
    """A label that follows the words of the text (thanks, broken), with a little noise."""
    toks = set(re.findall(r"[a-z]+", value.lower()))
    score = (len(toks & _POSITIVE) - len(toks & _NEGATIVE)) * 0.35 + rng.uniform(-0.1, 0.1)
    label = "positive" if score > 0.15 else "negative" if score < -0.15 else "neutral"
    return {
        "sentiment": label,
        "score": round(max(-1, min(1, score)), 2),
        "confidence": round(rng.uniform(0.72, 0.97), 2),
    }


def _security_scan(ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    found = rng.sample(_SECURITY, rng.randint(1, 3))
    level = next((lvl for lvl in ("high", "medium") if any(s == lvl for s, _ in found)), "low")
    return {
        "risk_level": level,
        "findings": [{"severity": s, "title": t} for s, t in found],
        "scanned_at": E.stamp(ctx, -0.01, 0),
    }


def _technicals(rng: random.Random) -> dict[str, Any]:
    """Technical indicators whose trend and advice agree with the RSI."""
    rsi = round(rng.uniform(28, 74), 1)
    return {
        "trend": "bullish" if rsi > 55 else "bearish" if rsi < 40 else "sideways",
        "rsi_14": rsi,
        "sma_50": round(rng.uniform(90, 400), 2),
        "macd_signal": rng.choice(_POOLS["technicals.macd_signal"]),
        "recommendation": "buy" if rsi < 35 else "hold" if rsi < 68 else "take profit",
    }


def _language(code: str) -> str:
    if _KEYWORDS["language"].search(code):
        return "python"
    return "javascript" if re.search(r"const |=>|function", code) else "unknown"


def _code_review(code: str, rng: random.Random) -> dict[str, Any]:
    """A review of the code passed in: its language, its lines, and issues only where it is long enough."""
    lines = code.count("\n") + 1
    found = [] if lines < 4 or rng.random() < 0.4 else rng.sample(_LINT, rng.randint(1, 2))
    return {
        "language": _language(code),
        "lines": lines,
        "issues": [{"line": rng.randint(1, lines), "rule": r, "message": m} for r, m in found],
        "cyclomatic_complexity": 1 + code.count(" if ") + code.count(" for "),
    }


def _repo_review(rng: random.Random) -> dict[str, Any]:
    found = rng.sample(_CODE, rng.randint(1, 3))
    errors = sum(s == "error" for s, *_ in found)
    return {
        "files_analyzed": rng.randint(3, 140),
        "issues": [{"severity": s, "file": f, "line": n, "message": m} for s, f, n, m in found],
        "summary": f"{len(found)} issue{'s' if len(found) > 1 else ''} found, {errors} of them errors",
    }


def _image_labels(rng: random.Random) -> dict[str, Any]:
    labels = rng.sample(_LABELS, 3)
    return {
        "labels": [{"label": lab, "confidence": round(rng.uniform(0.6, 0.99), 2)} for lab in labels],
        "width": 1920,
        "height": 1080,
        "dominant_colors": rng.sample(_POOLS["image_labels.dominant_colors"], 2),
    }


def _data_profile(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(200, 50000)
    return {
        "rows": n,
        "columns": rng.randint(4, 24),
        "missing_values": rng.randint(0, n // 20),
        "duplicates": rng.randint(0, 40),
        "numeric_summary": {
            "mean": round(rng.uniform(10, 500), 2),
            "std": round(rng.uniform(1, 90), 2),
            "min": 0,
            "max": round(rng.uniform(500, 5000), 2),
        },
    }


def _text_stats(value: str, rng: random.Random) -> dict[str, Any]:
    """Counts that are true of the text passed in, and a reading ease and tone that are guesses."""
    count = len(value.split())
    return {
        "word_count": count,
        "sentences": max(1, len(re.findall(r"[.!?]", value))),
        "reading_time_s": max(2, round(count / 4)),
        "flesch_reading_ease": round(rng.uniform(55, 85), 1),
        "tone": rng.choice(_POOLS["text_stats.tone"]),
    }


def validate(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any] | None:
    """A verdict on what the tool validates (two in three pass), or None for a status check."""
    rng = ctx.rng
    ok = rng.random() < 0.65
    if _has(r"health|liveness|alive|readiness|status|connectivity|connection|ping", text):
        return None  # a status check, not a validation: let the status shape answer
    if _has(r"secur|threat|risk|vulnerab|malware|injection|login", text):
        return analyze(tool, args, ctx, text)
    if _has(r"availab|domain", text):
        return {"available": ok, "checked_at": E.stamp(ctx, -0.01, 0)} | (
            {} if ok else {"reason": "already registered"}
        )
    if _has(r"complete|done|finished", text):
        remaining = 0 if ok else rng.randint(1, 4)
        return {"all_complete": ok, "completed": rng.randint(3, 20), "remaining": remaining}
    if _has(r"e-?mail", text):
        reason = {} if ok else {"reason": "domain has no MX record"}
        return {"valid": ok, "mx_found": ok, "disposable": False} | reason
    if _has(r"\burls?\b|link", text):
        code = 200 if ok else rng.choice((404, 500, 301))
        return {"valid": ok, "status_code": code, "response_time_ms": rng.randint(40, 1800)}
    if _has(r"phone", text):
        return {"valid": ok, "country": "US", "line_type": rng.choice(("mobile", "landline"))}
    if _has(r"lint|code|syntax|python|javascript|typescript|eslint|ruff|script", text):
        found = [] if ok else rng.sample(_LINT, rng.randint(1, 3))
        return {"valid": ok, "issues": [{"line": rng.randint(1, 120), "rule": r, "message": m} for r, m in found]}
    issues = [] if ok else rng.sample(_INVALID, rng.randint(1, 2))
    warnings = [] if rng.random() < 0.7 else ["Property 'description' is empty"]
    return {"valid": ok, "errors": issues, "warnings": warnings}


SHAPES: dict[str, Any] = {"analyze": analyze, "validate": validate}
