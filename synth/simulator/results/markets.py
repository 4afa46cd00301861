"""Results for market tools: an exchange's info, trades, an order book, candles, a funding rate or
a ticker, around the price the symbol trades at (``BASE``), with timestamps just before
2026-06-01T09:00Z. Used through ``synth.simulator.results.shapes``."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import domains
from synth.simulator.results import entities as E
from synth.simulator.results.entities import arg
from synth.simulator.tables import table
from synth.simulator.values.values import Context

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/markets", "keywords", dict[str, re.Pattern[str]])

BASE = table("results/markets", "base", dict[str, float | int])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/markets", "pools", dict[str, tuple[str, ...]])


def market(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """What the market tool reports for the symbol it asks about, by the words of the tool."""
    rng = ctx.rng
    if _KEYWORDS["market.info"].search(text[:60]) and not _KEYWORDS["market.trading"].search(text[:60]):
        return {
            "exchange": arg(args, "exchange") or "binance",
            "status": "ok",
            "markets": rng.randint(400, 2600),
            "rate_limit_ms": 50,
            "server_time": E.stamp(ctx, 0, 0.001),
        }
    symbol = _symbol(args, text)
    base = re.split(r"[/\-_:]", symbol.upper())[0]
    price = BASE.get(base, BASE.get(base.removesuffix("USDT"), round(rng.uniform(0.5, 300), 2)))
    if _KEYWORDS["market.disclosed"].search(text):  # disclosed trades by people, not an order book
        return domains.record(["disclosure"], text, args, ctx) or {}
    exchange = arg(args, "exchange") or ("NASDAQ" if base in vocab.TICKERS else "binance")
    t0 = 1780304400000 - rng.randint(0, 600) * 1000  # just before 2026-06-01T09:00Z, in ms
    m = _Market(symbol, price, 2 if price > 10 else 5, t0, rng)
    if re.search(r"\b(trades?|fills?)\b", text):
        return {"exchange": exchange, "symbol": symbol, "trades": _trades(m)}
    if re.search(r"order ?book|depth", text):
        return _order_book(m)
    if _KEYWORDS["market.candles"].search(text):
        frame = arg(args, *_POOLS["market.timeframe"]) or "1h"
        return {"symbol": symbol, "timeframe": frame, "candles": _candles(m, str(frame))}
    if "funding" in text:
        rate = round(rng.uniform(-0.0002, 0.0004), 6)
        return {"symbol": symbol, "funding_rate": rate, "next_funding_time": "2026-06-01T16:00:00Z"}
    return {
        "symbol": symbol,
        "last": m.near(),
        "bid": m.near(0.0005),
        "ask": m.near(0.0005),
        "high_24h": round(price * 1.021, m.digits),
        "low_24h": round(price * 0.976, m.digits),
        "volume_24h": round(rng.uniform(1000, 90000), 2),
        "timestamp": t0,
    }


def _symbol(args: dict[str, Any], text: str) -> str:
    """The pair or ticker the call names (``BTC/USDT``, ``AAPL``); a default pair of the tool's market."""
    named = (arg(args, k) for k in _POOLS["symbol.named"])
    symbol = next((v for v in named if v and re.search(r"[/\-:]|^[A-Z0-9]{3,}$", v)), None)
    return symbol or ("EUR/USD" if "forex" in text else "BTC/USDT")


@dataclass(frozen=True)
class _Market:
    """One symbol's market at one moment: its price, the digits it is quoted to, the time in ms."""

    symbol: str
    price: float
    digits: int
    t0: int
    rng: random.Random

    def near(self, spread: float = 0.002) -> float:
        """A price within ``spread`` of the market's."""
        return round(self.price * (1 + self.rng.uniform(-spread, spread)), self.digits)


def _trades(m: _Market) -> list[dict[str, Any]]:
    rng = m.rng
    return [
        {
            "id": str(rng.randint(10**9, 10**10)),
            "timestamp": m.t0 + i * rng.randint(200, 4000),
            "side": rng.choice(("buy", "sell")),
            "price": m.near(0.0008),
            "amount": round(rng.uniform(0.001, 2) * (1 if m.price > 100 else 400), 4),
        }
        for i in range(4)
    ]


def _order_book(m: _Market) -> dict[str, Any]:
    rng, price, digits = m.rng, m.price, m.digits
    return {
        "symbol": m.symbol,
        "bids": [[round(price * (1 - 0.0002 * (i + 1)), digits), round(rng.uniform(0.01, 5), 3)] for i in range(3)],
        "asks": [[round(price * (1 + 0.0002 * (i + 1)), digits), round(rng.uniform(0.01, 5), 3)] for i in range(3)],
        "timestamp": m.t0,
    }


def _candles(m: _Market, frame: str) -> list[dict[str, Any]]:
    """Four candles of the timeframe asked for ("15m", "1h", "1d"), each opening at the last close."""
    step = {"m": 60000, "h": 3600000, "d": 86400000}.get(frame[-1:], 3600000) * (int(re.sub(r"\D", "", frame) or 1))
    out, last = [], m.price
    for i in range(4):
        o = last
        c = round(o * (1 + m.rng.uniform(-0.006, 0.006)), m.digits)
        out.append(
            {
                "timestamp": m.t0 - (3 - i) * step,
                "open": o,
                "high": round(max(o, c) * 1.002, m.digits),
                "low": round(min(o, c) * 0.998, m.digits),
                "close": c,
                "volume": round(m.rng.uniform(50, 4000), 2),
            }
        )
        last = c
    return out
