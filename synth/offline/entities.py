"""Records about *things*, for tools no themed pack covers: what a task, a pod, a lead, a
package or a table looks like, chosen by the nouns in the tool's name.

Also the small helpers every result shape shares: timestamps near 2026-06-01, the text a
call is about, and realistic values for field names parsed from a description. All
randomness comes from ``ctx.rng`` (or Faker seeded from it).
"""

from __future__ import annotations

import datetime as dt
import re
import zlib
from typing import Any

from synth.offline import vocab
from synth.offline.values import Context, seed_faker, words

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


_CONTENT_KEYS = (
    "transcript",
    "text",
    "content",
    "document",
    "body",
    "article",
    "message",
    "input",
    "code",
    "prompt",
    "instruction",
    "action",
    "description",
    "question",
    "query",
    "topic",
    "subject",
    "title",
    "keyword",
    "url",
    "path",
    "file",
    "name",
)


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


# --- families ------------------------------------------------------------------------------------


def record(
    nouns: list[str], tool_text: str, args: dict[str, Any], ctx: Context, index: int = 0
) -> dict[str, Any] | None:
    """A record about the first noun in ``nouns`` that a family knows; None when none does."""
    for n in reversed(nouns):  # the head noun (last word) decides first: "company_properties" -> property
        for keys, make in _FAMILIES:
            if n in keys and (out := make(n, tool_text, args, ctx, index)) is not None:
                return out
    return None


