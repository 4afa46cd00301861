"""Themed records: what a weather report, a stock quote, an issue, a file, an email, a news
story or a place looks like, chosen by whole words in the tool's name (or description)."""

from __future__ import annotations

import re
from typing import Any

from synth.offline import catalog, shapes, texts, vocab
from synth.offline import entities as E
from synth.offline.values import Context, seed_faker, words
from synth.records import ToolSpec

ISSUES = (
    "Bug: login fails on Safari",
    "Crash when uploading files over 2 GB",
    "Add dark mode to the settings page",
    "Docs: fix the install command in README",
    "Flaky test: test_refund_rounding",
    "Bump requests from 2.31.0 to 2.32.3",
)
EVENTS = ("Quarterly planning", "Team offsite", "Weekly sync", "Dentist appointment", "1:1 with Maria", "Product demo")
NEWS_SITES = (
    ("Reuters", "www.reuters.com/world"),
    ("BBC News", "www.bbc.com/news"),
    ("The Guardian", "www.theguardian.com/world"),
    ("AP", "apnews.com/article"),
)


_SUPPLY = {
    "BTC": 19_710_000,
    "ETH": 120_200_000,
    "SOL": 462_000_000,
    "ADA": 35_400_000_000,
    "DOGE": 145_000_000_000,
    "DOT": 1_440_000_000,
    "LINK": 587_000_000,
    "XRP": 55_400_000_000,
    "BNB": 147_000_000,
    "AVAX": 394_000_000,
}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def themed(text: str, tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    rng = ctx.rng
    fake = seed_faker(rng)
    city = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"city", "location", "place"}), None
    )
    lat = next(
        (v for k, v in args.items() if isinstance(v, (int, float)) and set(words(k)) & {"lat", "latitude"}), None
    )
    if city is None and lat is not None:  # the place the coordinates are, not another one
        city = min(vocab.CITY_COORDS, key=lambda c: abs(vocab.CITY_COORDS[c][0] - lat))  # type: ignore[operator]
    city = city or ctx.city or rng.choice(vocab.CITIES)[0]
    if index:  # later items of a list are other things, not copies of the first
        city = rng.choice([c for c, _ in vocab.CITIES if c != city])

    def has(*keys: str) -> bool:  # whole words (and plurals): "temp" is not "template", "post" not "postgres"
        return any(re.search(rf"\b{k}(?:s|es)?\b", text) for k in keys)

    base = re.split(
        r"[/\-_:]",
        str(
            next((v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"symbol", "pair", "coin"}), "")
        ).upper(),
    )[0]
    crypto = (
        ctx.topic == "crypto"
        or bool(re.search(r"\b(deposit|withdraw\w*|wallet|chain|token|onchain)\b", text))
        or base.removesuffix("USDT").removesuffix("USD") in {s for _, s in vocab.CRYPTO}
    )
    asked = next(
        (
            str(v)
            for key in ("symbol", "ticker", "coin", "token", "id")
            for k, v in args.items()
            if isinstance(v, str) and key in words(k)
        ),
        "",
    )
    path = next(
        (
            v
            for key in ("file", "filename", "filepath", "path")
            for k, v in args.items()
            if isinstance(v, str) and key in words(k)
        ),
        None,
    )

    if has("forecast") and (has("weather") or ctx.topic == "weather" or "weather" in tool.description.lower()):
        return {
            "location": city,
            "days": [
                {
                    "date": f"2026-06-{d:02d}",
                    "high_c": rng.randint(14, 31),
                    "low_c": rng.randint(5, 14),
                    "conditions": rng.choice(("sunny", "partly cloudy", "light rain", "showers", "clear")),
                }
                for d in range(1, 4)
            ],
        }
    if has("weather", "temperature", "temp", "air quality"):
        return {
            "location": city,
            "temperature_c": rng.randint(4, 32),
            "conditions": rng.choice(("sunny", "partly cloudy", "overcast", "light rain", "fog")),
            "humidity_pct": rng.randint(30, 90),
            "wind_kph": rng.randint(2, 35),
        }
    if has("news", "article", "headline", "announcement", "annoucement"):
        query = next(
            (
                v
                for k, v in args.items()
                if isinstance(v, str) and set(words(k)) & {"query", "q", "keyword", "keywords", "topic", "search"}
            ),
            "",
        )
        topics = ([query] if query else []) + list(vocab.QUERIES["news"])
        topic = topics[index] if query and index < 1 else topics[E.slot(text, args, index, len(topics))]
        title = cap(topic) + rng.choice((": what we know", " explained", ": the latest", " - live updates"))
        source, site = rng.choice(NEWS_SITES)
        return {
            "title": title,
            "source": source,
            "published_at": E.stamp(ctx, -3, 0),
            "url": f"https://{site}/{re.sub(r'[^a-z0-9]+', '-', title.lower()).strip('-')}",
        }
    if has("tvl", "defi") or (crypto and has("protocol", "fees", "yield")):
        return {
            "protocol": rng.choice(vocab.PROTOCOLS),
            "tvl_usd": rng.randint(10**7, 3 * 10**10),
            "fees_24h_usd": rng.randint(10**4, 5 * 10**6),
            "change_7d_pct": round(rng.uniform(-12, 12), 2),
        }
    if has("crypto", "coin", "bitcoin", "cryptocurrency") or (crypto and has("token", "price", "quote", "ticker")):
        if has("ticker", "book", "ohlcv", "candle", "kline"):
            return shapes.SHAPES["market"](tool, args, ctx, text)
        name, symbol = next(
            (
                (n, s)
                for n, s in vocab.CRYPTO
                if asked.lower() in (n, s.lower()) or base.removesuffix("USDT").removesuffix("USD") == s
            ),
            rng.choice(vocab.CRYPTO),
        )
        price = shapes.BASE.get(symbol, 1.0) * rng.uniform(0.97, 1.03)
        return {
            "symbol": symbol,
            "price_usd": round(price, 4 if price < 5 else 2),
            "change_24h_pct": round(rng.uniform(-9, 9), 2),
            "market_cap_usd": int(price * _SUPPLY.get(symbol, rng.randint(10**7, 10**9))),
        }
    if has("stock", "quote", "ticker", "share price", "earning", "dividend") or (
        has("price") and (asked.upper() in vocab.TICKERS or ctx.topic == "finance")
    ):
        many = next(
            (
                v
                for k, v in args.items()
                if isinstance(v, list)
                and v
                and all(isinstance(x, str) for x in v)
                and set(words(k)) & {"symbols", "tickers", "symbol"}
            ),
            None,
        )
        if many and index == 0:
            return {
                "quotes": [
                    {
                        "symbol": s,
                        "price": round(shapes.BASE.get(s.upper(), rng.uniform(20, 900)), 2),
                        "change_pct": round(rng.uniform(-4, 4), 2),
                    }
                    for s in many[:5]
                ],
                "currency": "USD",
                "as_of": "2026-05-29T20:00:00Z",
            }
        symbol = asked.upper() if asked.upper() in vocab.TICKERS else rng.choice(vocab.TICKERS)
        if has("earning"):
            est = round(rng.uniform(0.4, 6), 2)
            return {
                "symbol": symbol,
                "date": E.day(ctx, -90 * index - 5, -90 * index + 40),
                "eps_estimate": est,
                "eps_actual": round(est * rng.uniform(0.9, 1.15), 2) if index else None,
                "revenue_estimate": rng.randint(2, 150) * 10**9,
            }
        price = round(shapes.BASE.get(symbol, rng.uniform(20, 900)) * rng.uniform(0.98, 1.02), 2)
        return {
            "symbol": symbol,
            "price": price,
            "currency": "USD",
            "change_pct": round(rng.uniform(-4, 4), 2),
            "volume": rng.randint(10**5, 10**8),
            "as_of": "2026-05-29T20:00:00Z",
        }
    if has("github", "gitlab", "repo", "repository") and not has("issue", "pull", "commit", "branch"):
        owner, name = (
            vocab.GITHUB_OWNERS[E.slot(text, args, index, len(vocab.GITHUB_OWNERS))],
            vocab.GITHUB_REPOS[E.slot(text, args, index + 3, len(vocab.GITHUB_REPOS))],
        )
        given = next((v for v in args.values() if isinstance(v, str) and re.fullmatch(r"[\w.-]+/[\w.-]+", v)), None)
        if given and index == 0:
            owner, name = given.split("/")
        return {
            "full_name": f"{owner}/{name}",
            "stars": rng.randint(40, 90000),
            "language": rng.choice(("Python", "TypeScript", "Rust", "Go")),
            "updated_at": E.stamp(ctx, -20, 0),
            "url": f"https://github.com/{owner}/{name}",
        }
    if has("repo", "repository", "issue", "pull", "commit", "branch"):
        return {
            "title": ISSUES[E.slot(text, args, index, len(ISSUES))],
            "state": rng.choice(("open", "closed")),
            "author": fake.user_name(),
            "updated_at": E.stamp(ctx, -6, 0),
            "comments": rng.randint(0, 14),
        }
    if has("file", "directory", "folder", "path"):
        path = path if path and index == 0 else vocab.FILE_PATHS[E.slot(text, args, index, len(vocab.FILE_PATHS))]
        out: dict[str, Any] = {
            "path": path,
            "size_bytes": rng.randint(200, 2_000_000),
            "modified": E.stamp(ctx, -20, 0),
        }
        if has("read", "content", "cat", "open", "view") and path in texts.FILE_TEXT:
            out["content"] = texts.FILE_TEXT[path]
            out["size_bytes"] = len(texts.FILE_TEXT[path].encode())
        return out
    if has("email", "message", "mail", "chat", "inbox"):
        return {
            "from": fake.email(),
            "subject": rng.choice(vocab.TITLES),
            "snippet": rng.choice(vocab.MESSAGES),
            "received_at": E.stamp(ctx, -2, 0),
        }
    if has("event", "calendar", "meeting", "appointment"):
        start = E.stamp(ctx, 1, 6)
        return {
            "title": EVENTS[E.slot(text, args, index, len(EVENTS))],
            "start": start,
            "end": start[:11] + f"{(int(start[11:13]) + 1) % 24:02d}" + start[13:],
            "attendees": [fake.email() for _ in range(2)],
        }
    if has("story", "stories", "post", "thread", "hacker"):
        return {
            "title": cap(rng.choice(vocab.QUERIES["news"])),
            "by": fake.user_name(),
            "score": rng.randint(5, 900),
            "comments": rng.randint(0, 300),
            "url": rng.choice(vocab.URLS),
        }
    if has("note", "memo"):
        return {
            "title": rng.choice(vocab.TITLES),
            "excerpt": rng.choice(vocab.NOTES),
            "updated_at": E.stamp(ctx, -9, 0),
        }
    if has("wiki") and has("search"):
        query = next(
            (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"query", "q", "search", "term"}), ""
        )
        site = "minecraft.wiki/w" if "minecraft" in text else "en.wikipedia.org/wiki"
        title = (
            cap(query)
            if query and index == 0
            else cap(vocab.QUERIES["general"][E.slot(text, args, index, len(vocab.QUERIES["general"]))])
        )
        return {
            "title": title,
            "url": f"https://{site}/{title.replace(' ', '_')}",
            "snippet": f"{title} - overview, history and related articles.",
        }
    if has("doc", "document", "documentation", "page", "wiki"):
        return {**(catalog.record(["content"], text, args, ctx, index) or {}), "updated_at": E.stamp(ctx, -9, 0)}
    if has("route", "direction", "directions", "navigation"):
        km = round(rng.uniform(2, 600), 1)
        return {
            "distance_km": km,
            "duration_min": int(km / rng.uniform(0.6, 1.4)) + 3,
            "steps": [
                "Head north on Rua de Santa Catarina",
                "Turn right onto Avenida dos Aliados",
                "Continue onto A28 for 12 km",
            ],
        }
    places = any(set(words(k)) & {"city", "location", "place", "address", "lat", "latitude", "query"} for k in args)
    if (
        has("place", "location", "geocode", "city", "cities")
        or (has("map") and (places or ctx.topic in ("maps", "travel")))
        or (has("address") and not crypto)
    ):
        country = dict(vocab.CITIES).get(city, "Portugal")
        lat, lon = vocab.CITY_COORDS.get(city, (round(rng.uniform(-60, 60), 2), round(rng.uniform(-120, 120), 2)))
        out = {"name": city, "country": country, "lat": lat, "lon": lon}
        if has("elevation", "altitude"):
            out["elevation_m"] = rng.randint(2, 600)
        return out
    if has("product", "cart", "shop") or (has("order", "price") and ctx.topic == "shop"):
        return {
            "name": rng.choice(vocab.PRODUCTS),
            "price": round(rng.uniform(15, 400), 2),
            "currency": "USD",
            "in_stock": rng.random() < 0.8,
            "rating": round(rng.uniform(3.2, 4.9), 1),
        }
    if has("user", "profile", "account", "contact", "customer") and not (
        crypto and any("address" in k.lower() for k in args)
    ):
        return {
            "name": fake.name(),
            "email": fake.email(),
            "company": fake.company(),
            "created_at": E.stamp(ctx, -300, -20),
        }
    if has("flight", "hotel", "booking", "trip"):
        return {
            "price": round(rng.uniform(80, 900), 2),
            "currency": "EUR",
            "provider": rng.choice(("TAP Air Portugal", "Lufthansa", "Booking.com", "Marriott")),
            "available": True,
        }
    if has("paper", "arxiv", "publication", "pubmed", "scholar", "citation"):
        query = next(
            (
                v
                for k, v in args.items()
                if isinstance(v, str) and set(words(k)) & {"query", "q", "topic", "keywords", "title"}
            ),
            "",
        )
        topic = (
            query
            if query and index == 0
            else vocab.QUERIES["paper"][E.slot(text, args, index, len(vocab.QUERIES["paper"]))]
        )
        return {
            "title": topic.title() if topic.islower() else topic,
            "authors": [fake.name(), fake.name()],
            "year": rng.randint(2021, 2026),
            "citations": rng.randint(0, 800),
        }
    return None
