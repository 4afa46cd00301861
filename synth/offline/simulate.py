"""The offline tool runtime: a plausible result for a call, consistent with the call.

The result is shaped by the tool's ``outputSchema`` when it has one; otherwise by what the
tool does (search and list tools return items, getters return a record about what was
asked, actions return a confirmation). Identifiers the call used are echoed back, and a
field a later step needs (``provide``) is put where that step will read it, so chains stay
consistent.
"""

from __future__ import annotations

import re
from typing import Any

from synth.offline import vocab
from synth.offline.values import Context, make_value, seed_faker, words
from synth.records import ToolSpec

LIST_VERBS = {"search", "list", "find", "query", "lookup", "browse", "discover", "explore", "scan", "filter"}
ACTION_VERBS = {
    "create", "add", "send", "post", "update", "delete", "remove", "set", "write", "upload", "insert",
    "move", "rename", "edit", "publish", "schedule", "book", "cancel", "start", "stop", "run",
    "execute", "save", "submit", "reply", "comment", "merge", "close", "open", "install", "deploy",
    "trigger", "invite", "assign", "archive", "mark", "put", "push", "register", "subscribe",
}
_STOP = {"tool", "get", "the", "a", "an", "of", "for", "by", "to", "and", "or", "with", "mcp", "api", "data", "info", "information", "all", "details"}


def verb(tool: ToolSpec) -> str:
    w = words(tool.name)
    return w[0] if w else ""


def kind(tool: ToolSpec) -> str:
    """``list`` (returns items), ``action`` (changes something) or ``get`` (returns a record)."""
    w = words(tool.name)
    if w and w[0] in ACTION_VERBS:
        return "action"
    if w and (w[0] in LIST_VERBS or w[-1] in LIST_VERBS or (len(w) > 1 and w[0] == "get" and w[-1].endswith("s") and w[-1] not in {"details", "status", "news", "stats", "analytics", "settings", "metrics"})):
        return "list"
    if w and (w[0] in ACTION_VERBS or w[-1] in ACTION_VERBS):
        return "action"
    return "get"


def subject(tool: ToolSpec) -> list[str]:
    """The words naming what a tool is about: ``pull_requests_create`` -> ["pull", "request"]."""
    rest = [w for w in words(tool.name) if w not in _STOP and w not in LIST_VERBS and w not in ACTION_VERBS]
    return [*rest[:-1], singular(rest[-1])] if rest else ["item"]


def noun(tool: ToolSpec) -> str:
    """The thing a tool is about: ``search_locations_tool`` -> "location"."""
    return subject(tool)[-1]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


# Field packs: what a record about a topic looks like, by keyword in the tool's name.
def _pack(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any]:
    """A record about what the tool is about: its name decides first, its description second."""
    first_sentence = re.split(r"(?<=[.!?])\s|\n", tool.description.strip().lower(), maxsplit=1)[0][:160]
    for text in (" ".join(words(tool.name)), first_sentence):
        themed = _themed(text, tool, args, ctx, index)
        if themed is not None:
            return themed
    described = _described_fields(tool.description)
    if described:
        out: dict[str, Any] = {}
        for field in described:
            schema = {"type": "number"} if set(field.split("_")) & _NUMERIC else {"type": "string"}
            out[field], _ = make_value(field, schema, ctx)
        return out
    return {"name": f"{noun(tool)} {ctx.rng.randint(100, 999)}".replace("_", " "),
            "status": ctx.rng.choice(vocab.STATUSES), "updated_at": "2026-05-29T15:20:00Z"}