def _person(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    fake = seed_faker(ctx.rng)
    rng = ctx.rng
    given = next(
        (v for k, v in args.items() if isinstance(v, str) and "name" in words(k) and len(v.split()) in (2, 3)), None
    )
    name = given if given and i == 0 else fake.name()  # the person asked about, not someone else
    if n == "lead":
        return {
            "name": name,
            "email": fake.email(),
            "company": fake.company(),
            "status": rng.choice(("new", "contacted", "qualified", "unqualified")),
            "source": rng.choice(("website", "referral", "LinkedIn", "trade show")),
            "created_at": stamp(ctx, -40, -1),
        }
    if n in ("player", "athlete"):
        return {
            "name": name,
            "team": f"{rng.choice(vocab.CITIES)[0]} {rng.choice(('United', 'FC', 'Rovers', 'Athletic'))}",
            "position": rng.choice(("forward", "midfielder", "defender", "goalkeeper")),
            "age": rng.randint(19, 35),
            "appearances": rng.randint(3, 38),
            "goals": rng.randint(0, 21),
        }
    if n == "author":
        return {
            "name": name,
            "works_count": rng.randint(3, 140),
            "h_index": rng.randint(2, 60),
            "affiliation": f"University of {rng.choice(vocab.CITIES)[0]}",
        }
    if "phone" in text:
        return {"name": name, "phone": fake.phone_number(), "email": fake.email()}
    return {
        "name": name,
        "email": fake.email(),
        "role": fake.job(),
        "created_at": stamp(ctx, -300, -5),
        "last_active_at": stamp(ctx, -4, 0),
    }


def _org(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    if n in ("team", "group"):
        return {"name": rng.choice(TEAMS), "members": rng.randint(3, 24), "created_at": stamp(ctx, -500, -30)}
    fake = seed_faker(rng)
    given = next(
        (
            v
            for k, v in args.items()
            if isinstance(v, str) and set(words(k)) & {"company", "organization", "name"} and i == 0
        ),
        None,
    )
    company = given or fake.company()
    domain = re.sub(r"[^a-z]", "", company.lower().split()[0].split(",")[0]) + rng.choice((".com", ".io", ".co"))
    return {
        "name": company,
        "domain": domain,
        "industry": rng.choice(INDUSTRIES),
        "employees": rng.choice((12, 48, 140, 420, 1300, 5200)),
        "city": rng.choice(vocab.CITIES)[0],
        "created_at": stamp(ctx, -400, -10),
    }


def _task(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    fake = seed_faker(rng)
    if n == "project":
        total = rng.randint(8, 60)
        return {
            "name": rng.choice(PROJECTS),
            "status": rng.choice(("active", "active", "on hold", "completed")),
            "owner": fake.name(),
            "tasks_total": total,
            "tasks_done": rng.randint(0, total),
            "due_date": day(ctx, 10, 120),
        }
    return {
        "title": rng.choice(TASKS),
        "status": rng.choice(("todo", "in_progress", "in_review", "done")),
        "priority": rng.choice(("low", "medium", "high")),
        "assignee": fake.name(),
        "due_date": day(ctx, -2, 21),
    }


def _crm(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    if n == "property" and not re.search(r"crm|hubspot|salesforce|contact|deal|compan|ticket|object", text):
        return None  # type: ignore[return-value] # a compound's or a file's properties are no CRM field definitions
    if n == "property":
        name, label, kind = CRM_PROPERTIES[slot(text, args, i, len(CRM_PROPERTIES))]
        return {
            "name": name,
            "label": label,
            "type": kind,
            "group_name": "companyinformation" if "compan" in text else "contactinformation",
        }
    if n == "association":
        return {
            "from_id": str(rng.randint(10**9, 10**10)),
            "to_id": str(rng.randint(10**9, 10**10)),
            "type": rng.choice(("company_to_contact", "deal_to_company", "contact_to_deal")),
            "category": "HUBSPOT_DEFINED",
        }
    if n == "call" and not re.search(r"crm|hubspot|sales|phone|dial|voicemail|twilio|engagement", text):
        return None  # type: ignore[return-value]
    if n in ("call", "engagement", "meeting"):
        return {
            "type": "CALL" if n == "call" else rng.choice(("CALL", "EMAIL", "MEETING")),
            "direction": rng.choice(("OUTBOUND", "INBOUND")),
            "duration_s": rng.randint(45, 1800),
            "outcome": rng.choice(("connected", "left voicemail", "no answer")),
            "timestamp": stamp(ctx, -10, 0),
        }
    if n == "deal":
        return {
            "name": f"{seed_faker(rng).company()} renewal",
            "amount": rng.choice((4800, 12000, 25000, 60000)),
            "stage": rng.choice(("appointmentscheduled", "qualifiedtobuy", "contractsent", "closedwon")),
            "close_date": day(ctx, 5, 90),
        }
    if n == "object" and not re.search(r"crm|hubspot|salesforce|pipedrive|deal|lead|contact|compan", text):
        return None  # type: ignore[return-value] # a museum object, a stored object, a JSON object: not a CRM record
    fake = seed_faker(rng)
    return {
        "id": str(rng.randint(10**9, 10**10)),
        "properties": {
            "name": fake.company(),
            "domain": fake.domain_name(),
            "lifecyclestage": rng.choice(("lead", "opportunity", "customer")),
        },
        "created_at": stamp(ctx, -200, -5),
        "updated_at": stamp(ctx, -5, 0),
    }


def _infra(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    svc = SERVICES[slot(text, args, i, len(SERVICES))]
    ns = next((v for k, v in args.items() if "namespace" in k.lower() and isinstance(v, str)), "production")
    if n == "pod":
        return {
            "name": f"{svc}-{hexid(ctx, 9)}-{hexid(ctx, 5)}",
            "namespace": ns,
            "status": rng.choice(("Running",) * 4 + ("Pending", "CrashLoopBackOff")),
            "restarts": rng.choice((0, 0, 1, 3)),
            "node": f"ip-10-0-{rng.randint(1, 9)}-{rng.randint(10, 250)}.ec2.internal",
            "age": f"{rng.randint(1, 30)}d",
        }
    if n == "node":
        return {
            "name": f"ip-10-0-{rng.randint(1, 9)}-{rng.randint(10, 250)}.ec2.internal",
            "status": "Ready",
            "cpu_cores": rng.choice((4, 8, 16)),
            "memory_gib": rng.choice((16, 32, 64)),
            "kubelet_version": "v1.30.4",
            "pods": rng.randint(12, 58),
        }
    if n in ("app", "application", "function", "release") and not re.search(
        r"deploy|k8s|kube|cloud|heroku|vercel|container|helm|lambda|serverless", text
    ):
        return None  # type: ignore[return-value] # an app in a store, not a deployed service
    if n in ("deployment", "service", "app", "application", "function", "release"):
        svc = next((v for k, v in args.items() if isinstance(v, str) and "name" in words(k) and i == 0), svc)
        return {
            "name": svc,
            "namespace": ns,
            "replicas": (r := rng.choice((1, 2, 3, 4))),
            "ready": r,
            "image": f"registry.example.com/{svc}:{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
            "updated_at": stamp(ctx, -6, 0),
        }
    if n == "container":
        return {
            "id": hexid(ctx, 12),
            "name": svc,
            "image": f"{svc}:latest",
            "status": f"Up {rng.randint(2, 70)} hours",
            "cpu_pct": round(rng.uniform(0.2, 65), 1),
            "memory_mb": rng.randint(40, 2048),
        }
    if n in ("instance", "vm", "server", "host", "machine"):
        return {
            "id": f"i-0{hexid(ctx, 16)}",
            "name": svc,
            "type": rng.choice(("t3.medium", "m6i.large", "c7g.xlarge")),
            "state": rng.choice(("running", "running", "stopped")),
            "region": rng.choice(("eu-west-1", "us-east-1", "ap-southeast-1")),
            "private_ip": f"10.0.{rng.randint(1, 9)}.{rng.randint(10, 250)}",
        }
    if n == "bucket":
        return {
            "name": f"{rng.choice(('acme', 'northwind', 'contoso'))}-{rng.choice(('assets', 'backups', 'logs'))}",
            "region": "eu-west-1",
            "objects": rng.randint(200, 900000),
            "size_gb": round(rng.uniform(0.5, 900), 1),
        }
    if n in ("upstream", "consumer", "plugin", "route", "target", "webhook", "trigger"):
        out = {
            "id": str(seed_faker(rng).uuid4()),
            "name": svc,
            "enabled": rng.random() < 0.85,
            "created_at": stamp(ctx, -90, -1),
        }
        if n in ("target", "webhook", "route"):
            out["url" if n == "webhook" else "target"] = (
                f"https://hooks.example.com/{svc}"
                if n == "webhook"
                else f"10.0.{rng.randint(1, 9)}.{rng.randint(10, 250)}:8080"
            )
        return out
    return {
        "kind": rng.choice(("Deployment", "Service", "ConfigMap", "Pod")),
        "name": svc,
        "namespace": ns,
        "status": "Active",
        "created_at": stamp(ctx, -60, -1),
    }


def _data(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    given = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"table", "collection", "name"}), None
    )
    table = given if given in COLUMNS else vocab.TABLES[slot(text, args, i, len(vocab.TABLES))]
    if n in ("database", "db", "databas", "connection"):
        return {
            "name": rng.choice(("sales", "inventory", "crm", "analytics")),
            "engine": rng.choice(("PostgreSQL 16.3", "MySQL 8.0.37")),
            "size_mb": rng.randint(40, 20000),
            "tables": rng.randint(6, 80),
            "host": "db.internal:5432",
        }
    if n == "dataset":
        name = (
            ("HuggingFaceFW/fineweb-edu", "openai/gsm8k", "tatsu-lab/alpaca", "allenai/c4")[slot(text, args, i, 4)]
            if re.search(r"hugging|hf\b|model", text)
            else ("sales_daily", "web_events", "customer_churn", "inventory_snapshot")[slot(text, args, i, 4)]
        )
        return {
            "name": name,
            "rows": rng.randint(10**3, 10**8),
            "size_mb": round(rng.uniform(1, 90000), 1),
            "updated_at": stamp(ctx, -60, -1),
        }
    if n == "collection" and re.search(r"museum|\bart|gallery|cultural|institution", text):
        return None  # type: ignore[return-value]
    if n in ("collection", "index", "class"):
        return {
            "name": given or table,
            "documents": rng.randint(120, 2_000_000),
            "size_mb": round(rng.uniform(0.4, 4000), 1),
            "indexes": rng.randint(1, 6),
        }
    if n == "table" and i == 0 and re.search(r"\b(show|all|get) tables\b|显示数据库中的所有表", text):
        return {"tables": list(vocab.TABLES), "count": len(vocab.TABLES)}
    cols = COLUMNS.get(table, COLUMNS["orders"])
    return {
        "name": given or table,
        "rows": rng.randint(40, 500_000),
        "columns": [{"name": c, "type": t} for c, t in cols],
        "size_mb": round(rng.uniform(0.1, 800), 1),
    }


def _package(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    name, version, desc, lic = PACKAGES[slot(text, args, i, len(PACKAGES))]
    given = next(
        (
            v
            for k, v in args.items()
            if isinstance(v, str) and set(words(k)) & {"package", "name", "module", "crate", "gem", "library"}
        ),
        None,
    )
    out = {
        "name": given or name,
        "version": version,
        "license": lic,
        "downloads_last_month": rng.randint(2000, 90_000_000),
        "published_at": stamp(ctx, -60, -1),
    }
    if not given:
        out["description"] = desc
    return out


def _media(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    if n in ("video", "episode"):
        return {
            "title": rng.choice(vocab.QUERIES["general"]).capitalize(),
            "duration_s": rng.randint(45, 3600),
            "views": rng.randint(300, 4_000_000),
            "published_at": stamp(ctx, -120, -1),
        }
    if n in ("audio", "song", "track"):
        return {
            "duration_s": rng.randint(90, 420),
            "format": "mp3",
            "bitrate_kbps": rng.choice((128, 192, 320)),
            "sample_rate_hz": 44100,
        }
    if n in ("transcript", "caption", "subtitle"):
        lines = rng.sample(vocab.MESSAGES, 3)
        t = 0.0
        segs = []
        for line in lines:
            segs.append({"start": round(t, 1), "end": round(t + len(line) / 14, 1), "text": line})
            t += len(line) / 14 + rng.uniform(0.2, 1.5)
        return {"language": "en", "segments": segs}
    w, h = rng.choice(((1920, 1080), (1024, 1024), (1280, 720), (800, 600)))
    return {
        "url": f"https://cdn.example.com/images/{hexid(ctx, 12)}.png",
        "width": w,
        "height": h,
        "format": "png",
        "size_bytes": rng.randint(40_000, 2_400_000),
    }


_PERIODIC = re.compile(r"usage|visits|views|daily|weekly|monthly|period|analytics|activity|over time|trend")


def _stats(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    total = rng.randint(120, 90000)
    if n == "count" or not _PERIODIC.search(text):  # statistics of no period (a game, a database) are counts
        return {"count": total}
    return {
        "period_start": "2026-05-01",
        "period_end": "2026-05-31",
        "total": total,
        "daily_average": round(total / 31, 1),
        "change_pct": round(rng.uniform(-18, 25), 1),
        "peak_day": day(ctx, -31, -1),
    }


def _misc(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    if n == "type" and "association" in text:
        label = ("Primary company", "Decision maker", "Billing contact")[slot(text, args, i, 3)]
        return {
            "typeId": [1, 2, 3][slot(text, args, i, 3)],
            "label": label,
            "category": "USER_DEFINED" if label != "Primary company" else "HUBSPOT_DEFINED",
        }
    if n == "key" and re.search(r"redis|cache|kv|store", text):
        key = ("session:8f3a2c", "user:1042:profile", "rate:api:203.0.113.7", "cart:5521")[slot(text, args, i, 4)]
        return {"key": key, "type": rng.choice(("string", "hash")), "ttl_s": rng.choice((-1, 900, 3600, 86400))}
    if n in ("category", "genre", "tag", "label", "type"):
        return {
            "name": rng.choice(CATEGORY_NAMES) if n != "tag" else rng.choice(vocab.TAGS),
            "count": rng.randint(3, 900),
        }
    if n in ("model", "llm"):
        name, provider, window = MODELS[slot(text, args, i, len(MODELS))]
        return {
            "id": name,
            "provider": provider,
            "context_window": window,
            "input_price_per_mtok": round(rng.uniform(0.05, 3), 2),
        }
    if n in ("hotspot", "trending", "hot", "rank") and not re.search(r"[\u4e00-\u9fff]", text):
        return None  # type: ignore[return-value] # the Chinese hot lists are the ones these words name here
    if n in ("hotspot", "trending", "hot", "rank"):
        return {
            "rank": i + 1,
            "title": TRENDING[slot(text, args, i, len(TRENDING))],
            "heat": rng.randint(10**5, 9 * 10**6),
            "url": f"https://www.zhihu.com/question/{rng.randint(10**8, 10**9)}"
            if "zhihu" in text
            else f"https://s.weibo.com/weibo?q=%23{rng.randint(10**5, 10**6)}"
            if "weibo" in text
            else f"https://www.bilibili.com/video/BV1{hexid(ctx, 9)}",
        }
    if n in ("rate", "currency"):
        base = next((v for k, v in args.items() if isinstance(v, str) and v in vocab.CURRENCIES), "USD")
        return {
            "base": base,
            "date": "2026-06-01",
            "rates": {c: _RATES[c] / _RATES[base] for c in ("EUR", "GBP", "JPY", "CHF") if c != base},
        }
    if n in ("memory", "observation", "entity", "thought"):
        return {"content": rng.choice(vocab.NOTES), "tags": rng.sample(vocab.TAGS, 2), "created_at": stamp(ctx, -20, 0)}
    if n in ("config", "configuration", "setting", "option", "preference", "mode"):
        return {
            "enabled": rng.random() < 0.7,
            "timeout_s": rng.choice((10, 30, 60)),
            "retries": rng.choice((2, 3, 5)),
            "log_level": rng.choice(("info", "warn", "debug")),
            "updated_at": stamp(ctx, -30, -1),
        }
    if n in ("domain", "dns", "whois"):
        d = next(
            (v for v in args.values() if isinstance(v, str) and "." in v and " " not in v), rng.choice(vocab.DOMAINS)
        )
        return {
            "domain": d,
            "registrar": rng.choice(("MarkMonitor Inc.", "GoDaddy.com, LLC", "Namecheap, Inc.")),
            "created": day(ctx, -4000, -400),
            "expires": day(ctx, 30, 700),
            "name_servers": [f"ns1.{host('https://' + d)}", f"ns2.{host('https://' + d)}"],
        }
    if n == "device" and re.search(r"\badb\b|android|emulator|ios|simulator|iphone", text):
        model = ("Pixel_7", "SM-S918B", "iPhone 15 Pro")[slot(text, args, i, 3)]
        return {
            "serial": ("emulator-5554", "R5CW20ABCDE", "00008120-001A2B3C")[slot(text, args, i, 3)],
            "state": "device",
            "model": model,
        }
    if n in ("device", "sensor", "entity_state"):
        return {
            "name": rng.choice(("Living room lamp", "Hallway thermostat", "Front door lock", "Kitchen sensor")),
            "state": rng.choice(("on", "off", "21.5", "locked")),
            "last_changed": stamp(ctx, -1, 0),
        }
    return fallback(n, ctx, i)


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


_FAMILIES = (
    (
        {
            "user",
            "member",
            "employee",
            "contact",
            "lead",
            "player",
            "athlete",
            "author",
            "student",
            "patient",
            "staff",
            "person",
            "people",
            "owner",
            "follower",
            "subscriber",
            "candidate",
            "participant",
            "developer",
            "assignee",
            "reviewer",
            "attendee",
            "collaborator",
        },
        _person,
    ),
    (
        {
            "company",
            "organization",
            "organisation",
            "org",
            "team",
            "group",
            "tenant",
            "institution",
            "vendor",
            "supplier",
            "client",
            "workspace",
        },
        _org,
    ),
    ({"task", "todo", "ticket", "subtask", "milestone", "project"}, _task),
    ({"property", "association", "engagement", "call", "deal", "object"}, _crm),
    (
        {
            "pod",
            "node",
            "deployment",
            "service",
            "container",
            "instance",
            "vm",
            "server",
            "host",
            "machine",
            "bucket",
            "resource",
            "function",
            "app",
            "application",
            "upstream",
            "consumer",
            "plugin",
            "route",
            "target",
            "webhook",
            "trigger",
            "release",
            "namespace",
            "cluster",
        },
        _infra,
    ),
    (
        {
            "database",
            "databas",
            "db",
            "table",
            "collection",
            "index",
            "class",
            "column",
            "connection",
            "schema",
            "dataset",
        },
        _data,
    ),
    ({"package", "library", "module", "crate", "gem", "rubygem", "dependency", "extension"}, _package),
    (
        {
            "image",
            "photo",
            "picture",
            "video",
            "episode",
            "audio",
            "song",
            "track",
            "transcript",
            "caption",
            "subtitle",
            "thumbnail",
            "chart",
            "graph",
            "visualization",
            "diagram",
        },
        _media,
    ),
    ({"stat", "statistic", "metric", "analytic", "usage", "count", "activity", "overview"}, _stats),
    (
        {
            "category",
            "genre",
            "tag",
            "label",
            "type",
            "model",
            "llm",
            "hotspot",
            "trending",
            "hot",
            "rate",
            "currency",
            "memory",
            "observation",
            "entity",
            "thought",
            "config",
            "configuration",
            "setting",
            "option",
            "preference",
            "key",
            "mode",
            "domain",
            "dns",
            "whois",
            "device",
            "sensor",
        },
        _misc,
    ),
)


def fallback(noun: str, ctx: Context, index: int = 0) -> dict[str, Any]:
    """A thing of a kind nothing above knows, saying only what any such thing has: an id and a name.

    Owners and dates would make it one more copy of the same made-up record for every unknown tool (issue
    10 found one returned by 38 tools, medical calculators included); a value tool returns a value.
    """
    if noun in ("value", "result", "output", "answer", "number"):
        return {noun: round(ctx.rng.uniform(1, 500), 2)}
    return {"id": ident(noun, ctx), "name": f"{ctx.rng.choice(CODENAMES)} {noun}"}
