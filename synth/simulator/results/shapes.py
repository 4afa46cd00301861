"""Result shapes for tools that *act on* something: a browser, a shell, a database, a market,
a server's status, a file. Used through ``synth.simulator.results.verbs``.

Each shape is ``(tool, args, ctx, text) -> dict``; ``text`` is the tool's name words and the
start of its description, lowercased. Randomness only from ``ctx.rng``.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any
from urllib.parse import quote

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import clock, devtools, markets, things
from synth.simulator.results import entities as E
from synth.simulator.results.entities import arg
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/shapes", "keywords", dict[str, re.Pattern[str]])
# database engines a connect call names, with the version it reports
_DATABASES = table("results/shapes", "databases", tuple[tuple[str, str], ...])
# a browser page's console lines
_CONSOLE = table("results/shapes", "console", tuple[tuple[str, str], ...])
# (operation, service) of a trace's spans
_SPANS = table("results/shapes", "spans", tuple[tuple[str, str], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/shapes", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/shapes", "sets", dict[str, frozenset[str]])
# words that name other words (a field's value by what was asked), by the function that uses them
_MAPS = table("results/shapes", "maps", dict[str, dict[str, str]])

Shape = Any


# --- status, logs, schema, connections --------------------------------------------------------


def _status(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """The status the tool reports, by what it names: a ping, a session, the system, a version, the
    signed-in user, third-party services, a job (when the call names one), else the server's health."""
    rng = ctx.rng
    w = set(words(tool.name))
    if w & {"ping", "heartbeat"}:
        return {"status": "ok", "latency_ms": rng.randint(3, 120), "server_time": E.stamp(ctx, 0, 0.01)}
    if w & {"session"}:
        return _session(ctx)
    if w & _SETS["status.system"] or "system" in text[:80]:
        return _system(ctx)
    if w & {"version"}:
        version = f"{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
        return {"version": version, "build": E.hexid(ctx, 7), "released_at": E.stamp(ctx, -90, -3)}
    if w & {"whoami", "me"}:
        fake = seed_faker(rng)
        plan = _POOLS["status.plan"]
        return {"username": fake.user_name(), "name": fake.name(), "email": fake.email(), "plan": rng.choice(plan)}
    if _KEYWORDS["status"].search(text):
        names = _POOLS["status.names"]
        services = [
            {"name": n, "status": rng.choice(("operational",) * 4 + ("degraded performance",))} for n in names[:4]
        ]
        return {"services": services, "checked_at": E.stamp(ctx, -0.01, 0)}
    ident = next((v for k, v in args.items() if "id" in words(k) and isinstance(v, (str, int))), None)
    if ident is not None or w & _SETS["status.job"]:
        return _job(ctx)
    return {
        "status": "healthy",
        "version": f"{rng.randint(1, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
        "uptime_s": rng.randint(600, 30 * 86400),
        "checks": {"database": "ok", "cache": rng.choice(_POOLS["status.cache"]), "queue": "ok"},
        "checked_at": E.stamp(ctx, -0.01, 0),
    }


def _session(ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "session_id": str(seed_faker(rng).uuid4()),
        "started_at": E.stamp(ctx, -0.2, -0.05),
        "expires_at": E.stamp(ctx, 0.2, 1),
        "requests": rng.randint(3, 140),
        "tool_calls": rng.randint(1, 40),
        "last_activity_at": E.stamp(ctx, -0.01, 0),
    }


def _system(ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "os": rng.choice(_POOLS["system.os"]),
        "cpu_cores": rng.choice((4, 8, 12, 16)),
        "memory_total_gb": rng.choice((16, 32, 64)),
        "memory_used_pct": round(rng.uniform(22, 87), 1),
        "disk_free_gb": rng.randint(12, 900),
        "uptime_s": rng.randint(3600, 40 * 86400),
    }


def _job(ctx: Context) -> dict[str, Any]:
    """A job's state; its progress agrees with the state, and a failed job says why."""
    rng = ctx.rng
    state = rng.choice(_POOLS["job.state"])
    out = {
        "state": state,
        "progress_pct": 100 if state == "completed" else 0 if state == "queued" else rng.randint(5, 95),
        "started_at": E.stamp(ctx, -0.3, -0.05),
        "updated_at": E.stamp(ctx, -0.04, 0),
    }
    if state == "failed":
        out["error"] = rng.choice(_POOLS["job.Timed out after 300 s"])
    return out


def _logs(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    n = min(int(arg(args, *_POOLS["logs.limit"], types=(int,)) or 4), 5)
    if _KEYWORDS["logs"].search(text):
        pool = _CONSOLE
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
            "spans": [{"name": s, "service": svc, "duration_ms": rng.randint(2, 300)} for s, svc in _SPANS],
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
            "user": arg(args, *_POOLS["connect.username"]) or seed_faker(rng).user_name(),
            "expires_at": E.stamp(ctx, 0.3, 1),
        }
    if w & {"initialize", "init"}:
        return {"initialized": True, "session_id": str(seed_faker(rng).uuid4()), "started_at": E.stamp(ctx, 0, 0.001)}
    hostname = arg(args, *_POOLS["connect.host"]) or "db.internal"
    engines = [v for k, v in _DATABASES if k in text.lower()]  # the one it names
    return {
        "connected": True,
        "host": hostname,
        "server_version": engines[0] if engines else rng.choice(_POOLS["connect.server_version"]),
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
        algo = next((a for a in _POOLS["crypt.algo"] if a in text), "sha256")
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
    algo = next((a.upper() for a in _POOLS["crypt.algo_2"] if a in text), "AES-256-GCM")
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
    if "save" in words(tool.name) and not _KEYWORDS["export"].search(text):
        return None  # saving a record or a setting, not writing a file
    fmt = (
        str(arg(args, *_POOLS["export.format"]) or next((f for f in _POOLS["export.fmt"] if f in text), "pdf"))
        .lower()
        .lstrip(".")
    )
    fmt = _MAPS["export.extension"].get(fmt, fmt)
    stem = next(
        (
            s
            for s in words(tool.name)[::-1]
            if s not in {"download", "export", "save", "to", "as", "file", "get", "convert", fmt}
        ),
        "export",
    )
    path = arg(args, *_POOLS["export.output"]) or f"downloads/{stem}-2026-06-01.{fmt}"
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
    "market": markets.market,
    "time": clock.time_now,
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
