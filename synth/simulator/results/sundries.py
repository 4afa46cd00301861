"""Records for sundry small kinds: labels and categories, cache keys, language models, trending
lists, exchange rates, memories, settings, domains and devices. Part of the ``synth.simulator.results.things``
families; a kind with nothing specific to say gets the plain ``entities.fallback`` record."""

from __future__ import annotations

from typing import Any

from synth.simulator import vocab
from synth.simulator.results.entities import (
    CATEGORY_NAMES,
    MODELS,
    TRENDING,
    day,
    fallback,
    hexid,
    host,
    rates_from,
    slot,
    stamp,
)
from synth.simulator.results.kinds import Kinds
from synth.simulator.tables import table
from synth.simulator.values.values import Context

# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/sundries", "pools", dict[str, tuple[str, ...]])


def record(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    make = _kind.find(n, text)
    return make(n, text, args, ctx, i) if make else fallback(n, ctx, i)


def _pick(pool: tuple[Any, ...], text: str, args: dict[str, Any], i: int) -> Any:
    return pool[slot(text, args, i, len(pool))]


def _association_label(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    label = _pick(_POOLS["association_label.label"], text, args, i)
    return {
        "typeId": _pick((1, 2, 3), text, args, i),
        "label": label,
        "category": "USER_DEFINED" if label != "Primary company" else "HUBSPOT_DEFINED",
    }


def _cache_key(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    key = _pick(_POOLS["cache_key.key"], text, args, i)
    return {"key": key, "type": rng.choice(("string", "hash")), "ttl_s": rng.choice((-1, 900, 3600, 86400))}


def _label(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {"name": rng.choice(CATEGORY_NAMES) if n != "tag" else rng.choice(vocab.TAGS), "count": rng.randint(3, 900)}


def _model(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name, provider, window = _pick(MODELS, text, args, i)
    price = round(ctx.rng.uniform(0.05, 3), 2)
    return {"id": name, "provider": provider, "context_window": window, "input_price_per_mtok": price}


def _trending(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    out = {"rank": i + 1, "title": _pick(TRENDING, text, args, i), "heat": rng.randint(10**5, 9 * 10**6)}
    if "zhihu" in text:
        out["url"] = f"https://www.zhihu.com/question/{rng.randint(10**8, 10**9)}"
    elif "weibo" in text:
        out["url"] = f"https://s.weibo.com/weibo?q=%23{rng.randint(10**5, 10**6)}"
    else:
        out["url"] = f"https://www.bilibili.com/video/BV1{hexid(ctx, 9)}"
    return out


def _not_a_hot_list(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> None:
    """The Chinese hot lists are the ones these words name here; another family answers for the rest."""
    return None


def _rates(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    base = next((v for k, v in args.items() if isinstance(v, str) and v in vocab.CURRENCIES), "USD")
    return {"base": base, "date": "2026-06-01", "rates": rates_from(base, _POOLS["rates.rates"])}


def _memory(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {"content": rng.choice(vocab.NOTES), "tags": rng.sample(vocab.TAGS, 2), "created_at": stamp(ctx, -20, 0)}


def _settings(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "enabled": rng.random() < 0.7,
        "timeout_s": rng.choice((10, 30, 60)),
        "retries": rng.choice((2, 3, 5)),
        "log_level": rng.choice(_POOLS["settings.log_level"]),
        "updated_at": stamp(ctx, -30, -1),
    }


def _whois(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    d = next((v for v in args.values() if isinstance(v, str) and "." in v and " " not in v), rng.choice(vocab.DOMAINS))
    return {
        "domain": d,
        "registrar": rng.choice(_POOLS["whois.registrar"]),
        "created": day(ctx, -4000, -400),
        "expires": day(ctx, 30, 700),
        "name_servers": [f"ns1.{host('https://' + d)}", f"ns2.{host('https://' + d)}"],
    }


def _phone(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    serial = _pick(_POOLS["phone.serial"], text, args, i)
    return {
        "serial": serial,
        "state": "device",
        "model": _pick(_POOLS["phone.model"], text, args, i),
    }


def _smart_home(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": rng.choice(_POOLS["smart_home.name"]),
        "state": rng.choice(_POOLS["smart_home.state"]),
        "last_changed": stamp(ctx, -1, 0),
    }


_kind = Kinds.load("results/sundries", globals())
