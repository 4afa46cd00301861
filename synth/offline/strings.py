"""String argument values: what a person would type for a parameter, from its name, format,
description and the tool it belongs to.

Rules are tried in order; the first that recognises the parameter gives the value and its
*kind* (how the request writer phrases it). The schema's own examples win over guesses, and
the last resort is a phrase about the conversation's topic, never a filler label.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable
from typing import Any

from synth.offline import vocab
from synth.offline.context import ANCHOR, Context, number, seed_faker, words

_QUOTED = re.compile(
    r"""(?:e\.g\.?|for example|examples?:|such as|like|i\.e\.|例如|比如)\s*[:,：]?\s*['"`]([^'"`\n]{1,80})['"`]""", re.I
)
_EG = re.compile(
    r"(?:\be\.g\.?|\bfor example|\bexamples?:|\bsuch as|\bi\.e\.|例如|比如)\s*[:,：]?\s*([^)）\n;]{1,160})", re.I
)
_CHOICES = re.compile(
    r"(?:\bvalid\b[\w ]{0,20}|\bsupported\b[\w ]{0,20}|\boptions?(?=\s*(?::|are\b|include))|\bone of|\bpossible values|\ballowed(?: values)?)\s*(?:are|is|include)?\s*:?\s*([^.\n;]{3,160})",  # noqa: E501
    re.I,
)
_PAREN_LIST = re.compile(r"\(([^()]{3,80})\)")
_TOKEN = re.compile(
    r"^(?:[A-Za-z0-9][\w.:/@+#\-]{0,39}|(?:https?://|/|~/)[\w.:/@+#\-~%?=&]{1,90})$"
)  # names, codes, URLs, paths


def _split(text: str) -> list[str]:
    """``"binance, coinbase or kraken"`` -> the three names; anything wordy is not a value."""
    text = re.sub(r"\betc\.?|\band so on\b|\.\.\.", "", text)
    out = []
    for part in re.split(r",|\bor\b|\band\b|/(?=\s)|\||或|、|，", text):
        token = part.strip().strip("'\"`[]").strip()
        if " " in token and len(token.split()) <= 3 and token.replace(" ", "").isalnum():
            out.append(token)  # "Porto Alegre", "wt wt"
        elif _TOKEN.match(token):
            out.append(token)
    return out


def examples(description: str) -> list[str]:
    """Values a schema's description offers: quoted examples, "e.g. a, b", "(a, b, c)", "Valid x: a, b".

    A list that names kinds of value ("compound name, CID, SMILES", "https://, file:///") offers no value.
    """
    found = [m.strip() for m in _QUOTED.findall(description)]
    if found and not any(_KIND.search(f) for f in found):
        return found
    for pattern in (_EG, _CHOICES):
        for m in pattern.finditer(description):
            values = _split(m.group(1))
            if values and not any(_KIND.search(v) for v in values):
                return values
    for m in _PAREN_LIST.finditer(description):
        values = _split(m.group(1))
        if len(values) >= 2 and "," in m.group(1) and not any(_KIND.search(v) for v in values):
            return values
    return []


# "compound name", "user ID", "https://": what kind of value goes there, not a value
_KIND = re.compile(
    r"\s(?:names?|ids?|numbers?|codes?|titles?|types?|strings?|values?|text|paths?|urls?|keywords?)$|^[a-z]+:/*$", re.I
)


# --- rules ---------------------------------------------------------------------------------------

Rule = Callable[[set[str], str, str, str, Context], "tuple[Any, str] | None"]


def _date(ctx: Context, span: int = 120) -> dt.date:
    return ANCHOR + dt.timedelta(days=ctx.rng.randint(-span // 4, span))


def _when(w: set[str], name: str, fmt: str, text: str, ctx: Context) -> tuple[Any, str] | None:
    """Dates and times: formats first, then names like startTime, end_dt, createdBefore, checkin."""
    rng = ctx.rng
    early = bool(w & {"start", "from", "since", "after", "begin", "checkin", "min"})
    timey = w & {
        "datetime",
        "timestamp",
        "time",
        "dt",
        "date",
        "before",
        "after",
        "since",
        "until",
        "checkin",
        "checkout",
        "birthday",
        "deadline",
        "due",
    }
    if not (fmt in ("date-time", "date", "time") or timey):
        return None
    if fmt == "time" or (w == {"time"} and "date" not in text):
        return f"{rng.randint(8, 18):02d}:{rng.choice((0, 15, 30, 45)):02d}", "time"
    d = _date(ctx, 30) if early else _date(ctx)
    if not early and w & {"end", "to", "until", "before", "checkout", "max"}:
        d = d + dt.timedelta(days=rng.randint(3, 10))
    if (
        fmt == "date"
        or "yyyy-mm-dd" in text
        or (
            w & {"date", "birthday", "checkin", "checkout", "day"}
            and "time" not in w
            and "iso 8601 date-time" not in text
        )
    ):
        return d.isoformat(), "date"
    if w & {"time", "datetime", "timestamp", "dt", "before", "after", "since", "until", "deadline", "due"} or fmt:
        return f"{d.isoformat()}T{rng.randint(8, 18):02d}:{rng.choice((0, 15, 30, 45)):02d}:00Z", "datetime"
    return None


def _identifier(name: str, rng: random.Random) -> str:
    stem = [w for w in words(name) if w not in {"id", "key", "identifier", "number", "ref", "ids"}]
    prefix = (stem[-1][:3] if stem else "id").lower()
    return f"{prefix}_{rng.randint(10000, 99999)}"


def _slug(ctx: Context, noun: str) -> str:
    """A name for a workspace-like resource: ``sales-analytics``, ``billing_db``."""
    base = ctx.rng.choice(vocab.RESOURCE_STEMS)
    suffix = vocab.RESOURCE_SUFFIX.get(noun, "")
    return f"{base}{suffix}"


def _titled(ctx: Context, subject: str) -> str:
    """A name for a thing a person creates: a playlist, a project, a note."""
    pool = vocab.NAMED_THINGS.get(subject)
    return ctx.rng.choice(pool) if pool else ctx.rng.choice(vocab.TITLES)


# a user that logs in (a database, a server, an account) has a user name, not a person's full name
_ACCOUNT = re.compile(r"username|user name|database|mysql|postgres|\bsql|\bssh\b|\blogin\b|\bconnect|account|用户名")
_PEOPLE = {
    "user",
    "contact",
    "person",
    "customer",
    "employee",
    "author",
    "member",
    "attendee",
    "patient",
    "recipient",
    "owner",
    "student",
    "candidate",
    "speaker",
    "guest",
    "assignee",
    "reviewer",
    "player",
}
_SCHOLARLY = {
    "pmid": lambda r: str(r.randint(31000000, 39999999)),
    "pmcid": lambda r: f"PMC{r.randint(8000000, 11999999)}",
    "doi": lambda r: r.choice(vocab.DOIS),
    "isbn": lambda r: r.choice(vocab.ISBNS),
    "arxiv": lambda r: f"{r.randint(2101, 2605)}.{r.randint(10000, 19999)}",
    "nct": lambda r: f"NCT0{r.randint(4000000, 6999999)}",
}


def string_value(name: str, schema: dict[str, Any], description: str, ctx: Context) -> tuple[str, str]:
    """A value for a string parameter, and its kind."""
    rng = ctx.rng
    w = set(words(name))
    fmt = str(schema.get("format") or "")
    text = f"{name} {description}".lower()
    fake = seed_faker(rng)

    if fmt == "email" or (w & {"email", "mail", "mailto"} and not w & {"subject", "body", "message", "id", "content"}):
        return fake.email(), "email"
    if w & {"to", "cc", "bcc", "recipients", "recipient"} and ("email" in text or "address" in text) and not w & {"id"}:
        return fake.email(), "email"
    # the description's own examples win over what the name or format suggests: an Instagram post URL where
    # one is shown, "localhost" where a database host is, not a URL or host from a stock list
    if (
        (found := examples(description))
        and not w & {"password", "secret", "token", "apikey"}
        and not all(re.match(r"\d{4}-\d\d", f) for f in found)
    ):  # a date example shows a format: dates come below
        return rng.choice(found), "url" if all(f.startswith("http") for f in found) else "text" if any(
            " " in f for f in found
        ) else "name"
    if (when := _when(w, name, fmt, text, ctx)) is not None:
        return when
    if fmt in ("uri", "url", "uri-reference") or w & {"url", "uri", "link", "href", "website", "endpoint"}:
        if "github" in text or "repo" in w:
            return f"https://github.com/{rng.choice(vocab.GITHUB_PAIRS)}", "url"
        return rng.choice(vocab.URLS), "url"
    if fmt == "uuid" or "uuid" in w:
        return str(fake.uuid4()), "id"
    if fmt in ("ipv4", "ip") or w & {"ip"} or (w & {"target", "host"} and ("ip" in text or "network" in text)):
        return fake.ipv4_private() if "192.168" in text or "network" in text else fake.ipv4_public(), "id"
    if (
        w & {"domain", "hostname", "host", "server"}
        and not w & {"id"}
        and not (w & {"name"} and not w & {"domain", "host"})
    ):
        if re.search(r"database|postgres|mysql|redis|mongo|\bdb\b|smtp|ssh", text):
            return rng.choice(("localhost", "db.internal.example.com", "10.0.4.12")), "name"
        return rng.choice(vocab.DOMAINS), "name"
    for key, make in _SCHOLARLY.items():
        if key in w or name.lower() == key or name.lower() == key + "s":
            return make(rng), "id"
    for rule in RULES:
        if (hit := rule(w, name, text, ctx)) is not None:  # type: ignore[arg-type, call-arg]
            return hit
    return _about(w, name, ctx)


def _rule(
    match: Callable[[set[str], str, str, Context], bool], make: Callable[[set[str], str, str, Context], tuple[Any, str]]
) -> Rule:
    return lambda w, name, text, ctx: make(w, name, text, ctx) if match(w, name, text, ctx) else None  # type: ignore[misc, return-value]


def _any(*keys: str, unless: tuple[str, ...] = ()) -> Callable[[set[str], str, str, Context], bool]:
    k, u = set(keys), set(unless)
    return lambda w, name, text, ctx: bool(w & k) and not w & u


def _code(w: set[str], name: str, text: str, ctx: Context) -> tuple[Any, str]:
    if "sql" in text or (w & {"query", "where"} and ctx.topic == "data"):
        return ctx.rng.choice(vocab.SQL if "where" not in w else vocab.SQL_WHERE), "code"
    if "mermaid" in text:
        return "graph TD; Signup-->Verify; Verify-->Dashboard", "code"
    if w & {"expression", "expr", "formula", "calculation"} and "javascript" not in text:
        return ctx.rng.choice(vocab.EXPRESSIONS), "code"
    if "javascript" in text or "js" in w:
        return ctx.rng.choice(vocab.JS_SNIPPETS), "code"
    return ctx.rng.choice(vocab.PY_SNIPPETS), "code"


RULES: tuple[Rule, ...] = (
    _rule(
        lambda w, n, t, c: n.endswith(("Id", "ID", "_id", "Ids", "_ids")) or bool(w & {"id", "sku"}),
        lambda w, n, t, c: (str(seed_faker(c.rng).uuid4()) if "uuid" in t else _identifier(n, c.rng), "id"),
    ),
    _rule(
        lambda w, n, t, c: n.endswith("YN") or re.search(r"\by/n\b|'y' or 'n'", t) is not None,
        lambda w, n, t, c: (c.rng.choice(("Y", "N")), "enum"),
    ),
    _rule(
        _any("password", "secret", "apikey", "passphrase", "bearer", "credentials", "senha"),
        lambda w, n, t, c: (f"demo-{seed_faker(c.rng).lexify('????????')}", "id"),
    ),
    _rule(
        lambda w, n, t, c: bool(w & {"token", "key"} and w & {"api", "access", "auth", "private", "secret"}),
        lambda w, n, t, c: (f"demo-{seed_faker(c.rng).lexify('????????')}", "id"),
    ),
    _rule(_any("cursor", "continuation", "pagination"), lambda w, n, t, c: (c.rng.choice(vocab.CURSORS), "id")),
    _rule(
        lambda w, n, t, c: _KUBE.search(c.about) is not None and bool(w & _KUBE_PARAMS),  # type: ignore[has-type]
        lambda w, n, t, c: _kube(w, c),
    ),
    _rule(
        lambda w, n, t, c: "session" in w and not w & {"id", "token", "key"},
        lambda w, n, t, c: (c.rng.choice(("default", "main", "support")), "name"),
    ),
    _rule(
        lambda w, n, t, c: w == {"image"} or (bool(w & {"image"}) and bool(w & {"name", "ref"})),
        lambda w, n, t, c: (
            (c.rng.choice(_CONTAINER_IMAGES), "id")  # type: ignore[has-type]
            if _CONTAINERS.search(t + " " + c.about)  # type: ignore[has-type]
            else (
                c.rng.choice(vocab.MEDIA_PATHS["image"])
                if "image" in vocab.MEDIA_PATHS
                else c.rng.choice(vocab.FILE_PATHS),
                "path",
            )
        ),
    ),
    _rule(
        lambda w, n, t, c: (
            bool(w & {"variable", "var", "function", "column", "attribute", "field", "prop"})
            and bool(w & {"name", "names"})
            or n in ("entrypoint", "prototype")
        ),
        lambda w, n, t, c: (c.rng.choice(vocab.CODE_NAMES), "name"),
    ),
    _rule(
        _any("fee", "price", "balance", "cost", "budget", "rate", "salary", "lamports", unless=("id", "type")),
        lambda w, n, t, c: (str(number(n, {}, t, "number", c)), "number"),
    ),
    _rule(
        _any(
            "frequency",
            "duration",
            "size",
            "amount",
            "count",
            "limit",
            "port",
            "timeout",
            "interval",
            "width",
            "height",
            "offset",
            "page",
            "year",
            "quantity",
            "row",
            "rows",
            "number",
            "max",
            "min",
            unless=("id",),
        ),
        lambda w, n, t, c: (str(number(n, {}, t, "integer", c)), "number"),
    ),
    _rule(
        _any(
            "city",
            "location",
            "place",
            "destination",
            "origin",
            "town",
            "address",
            "singleline",
            unless=("id", "type", "email"),
        ),
        lambda w, n, t, c: (
            (seed_faker(c.rng).address().replace("\n", ", "), "place")
            if "address" in w and c.topic != "crypto"
            else ("0x" + "".join(c.rng.choice("0123456789abcdef") for _ in range(40)), "id")
            if "address" in w
            else (c.city or c.rng.choice(vocab.CITIES)[0], "place")
        ),
    ),
    _rule(
        _any("country", "coo", "coa"),
        lambda w, n, t, c: (
            lambda country: (
                (vocab.COUNTRY_CODES.get(country, "US"), "id")
                if w & {"code", "iso"} or "iso" in t or "2-letter" in t
                else (country, "place")
            )
        )(c.rng.choice(vocab.CITIES)[1]),
    ),
    _rule(
        _any("region"),
        lambda w, n, t, c: (c.rng.choice(vocab.CLOUD_REGIONS if "aws" in t or "cloud" in t else vocab.REGIONS), "name"),
    ),
    _rule(_any("airport", "iata"), lambda w, n, t, c: (c.rng.choice(vocab.AIRPORTS), "id")),
    _rule(_any("timezone", "tz"), lambda w, n, t, c: (c.rng.choice(vocab.TIMEZONES), "name")),
    _rule(
        _any("language", "lang", "locale"),
        lambda w, n, t, c: (lambda pair: (pair[0] if "code" in t or len(n) <= 4 else pair[1], "name"))(
            c.rng.choice(vocab.LANGUAGES)
        ),
    ),
    _rule(_any("currency", "denom"), lambda w, n, t, c: (c.rng.choice(vocab.CURRENCIES), "id")),
    _rule(_any("exchange"), lambda w, n, t, c: (c.rng.choice(vocab.EXCHANGES), "name")),
    _rule(_any("instrument", "pair"), lambda w, n, t, c: (c.rng.choice(vocab.PAIRS), "id")),
    _rule(
        _any("symbol", "ticker", "stock", "symbols"),
        lambda w, n, t, c: (
            c.rng.choice(vocab.CRYPTO)[1] if c.topic == "crypto" else c.rng.choice(vocab.TICKERS),
            "id",
        ),
    ),
    _rule(
        lambda w, n, t, c: bool(w & {"protocol", "protocols"}) and c.topic == "crypto",
        lambda w, n, t, c: (c.rng.choice(vocab.PROTOCOLS), "name"),
    ),
    _rule(
        lambda w, n, t, c: bool(w & {"chain", "network", "blockchain"}) and c.topic == "crypto",
        lambda w, n, t, c: (c.rng.choice(vocab.CHAINS), "name"),
    ),
    _rule(
        lambda w, n, t, c: bool(w & {"coin", "token", "crypto", "asset"}) and "address" not in w,
        lambda w, n, t, c: (c.rng.choice(vocab.CRYPTO)[0], "name"),
    ),
    _rule(
        lambda w, n, t, c: (
            bool(w & {"hash", "tx", "txhash", "signature", "commit", "sha"})
            or "hex" in t
            or (bool(w & {"address", "wallet", "contract", "spender", "from", "to"}) and c.topic == "crypto")
        ),
        lambda w, n, t, c: (
            (
                "0x"
                + "".join(
                    c.rng.choice("0123456789abcdef")
                    for _ in range(40 if w & {"address", "wallet", "contract", "spender", "from", "to"} else 64)
                ),
                "id",
            )
            if not w & {"commit", "sha"}
            else ("".join(c.rng.choice("0123456789abcdef") for _ in range(40)), "id")
        ),
    ),
    _rule(_any("owner", "org", "organization"), lambda w, n, t, c: (c.rng.choice(vocab.GITHUB_OWNERS), "name")),
    _rule(
        _any("repo", "repository"),
        lambda w, n, t, c: (
            c.rng.choice(vocab.GITHUB_PAIRS) if "/" in t or "owner/" in t else c.rng.choice(vocab.GITHUB_REPOS),
            "name",
        ),
    ),
    _rule(_any("branch", "ref", "rev", "onto"), lambda w, n, t, c: (c.rng.choice(vocab.BRANCHES), "name")),
    _rule(
        lambda w, n, t, c: "cell" in w or (bool(w & {"range"}) and ("excel" in c.about or "sheet" in c.about)),
        lambda w, n, t, c: (_cell(w, c), "id"),
    ),
    _rule(
        lambda w, n, t, c: "sheet" in w or "worksheet" in w,
        lambda w, n, t, c: (c.rng.choice(("Sheet1", "Q3 Sales", "Budget 2026")), "name"),
    ),
    _rule(_any("path", "file", "filename", "filepath", "cwd"), lambda w, n, t, c: (_path(w, t, c), "path")),
    _rule(_any("dir", "directory", "folder"), lambda w, n, t, c: (c.rng.choice(vocab.DIRECTORIES), "path")),
    _rule(
        lambda w, n, t, c: bool(w & {"connection", "dsn"}) or "connection string" in t,
        lambda w, n, t, c: (
            f"postgresql://analyst@db.internal:5432/{c.rng.choice(('sales', 'inventory', 'crm'))}",
            "id",
        ),
    ),
    _rule(
        lambda w, n, t, c: (
            bool(w & {"query", "q", "search", "keyword", "name", "term"})
            and c.subject in {"location", "place", "city", "geocode", "address", "town"}
        ),
        lambda w, n, t, c: (c.city or c.rng.choice(vocab.CITIES)[0], "place"),
    ),
    _rule(
        lambda w, n, t, c: (
            bool(
                w & {"sql", "where", "code", "script", "snippet", "pycode", "expression", "expr", "formula", "mermaid"}
            )
            or (bool(w & {"query"}) and c.topic == "data")
        ),
        _code,
    ),
    _rule(_any("command", "cmd", "shell"), lambda w, n, t, c: (c.rng.choice(vocab.COMMANDS), "code")),
    _rule(_any("selector", "xpath"), lambda w, n, t, c: (c.rng.choice(vocab.SELECTORS), "code")),
    _rule(_any("element", "button"), lambda w, n, t, c: (c.rng.choice(vocab.ELEMENTS), "text")),
    _rule(
        _any("table", "collection", "tables", "collections", "include"),
        lambda w, n, t, c: (c.rng.choice(vocab.TABLES), "name"),
    ),
    _rule(
        _any(
            "database",
            "db",
            "schema",
            "namespace",
            "project",
            "workspace",
            "dataset",
            "bucket",
            "index",
            "store",
            "mart",
            "cluster",
            "instance",
            "service",
            "app",
            "application",
            "environment",
            "env",
            "module",
            "package",
            "packages",
            "library",
            "block",
            "component",
            "components",
            "plugin",
            unless=("id", "description"),
        ),
        lambda w, n, t, c: (_slug(c, next(iter(sorted(w & set(vocab.RESOURCE_SUFFIX))), "")), "name"),
    ),
    _rule(
        _any(
            "query",
            "q",
            "search",
            "keyword",
            "keywords",
            "term",
            "terms",
            "topic",
            "prompt",
            "question",
            "palavras",
            "condition",
            "conditions",
            "diseases",
            "disease",
        ),
        lambda w, n, t, c: (_query(c), "query"),
    ),
    _rule(
        _any("phone", "mobile"),
        lambda w, n, t, c: (
            f"+1-{c.rng.randint(200, 989)}-{c.rng.randint(200, 989)}-{c.rng.randint(1000, 9999)}",
            "id",
        ),
    ),
    _rule(
        _any("barcode", "ean", "upc", "gtin"),
        lambda w, n, t, c: ("".join(c.rng.choice("0123456789") for _ in range(13)), "id"),
    ),
    _rule(_any("zip", "postal", "postcode", "cep"), lambda w, n, t, c: (seed_faker(c.rng).postcode(), "id")),
    _rule(
        _any(
            "username",
            "user",
            "login",
            "handle",
            "author",
            "assignee",
            "user1",
            "user2",
            "author1",
            "author2",
            unless=("id",),
        ),
        lambda w, n, t, c: (
            seed_faker(c.rng).user_name()
            if w & {"username", "login", "handle", "user1", "user2"} or _ACCOUNT.search(t + " " + c.about)
            else seed_faker(c.rng).name(),
            "name",
        ),
    ),
    _rule(
        lambda w, n, t, c: (
            bool(w & {"class", "property", "field", "entity", "model", "type"} and w & {"name"})
            or n in ("class", "entity")
        ),
        lambda w, n, t, c: (c.rng.choice(vocab.ENTITIES), "name"),
    ),
    _rule(
        _any(
            "name",
            "firstname",
            "lastname",
            "fullname",
            "recipient",
            "contact",
            "person",
            "title",
            "remark",
            unless=("id",),
        ),
        lambda w, n, t, c: _named(w, t, c),
    ),
    _rule(
        _any("company", "business", "brand", "industry"),
        lambda w, n, t, c: (c.rng.choice(vocab.INDUSTRIES) if "industry" in w else seed_faker(c.rng).company(), "name"),
    ),
    _rule(_any("product", "item"), lambda w, n, t, c: (c.rng.choice(vocab.PRODUCTS), "name")),
    _rule(
        lambda w, n, t, c: (
            bool(w) and w <= {"source", "target", "from", "to", "entity", "subject", "object", "node", "name"}
        ),
        lambda w, n, t, c: (c.rng.choice(vocab.NAMED_THINGS["entity"]), "name"),
    ),
    _rule(_any("category", "genre", "kind", "type"), lambda w, n, t, c: (c.rng.choice(vocab.CATEGORIES), "name")),
    _rule(_any("color", "colour"), lambda w, n, t, c: (c.rng.choice(vocab.COLORS), "name")),
    _rule(_any("tag", "tags", "label", "labels"), lambda w, n, t, c: (c.rng.choice(vocab.TAGS), "name")),
    _rule(_any("status", "state"), lambda w, n, t, c: (c.rng.choice(vocab.STATUSES), "name")),
    _rule(
        _any("emoji", "emojis", "reaction"), lambda w, n, t, c: (c.rng.choice(("👍", "🎉", "✅", "🚀", "❤️")), "name")
    ),
    _rule(_any("gender", "sex"), lambda w, n, t, c: (c.rng.choice(("female", "male")), "name")),
    _rule(_any("units", "unit"), lambda w, n, t, c: (c.rng.choice(("metric", "imperial")), "name")),
    _rule(_any("encoding", "charset"), lambda w, n, t, c: ("utf-8", "name")),
    _rule(_any("delimiter", "separator"), lambda w, n, t, c: (c.rng.choice((",", ";", "|")), "name")),
    _rule(_any("method"), lambda w, n, t, c: (c.rng.choice(("GET", "POST")), "name")),
    _rule(
        _any("period", "interval", "timeframe", "range"),
        lambda w, n, t, c: (c.rng.choice(("1d", "5d", "1mo", "3mo", "1y")), "name"),
    ),
    _rule(
        _any("channel"),
        lambda w, n, t, c: (c.rng.choice(("#general", "#release-notes", "#support", "#design")), "name"),
    ),
    _rule(_any("model"), lambda w, n, t, c: (c.rng.choice(vocab.MODELS), "name")),
    _rule(_any("voice"), lambda w, n, t, c: (c.rng.choice(("alloy", "nova", "verse")), "name")),
    _rule(_any("quality", "resolution"), lambda w, n, t, c: (c.rng.choice(("720p", "1080p", "high")), "name")),
    _rule(_any("word", "words"), lambda w, n, t, c: (c.rng.choice(vocab.WORDS), "name")),
    _rule(_any("smiles"), lambda w, n, t, c: (c.rng.choice(vocab.SMILES), "id")),
    _rule(_any("mnemonic", "seed"), lambda w, n, t, c: (" ".join(c.rng.sample(vocab.WORDS_BIP, 12)), "id")),
    _rule(
        _any(
            "message",
            "body",
            "content",
            "text",
            "comment",
            "reply",
            "description",
            "summary",
            "corpo",
            "input",
            "markdown",
            "html",
            "xml",
            "draft",
            "stdin",
            "transcript",
            "document",
        ),
        lambda w, n, t, c: (_body(w, t, c), "text"),
    ),
    _rule(_any("subject", "heading", "assunto"), lambda w, n, t, c: (c.rng.choice(vocab.TITLES), "text")),
    _rule(_any("note", "notes", "memo"), lambda w, n, t, c: (c.rng.choice(vocab.NOTES), "text")),
    _rule(
        _any(
            "thought",
            "reasoning",
            "analysis",
            "hypothesis",
            "observation",
            "insight",
            "conclusion",
            "claim",
            "premise",
            "premises",
            "finding",
            "findings",
            "resolution",
            "explanation",
            "idea",
            "ideas",
            "insights",
            "recommendation",
            "decision",
            "approach",
            "problem",
            "issue",
            "context",
            "task",
            "goal",
            "reason",
            "pitch",
            "statement",
            "plan",
            "step",
            "steps",
            "benefits",
            "limitations",
            "tradeoffs",
            "constraints",
            "assumptions",
            "risks",
            "evidence",
            "question",
            "purpose",
            "requirements",
            "feedback",
            "use",
            "case",
            "action",
            "instruction",
            "instructions",
            "objective",
            "details",
            "areas",
            "techniques",
            "outcome",
        ),
        lambda w, n, t, c: (c.rng.choice(vocab.REASONING.get(c.topic, vocab.REASONING["general"])), "text"),
    ),
    _rule(
        _any(
            "key", "identifier", "slug", "number", "ref", "sku", "pid", "udid", "device", "code", "nif", "cnpj", "vin"
        ),
        lambda w, n, t, c: (_identifier(n, c.rng), "id"),
    ),
    _rule(
        _any("version"),
        lambda w, n, t, c: (f"{c.rng.randint(1, 4)}.{c.rng.randint(0, 12)}.{c.rng.randint(0, 9)}", "id"),
    ),
    _rule(
        _any("format", "output", "mode", "sort", "order", "fileformat"),
        lambda w, n, t, c: (
            c.rng.choice(("json", "markdown", "csv"))
            if w & {"format", "output", "fileformat"}
            else c.rng.choice(("desc", "asc")),
            "name",
        ),
    ),
)


# Kubernetes and container tools: a context, a kind, a pod or node is named as kubectl names it
_KUBE = re.compile(r"\bk8s\b|kube|kubernetes|\bpods?\b|deployment|daemonset|statefulset|\bnamespace")
_KUBE_PARAMS = {
    "context",
    "cluster",
    "resource",
    "kind",
    "name",
    "pod",
    "node",
    "deployment",
    "container",
    "annotations",
    "labels",
    "label",
    "patch",
    "selector",
}
_CONTAINERS = re.compile(r"docker|container|oci\b|sbom|registry|kubernetes|k8s|trivy|grype|syft")
_CONTAINER_IMAGES = (
    "nginx:1.27",
    "python:3.12-slim",
    "postgres:16",
    "ghcr.io/acme/checkout-api:2.4.1",
    "redis:7-alpine",
)


def _kube(w: set[str], ctx: Context) -> tuple[str, str]:
    rng = ctx.rng
    if w & {"context", "cluster"}:
        return rng.choice(("prod-eu-west-1", "staging-us-east-1", "kind-dev")), "name"
    if w & {"resource", "kind"} and not w & {"name"}:
        return rng.choice(("deployment", "service", "statefulset", "configmap")), "name"
    if "pod" in w:
        return (
            f"{rng.choice(('checkout-api', 'orders-worker', 'web'))}-{rng.choice(('7c9f8d6b5', '5d4b9c7f8'))}-{rng.choice(('x2kqp', 'm8zt4', 'p9wl7'))}",  # noqa: E501
            "id",
        )
    if "node" in w:
        return f"ip-10-0-{rng.randint(1, 9)}-{rng.randint(10, 250)}.eu-west-1.compute.internal", "id"
    if "container" in w:
        return rng.choice(("app", "sidecar", "nginx")), "name"
    if w & {"annotations", "labels", "label", "selector"}:
        return rng.choice(("team=payments", "app=checkout-api", "tier=backend")), "id"
    if "patch" in w:
        return rng.choice(('{"spec": {"replicas": 3}}', '{"metadata": {"labels": {"tier": "backend"}}}')), "code"
    return rng.choice(("checkout-api", "orders-worker", "web-frontend", "redis-cache")), "name"


_QUERY_POOLS = {
    "song": "music",
    "track": "music",
    "album": "music",
    "recipe": "food",
    "film": "movie",
    "article": "news",
    "work": "paper",
    "publication": "paper",
    "product": "shop",
}


def _query(ctx: Context) -> str:
    """What a person searches for: the kind of thing the tool finds (a book for a book search), else the server's
    topic."""
    subject = _QUERY_POOLS.get(ctx.subject, ctx.subject)
    if subject in vocab.QUERIES:
        return ctx.rng.choice(vocab.QUERIES[subject])
    if subject in vocab.NAMED_THINGS and subject not in (
        "entity",
        "resource",
        "list",
        "memory",
        "note",
        "task",
        "project",
    ):
        return ctx.rng.choice(vocab.NAMED_THINGS[subject])
    return ctx.rng.choice(vocab.QUERIES.get(ctx.topic, vocab.QUERIES["general"]))


def _named(w: set[str], text: str, ctx: Context) -> tuple[str, str]:
    """A name: a person's when the thing is a person, else the kind of name that thing gets."""
    fake = seed_faker(ctx.rng)
    if w & {"company", "business", "organization"}:
        return fake.company(), "name"
    if w & {"product", "item"}:
        return ctx.rng.choice(vocab.PRODUCTS), "name"
    if w & {"file"}:
        return ctx.rng.choice(vocab.FILE_PATHS).rsplit("/", 1)[-1], "name"
    if w & {"project", "workspace", "database", "db", "table", "index", "bucket", "channel", "repo", "branch"}:
        return _slug(ctx, next(iter(sorted(w & set(vocab.RESOURCE_SUFFIX))), "")), "name"
    subject = next((x for x in sorted(w) if x in vocab.NAMED_THINGS), ctx.subject)  # "stop_name" names a stop
    if w & {"title", "page", "article"} and re.search(r"wikipedia|\bwiki\b|encyclop", ctx.about):
        subject = "article"
    if (
        w & {"firstname", "lastname", "fullname", "recipient", "contact", "person"}
        or subject in _PEOPLE
        or (w == {"name"} and set(re.findall(r"[a-z]+", ctx.about[:40])) & _PEOPLE)
        or re.search(
            r"\b(?:person|user|customer|contact|patient|employee)'?s? name\b|\bgreet|\bsomeone\b|\bwho\b", text
        )
    ):
        return (fake.first_name() if "first" in w else fake.last_name() if "last" in w else fake.name()), "name"
    if w & {"title", "remark"} or subject in vocab.NAMED_THINGS:
        return _titled(ctx, subject), "text" if w & {"title", "remark"} else "name"
    return _titled(ctx, subject), "name"


def _cell(w: set[str], ctx: Context) -> str:
    """Spreadsheet cells as a spreadsheet names them: A1, a range A1:D20."""
    if w & {"range"}:
        return ctx.rng.choice(("A1:D20", "B2:F14", "A1:C50"))
    if w & {"top", "start", "first"}:
        return ctx.rng.choice(("A1", "B2"))
    if w & {"bottom", "end", "last"}:
        return ctx.rng.choice(("D20", "F14", "C50"))
    return f"{ctx.rng.choice('ABCDEF')}{ctx.rng.randint(1, 40)}"


def _path(w: set[str], text: str, ctx: Context) -> str:
    """A path whose extension fits what the tool works on: a video for a video, a folder for a cwd."""
    if "cwd" in w or "directory" in text.split()[:6]:
        return ctx.rng.choice(vocab.DIRECTORIES)
    for where in (" ".join(w), text, ctx.about):  # the parameter first, then the tool it belongs to
        for media, paths in vocab.MEDIA_PATHS.items():
            if re.search(rf"\b{media}", where):
                return ctx.rng.choice(paths)
    return ctx.rng.choice(vocab.FILE_PATHS)


def _body(w: set[str], text: str, ctx: Context) -> str:
    """Free text that fits its slot: HTML for html, a short message for a message, a paragraph for content."""
    rng = ctx.rng
    if "html" in w or "html" in text.split():
        return "<h1>Trail Runner 2</h1><p>Lightweight running shoe with a grippy sole.</p>"
    if "xml" in w:
        return '<order id="4521"><item sku="TR2-42" qty="1"/></order>'
    if w & {"markdown", "document", "draft", "transcript"}:
        return rng.choice(vocab.PARAGRAPHS)
    if w & {"description", "summary"}:
        return rng.choice(vocab.DESCRIPTIONS.get(ctx.subject, vocab.MESSAGES))
    return rng.choice(vocab.MESSAGES)


def _about(w: set[str], name: str, ctx: Context) -> tuple[str, str]:
    """Last resort: a phrase about what the conversation is about, never a filler label.

    Its kind is ``guess``: the writer fills a required parameter with it but leaves an optional
    one out, as a person who does not know what a parameter wants would.
    """
    pool = vocab.QUERIES.get(ctx.topic, vocab.QUERIES["general"])
    return ctx.rng.choice(pool), "guess"
