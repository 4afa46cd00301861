"""Records about *things*, for tools no themed pack covers: what a person, a company, a task, a
CRM record, a table, a package, a media file or a statistic looks like, chosen by the nouns in
the tool's name; pods and servers are in ``synth.simulator.results.infra``, smaller kinds in
``synth.simulator.results.sundries``. All randomness comes from ``ctx.rng`` (or Faker seeded from it).
"""

from __future__ import annotations

import re
from typing import Any

from synth.simulator import vocab
from synth.simulator.results import infra, sundries
from synth.simulator.results.entities import (
    COLUMNS,
    CRM_PROPERTIES,
    INDUSTRIES,
    PACKAGES,
    PROJECTS,
    TASKS,
    TEAMS,
    day,
    hexid,
    slot,
    stamp,
)
from synth.simulator.results.kinds import families, from_families
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/things", "keywords", dict[str, re.Pattern[str]])


def record(
    names: list[str], tool_text: str, args: dict[str, Any], ctx: Context, index: int = 0
) -> dict[str, Any] | None:
    """A record about the first noun in ``names`` that a family knows; None when none does."""
    return from_families(_FAMILIES, names, tool_text, args, ctx, index)


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
            "status": rng.choice(_POOLS["person.status"]),
            "source": rng.choice(_POOLS["person.source"]),
            "created_at": stamp(ctx, -40, -1),
        }
    if n in ("player", "athlete"):
        return {
            "name": name,
            "team": f"{rng.choice(vocab.CITIES)[0]} {rng.choice(_POOLS['person.team'])}",
            "position": rng.choice(_POOLS["person.position"]),
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
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["org.given"] and i == 0),
        None,
    )
    company = given or fake.company()
    domain = re.sub(r"[^a-z]", "", company.lower().split()[0].split(",")[0]) + rng.choice(_POOLS["org.domain"])
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
            "status": rng.choice(_POOLS["task.status"]),
            "owner": fake.name(),
            "tasks_total": total,
            "tasks_done": rng.randint(0, total),
            "due_date": day(ctx, 10, 120),
        }
    return {
        "title": rng.choice(TASKS),
        "status": rng.choice(_POOLS["task.status_2"]),
        "priority": rng.choice(_POOLS["task.priority"]),
        "assignee": fake.name(),
        "due_date": day(ctx, -2, 21),
    }


def _crm(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    if n == "property" and not _KEYWORDS["crm.property"].search(text):
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
            "type": rng.choice(_POOLS["crm.type"]),
            "category": "HUBSPOT_DEFINED",
        }
    if n == "call" and not _KEYWORDS["crm.call"].search(text):
        return None  # type: ignore[return-value]
    if n in _POOLS["crm.call"]:
        return {
            "type": "CALL" if n == "call" else rng.choice(_POOLS["crm.type_2"]),
            "direction": rng.choice(("OUTBOUND", "INBOUND")),
            "duration_s": rng.randint(45, 1800),
            "outcome": rng.choice(_POOLS["crm.outcome"]),
            "timestamp": stamp(ctx, -10, 0),
        }
    if n == "deal":
        return {
            "name": f"{seed_faker(rng).company()} renewal",
            "amount": rng.choice((4800, 12000, 25000, 60000)),
            "stage": rng.choice(_POOLS["crm.stage"]),
            "close_date": day(ctx, 5, 90),
        }
    if n == "object" and not _KEYWORDS["crm.object"].search(text):
        return None  # type: ignore[return-value] # a museum object, a stored object, a JSON object: not a CRM record
    fake = seed_faker(rng)
    return {
        "id": str(rng.randint(10**9, 10**10)),
        "properties": {
            "name": fake.company(),
            "domain": fake.domain_name(),
            "lifecyclestage": rng.choice(_POOLS["crm.lifecyclestage"]),
        },
        "created_at": stamp(ctx, -200, -5),
        "updated_at": stamp(ctx, -5, 0),
    }


def _data(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    given = next((v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["data.given"]), None)
    table = given if given in COLUMNS else vocab.TABLES[slot(text, args, i, len(vocab.TABLES))]
    if n in _POOLS["data.database"]:
        return {
            "name": rng.choice(_POOLS["data.name"]),
            "engine": rng.choice(("PostgreSQL 16.3", "MySQL 8.0.37")),
            "size_mb": rng.randint(40, 20000),
            "tables": rng.randint(6, 80),
            "host": "db.internal:5432",
        }
    if n == "dataset":
        name = (
            _POOLS["data.name_2"][slot(text, args, i, 4)]
            if re.search(r"hugging|hf\b|model", text)
            else _POOLS["data.name_3"][slot(text, args, i, 4)]
        )
        return {
            "name": name,
            "rows": rng.randint(10**3, 10**8),
            "size_mb": round(rng.uniform(1, 90000), 1),
            "updated_at": stamp(ctx, -60, -1),
        }
    if n == "collection" and _KEYWORDS["data.museum"].search(text):
        return None  # type: ignore[return-value]
    if n in _POOLS["data.collection"]:
        return {
            "name": given or table,
            "documents": rng.randint(120, 2_000_000),
            "size_mb": round(rng.uniform(0.4, 4000), 1),
            "indexes": rng.randint(1, 6),
        }
    if n == "table" and i == 0 and _KEYWORDS["data.tables"].search(text):
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
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["package.given"]),
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
    if n in _POOLS["media.audio"]:
        return {
            "duration_s": rng.randint(90, 420),
            "format": "mp3",
            "bitrate_kbps": rng.choice((128, 192, 320)),
            "sample_rate_hz": 44100,
        }
    if n in _POOLS["media.transcript"]:
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


_PERIODIC = table("results/things", "periodic", re.Pattern[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/things", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/things", "sets", dict[str, frozenset[str]])


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


_FAMILIES = families("results/things", globals(), infra, sundries)
