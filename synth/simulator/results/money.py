"""Records about money: blockchain blocks, balances, inscriptions and transfers, a company's
financial statements, market filings (trades of officials, holdings, offerings, analyst
recommendations, token supply, sectors), leverage tiers and banks. Part of the
``synth.simulator.results.domains`` families; each maker returns None for a noun outside its world
(a database transaction, a bank balance)."""

from __future__ import annotations

import re
from typing import Any

from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

_CHAIN_WORDS = table("results/money", "chain_words", str)
_BLOCK_WORDS = table("results/money", "block_words", str)
_COINS = table("results/money", "coins", tuple[tuple[str, str], ...])
# ETH otherwise: 3480
_USD = table("results/money", "usd", dict[str, float | int])


def onchain(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    """A block, a balance, an inscription or a transfer, when the tool is about a blockchain."""
    if ctx.topic != "crypto" and not re.search(_CHAIN_WORDS, text):
        return None  # a database transaction or a bank balance, not a blockchain one
    if n == "block":
        return _block(ctx) if re.search(_BLOCK_WORDS, text) else None
    if n in _POOLS["onchain.balance"]:
        return _balance(text, args, ctx)
    if n in _POOLS["onchain.inscription"]:
        rng = ctx.rng
        return {
            "inscription_id": E.hexid(ctx, 64) + "i0",
            "number": rng.randint(1000, 70_000_000),
            "content_type": rng.choice(_POOLS["onchain.content_type"]),
            "owner": "bc1p" + E.hexid(ctx, 58),
            "timestamp": E.stamp(ctx, -400, -1),
        }
    return _transfer(ctx)


def _block(ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "number": rng.randint(19_000_000, 21_000_000),
        "hash": "0x" + E.hexid(ctx, 64),
        "timestamp": E.stamp(ctx, -1, 0),
        "transactions": rng.randint(40, 400),
        "gas_used": rng.randint(8_000_000, 30_000_000),
    }


def _balance(text: str, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The balance of the address asked about, in the coin of the chain the tool names (ETH otherwise)."""
    symbol = next((s for key, s in _COINS if key in text), "ETH")
    given = next((v for v in args.values() if isinstance(v, str) and re.fullmatch(r"0x[0-9a-fA-F]{40,64}", v)), None)
    amount = round(ctx.rng.uniform(0.01, 40), 4)
    return {
        "address": given or "0x" + E.hexid(ctx, 64 if symbol in ("SUI", "STRK") else 40),
        "balance": amount,
        "symbol": symbol,
        "usd_value": round(amount * _USD.get(symbol, 3480), 2),
    }


def _transfer(ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "hash": "0x" + E.hexid(ctx, 64),
        "from": "0x" + E.hexid(ctx, 40),
        "to": "0x" + E.hexid(ctx, 40),
        "value": round(rng.uniform(0.001, 12), 4),
        "symbol": "ETH",
        "status": "success",
        "block_number": rng.randint(19_000_000, 21_000_000),
        "timestamp": E.stamp(ctx, -3, 0),
    }


def finance(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    symbol = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"symbol", "ticker"}),
        rng.choice(vocab.TICKERS),
    )
    revenue = rng.randint(5, 400) * 10**9
    return {
        "symbol": symbol,
        "fiscal_year": 2025,
        "period": "FY",
        "revenue": revenue,
        "net_income": int(revenue * rng.uniform(0.04, 0.3)),
        "eps_diluted": round(rng.uniform(0.5, 12), 2),
        "total_assets": int(revenue * rng.uniform(0.8, 3)),
        "currency": "USD",
    }


def filing(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    rng = ctx.rng
    fake = seed_faker(rng)
    symbol = (E.given(args, ("symbol", "ticker")) or vocab.TICKERS[E.slot(text, args, i, len(vocab.TICKERS))]).upper()
    if n in _POOLS["filing.disclosure"]:
        return {
            "representative": fake.name(),
            "ticker": symbol,
            "type": rng.choice(("purchase", "sale")),
            "amount": rng.choice(_POOLS["filing.amount"]),
            "transaction_date": E.day(ctx, -60, -5),
        }
    if n in _POOLS["filing.holding"]:
        return {
            "symbol": symbol,
            "name": fake.company(),
            "weight_pct": round(rng.uniform(0.4, 7.5), 2),
            "shares": rng.randint(10**5, 10**8),
        }
    if n in _POOLS["filing.offering"]:
        return {
            "symbol": symbol,
            "company": fake.company(),
            "shares_offered": rng.randint(10**6, 5 * 10**7),
            "price": round(rng.uniform(8, 60), 2),
            "date": E.day(ctx, -20, 20),
        }
    if n == "recommendation":
        return _recommendation(symbol, args, ctx)
    if n == "supply":
        return _supply(ctx)
    return {
        "sector": rng.choice(_POOLS["filing.sector"]),
        "change_pct": round(rng.uniform(-3, 3), 2),
        "pe_ratio": round(rng.uniform(9, 40), 1),
        "date": "2026-05-29",
    }


def _recommendation(symbol: str, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """Analysts' ratings, for a ticker the call names or a finance server's tool."""
    if not (E.given(args, ("symbol", "ticker")) or ctx.topic == "finance"):
        return None
    rng = ctx.rng
    return {
        "symbol": symbol,
        "period": "2026-06-01",
        "strong_buy": rng.randint(2, 20),
        "buy": rng.randint(5, 25),
        "hold": rng.randint(2, 15),
        "sell": rng.randint(0, 4),
        "strong_sell": rng.randint(0, 2),
    }


def _supply(ctx: Context) -> dict[str, Any] | None:
    """A token's supply; a "supply" outside crypto is something else."""
    if ctx.topic != "crypto":
        return None
    rng = ctx.rng
    total = rng.randint(10**7, 10**11)
    return {
        "total_supply": total,
        "circulating_supply": int(total * rng.uniform(0.4, 0.98)),
        "as_of": E.stamp(ctx, -0.1, 0),
    }


def bank(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    code, name = _BANKS[E.slot(text, args, i, len(_BANKS))]
    return {"code": code, "name": name}


_BANKS = table("results/money", "banks", tuple[tuple[str, str], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/money", "pools", dict[str, tuple[str, ...]])


def leverage_tier(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    """A futures exchange's leverage tier: the higher the tier, the lower the leverage."""
    if "leverage" not in text:
        return None
    return {
        "symbol": "BTC/USDT",
        "tier": i + 1,
        "max_leverage": (125, 100, 50, 20)[min(i, 3)],
        "max_notional_usdt": (50_000, 250_000, 1_000_000, 5_000_000)[min(i, 3)],
        "maintenance_margin_rate": (0.004, 0.005, 0.01, 0.025)[min(i, 3)],
    }


def balance_sheet(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    return finance(n, text, args, ctx, i) if "balance" in text else None