def _themed(text: str, tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    rng = ctx.rng
    fake = seed_faker(rng)
    city = next((v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"city", "location", "place"}), None)
    city = city or ctx.city or rng.choice(vocab.CITIES)[0]
    if index:  # later items of a list are other things, not copies of the first
        city = rng.choice([c for c, _ in vocab.CITIES if c != city])

    def has(*keys: str) -> bool:
        return any(re.search(rf"\b{k}", text) for k in keys)

    if has("sql", "execute", "query") and ctx.topic == "data":
        return {"rows": [{"name": fake.name(), "email": fake.email()} for _ in range(2)], "row_count": 2}
    if has("forecast"):
        return {"location": city, "days": [
            {"date": f"2026-06-{d:02d}", "high_c": rng.randint(14, 31), "low_c": rng.randint(5, 14),
             "conditions": rng.choice(("sunny", "partly cloudy", "light rain", "showers", "clear"))}
            for d in range(1, 4)]}
    if has("weather", "temperature", "temp", "air quality"):
        return {"location": city, "temperature_c": rng.randint(4, 32), "conditions": rng.choice(
            ("sunny", "partly cloudy", "overcast", "light rain", "fog")), "humidity_pct": rng.randint(30, 90),
            "wind_kph": rng.randint(2, 35)}
    if has("stock", "quote", "ticker", "share price", "earning", "dividend"):
        price = round(rng.uniform(20, 900), 2)
        return {"price": price, "currency": "USD", "change_pct": round(rng.uniform(-4, 4), 2),
                "volume": rng.randint(10**5, 10**8), "as_of": "2026-06-01T16:00:00Z"}
    if has("tvl", "defi", "protocol", "fees", "yield"):
        return {"protocol": rng.choice(vocab.PROTOCOLS), "tvl_usd": rng.randint(10**7, 3 * 10**10),
                "fees_24h_usd": rng.randint(10**4, 5 * 10**6), "change_7d_pct": round(rng.uniform(-12, 12), 2)}
    if has("crypto", "coin", "token", "bitcoin", "price"):
        return {"price_usd": round(rng.uniform(0.1, 70000), 2), "change_24h_pct": round(rng.uniform(-9, 9), 2),
                "market_cap_usd": rng.randint(10**8, 10**12)}
    if has("repo", "issue", "pull", "commit", "branch"):
        return {"title": rng.choice(vocab.TITLES), "state": rng.choice(("open", "closed")),
                "author": fake.user_name(), "updated_at": "2026-05-28T10:12:00Z", "comments": rng.randint(0, 14)}
    if has("file", "directory", "folder", "path"):
        return {"path": rng.choice(vocab.FILE_PATHS), "size_bytes": rng.randint(200, 2_000_000),
                "modified": "2026-05-30T09:41:00Z"}
    if has("email", "message", "mail", "chat"):
        return {"from": fake.email(), "subject": rng.choice(vocab.TITLES), "snippet": rng.choice(vocab.MESSAGES),
                "received_at": "2026-05-31T08:05:00Z"}
    if has("event", "calendar", "meeting", "appointment"):
        return {"title": rng.choice(vocab.TITLES), "start": "2026-06-03T14:00:00Z", "end": "2026-06-03T15:00:00Z",
                "attendees": [fake.email() for _ in range(2)]}
    if has("story", "stories", "post", "thread", "hacker"):
        return {"title": rng.choice(vocab.QUERIES["news"]).capitalize(), "by": fake.user_name(),
                "score": rng.randint(5, 900), "comments": rng.randint(0, 300), "url": rng.choice(vocab.URLS)}
    if has("doc", "page", "note", "wiki"):
        return {"title": rng.choice(vocab.TITLES), "excerpt": rng.choice(vocab.NOTES), "updated_at": "2026-05-27T11:00:00Z"}
    if has("news", "article", "headline"):
        return {"title": rng.choice(vocab.QUERIES["news"]).capitalize() + ": what we know",
                "source": rng.choice(("Reuters", "BBC News", "The Guardian", "AP")),
                "published_at": "2026-05-30T07:30:00Z", "url": rng.choice(vocab.URLS)}
    if has("place", "location", "geocode", "address", "map", "route", "direction"):
        country = dict(vocab.CITIES).get(city, "Portugal")
        lat, lon = vocab.CITY_COORDS.get(city, (round(rng.uniform(-60, 60), 2), round(rng.uniform(-120, 120), 2)))
        return {"name": city, "country": country, "lat": lat, "lon": lon}
    if has("product", "order", "cart", "shop", "price"):
        return {"name": rng.choice(vocab.PRODUCTS), "price": round(rng.uniform(15, 400), 2), "currency": "USD",
                "in_stock": rng.random() < 0.8, "rating": round(rng.uniform(3.2, 4.9), 1)}
    if has("user", "profile", "account", "contact", "customer"):
        return {"name": fake.name(), "email": fake.email(), "company": fake.company(), "created_at": "2025-11-02T12:00:00Z"}
    if has("flight", "hotel", "booking", "trip"):
        return {"price": round(rng.uniform(80, 900), 2), "currency": "EUR", "provider": rng.choice(
            ("TAP Air Portugal", "Lufthansa", "Booking.com", "Marriott")), "available": True}
    if has("paper", "arxiv", "research", "publication"):
        return {"title": rng.choice(vocab.QUERIES["paper"]).title(), "authors": [fake.name(), fake.name()],
                "year": rng.randint(2021, 2026), "citations": rng.randint(0, 800)}
    return None


