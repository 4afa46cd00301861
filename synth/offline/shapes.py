"""Result shapes for tools that *act on* something: a browser, a shell, a database, a market,
a server's status, a file. Used through ``synth.offline.results``.

Each shape is ``(tool, args, ctx, text) -> dict``; ``text`` is the tool's name words and the
start of its description, lowercased. Randomness only from ``ctx.rng``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import re
from typing import Any
from urllib.parse import quote

from synth.offline import devtools, domains, things, vocab
from synth.offline import entities as E
from synth.offline.devtools import arg
from synth.offline.values import Context, seed_faker, words
from synth.records import ToolSpec

Shape = Any


# --- markets -------------------------------------------------------------------------------------

BASE = {
    "AMZN": 184.2,
    "GOOGL": 176.4,
    "META": 478.1,
    "NFLX": 642.0,
    "JPM": 198.3,
    "KO": 63.1,
    "V": 276.4,
    "SHOP": 62.5,
    "BTC": 67250,
    "ETH": 3480,
    "SOL": 162.4,
    "BNB": 592,
    "XRP": 0.52,
    "ADA": 0.45,
    "DOGE": 0.158,
    "DOT": 6.9,
    "LINK": 15.8,
    "AVAX": 34.2,
    "EUR": 1.086,
    "GBP": 1.272,
    "AAPL": 192.3,
    "MSFT": 421.5,
    "NVDA": 1096.0,
    "TSLA": 178.1,
}


def _market(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    if re.search(r"exchange info|exchange status|\binfo\b", text[:60]) and not re.search(
        r"trade|ticker|price|candle|book", text[:60]
    ):
        return {
            "exchange": arg(args, "exchange") or "binance",
            "status": "ok",
            "markets": ctx.rng.randint(400, 2600),
            "rate_limit_ms": 50,
            "server_time": E.stamp(ctx, 0, 0.001),
        }
    symbol = next(
        (
            v
            for v in (arg(args, k) for k in ("symbol", "pair", "market", "ticker", "instrument"))
            if v and re.search(r"[/\-:]|^[A-Z0-9]{3,}$", v)
        ),
        None,
    ) or ("EUR/USD" if "forex" in text else "BTC/USDT")
    base = re.split(r"[/\-_:]", symbol.upper())[0]
    price = BASE.get(base, BASE.get(base.removesuffix("USDT"), round(rng.uniform(0.5, 300), 2)))
    digits = 2 if price > 10 else 5
    if re.search(r"\b(house|senate|congress|insider)\b", text):  # disclosed trades by people, not an order book
        return domains.record(["disclosure"], text, args, ctx) or {}
    exchange = arg(args, "exchange") or ("NASDAQ" if base in vocab.TICKERS else "binance")
    t0 = 1780304400000 - rng.randint(0, 600) * 1000  # just before 2026-06-01T09:00Z, in ms

    def px(spread: float = 0.002) -> float:
        return round(price * (1 + rng.uniform(-spread, spread)), digits)

    if re.search(r"\b(trades?|fills?)\b", text):
        trades = [
            {
                "id": str(rng.randint(10**9, 10**10)),
                "timestamp": t0 + i * rng.randint(200, 4000),
                "side": rng.choice(("buy", "sell")),
                "price": px(0.0008),
                "amount": round(rng.uniform(0.001, 2) * (1 if price > 100 else 400), 4),
            }
            for i in range(4)
        ]
        return {"exchange": exchange, "symbol": symbol, "trades": trades}
    if re.search(r"order ?book|depth", text):
        return {
            "symbol": symbol,
            "bids": [[round(price * (1 - 0.0002 * (i + 1)), digits), round(rng.uniform(0.01, 5), 3)] for i in range(3)],
            "asks": [[round(price * (1 + 0.0002 * (i + 1)), digits), round(rng.uniform(0.01, 5), 3)] for i in range(3)],
            "timestamp": t0,
        }
    if re.search(r"ohlcv|candle|kline|bars?\b|history|historical|intraday|minute", text):
        frame = arg(args, "timeframe", "interval", "resolution") or "1h"
        step = {"m": 60000, "h": 3600000, "d": 86400000}.get(str(frame)[-1:], 3600000) * (
            int(re.sub(r"\D", "", str(frame)) or 1)
        )
        out, last = [], price
        for i in range(4):
            o = last
            c = round(o * (1 + rng.uniform(-0.006, 0.006)), digits)
            out.append(
                {
                    "timestamp": t0 - (3 - i) * step,
                    "open": o,
                    "high": round(max(o, c) * 1.002, digits),
                    "low": round(min(o, c) * 0.998, digits),
                    "close": c,
                    "volume": round(rng.uniform(50, 4000), 2),
                }
            )
            last = c
        return {"symbol": symbol, "timeframe": frame, "candles": out}
    if "funding" in text:
        return {
            "symbol": symbol,
            "funding_rate": round(rng.uniform(-0.0002, 0.0004), 6),
            "next_funding_time": "2026-06-01T16:00:00Z",
        }
    return {
        "symbol": symbol,
        "last": px(),
        "bid": px(0.0005),
        "ask": px(0.0005),
        "high_24h": round(price * 1.021, digits),
        "low_24h": round(price * 0.976, digits),
        "volume_24h": round(rng.uniform(1000, 90000), 2),
        "timestamp": t0,
    }


# --- status, time, logs, schema, connections --------------------------------------------------------

_OFFSETS = {
    "Europe/Lisbon": 1,
    "Europe/London": 1,
    "Europe/Berlin": 2,
    "Europe/Paris": 2,
    "America/New_York": -4,
    "America/Los_Angeles": -7,
    "Asia/Tokyo": 9,
    "Asia/Singapore": 8,
    "Australia/Sydney": 10,
    "UTC": 0,
}


_CITY_TZ = {
    "Lisbon": "Europe/Lisbon",
    "Porto": "Europe/Lisbon",
    "London": "Europe/London",
    "Dublin": "Europe/London",
    "Paris": "Europe/Paris",
    "Madrid": "Europe/Paris",
    "Berlin": "Europe/Berlin",
    "Munich": "Europe/Berlin",
    "Rome": "Europe/Paris",
    "Amsterdam": "Europe/Paris",
    "New York": "America/New_York",
    "Boston": "America/New_York",
    "Toronto": "America/New_York",
    "San Francisco": "America/Los_Angeles",
    "Seattle": "America/Los_Angeles",
    "Vancouver": "America/Los_Angeles",
    "Tokyo": "Asia/Tokyo",
    "Osaka": "Asia/Tokyo",
    "Seoul": "Asia/Tokyo",
    "Singapore": "Asia/Singapore",
    "Hong Kong": "Asia/Singapore",
    "Shanghai": "Asia/Singapore",
    "Sydney": "Australia/Sydney",
    "Melbourne": "Australia/Sydney",
}


def _zone(args: dict[str, Any], ctx: Context) -> str:
    """The time zone asked for, or the one of the place (or coordinates) asked about."""
    tz = arg(args, "timezone", "tz", "zone")
    if tz:
        return tz
    place = arg(args, "city", "location", "place")
    if place in _CITY_TZ:
        return _CITY_TZ[place]
    m = re.match(r"\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)", str(place or ""))
    lat_lon = (
        (float(m.group(1)), float(m.group(2)))
        if m
        else (
            arg(args, "lat", "latitude", types=(int, float)),
            arg(args, "lon", "lng", "longitude", types=(int, float)),
        )
    )
    if lat_lon[0] is not None and lat_lon[1] is not None:
        near = min(
            (c for c in vocab.CITY_COORDS if c in _CITY_TZ),
            key=lambda c: abs(vocab.CITY_COORDS[c][0] - lat_lon[0]) + abs(vocab.CITY_COORDS[c][1] - lat_lon[1]),
        )
        return _CITY_TZ[near]
    return _CITY_TZ.get(ctx.city or "", ctx.rng.choice(tuple(_OFFSETS)))


def _time(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    zones = [v for v in args.values() if isinstance(v, str) and v in _OFFSETS]
    clock = next((v for v in args.values() if isinstance(v, str) and re.fullmatch(r"\d{1,2}:\d{2}", v)), None)
    if len(zones) >= 2 and clock:  # "16:30 in New York is what in Tokyo?"
        h, m = map(int, clock.split(":"))
        minutes = h * 60 + m + (_OFFSETS[zones[1]] - _OFFSETS[zones[0]]) * 60
        shift = "" if 0 <= minutes < 1440 else " (next day)" if minutes >= 1440 else " (previous day)"
        return {
            "source": f"{clock} {zones[0]}",
            "target": f"{minutes % 1440 // 60:02d}:{minutes % 60:02d}{shift} {zones[1]}",
            "difference_hours": _OFFSETS[zones[1]] - _OFFSETS[zones[0]],
        }
    tz = _zone(args, ctx)
    off = _OFFSETS.get(tz, 0)
    t = dt.datetime(2026, 6, 1, 9, ctx.rng.randint(0, 59), ctx.rng.randint(0, 59)) + dt.timedelta(hours=off)
    return {
        "datetime": t.strftime("%Y-%m-%dT%H:%M:%S") + f"{'+' if off >= 0 else '-'}{abs(off):02d}:00",
        "timezone": tz,
        "day_of_week": t.strftime("%A"),
        "unix": 1780304400 + (t - dt.datetime(2026, 6, 1, 9) - dt.timedelta(hours=off)).seconds,
    }


def _status(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    w = set(words(tool.name))
    if w & {"ping", "heartbeat"}:
        return {"status": "ok", "latency_ms": rng.randint(3, 120), "server_time": E.stamp(ctx, 0, 0.01)}
    if w & {"session"}:
        return {
            "session_id": str(seed_faker(rng).uuid4()),
            "started_at": E.stamp(ctx, -0.2, -0.05),
            "expires_at": E.stamp(ctx, 0.2, 1),
            "requests": rng.randint(3, 140),
            "tool_calls": rng.randint(1, 40),
            "last_activity_at": E.stamp(ctx, -0.01, 0),
        }
    if w & {"system", "computer", "machine", "host"} or "system" in text[:80]:
        return {
            "os": rng.choice(("Ubuntu 24.04 LTS", "macOS 14.5", "Windows 11 Pro 23H2")),
            "cpu_cores": rng.choice((4, 8, 12, 16)),
            "memory_total_gb": rng.choice((16, 32, 64)),
            "memory_used_pct": round(rng.uniform(22, 87), 1),
            "disk_free_gb": rng.randint(12, 900),
            "uptime_s": rng.randint(3600, 40 * 86400),
        }
    if w & {"version"}:
        return {
            "version": f"{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
            "build": E.hexid(ctx, 7),
            "released_at": E.stamp(ctx, -90, -3),
        }
    if w & {"whoami", "me"}:
        fake = seed_faker(rng)
        return {
            "username": fake.user_name(),
            "name": fake.name(),
            "email": fake.email(),
            "plan": rng.choice(("free", "pro", "team")),
        }
    if re.search(r"\b(platforms?|services|providers)\b", text):
        names = ("GitHub", "Slack", "AWS", "Cloudflare", "Stripe")
        return {
            "services": [
                {"name": n, "status": rng.choice(("operational",) * 4 + ("degraded performance",))} for n in names[:4]
            ],
            "checked_at": E.stamp(ctx, -0.01, 0),
        }
    ident = next((v for k, v in args.items() if "id" in words(k) and isinstance(v, (str, int))), None)
    if ident is not None or w & {"job", "task", "run", "order", "deployment", "build", "operation", "request"}:
        state = rng.choice(("completed", "completed", "running", "queued", "failed"))
        out = {
            "state": state,
            "progress_pct": 100 if state == "completed" else 0 if state == "queued" else rng.randint(5, 95),
            "started_at": E.stamp(ctx, -0.3, -0.05),
            "updated_at": E.stamp(ctx, -0.04, 0),
        }
        if state == "failed":
            out["error"] = rng.choice(
                ("Timed out after 300 s", "Out of memory (limit 512 MiB)", "Upstream returned HTTP 503")
            )
        return out
    return {
        "status": "healthy",
        "version": f"{rng.randint(1, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        "uptime_s": rng.randint(600, 30 * 86400),
        "checks": {"database": "ok", "cache": rng.choice(("ok", "ok", "degraded")), "queue": "ok"},
        "checked_at": E.stamp(ctx, -0.01, 0),
    }


def _logs(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    n = min(int(arg(args, "limit", "lines", "tail", "count", types=(int,)) or 4), 5)
    if re.search(r"browser|console|playwright|puppeteer|page", text):
        pool = (
            ("log", "App mounted in 412 ms"),
            ("warning", "[Deprecation] Listener added for a synchronous 'DOMNodeInserted' event."),
            ("error", "Failed to load resource: the server responded with a status of 404 (Not Found)"),
            ("info", "Service worker registered"),
        )
        return {
            "messages": [
                {"type": t, "text": m, "timestamp": E.stamp(ctx, -0.01, 0)} for t, m in rng.sample(pool, min(n, 4))
            ]
        }
    start = rng.uniform(-0.1, -0.02)
    lines = [
        {"timestamp": E.stamp(ctx, start + i * 0.001, start + i * 0.001 + 0.0005), "level": lvl, "message": msg}
        for i, (lvl, msg) in enumerate(rng.sample(E.LOG_LINES, max(n, 2)))
    ]
    if "trace" in text:
        return {
            "trace_id": E.hexid(ctx, 32),
            "duration_ms": rng.randint(20, 900),
            "spans": [
                {"name": s, "service": svc, "duration_ms": rng.randint(2, 300)}
                for s, svc in (
                    ("GET /api/v1/orders", "api-gateway"),
                    ("orders.list", "orders-service"),
                    ("SELECT orders", "postgres-primary"),
                )
            ],
        }
    return {"lines": lines, "truncated": rng.random() < 0.3}


def _schema(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    return things.record(["table"], text, args, ctx)  # type: ignore[return-value]


def _connect(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    w = set(words(tool.name))
    if w & {"disconnect", "logout"}:
        return {"connected": False, "closed_at": E.stamp(ctx, 0, 0.001)}
    if w & {"login", "authenticate"}:
        return {
            "authenticated": True,
            "user": arg(args, "username", "user", "email") or seed_faker(rng).user_name(),
            "expires_at": E.stamp(ctx, 0.3, 1),
        }
    if w & {"initialize", "init"}:
        return {"initialized": True, "session_id": str(seed_faker(rng).uuid4()), "started_at": E.stamp(ctx, 0, 0.001)}
    hostname = arg(args, "host", "hostname", "server", "url", "connection", "dsn") or "db.internal"
    engines = [
        v
        for k, v in (
            ("postgres", "PostgreSQL 16.3"),
            ("mysql", "MySQL 8.0.37"),
            ("mariadb", "MariaDB 11.4.2"),
            ("mongo", "MongoDB 7.0.11"),
            ("redis", "Redis 7.2.5"),
        )
        if k in text.lower()
    ]  # the one it names
    return {
        "connected": True,
        "host": hostname,
        "server_version": engines[0] if engines else rng.choice(("PostgreSQL 16.3", "MySQL 8.0.37", "MongoDB 7.0.11")),
        "connection_id": rng.randint(100, 99999),
        "latency_ms": rng.randint(2, 80),
    }


# --- crypt, echo, files, changes ------------------------------------------------------------------


def _crypt(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    _, value = E.focus(args)
    w = words(tool.name)
    data = value.encode()
    if "hash" in w or "hmac" in w:
        algo = next((a for a in ("md5", "sha1", "sha512", "sha256") if a in text), "sha256")
        return {"algorithm": algo, "hash": hashlib.new(algo, data).hexdigest()}
    if "encode" in w or ("base64" in w and "decode" not in w):
        return {
            "encoded": quote(value) if "url" in w else base64.b64encode(data).decode(),
            "encoding": "url" if "url" in w else "base64",
        }
    if "decode" in w and value.startswith("0x"):
        return {
            "function": "transfer(address,uint256)",
            "selector": "0xa9059cbb",
            "args": {"to": "0x" + E.hexid(ctx, 40), "amount": str(rng.randint(10**15, 10**20))},
        }
    if "decode" in w:
        try:
            return {"decoded": base64.b64decode(value, validate=True).decode(), "encoding": "base64"}
        except ValueError:
            return {"decoded": value, "encoding": "none", "note": "input is not valid base64; returned unchanged"}
    algo = next((a.upper() for a in ("aes", "des", "rsa") if a in text), "AES-256-GCM")
    if "decrypt" in w:
        return {"plaintext": rng.choice(vocab.MESSAGES), "algorithm": algo}
    blob = bytes(rng.getrandbits(8) for _ in range(len(data) + 16 - len(data) % 16))
    return {
        "ciphertext": base64.b64encode(blob).decode(),
        "algorithm": algo,
        "iv": base64.b64encode(bytes(rng.getrandbits(8) for _ in range(12))).decode(),
    }


def _echo(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    return {"echo": E.focus(args)[1] or "pong"}


def _export(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any] | None:
    rng = ctx.rng
    if "speed" in text:  # a speed test, not a file
        return {
            "download_mbps": round(rng.uniform(40, 900), 1),
            "upload_mbps": round(rng.uniform(8, 300), 1),
            "latency_ms": rng.randint(4, 60),
            "server": f"{ctx.city or 'Lisbon'} (speedtest.example.net)",
        }
    if "save" in words(tool.name) and not re.search(
        r"\b(pdf|csv|png|jpe?g|file|disk|format|export|download|screenshot|image|json|xlsx)\b", text
    ):
        return None  # saving a record or a setting, not writing a file
    fmt = (
        str(
            arg(args, "format", "type", "extension")
            or next(
                (f for f in ("csv", "pdf", "json", "png", "mp4", "mp3", "xlsx", "markdown", "html") if f in text), "pdf"
            )
        )
        .lower()
        .lstrip(".")
    )
    fmt = {"markdown": "md", "excel": "xlsx"}.get(fmt, fmt)
    stem = next(
        (
            s
            for s in words(tool.name)[::-1]
            if s not in {"download", "export", "save", "to", "as", "file", "get", "convert", fmt}
        ),
        "export",
    )
    path = arg(args, "output", "destination", "path", "filename", "file") or f"downloads/{stem}-2026-06-01.{fmt}"
    return {
        "path": path,
        "format": fmt,
        "size_bytes": rng.randint(2_000, 9_000_000),
        "saved_at": E.stamp(ctx, 0, 0.001),
    }


def _change(verb: str) -> Shape:
    def make(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
        thing = next((x for x in words(tool.name)[::-1] if x not in ("batch", "crm", "api", "tool", verb)), "item")
        out: dict[str, Any] = {"status": "success"}
        if verb == "delete":
            out["deleted"] = True
        elif verb == "create":
            out[f"{thing.rstrip('s')}_id"] = (
                str(ctx.rng.randint(10**9, 10**10)) if "crm" in text else E.ident(thing, ctx)
            )
            out["created_at"] = E.stamp(ctx, 0, 0.001)
        else:
            out["updated_at"] = E.stamp(ctx, 0, 0.001)
        if "batch" in words(tool.name):
            out["processed"] = max(1, sum(len(v) for v in args.values() if isinstance(v, list)))
        return out

    return make


SHAPES: dict[str, Shape] = {
    **devtools.SHAPES,
    "market": _market,
    "time": _time,
    "status": _status,
    "logs": _logs,
    "schema": _schema,
    "connect": _connect,
    "crypt": _crypt,
    "echo": _echo,
    "export": _export,
    "delete": _change("delete"),
    "create": _change("create"),
    "update": _change("update"),
}
