"""Themed records: what a weather report, a stock quote, an issue, a file, an email, a news
story or a place looks like, chosen by whole words in the tool's name (or description)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.results import markets, texts
from synth.simulator.results import more_kinds as catalog
from synth.simulator.results.ask import Ask, read_ask
from synth.simulator.tables import table
from synth.simulator.values.values import Context, words

ISSUES = table("results/themes", "issues", tuple[str, ...])
EVENTS = table("results/themes", "events", tuple[str, ...])
NEWS_SITES = table("results/themes", "news_sites", tuple[tuple[str, str], ...])
# coins in circulation, for a market cap that matches the price
_SUPPLY = table("results/themes", "supply", dict[str, int])
_ROUTE = table("results/themes", "route", tuple[str, str, str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/themes", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/themes", "sets", dict[str, frozenset[str]])


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


Theme = Callable[[Ask], dict[str, Any] | None]
_THEMES: list[tuple[Callable[[Ask], bool], Theme]] = []


def _theme(matches: Callable[[Ask], bool]) -> Callable[[Theme], Theme]:
    """Registers a record maker for the calls ``matches``; the first registered that matches wins."""

    def register(make: Theme) -> Theme:
        _THEMES.append((matches, make))
        return make

    return register


def themed(text: str, tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """The record of the first theme whose words ``text`` has, or None when no theme fits."""
    ask = read_ask(text, tool, args, ctx, index)
    for matches, make in _THEMES:
        if matches(ask):
            return make(ask)
    return None


@_theme(
    lambda a: (
        a.has("forecast") and (a.has("weather") or a.ctx.topic == "weather" or "weather" in a.tool.description.lower())
    )
)
def _forecast(a: Ask) -> dict[str, Any]:
    rng = a.rng
    days = [
        {
            "date": f"2026-06-{d:02d}",
            "high_c": rng.randint(14, 31),
            "low_c": rng.randint(5, 14),
            "conditions": rng.choice(_POOLS["forecast.conditions"]),
        }
        for d in range(1, 4)
    ]
    return {"location": a.city, "days": days}


@_theme(lambda a: a.has(*_POOLS["weather.weather"]))
def _weather(a: Ask) -> dict[str, Any]:
    rng = a.rng
    return {
        "location": a.city,
        "temperature_c": rng.randint(4, 32),
        "conditions": rng.choice(_POOLS["weather.conditions"]),
        "humidity_pct": rng.randint(30, 90),
        "wind_kph": rng.randint(2, 35),
    }


@_theme(lambda a: a.has(*_POOLS["news.news"]))
def _news(a: Ask) -> dict[str, Any]:
    query = E.given(a.args, _SETS["news.query"], "")
    topics = ([query] if query else []) + list(vocab.QUERIES["news"])
    topic = topics[a.index] if query and a.index < 1 else a.pick(topics)
    title = cap(topic) + a.rng.choice(_POOLS["news.title"])
    source, site = a.rng.choice(NEWS_SITES)
    return {
        "title": title,
        "source": source,
        "published_at": E.stamp(a.ctx, -3, 0),
        "url": f"https://{site}/{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')}",
    }


@_theme(lambda a: a.has("tvl", "defi") or (a.crypto and a.has(*_POOLS["defi.protocol"])))
def _defi(a: Ask) -> dict[str, Any]:
    rng = a.rng
    return {
        "protocol": rng.choice(vocab.PROTOCOLS),
        "tvl_usd": rng.randint(10**7, 3 * 10**10),
        "fees_24h_usd": rng.randint(10**4, 5 * 10**6),
        "change_7d_pct": round(rng.uniform(-12, 12), 2),
    }


@_theme(lambda a: a.has(*_POOLS["coin.crypto"]) or (a.crypto and a.has(*_POOLS["coin.token"])))
def _coin(a: Ask) -> dict[str, Any] | None:
    rng = a.rng
    if a.has(*_POOLS["coin.ticker"]):
        return markets.market(a.tool, a.args, a.ctx, a.text)
    name, symbol = next(
        ((n, s) for n, s in vocab.CRYPTO if a.asked.lower() in (n, s.lower()) or a.coin == s),
        rng.choice(vocab.CRYPTO),
    )
    price = markets.BASE.get(symbol, 1.0) * rng.uniform(0.97, 1.03)
    return {
        "symbol": symbol,
        "price_usd": round(price, 4 if price < 5 else 2),
        "change_24h_pct": round(rng.uniform(-9, 9), 2),
        "market_cap_usd": int(price * _SUPPLY.get(symbol, rng.randint(10**7, 10**9))),
    }


def _symbols(args: dict[str, Any]) -> list[str] | None:
    """A list of tickers asked for at once."""
    return next(
        (
            v
            for k, v in args.items()
            if isinstance(v, list)
            and v
            and all(isinstance(x, str) for x in v)
            and set(words(k)) & _SETS["symbols.symbols"]
        ),
        None,
    )


@_theme(
    lambda a: (
        a.has(*_POOLS["stock.stock"])
        or (a.has("price") and (a.asked.upper() in vocab.TICKERS or a.ctx.topic == "finance"))
    )
)
def _stock(a: Ask) -> dict[str, Any]:
    rng = a.rng
    many = _symbols(a.args)
    if many and a.index == 0:
        quotes = [
            {
                "symbol": s,
                "price": round(markets.BASE.get(s.upper(), rng.uniform(20, 900)), 2),
                "change_pct": round(rng.uniform(-4, 4), 2),
            }
            for s in many[:5]
        ]
        return {"quotes": quotes, "currency": "USD", "as_of": "2026-05-29T20:00:00Z"}
    symbol = a.asked.upper() if a.asked.upper() in vocab.TICKERS else rng.choice(vocab.TICKERS)
    if a.has("earning"):
        return _earnings(a, symbol)
    return {
        "symbol": symbol,
        "price": round(markets.BASE.get(symbol, rng.uniform(20, 900)) * rng.uniform(0.98, 1.02), 2),
        "currency": "USD",
        "change_pct": round(rng.uniform(-4, 4), 2),
        "volume": rng.randint(10**5, 10**8),
        "as_of": "2026-05-29T20:00:00Z",
    }


def _earnings(a: Ask, symbol: str) -> dict[str, Any]:
    est = round(a.rng.uniform(0.4, 6), 2)
    return {
        "symbol": symbol,
        "date": E.day(a.ctx, -90 * a.index - 5, -90 * a.index + 40),
        "eps_estimate": est,
        "eps_actual": round(est * a.rng.uniform(0.9, 1.15), 2) if a.index else None,
        "revenue_estimate": a.rng.randint(2, 150) * 10**9,
    }


@_theme(lambda a: a.has(*_POOLS["repo.github"]) and not a.has(*_POOLS["repo.issue"]))
def _repo(a: Ask) -> dict[str, Any]:
    owner, name = a.pick(vocab.GITHUB_OWNERS), a.pick(vocab.GITHUB_REPOS, 3)
    given = next((v for v in a.args.values() if isinstance(v, str) and re.fullmatch(r"[\w.-]+/[\w.-]+", v)), None)
    if given and a.index == 0:
        owner, name = given.split("/")
    return {
        "full_name": f"{owner}/{name}",
        "stars": a.rng.randint(40, 90000),
        "language": a.rng.choice(_POOLS["repo.language"]),
        "updated_at": E.stamp(a.ctx, -20, 0),
        "url": f"https://github.com/{owner}/{name}",
    }


@_theme(lambda a: a.has(*_POOLS["issue.repo"]))
def _issue(a: Ask) -> dict[str, Any]:
    return {
        "title": a.pick(ISSUES),
        "state": a.rng.choice(("open", "closed")),
        "author": a.fake.user_name(),
        "updated_at": E.stamp(a.ctx, -6, 0),
        "comments": a.rng.randint(0, 14),
    }


@_theme(lambda a: a.has(*_POOLS["file.file"]))
def _file(a: Ask) -> dict[str, Any]:
    path = a.path if a.path and a.index == 0 else a.pick(vocab.FILE_PATHS)
    out: dict[str, Any] = {
        "path": path,
        "size_bytes": a.rng.randint(200, 2_000_000),
        "modified": E.stamp(a.ctx, -20, 0),
    }
    if a.has(*_POOLS["file.read"]) and path in texts.FILE_TEXT:
        out["content"] = texts.FILE_TEXT[path]
        out["size_bytes"] = len(texts.FILE_TEXT[path].encode())
    return out


@_theme(lambda a: a.has(*_POOLS["email.email"]))
def _email(a: Ask) -> dict[str, Any]:
    return {
        "from": a.fake.email(),
        "subject": a.rng.choice(vocab.TITLES),
        "snippet": a.rng.choice(vocab.MESSAGES),
        "received_at": E.stamp(a.ctx, -2, 0),
    }


@_theme(lambda a: a.has(*_POOLS["event.event"]))
def _event(a: Ask) -> dict[str, Any]:
    start = E.stamp(a.ctx, 1, 6)
    return {
        "title": a.pick(EVENTS),
        "start": start,
        "end": E.later(start, hours=1),  # an hour on: 23:42 ends at 00:42 the next day, not the same one
        "attendees": [a.fake.email() for _ in range(2)],
    }


@_theme(lambda a: a.has(*_POOLS["story.story"]))
def _story(a: Ask) -> dict[str, Any]:
    return {
        "title": cap(a.rng.choice(vocab.QUERIES["news"])),
        "by": a.fake.user_name(),
        "score": a.rng.randint(5, 900),
        "comments": a.rng.randint(0, 300),
        "url": a.rng.choice(vocab.URLS),
    }


@_theme(lambda a: a.has("note", "memo"))
def _note(a: Ask) -> dict[str, Any]:
    return {
        "title": a.rng.choice(vocab.TITLES),
        "excerpt": a.rng.choice(vocab.NOTES),
        "updated_at": E.stamp(a.ctx, -9, 0),
    }


@_theme(lambda a: a.has("wiki") and a.has("search"))
def _wiki_search(a: Ask) -> dict[str, Any]:
    query = E.given(a.args, _SETS["wiki_search.query"], "")
    site = "minecraft.wiki/w" if "minecraft" in a.text else "en.wikipedia.org/wiki"
    title = cap(query) if query and a.index == 0 else cap(a.pick(vocab.QUERIES["general"]))
    return {
        "title": title,
        "url": f"https://{site}/{title.replace(' ', '_')}",
        "snippet": f"{title} - overview, history and related articles.",
    }


@_theme(lambda a: a.has(*_POOLS["document.doc"]))
def _document(a: Ask) -> dict[str, Any]:
    return {**(catalog.record(["content"], a.text, a.args, a.ctx, a.index) or {}), "updated_at": E.stamp(a.ctx, -9, 0)}


@_theme(lambda a: a.has(*_POOLS["route.route"]))
def _route(a: Ask) -> dict[str, Any]:
    km = round(a.rng.uniform(2, 600), 1)
    return {"distance_km": km, "duration_min": int(km / a.rng.uniform(0.6, 1.4)) + 3, "steps": list(_ROUTE)}


def _is_place(a: Ask) -> bool:
    places = any(set(words(k)) & _SETS["is_place.places"] for k in a.args)
    return (
        a.has(*_POOLS["is_place.place"])
        or (a.has("map") and (places or a.ctx.topic in ("maps", "travel")))
        or (a.has("address") and not a.crypto)
    )


@_theme(_is_place)
def _place(a: Ask) -> dict[str, Any]:
    rng = a.rng
    country = dict(vocab.CITIES).get(a.city, "Portugal")
    anywhere = (round(rng.uniform(-60, 60), 2), round(rng.uniform(-120, 120), 2))
    lat, lon = vocab.CITY_COORDS.get(a.city, anywhere)
    out: dict[str, Any] = {"name": a.city, "country": country, "lat": lat, "lon": lon}
    if a.has("elevation", "altitude"):
        out["elevation_m"] = rng.randint(2, 600)
    return out


@_theme(lambda a: a.has(*_POOLS["product.product"]) or (a.has("order", "price") and a.ctx.topic == "shop"))
def _product(a: Ask) -> dict[str, Any]:
    rng = a.rng
    return {
        "name": rng.choice(vocab.PRODUCTS),
        "price": round(rng.uniform(15, 400), 2),
        "currency": "USD",
        "in_stock": rng.random() < 0.8,
        "rating": round(rng.uniform(3.2, 4.9), 1),
    }


@_theme(lambda a: a.has(*_POOLS["person.user"]) and not (a.crypto and any("address" in k.lower() for k in a.args)))
def _person(a: Ask) -> dict[str, Any]:
    fake = a.fake
    return {
        "name": fake.name(),
        "email": fake.email(),
        "company": fake.company(),
        "created_at": E.stamp(a.ctx, -300, -20),
    }


@_theme(lambda a: a.has(*_POOLS["booking.flight"]))
def _booking(a: Ask) -> dict[str, Any]:
    return {
        "price": round(a.rng.uniform(80, 900), 2),
        "currency": "EUR",
        "provider": a.rng.choice(_POOLS["booking.provider"]),
        "available": True,
    }


@_theme(lambda a: a.has(*_POOLS["paper.paper"]))
def _paper(a: Ask) -> dict[str, Any]:
    query = E.given(a.args, _SETS["paper.query"], "")
    topic = query if query and a.index == 0 else a.pick(vocab.QUERIES["paper"])
    return {
        "title": topic.title() if topic.islower() else topic,
        "authors": [a.fake.name(), a.fake.name()],
        "year": a.rng.randint(2021, 2026),
        "citations": a.rng.randint(0, 800),
    }
