"""Kinds of thing from specific domains that many servers share: dictionary entries, rental
listings, credentials, blockchains, ATT&CK/CVE security items, chemical compounds, nutrition,
earthquakes, car brands and market filings. Same contract as ``entities.record``."""

from __future__ import annotations

import re
from typing import Any

from synth.offline import entities as E
from synth.offline import vocab
from synth.offline.kinds import from_families
from synth.offline.values import Context, seed_faker, words

_WORDS = {
    "ephemeral": ("adjective", "Lasting for a very short time."),
    "serendipity": ("noun", "The occurrence of events by chance in a happy or beneficial way."),
    "ubiquitous": ("adjective", "Present, appearing or found everywhere."),
    "resilient": ("adjective", "Able to recover quickly from difficult conditions."),
    "meticulous": ("adjective", "Showing great attention to detail; very careful and precise."),
    "hello": ("exclamation", "Used as a greeting or to begin a phone conversation."),
    "resilience": ("noun", "The capacity to recover quickly from difficulties; toughness."),
    "wanderlust": ("noun", "A strong desire to travel and explore the world."),
    "benevolent": ("adjective", "Well meaning and kindly."),
    "cadence": ("noun", "A modulation or inflection of the voice; the rhythm of a sequence of sounds or events."),
}
_EXAMPLES = {
    "ephemeral": "Fame on social media is often ephemeral.",
    "serendipity": "Finding that café was pure serendipity.",
    "ubiquitous": "Smartphones are now ubiquitous.",
    "resilient": "The town proved resilient after the floods.",
    "meticulous": "He kept meticulous notes of every experiment.",
    "hello": "Hello, is anyone there?",
    "resilience": "The team showed real resilience after the outage.",
    "wanderlust": "Her wanderlust took her to 40 countries.",
    "benevolent": "A benevolent donor paid for the new library.",
    "cadence": "We moved the release cadence to every two weeks.",
}
_CHAINS = (
    ("Ethereum Mainnet", 1, "ETH"),
    ("Arbitrum One", 42161, "ETH"),
    ("Base", 8453, "ETH"),
    ("Polygon", 137, "POL"),
    ("OP Mainnet", 10, "ETH"),
)
_ATTACK = {
    "tactic": (
        ("TA0001", "Initial Access"),
        ("TA0002", "Execution"),
        ("TA0003", "Persistence"),
        ("TA0004", "Privilege Escalation"),
    ),
    "technique": (
        ("T1566", "Phishing"),
        ("T1059", "Command and Scripting Interpreter"),
        ("T1078", "Valid Accounts"),
        ("T1486", "Data Encrypted for Impact"),
    ),
    "detection": (
        ("DS0017", "Command: Command Execution"),
        ("DS0009", "Process: Process Creation"),
        ("DS0029", "Network Traffic: Network Connection Creation"),
        ("DS0028", "Logon Session: Logon Session Creation"),
    ),
    "mitigation": (
        ("M1032", "Multi-factor Authentication"),
        ("M1049", "Antivirus/Antimalware"),
        ("M1026", "Privileged Account Management"),
        ("M1017", "User Training"),
    ),
}
_RULES = (
    "python.lang.security.audit.eval-detected",
    "javascript.express.security.audit.xss.direct-response-write",
    "generic.secrets.security.detected-aws-access-key",
    "python.django.security.injection.sql.sql-injection-db-cursor-execute",
)
_CVES = (
    ("CVE-2024-3094", "xz/liblzma backdoor", 10.0),
    ("CVE-2023-44487", "HTTP/2 Rapid Reset", 7.5),
    ("CVE-2021-44228", "Log4Shell", 10.0),
)
_COMPOUNDS = (
    ("Aspirin", 2244, "C9H8O4", 180.16),
    ("Caffeine", 2519, "C8H10N4O2", 194.19),
    ("Ibuprofen", 3672, "C13H18O2", 206.28),
    ("Paracetamol", 1983, "C8H9NO2", 151.16),
)
_NUTRITION = {
    "apple": (52, 0.3, 14, 0.2),
    "banana": (89, 1.1, 23, 0.3),
    "orange": (47, 0.9, 12, 0.1),
    "strawberry": (32, 0.7, 7.7, 0.3),
}
_BRANDS = ("Toyota", "Volkswagen", "Fiat", "Renault", "Hyundai", "Ford")
_LISTINGS = (
    "Sunny 2-bedroom flat near Ribeira",
    "Quiet studio with balcony in the old town",
    "Family house with garden and parking",
    "Loft by the river, 5 min to the metro",
)