_NUMERIC = {"temperature", "humidity", "price", "count", "total", "rate", "score", "size", "speed", "wind", "volume",
            "amount", "balance", "percentage", "distance", "duration", "population", "rank", "rating", "level", "usage",
            "load", "latency", "pressure", "elevation", "calories", "cost", "value", "result", "risk", "index", "bmi"}
_RETURNS = re.compile(r"(?=\b(?:returns?|including|includes|such as|containing|contains)\s*:?\s*([^.\n]{5,160}))", re.I)


def _described_fields(description: str) -> list[str]:
    """Field names from "Returns temperature, conditions and humidity" in a tool's description."""
    best: list[str] = []
    for m in _RETURNS.finditer(description or ""):
        fields = []
        for part in re.split(r",|\band\b|\bor\b|;", m.group(1)):
            w = re.findall(r"[a-zA-Z]+", part.lower())
            w = [x for x in w if x not in _FILLER]
            if 1 <= len(w) <= 3:
                fields.append("_".join(w))
        fields = list(dict.fromkeys(fields))[:5]
        if len(fields) >= len(best):  # on a tie the later, more specific list wins
            best = fields
    return best if len(best) >= 2 else []


_FILLER = {"the", "a", "an", "of", "its", "their", "etc", "current", "data", "information", "details", "list", "with"}


def simulate(tool: ToolSpec, args: dict[str, Any], ctx: Context, provide: dict[str, Any] | None = None) -> dict[str, Any]:
    """A result for ``tool(args)``; ``provide`` maps fields to values a later step will use."""
    provide = provide or {}
    rng = ctx.rng
    if tool.output_schema and (tool.output_schema.get("properties") or {}):
        result, _ = make_value("result", tool.output_schema, ctx)
        if isinstance(result, dict):
            result.update({k: v for k, v in _echo(tool, args).items() if k in (tool.output_schema.get("properties") or {})})
            result.update(provide)
            return result
    k = kind(tool)
    thing = noun(tool)
    if k == "list":
        n = rng.randint(2, 4)
        items = []
        for i in range(n):
            item = {f"{thing}_id" if thing != "item" else "id": f"{thing[:3]}_{rng.randint(10000, 99999)}"}
            item.update(_pack(tool, args, ctx, i))
            if i == 0:
                item.update(provide)
            items.append(item)
        return {f"{thing}s" if not thing.endswith("s") else thing: items, "total": n + rng.randint(0, 30)}
    if k == "action":
        out: dict[str, Any] = {"status": "success", f"{thing}_id": f"{thing[:3]}_{rng.randint(10000, 99999)}"}
        out.update(_echo(tool, args))
        out.update(provide)
        return out
    out = _echo(tool, args)
    out.update(_pack(tool, args, ctx))
    out.update(provide)
    return out


def _echo(tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """Identifiers and short scalars from the call, as a real API echoes what it was asked for."""
    return {k: v for k, v in args.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)
            and (not isinstance(v, str) or len(v) <= 60)}
