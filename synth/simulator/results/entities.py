"""The small helpers every result shape shares: timestamps near 2026-06-01, positions in a pool,
ids, the text a call is about, exchange rates, the word lists records draw from (tasks, services,
packages, table columns, models...), and the plain record of a kind nothing else knows.
The records themselves are made in ``synth.simulator.results.things`` and the modules it names. All
randomness comes from ``ctx.rng``.
"""

from __future__ import annotations

import datetime as dt
import re
import zlib
from collections.abc import Collection
from typing import Any

from synth.simulator.values.values import Context, words

_ANCHOR = dt.datetime(2026, 6, 1, 9, 0, 0)


def stamp(ctx: Context, lo: float = -3, hi: float = 0) -> str:
    """An ISO timestamp ``lo``..``hi`` days from 2026-06-01 09:00 UTC."""
    t = _ANCHOR + dt.timedelta(seconds=int(ctx.rng.uniform(lo, hi) * 86400))
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def day(ctx: Context, lo: int = -30, hi: int = 30) -> str:
    return (_ANCHOR + dt.timedelta(days=ctx.rng.randint(lo, hi))).date().isoformat()


def slot(text: str, args: dict[str, Any], i: int, n: int) -> int:
    """Position ``i`` of a list in a pool of ``n``: distinct for the items of one result, varied across calls."""
    return (zlib.crc32((text + repr(sorted(args.items(), key=lambda kv: kv[0]))).encode()) + i) % n


def ident(prefix: str, ctx: Context) -> str:
    return f"{prefix[:3]}_{ctx.rng.randint(10000, 99999)}"


def hexid(ctx: Context, n: int) -> str:
    return "".join(ctx.rng.choice("0123456789abcdef") for _ in range(n))


_CONTENT_KEYS = tuple(  # the argument words that name what a call is about, most telling first
    """
    transcript text content document body article message input code prompt instruction action
    description question query topic subject title keyword url path file name
""".split()
)


def arg(args: dict[str, Any], *keys: str, types: tuple[type, ...] = (str,)) -> Any:
    """The first argument whose name has one of ``keys`` as a word."""
    for key in keys:
        for k, v in args.items():
            if key in words(k) and isinstance(v, types) and not isinstance(v, bool):
                return v
    return None


def given(args: dict[str, Any], keys: Collection[str], default: Any = None, kind: Any = str) -> Any:
    """The first argument (in the call's order) of type ``kind`` whose name has one of ``keys`` as a word."""
    return next((v for k, v in args.items() if isinstance(v, kind) and set(words(k)) & set(keys)), default)


def focus(args: dict[str, Any]) -> tuple[str, str]:
    """What a call is about, as (key, value): the most content-like string argument."""
    strings = [(k, v) for k, v in args.items() if isinstance(v, str) and v.strip()]
    for key in _CONTENT_KEYS:
        for k, v in strings:
            if key in words(k):
                return k, v
    return max(strings, key=lambda kv: len(kv[1])) if strings else ("", "")


def numbers(args: dict[str, Any]) -> list[float]:
    out: list[float] = []
    for v in args.values():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(v)
        elif isinstance(v, list):
            out.extend(x for x in v if isinstance(x, (int, float)) and not isinstance(x, bool))
        elif isinstance(v, str) and re.fullmatch(r"-?\d+(\.\d+)?", v.strip()):
            out.append(float(v))
    return out


def short(text: str, n: int = 12) -> str:
    """The first ``n`` words of a text, for quoting it back."""
    w = text.split()
    return " ".join(w[:n]) + ("..." if len(w) > n else "")


def url_topic(url: str) -> str:
    """``https://docs.python.org/3/library/asyncio.html`` -> "asyncio"."""
    path = re.sub(r"^[a-z]+://[^/]+", "", url).strip("/")
    parts = [p for p in re.split(r"[/?#=&]", path) if p and not p.isdigit()]
    last = re.sub(r"\.(html?|php|aspx?)$", "", parts[-1]) if parts else ""
    return " ".join(words(last)) or host(url)


def host(url: str) -> str:
    m = re.match(r"^[a-z]+://(?:www\.)?([^/]+)", url)
    return m.group(1) if m else url


# --- word lists ------------------------------------------------------------------------------------