def record(nouns: list[str], text: str, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any] | None:
    return from_families(_FAMILIES, nouns, text, args, ctx, index)


def _given(args: dict[str, Any], *keys: str) -> str | None:
    return next((v for k, v in args.items() if isinstance(v, str) and set(words(k)) & set(keys)), None)


def _definition(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not re.search(r"\b(words?|dictionary|define|meaning|synonyms?|antonyms?)\b", text):
        return None
    word = (_given(args, "word", "term", "query", "text") or "ephemeral").strip()
    if word.lower() not in _WORDS:
        return (
            {"word": word, "found": False, "message": f"No definitions found for '{word}'."}
            if i == 0
            else {"suggestion": list(_WORDS)[E.slot(text, args, i, len(_WORDS))]}
        )
    pos, meaning = _WORDS[word.lower()]
    out = {"word": word, "part_of_speech": pos, "definition": meaning}
    return (
        out
        if i == 0
        else {"word": word, "example": _EXAMPLES.get(word.lower(), f"She used the word '{word}' twice in her talk.")}
    )


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


def _credential(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": rng.choice(("deploy-key", "ci-runner", "backup-server", "staging-db")),
        "type": rng.choice(("ssh-ed25519", "api_key", "password")),
        "fingerprint": "SHA256:" + E.hexid(ctx, 43),
        "created_at": E.stamp(ctx, -300, -10),
        "last_used_at": E.stamp(ctx, -5, 0),
    }


def _chain(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if ctx.topic != "crypto" and not re.search(
        r"chain|crypto|token|starknet|evm|defi|\bdex\b|coin|wallet|sui\b|solana|ethereum|mina", text
    ):
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


def _security(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
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


def _compound(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name, cid, formula, weight = _COMPOUNDS[E.slot(text, args, i, len(_COMPOUNDS))]
    return {"name": name, "cid": cid, "molecular_formula": formula, "molecular_weight": weight}


def _nutrition(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    if n == "meal":
        menu = (
            ("rice", "kimchi stew", "stir-fried pork", "spinach namul"),
            ("grilled chicken", "roast potatoes", "green salad", "apple"),
            ("pasta with tomato sauce", "garlic bread", "yoghurt"),
        )[E.slot(text, args, i, 3)]
        return {"date": E.day(ctx, 0, 5), "menu": list(menu), "calories_kcal": ctx.rng.randint(550, 850)}
    asked = (_given(args, "fruit", "food") or "").lower()
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
    place = rng.choice(
        (
            "32 km SW of Ponta Delgada, Portugal",
            "14 km N of Hualien City, Taiwan",
            "Off the coast of Central Chile",
            "8 km E of Ridgecrest, CA",
        )
    )
    return {
        "magnitude": round(rng.uniform(2.1, 6.4), 1),
        "place": place,
        "depth_km": round(rng.uniform(3, 80), 1),
        "time": E.stamp(ctx, -3, 0),
    }


def _brand(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    return {"name": _BRANDS[E.slot(text, args, i, len(_BRANDS))], "code": str(ctx.rng.randint(1, 250))}


def _requests(text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not re.search(r"browser|page|network|har\b|devtools", text):
        return None
    rng = ctx.rng
    path = ("/", "/static/app.js", "/api/v1/session", "/api/v1/orders?limit=20", "/favicon.ico")[
        E.slot(text, args, i, 5)
    ]
    return {
        "method": "GET" if "session" not in path else "POST",
        "url": f"https://app.example.com{path}",
        "status": rng.choice((200, 200, 200, 304, 404)),
        "type": "xhr" if "/api/" in path else "document" if path == "/" else "script",
        "duration_ms": rng.randint(8, 900),
    }


_SMILES = {
    "CC(=O)OC1=CC=CC=C1C(=O)O": ("aspirin", "C9H8O4", 180.16),
    "CN1C=NC2=C1C(=O)N(C(=O)N2C)C": ("caffeine", "C8H10N4O2", 194.19),
    "CC(C)CC1=CC=C(C=C1)C(C)C(=O)O": ("ibuprofen", "C13H18O2", 206.28),
}


def _smiles(args: dict[str, Any]) -> dict[str, Any] | None:
    smiles = next((v for k, v in args.items() if isinstance(v, str) and "smiles" in k.lower()), None)
    if smiles is None:
        return None
    name, formula, weight = _SMILES.get(smiles, ("", "", None))
    out: dict[str, Any] = {"smiles": smiles, "canonical_smiles": smiles, "valid": True}
    if weight:
        out.update({"name": name, "molecular_formula": formula, "molecular_weight": weight})
    return out


def _ports(text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    if not re.search(r"nmap|port|scan", text) or re.search(r"vulnerab|malware|virus|secret", text):
        return None
    port, service = ((22, "ssh"), (80, "http"), (443, "https"), (5432, "postgresql"), (3306, "mysql"))[
        E.slot(text, args, i, 5)
    ]
    return {
        "port": port,
        "protocol": "tcp",
        "state": "open" if ctx.rng.random() < 0.8 else "filtered",
        "service": service,
    }


def _dns(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
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
            "fuzzer": ("homoglyph", "hyphenation", "prefix", "homoglyph")[E.slot(text, args, i, 4)],
            "registered": ctx.rng.random() < 0.4,
        }
    kind, value = (
        ("A", f"93.184.{ctx.rng.randint(1, 254)}.{ctx.rng.randint(1, 254)}"),
        ("MX", f"10 mail.{domain}"),
        ("NS", f"ns1.{domain}"),
        ("TXT", "v=spf1 include:_spf.google.com ~all"),
    )[E.slot(text, args, i, 4)]
    return {"name": domain, "type": kind, "value": value, "ttl": ctx.rng.choice((300, 3600, 86400))}


def _gdb(n: str, text: str, ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "frame": f"#0  process_order (order=0x7ffd5e2c1a40) at src/orders.c:{rng.randint(40, 220)}",
        "locals": {"count": rng.randint(0, 20), "total": round(rng.uniform(1, 500), 2), "status": "0x1"},
        "thread": 1,
        "reason": "end-stepping-range",
    }


def _onchain(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    rng = ctx.rng
    if ctx.topic != "crypto" and not re.search(
        r"chain|crypto|token|wallet|coin|eth|sui|solana|starknet|bitcoin|ordinal|nft|web3|onchain", text
    ):
        return None  # a database transaction or a bank balance, not a blockchain one
    if n == "block" and not re.search(r"chain|crypto|eth|bitcoin|sui|solana|starknet|mina|height", text):
        return None
    if n == "block":
        return {
            "number": rng.randint(19_000_000, 21_000_000),
            "hash": "0x" + E.hexid(ctx, 64),
            "timestamp": E.stamp(ctx, -1, 0),
            "transactions": rng.randint(40, 400),
            "gas_used": rng.randint(8_000_000, 30_000_000),
        }
    if n in ("balance", "wallet", "account", "address"):
        symbol = next(
            (
                s
                for key, s in (
                    ("sui", "SUI"),
                    ("starknet", "STRK"),
                    ("solana", "SOL"),
                    ("bitcoin", "BTC"),
                    ("mina", "MINA"),
                )
                if key in text
            ),
            "ETH",
        )
        given = next(
            (v for v in args.values() if isinstance(v, str) and re.fullmatch(r"0x[0-9a-fA-F]{40,64}", v)), None
        )
        amount = round(rng.uniform(0.01, 40), 4)
        return {
            "address": given or "0x" + E.hexid(ctx, 64 if symbol in ("SUI", "STRK") else 40),
            "balance": amount,
            "symbol": symbol,
            "usd_value": round(
                amount * {"SUI": 1.05, "STRK": 0.62, "SOL": 162.4, "BTC": 67250, "MINA": 0.58}.get(symbol, 3480), 2
            ),
        }
    if n in ("inscription", "rune", "sat", "nft"):
        return {
            "inscription_id": E.hexid(ctx, 64) + "i0",
            "number": rng.randint(1000, 70_000_000),
            "content_type": rng.choice(("image/png", "text/plain", "image/webp")),
            "owner": "bc1p" + E.hexid(ctx, 58),
            "timestamp": E.stamp(ctx, -400, -1),
        }
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


def _finance(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
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


def _ip(args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    ip = (
        next((v for v in args.values() if isinstance(v, str) and re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", v)), None)
        or f"{rng.randint(11, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    )
    org, asn, country = rng.choice(
        (
            ("Amazon.com, Inc.", 16509, "US"),
            ("Google LLC", 15169, "US"),
            ("Hetzner Online GmbH", 24940, "DE"),
            ("OVH SAS", 16276, "FR"),
            ("DigitalOcean, LLC", 14061, "NL"),
        )
    )
    score = rng.choice((0, 0, 5, 35, 80))
    return {
        "ip": ip,
        "country": country,
        "asn": asn,
        "org": org,
        "threat_score": score,
        "verdict": "malicious" if score >= 70 else "suspicious" if score >= 30 else "clean",
    }


def _filing(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    rng = ctx.rng
    fake = seed_faker(rng)
    symbol = (_given(args, "symbol", "ticker") or vocab.TICKERS[E.slot(text, args, i, len(vocab.TICKERS))]).upper()
    if n in ("disclosure", "trade", "transaction"):
        return {
            "representative": fake.name(),
            "ticker": symbol,
            "type": rng.choice(("purchase", "sale")),
            "amount": rng.choice(("$1,001 - $15,000", "$15,001 - $50,000", "$50,001 - $100,000")),
            "transaction_date": E.day(ctx, -60, -5),
        }
    if n in ("holding", "constituent", "weighting", "allocation", "holder"):
        return {
            "symbol": symbol,
            "name": fake.company(),
            "weight_pct": round(rng.uniform(0.4, 7.5), 2),
            "shares": rng.randint(10**5, 10**8),
        }
    if n in ("offering", "ipo", "ipodisclosure", "ipoprospectuse"):
        return {
            "symbol": symbol,
            "company": fake.company(),
            "shares_offered": rng.randint(10**6, 5 * 10**7),
            "price": round(rng.uniform(8, 60), 2),
            "date": E.day(ctx, -20, 20),
        }
    if n == "recommendation" and not (_given(args, "symbol", "ticker") or ctx.topic == "finance"):
        return None
    if n == "supply" and ctx.topic != "crypto":
        return None
    if n == "recommendation":
        return {
            "symbol": symbol,
            "period": "2026-06-01",
            "strong_buy": rng.randint(2, 20),
            "buy": rng.randint(5, 25),
            "hold": rng.randint(2, 15),
            "sell": rng.randint(0, 4),
            "strong_sell": rng.randint(0, 2),
        }
    if n == "supply":
        total = rng.randint(10**7, 10**11)
        return {
            "total_supply": total,
            "circulating_supply": int(total * rng.uniform(0.4, 0.98)),
            "as_of": E.stamp(ctx, -0.1, 0),
        }
    return {
        "sector": rng.choice(("Technology", "Healthcare", "Energy", "Financials")),
        "change_pct": round(rng.uniform(-3, 3), 2),
        "pe_ratio": round(rng.uniform(9, 40), 1),
        "date": "2026-05-29",
    }


_FAMILIES = (
    ({"transaction", "tx", "block", "balance", "wallet", "inscription", "rune", "sat", "nft", "transfer"}, _onchain),
    (
        {
            "statement",
            "income",
            "financial",
            "ratio",
            "growth",
            "earning",
            "revenue",
            "fundamental",
            "ttm",
            "cashflow",
            "cash",
        },
        _finance,
    ),
    ({"definition", "meaning", "dictionary", "synonym", "antonym"}, _definition),
    ({"listing", "rental", "stay", "accommodation"}, _listing),
    ({"credential", "secret", "sshkey"}, _credential),
    ({"chain", "network", "blockchain"}, _chain),
    ({"tactic", "technique", "mitigation", "detection", "rule", "vulnerability", "cve"}, _security),
    ({"compound", "substance", "molecule", "drug"}, _compound),
    ({"nutrition", "nutrient", "fruit", "food", "meal"}, _nutrition),
    ({"earthquake", "seismic", "quake"}, _quake),
    ({"smile", "smiles", "molecule"}, lambda n, text, args, ctx, i: _smiles(args)),
    ({"nmap", "port", "portscan", "scan"}, lambda n, text, args, ctx, i: _ports(text, args, ctx, i)),
    ({"dnsrecon", "dig", "dnstwist", "nslookup"}, lambda n, text, args, ctx, i: _dns(n, text, args, ctx, i)),
    (
        {"gdb", "debugger", "local", "locals", "frame", "stack", "breakpoint"},
        lambda n, text, args, ctx, i: _gdb(n, text, ctx) if re.search(r"gdb|debug|lldb", text) else None,
    ),
    (
        {"lap", "pit"},
        lambda n, text, args, ctx, i: {
            "driver": ("VER", "NOR", "LEC", "HAM")[E.slot(text, args, i, 4)],
            "lap": 12 + i,
            ("time" if n == "lap" else "duration"): f"1:3{ctx.rng.randint(0, 5)}.{ctx.rng.randint(100, 999)}"
            if n == "lap"
            else f"2{ctx.rng.randint(1, 9)}.{ctx.rng.randint(100, 999)}",
        },
    ),
    (
        {"jitter", "latency", "ping"},
        lambda n, text, args, ctx, i: {
            "latency_ms": round(ctx.rng.uniform(8, 80), 1),
            "jitter_ms": round(ctx.rng.uniform(0.3, 12), 1),
            "packet_loss_pct": ctx.rng.choice((0.0, 0.0, 0.5, 1.2)),
            "samples": 20,
        },
    ),
    (
        {"bank"},
        lambda n, text, args, ctx, i: dict(
            zip(
                ("code", "name"),
                (
                    ("001", "Banco do Brasil S.A."),
                    ("237", "Banco Bradesco S.A."),
                    ("341", "Itaú Unibanco S.A."),
                    ("260", "Nu Pagamentos S.A."),
                )[E.slot(text, args, i, 4)],
            )
        ),
    ),
    ({"sheet"}, lambda n, text, args, ctx, i: _finance(n, text, args, ctx, i) if "balance" in text else None),
    (
        {"tier"},
        lambda n, text, args, ctx, i: (
            {
                "symbol": "BTC/USDT",
                "tier": i + 1,
                "max_leverage": (125, 100, 50, 20)[min(i, 3)],
                "max_notional_usdt": (50_000, 250_000, 1_000_000, 5_000_000)[min(i, 3)],
                "maintenance_margin_rate": (0.004, 0.005, 0.01, 0.025)[min(i, 3)],
            }
            if "leverage" in text
            else None
        ),
    ),
    (
        {"fire", "wildfire"},
        lambda n, text, args, ctx, i: {
            "name": f"{ctx.city or 'Serra da Estrela'} wildfire",
            "area_ha": ctx.rng.randint(12, 9000),
            "containment_pct": ctx.rng.randint(0, 100),
            "status": ctx.rng.choice(("active", "contained")),
            "updated_at": E.stamp(ctx, -0.5, 0),
        },
    ),
    (
        {"problem"},
        lambda n, text, args, ctx, i: (
            {
                "title": ("Two Sum", "Median of Two Sorted Arrays", "Trapping Rain Water", "LRU Cache")[
                    E.slot(text, args, i, 4)
                ],
                "difficulty": ("Easy", "Hard", "Hard", "Medium")[E.slot(text, args, i, 4)],
                "acceptance_rate": round(ctx.rng.uniform(35, 55), 1),
            }
            if re.search(r"leetcode|algorithm|coding|contest", text)
            else None
        ),
    ),
    (
        {"submission"},
        lambda n, text, args, ctx, i: (
            {
                "title": ("Two Sum", "Valid Parentheses", "Merge Intervals", "LRU Cache")[E.slot(text, args, i, 4)],
                "status": ctx.rng.choice(("Accepted", "Accepted", "Wrong Answer")),
                "lang": ctx.rng.choice(("python3", "cpp", "java")),
                "timestamp": E.stamp(ctx, -20, 0),
            }
            if re.search(r"leetcode|code|problem|contest", text)
            else None
        ),
    ),
    ({"brand", "manufacturer"}, _brand),
    ({"request", "requests"}, lambda n, text, args, ctx, i: _requests(text, args, ctx, i)),
    ({"ip", "ipv4", "ipaddress"}, lambda n, text, args, ctx, i: _ip(args, ctx)),
    (
        {
            "disclosure",
            "holding",
            "constituent",
            "weighting",
            "allocation",
            "holder",
            "offering",
            "ipo",
            "ipodisclosure",
            "ipoprospectuse",
            "recommendation",
            "supply",
            "sector",
            "benchmark",
        },
        _filing,
    ),
)
