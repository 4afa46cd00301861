"""Records about security and networks: ATT&CK tactics and techniques, CVEs and scanner rules,
credentials, open ports, DNS records, IP reputation, a page's network requests and a debugger's
frame. Part of the ``synth.simulator.results.domains`` families; a maker whose world the tool is not in
returns None."""

from __future__ import annotations

import re
from typing import Any

from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/netsec", "keywords", dict[str, re.Pattern[str]])

_ATTACK = table("results/netsec", "attack", dict[str, tuple[tuple[str, str], ...]])
_RULES = table("results/netsec", "rules", tuple[str, str, str, str])
_CVES = table("results/netsec", "cves", tuple[tuple[str, str, float], ...])
# (organisation, ASN, country) of the networks an IP is looked up in
_NETWORKS = table("results/netsec", "networks", tuple[tuple[str, int, str], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/netsec", "pools", dict[str, tuple[str, ...]])
# rows a record is made from, by the function (and field) that uses them
_ROWS = table("results/netsec", "rows", dict[str, tuple[tuple[Any, ...], ...]])


def credential(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": rng.choice(_POOLS["credential.name"]),
        "type": rng.choice(_POOLS["credential.type"]),
        "fingerprint": "SHA256:" + E.hexid(ctx, 43),
        "created_at": E.stamp(ctx, -300, -10),
        "last_used_at": E.stamp(ctx, -5, 0),
    }


def security_item(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    k = E.slot(text, args, i, 1000)
    if n in _ATTACK:
        ident, name = _ATTACK[n][k % 4]
        kind = {"detection": "datasources"}.get(n, n + "s")
        return {"id": ident, "name": name, "url": f"https://attack.mitre.org/{kind}/{ident}/"}
    if n == "rule":
        return {
            "id": _RULES[k % len(_RULES)],
            "severity": rng.choice(("ERROR", "WARNING")),
            "languages": [_RULES[k % len(_RULES)].split(".")[0]],
        }
    cve, name, score = _CVES[k % len(_CVES)]
    return {
        "id": cve,
        "title": name,
        "cvss": score,
        "severity": "critical" if score >= 9 else "high",
        "published": E.day(ctx, -900, -200),
    }


def request(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not _KEYWORDS["request"].search(text):
        return None
    rng = ctx.rng
    path = _POOLS["request.path"][E.slot(text, args, i, 5)]
    return {
        "method": "GET" if "session" not in path else "POST",
        "url": f"https://app.example.com{path}",
        "status": rng.choice((200, 200, 200, 304, 404)),
        "type": "xhr" if "/api/" in path else "document" if path == "/" else "script",
        "duration_ms": rng.randint(8, 900),
    }


def open_port(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not _KEYWORDS["open_port.scan"].search(text) or _KEYWORDS["open_port.not"].search(text):
        return None
    port, service = _ROWS["open_port.22"][E.slot(text, args, i, 5)]
    return {
        "port": port,
        "protocol": "tcp",
        "state": "open" if ctx.rng.random() < 0.8 else "filtered",
        "service": service,
    }


def dns_record(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    domain = next(
        (v for v in args.values() if isinstance(v, str) and re.fullmatch(r"[\w.-]+\.[a-z]{2,}", v)), "example.com"
    )
    if n == "dnstwist":
        fake = (
            domain.replace("o", "0", 1),
            domain.replace(".", "-", 1) + ".com",
            "www" + domain,
            domain.replace("e", "3", 1),
        )[E.slot(text, args, i, 4)]
        return {
            "domain": fake,
            "fuzzer": _POOLS["dns_record.fuzzer"][E.slot(text, args, i, 4)],
            "registered": ctx.rng.random() < 0.4,
        }
    kind, value = (
        ("A", f"93.184.{ctx.rng.randint(1, 254)}.{ctx.rng.randint(1, 254)}"),
        ("MX", f"10 mail.{domain}"),
        ("NS", f"ns1.{domain}"),
        ("TXT", "v=spf1 include:_spf.google.com ~all"),
    )[E.slot(text, args, i, 4)]
    return {"name": domain, "type": kind, "value": value, "ttl": ctx.rng.choice((300, 3600, 86400))}


def debugger_frame(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not _KEYWORDS["debugger_frame"].search(text):
        return None
    rng = ctx.rng
    return {
        "frame": f"#0  process_order (order=0x7ffd5e2c1a40) at src/orders.c:{rng.randint(40, 220)}",
        "locals": {"count": rng.randint(0, 20), "total": round(rng.uniform(1, 500), 2), "status": "0x1"},
        "thread": 1,
        "reason": "end-stepping-range",
    }


def ip_reputation(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    ip = (
        next((v for v in args.values() if isinstance(v, str) and re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", v)), None)
        or f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    )
    org, asn, country = rng.choice(_NETWORKS)
    score = rng.choice((0, 0, 5, 35, 80))
    return {
        "ip": ip,
        "country": country,
        "asn": asn,
        "org": org,
        "threat_score": score,
        "verdict": "malicious" if score >= 70 else "suspicious" if score >= 30 else "clean",
    }
