"""Kinds of thing from specific domains that many servers share: dictionary entries, rental
listings, blockchains, chemical compounds, nutrition, earthquakes, car brands, races, coding
problems. Money (chains, statements, filings) is in ``synth.simulator.results.money``, security and
networks (ATT&CK, CVEs, ports, DNS) in ``synth.simulator.results.netsec``. Same contract as ``things.record``."""

from __future__ import annotations

import re
from typing import Any

from synth.simulator.results import entities as E
from synth.simulator.results import money, netsec
from synth.simulator.results.kinds import families, from_families
from synth.simulator.tables import table
from synth.simulator.values.values import Context

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/domains", "keywords", dict[str, re.Pattern[str]])

_WORDS = table("results/domains", "words", dict[str, tuple[str, str]])
_EXAMPLES = table("results/domains", "examples", dict[str, str])
_CHAINS = table("results/domains", "chains", tuple[tuple[str, int, str], ...])
_COMPOUNDS = table("results/domains", "compounds", tuple[tuple[str, int, str, float], ...])
_NUTRITION = table("results/domains", "nutrition", dict[str, tuple[int, float, int | float, float]])
_BRANDS = table("results/domains", "brands", tuple[str, ...])
_LISTINGS = table("results/domains", "listings", tuple[str, str, str, str])


def record(names: list[str], text: str, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any] | None:
    return from_families(_FAMILIES, names, text, args, ctx, index)


def _definition(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not _KEYWORDS["definition"].search(text):
        return None
    word = (E.given(args, _POOLS["definition.word"]) or "ephemeral").strip()
    if word.lower() not in _WORDS:
        return (
            {"word": word, "found": False, "message": f"No definitions found for '{word}'."}
            if i == 0
            else {"suggestion": list(_WORDS)[E.slot(text, args, i, len(_WORDS))]}
        )
    pos, meaning = _WORDS[word.lower()]
    if i:
        return {"word": word, "example": _EXAMPLES[word.lower()]}
    return {"word": word, "part_of_speech": pos, "definition": meaning}


def _listing(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "title": _LISTINGS[E.slot(text, args, i, len(_LISTINGS))],
        "price_per_night": rng.randint(45, 260),
        "currency": "EUR",
        "rating": round(rng.uniform(4.3, 4.98), 2),
        "reviews": rng.randint(3, 640),
        "url": f"https://www.airbnb.com/rooms/{rng.randint(10**7, 10**9)}",
    }


def _chain(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if ctx.topic != "crypto" and not _KEYWORDS["chain"].search(text):
        if n != "network":
            return None
        rng = ctx.rng
        return {
            "interfaces": [
                {
                    "name": "eth0",
                    "ipv4": f"10.0.{rng.randint(1, 9)}.{rng.randint(10, 250)}",
                    "status": "up",
                    "mtu": 1500,
                },
                {"name": "lo", "ipv4": "127.0.0.1", "status": "up", "mtu": 65536},
            ],
            "default_gateway": "10.0.0.1",
            "dns": ["1.1.1.1", "8.8.8.8"],
        }
    name, chain_id, symbol = _CHAINS[E.slot(text, args, i, len(_CHAINS))]
    return {
        "name": name,
        "chain_id": chain_id,
        "native_currency": symbol,
        "block_height": ctx.rng.randint(10**6, 3 * 10**8),
    }


def _compound(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name, cid, formula, weight = _COMPOUNDS[E.slot(text, args, i, len(_COMPOUNDS))]
    return {"name": name, "cid": cid, "molecular_formula": formula, "molecular_weight": weight}


def _nutrition(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    if n == "meal":
        menu = _MEALS[E.slot(text, args, i, 3)]
        return {"date": E.day(ctx, 0, 5), "menu": list(menu), "calories_kcal": ctx.rng.randint(550, 850)}
    asked = (E.given(args, ("fruit", "food")) or "").lower()
    food = asked if asked in _NUTRITION else list(_NUTRITION)[E.slot(text, args, i, 4)]
    kcal, protein, carbs, fat = _NUTRITION[food]
    out = {
        "food": food,
        "per": "100 g",
        "calories_kcal": kcal,
        "protein_g": protein,
        "carbohydrates_g": carbs,
        "fat_g": fat,
    }
    if asked and asked not in _NUTRITION:
        out = {"query": asked, "found": False, "suggestion": food}
    return out


def _quake(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    place = rng.choice(_QUAKE_PLACES)
    return {
        "magnitude": round(rng.uniform(2.1, 6.4), 1),
        "place": place,
        "depth_km": round(rng.uniform(3, 80), 1),
        "time": E.stamp(ctx, -3, 0),
    }


def _brand(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    return {"name": _BRANDS[E.slot(text, args, i, len(_BRANDS))], "code": str(ctx.rng.randint(1, 250))}


_SMILES = table("results/domains", "smiles", dict[str, tuple[str, str, float]])
# where earthquakes are reported
_QUAKE_PLACES = table("results/domains", "quake_places", tuple[str, str, str, str])
# the dishes of a meal, by cuisine
_MEALS = table("results/domains", "meals", tuple[tuple[str, ...], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/domains", "pools", dict[str, tuple[str, ...]])


def _smiles(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    smiles = next((v for k, v in args.items() if isinstance(v, str) and "smiles" in k.lower()), None)
    if smiles is None:
        return None
    name, formula, weight = _SMILES.get(smiles, ("", "", None))
    out: dict[str, Any] = {"smiles": smiles, "canonical_smiles": smiles, "valid": True}
    if weight:
        out.update({"name": name, "molecular_formula": formula, "molecular_weight": weight})
    return out


def _racing(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    """A Formula 1 lap time, or a pit stop's duration."""
    rng = ctx.rng
    driver = _POOLS["racing.driver"][E.slot(text, args, i, 4)]
    if n == "lap":
        return {"driver": driver, "lap": 12 + i, "time": f"1:3{rng.randint(0, 5)}.{rng.randint(100, 999)}"}
    return {"driver": driver, "lap": 12 + i, "duration": f"2{rng.randint(1, 9)}.{rng.randint(100, 999)}"}


def _latency(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "latency_ms": round(rng.uniform(8, 80), 1),
        "jitter_ms": round(rng.uniform(0.3, 12), 1),
        "packet_loss_pct": rng.choice((0.0, 0.0, 0.5, 1.2)),
        "samples": 20,
    }


def _wildfire(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": f"{ctx.city or 'Serra da Estrela'} wildfire",
        "area_ha": rng.randint(12, 9000),
        "containment_pct": rng.randint(0, 100),
        "status": rng.choice(("active", "contained")),
        "updated_at": E.stamp(ctx, -0.5, 0),
    }


def _problem(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    """A coding problem, on a tool about coding contests."""
    if not _KEYWORDS["problem"].search(text):
        return None
    k = E.slot(text, args, i, 4)
    return {
        "title": _POOLS["problem.title"][k],
        "difficulty": _POOLS["problem.difficulty"][k],
        "acceptance_rate": round(ctx.rng.uniform(35, 55), 1),
    }


def _submission(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not _KEYWORDS["submission"].search(text):
        return None
    rng = ctx.rng
    return {
        "title": _POOLS["submission.title"][E.slot(text, args, i, 4)],
        "status": rng.choice(_POOLS["submission.status"]),
        "lang": rng.choice(_POOLS["submission.lang"]),
        "timestamp": E.stamp(ctx, -20, 0),
    }


_FAMILIES = families("results/domains", globals(), money, netsec)