TASKS = (
    "Update onboarding emails",
    "Fix flaky checkout test",
    "Prepare Q3 board deck",
    "Migrate cron jobs to Airflow",
    "Review vendor contract renewal",
    "Write release notes for 2.5",
    "Add SSO to admin console",
    "Clean up unused feature flags",
    "Interview backend candidates",
    "Draft pricing page copy",
)
PROJECTS = (
    "Website redesign",
    "Mobile app v3",
    "Data warehouse migration",
    "Customer portal",
    "Billing revamp",
    "Support chatbot",
    "Warehouse automation",
)
TEAMS = ("Platform", "Growth", "Data Engineering", "Customer Success", "Mobile", "Security", "Design")
INDUSTRIES = ("software", "logistics", "healthcare", "retail", "financial services", "manufacturing", "education")
SERVICES = (
    "api-gateway",
    "orders-service",
    "payments-worker",
    "web-frontend",
    "auth-service",
    "search-indexer",
    "notifications",
    "redis-cache",
    "postgres-primary",
)
PACKAGES = (
    ("requests", "2.32.3", "Python HTTP for Humans.", "Apache-2.0"),
    ("express", "4.21.1", "Fast, unopinionated, minimalist web framework for Node.js", "MIT"),
    ("lodash", "4.17.21", "Lodash modular utilities.", "MIT"),
    ("serde", "1.0.210", "A generic serialization/deserialization framework", "MIT OR Apache-2.0"),
    ("rails", "7.2.1", "Full-stack web application framework.", "MIT"),
    ("github.com/gin-gonic/gin", "v1.10.0", "Gin is a HTTP web framework written in Go", "MIT"),
    ("laravel/framework", "v11.23.5", "The Laravel Framework.", "MIT"),
)
COLUMNS = {
    "customers": (
        ("id", "integer"),
        ("name", "text"),
        ("email", "text"),
        ("country", "text"),
        ("created_at", "timestamp"),
    ),
    "orders": (
        ("id", "integer"),
        ("customer_id", "integer"),
        ("status", "text"),
        ("total", "numeric(10,2)"),
        ("created_at", "timestamp"),
    ),
    "products": (
        ("id", "integer"),
        ("name", "text"),
        ("price", "numeric(10,2)"),
        ("stock", "integer"),
        ("category", "text"),
    ),
    "invoices": (
        ("id", "integer"),
        ("customer_id", "integer"),
        ("total", "numeric(10,2)"),
        ("paid", "boolean"),
        ("due_date", "date"),
    ),
    "employees": (
        ("id", "integer"),
        ("name", "text"),
        ("department", "text"),
        ("salary", "numeric(10,2)"),
        ("hired_on", "date"),
    ),
    "events": (
        ("id", "bigint"),
        ("user_id", "integer"),
        ("type", "text"),
        ("payload", "jsonb"),
        ("occurred_at", "timestamp"),
    ),
}
CRM_PROPERTIES = (
    ("lifecyclestage", "Lifecycle stage", "enumeration"),
    ("hs_lead_status", "Lead status", "enumeration"),
    ("annualrevenue", "Annual revenue", "number"),
    ("industry", "Industry", "enumeration"),
    ("phone", "Phone number", "string"),
    ("closedate", "Close date", "datetime"),
)
CATEGORY_NAMES = (
    "Productivity",
    "Developer tools",
    "Finance",
    "Health & fitness",
    "Education",
    "Travel",
    "Photography",
)
LOG_LINES = (
    ("INFO", "GET /api/v1/orders 200 in 34ms"),
    ("INFO", "Worker started, 4 threads"),
    ("WARN", "Slow query on orders (1.8s): SELECT * FROM orders WHERE status = 'pending'"),
    ("ERROR", "Connection to redis-cache:6379 refused, retrying in 2s"),
    ("INFO", "Healthcheck passed"),
    ("WARN", "Memory usage at 82% of limit"),
    ("INFO", "POST /api/v1/payments 201 in 118ms"),
    ("ERROR", "Timeout after 30000ms calling payments-worker"),
    ("INFO", "Cache warmed: 1,204 keys"),
)
TRENDING = (
    "AI 手机助手全面升级，实测体验如何？",
    "高考倒计时：考前最后一周怎么复习",
    "端午假期出行预测发布",
    "国产大模型开源新版本",
    "夏季新品发布会回顾",
    "城市夜跑路线推荐",
)
MODELS = (
    ("gpt-4o-mini", "OpenAI", 128000),
    ("claude-3-5-haiku", "Anthropic", 200000),
    ("llama-3.1-8b-instruct", "Meta", 131072),
    ("mistral-small-2409", "Mistral AI", 32768),
    ("gemini-1.5-flash", "Google", 1048576),
)
CODENAMES = ("Atlas", "Juniper", "Northwind", "Orion", "Harbor", "Summit", "Cedar", "Beacon")


_RATES = {
    "USD": 1.0,
    "EUR": 0.921,
    "GBP": 0.786,
    "JPY": 157.2,
    "CHF": 0.897,
    "CAD": 1.368,
    "AUD": 1.502,
    "BRL": 5.18,
    "INR": 83.4,
}


def rate(a: str, b: str) -> float | None:
    """How many ``b`` one ``a`` buys, from fixed 2026-06-01 rates."""
    if a.upper() in _RATES and b.upper() in _RATES:
        return _RATES[b.upper()] / _RATES[a.upper()]
    return None


def rates_from(base: str, codes: tuple[str, ...]) -> dict[str, float]:
    """What one ``base`` buys of each of ``codes`` (but itself), from the same fixed rates."""
    return {c: _RATES[c] / _RATES[base] for c in codes if c != base}


def fallback(noun: str, ctx: Context, index: int = 0) -> dict[str, Any]:
    """A thing of a kind nothing above knows, saying only what any such thing has: an id and a name.

    Owners and dates would make it one more copy of the same made-up record for every unknown tool (issue
    10 found one returned by 38 tools, medical calculators included); a value tool returns a value.
    """
    if noun in ("value", "result", "output", "answer", "number"):
        return {noun: round(ctx.rng.uniform(1, 500), 2)}
    return {"id": ident(noun, ctx), "name": f"{ctx.rng.choice(CODENAMES)} {noun}"}
