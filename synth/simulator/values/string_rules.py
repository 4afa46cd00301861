"""The rules that give a string parameter its value, tried in order after the description's own
examples, dates, URLs, ids and hosts (``synth.simulator.values.strings``): the first whose words the
parameter's name has makes the value and its *kind* (how the request writer phrases it)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from synth.simulator import vocab
from synth.simulator.tables import table
from synth.simulator.values import string_values as sv
from synth.simulator.values.context import Context, number, seed_faker

Rule = Callable[[set[str], str, str, Context], "tuple[Any, str] | None"]  # (name words, name, text, ctx)


# a user that logs in (a database, a server, an account) has a user name, not a person's full name
_ACCOUNT = table("values/string_rules", "account", re.Pattern[str])
# Kubernetes and container tools: a context, a kind, a pod or node is named as kubectl names it
_KUBE = table("values/string_rules", "kube", re.Pattern[str])
_KUBE_PARAMS = table("values/string_rules", "kube_params", frozenset[str])
_CONTAINERS = table("values/string_rules", "containers", re.Pattern[str])
_CONTAINER_IMAGES = table("values/string_rules", "container_images", tuple[str, ...])


def _rule(
    match: Callable[[set[str], str, str, Context], bool], make: Callable[[set[str], str, str, Context], tuple[Any, str]]
) -> Rule:
    """A rule that makes a value when ``match`` recognises the parameter, and passes (None) otherwise."""
    return lambda w, name, text, ctx: make(w, name, text, ctx) if match(w, name, text, ctx) else None


def _any(keys: str, unless: str = "") -> Callable[[set[str], str, str, Context], bool]:
    """The parameter's name has one of ``keys`` (space-separated) as a word, and none of ``unless``."""
    k, u = set(keys.split()), set(unless.split())
    return lambda w, name, text, ctx: bool(w & k) and not w & u


RULES: tuple[Rule, ...] = (
    _rule(
        lambda w, n, t, c: n.endswith(("Id", "ID", "_id", "Ids", "_ids")) or bool(w & {"id", "sku"}),
        lambda w, n, t, c: (str(seed_faker(c.rng).uuid4()) if "uuid" in t else sv.identifier(n, c.rng), "id"),
    ),
    _rule(
        lambda w, n, t, c: n.endswith("YN") or re.search(r"\by/n\b|'y' or 'n'", t) is not None,
        lambda w, n, t, c: (c.rng.choice(("Y", "N")), "enum"),
    ),
    _rule(
        _any("password secret apikey passphrase bearer credentials senha"),
        lambda w, n, t, c: (f"demo-{seed_faker(c.rng).lexify('????????')}", "id"),
    ),
    _rule(
        lambda w, n, t, c: bool(w & {"token", "key"} and w & {"api", "access", "auth", "private", "secret"}),
        lambda w, n, t, c: (f"demo-{seed_faker(c.rng).lexify('????????')}", "id"),
    ),
    _rule(_any("cursor continuation pagination"), lambda w, n, t, c: (c.rng.choice(vocab.CURSORS), "id")),
    _rule(
        lambda w, n, t, c: _KUBE.search(c.about) is not None and bool(w & _KUBE_PARAMS),
        lambda w, n, t, c: sv.kube_name(w, c),
    ),
    _rule(
        lambda w, n, t, c: "session" in w and not w & {"id", "token", "key"},
        lambda w, n, t, c: (c.rng.choice(("default", "main", "support")), "name"),
    ),
    _rule(
        lambda w, n, t, c: w == {"image"} or (bool(w & {"image"}) and bool(w & {"name", "ref"})),
        lambda w, n, t, c: (
            (c.rng.choice(_CONTAINER_IMAGES), "id")
            if _CONTAINERS.search(t + " " + c.about)
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
        _any("fee price balance cost budget rate salary lamports", unless="id type"),
        lambda w, n, t, c: (str(number(n, {}, t, "number", c)), "number"),
    ),
    _rule(
        _any(
            "frequency duration size amount count limit port timeout interval width height offset "
            "page year quantity row rows number max min",
            unless="id",
        ),
        lambda w, n, t, c: (str(number(n, {}, t, "integer", c)), "number"),
    ),
    _rule(
        _any("city location place destination origin town address singleline", unless="id type email"),
        lambda w, n, t, c: (
            (seed_faker(c.rng).address().replace("\n", ", "), "place")
            if "address" in w and c.topic != "crypto"
            else ("0x" + "".join(c.rng.choice("0123456789abcdef") for _ in range(40)), "id")
            if "address" in w
            else (c.city or c.rng.choice(vocab.CITIES)[0], "place")
        ),
    ),
    _rule(
        _any("country coo coa"),
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
    _rule(_any("airport iata"), lambda w, n, t, c: (c.rng.choice(vocab.AIRPORTS), "id")),
    _rule(_any("timezone tz"), lambda w, n, t, c: (c.rng.choice(vocab.TIMEZONES), "name")),
    _rule(
        _any("language lang locale"),
        lambda w, n, t, c: (lambda pair: (pair[0] if "code" in t or len(n) <= 4 else pair[1], "name"))(
            c.rng.choice(vocab.LANGUAGES)
        ),
    ),
    _rule(_any("currency denom"), lambda w, n, t, c: (c.rng.choice(vocab.CURRENCIES), "id")),
    _rule(_any("exchange"), lambda w, n, t, c: (c.rng.choice(vocab.EXCHANGES), "name")),
    _rule(_any("instrument pair"), lambda w, n, t, c: (c.rng.choice(vocab.PAIRS), "id")),
    _rule(
        _any("symbol ticker stock symbols"),
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
    _rule(_any("owner org organization"), lambda w, n, t, c: (c.rng.choice(vocab.GITHUB_OWNERS), "name")),
    _rule(
        _any("repo repository"),
        lambda w, n, t, c: (
            c.rng.choice(vocab.GITHUB_PAIRS) if "/" in t or "owner/" in t else c.rng.choice(vocab.GITHUB_REPOS),
            "name",
        ),
    ),
    _rule(_any("branch ref rev onto"), lambda w, n, t, c: (c.rng.choice(vocab.BRANCHES), "name")),
    _rule(
        lambda w, n, t, c: "cell" in w or (bool(w & {"range"}) and ("excel" in c.about or "sheet" in c.about)),
        lambda w, n, t, c: (sv.cell(w, c), "id"),
    ),
    _rule(
        lambda w, n, t, c: "sheet" in w or "worksheet" in w,
        lambda w, n, t, c: (c.rng.choice(("Sheet1", "Q3 Sales", "Budget 2026")), "name"),
    ),
    _rule(_any("path file filename filepath cwd"), lambda w, n, t, c: (sv.path(w, t, c), "path")),
    _rule(_any("dir directory folder"), lambda w, n, t, c: (c.rng.choice(vocab.DIRECTORIES), "path")),
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
        sv.code,
    ),
    _rule(_any("command cmd shell"), lambda w, n, t, c: (c.rng.choice(vocab.COMMANDS), "code")),
    _rule(_any("selector xpath"), lambda w, n, t, c: (c.rng.choice(vocab.SELECTORS), "code")),
    _rule(_any("element button"), lambda w, n, t, c: (c.rng.choice(vocab.ELEMENTS), "text")),
    _rule(
        _any("table collection tables collections include"),
        lambda w, n, t, c: (c.rng.choice(vocab.TABLES), "name"),
    ),
    _rule(
        _any(
            "database db schema namespace project workspace dataset bucket index store mart cluster "
            "instance service app application environment env module package packages library block "
            "component components plugin",
            unless="id description",
        ),
        lambda w, n, t, c: (sv.slug(c, next(iter(sorted(w & set(vocab.RESOURCE_SUFFIX))), "")), "name"),
    ),
    _rule(
        _any(
            "query q search keyword keywords term terms topic prompt question palavras condition "
            "conditions diseases disease"
        ),
        lambda w, n, t, c: (sv.query(c), "query"),
    ),
    _rule(
        _any("phone mobile"),
        lambda w, n, t, c: (
            f"+1-{c.rng.randint(200, 989)}-{c.rng.randint(200, 989)}-{c.rng.randint(1000, 9999)}",
            "id",
        ),
    ),
    _rule(
        _any("barcode ean upc gtin"),
        lambda w, n, t, c: ("".join(c.rng.choice("0123456789") for _ in range(13)), "id"),
    ),
    _rule(_any("zip postal postcode cep"), lambda w, n, t, c: (seed_faker(c.rng).postcode(), "id")),
    _rule(
        _any("username user login handle author assignee user1 user2 author1 author2", unless="id"),
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
        _any("name firstname lastname fullname recipient contact person title remark", unless="id"),
        lambda w, n, t, c: sv.named(w, t, c),
    ),
    _rule(
        _any("company business brand industry"),
        lambda w, n, t, c: (c.rng.choice(vocab.INDUSTRIES) if "industry" in w else seed_faker(c.rng).company(), "name"),
    ),
    _rule(_any("product item"), lambda w, n, t, c: (c.rng.choice(vocab.PRODUCTS), "name")),
    _rule(
        lambda w, n, t, c: (
            bool(w) and w <= {"source", "target", "from", "to", "entity", "subject", "object", "node", "name"}
        ),
        lambda w, n, t, c: (c.rng.choice(vocab.NAMED_THINGS["entity"]), "name"),
    ),
    _rule(_any("category genre kind type"), lambda w, n, t, c: (c.rng.choice(vocab.CATEGORIES), "name")),
    _rule(_any("color colour"), lambda w, n, t, c: (c.rng.choice(vocab.COLORS), "name")),
    _rule(_any("tag tags label labels"), lambda w, n, t, c: (c.rng.choice(vocab.TAGS), "name")),
    _rule(_any("status state"), lambda w, n, t, c: (c.rng.choice(vocab.STATUSES), "name")),
    _rule(_any("emoji emojis reaction"), lambda w, n, t, c: (c.rng.choice(("👍", "🎉", "✅", "🚀", "❤️")), "name")),
    _rule(_any("gender sex"), lambda w, n, t, c: (c.rng.choice(("female", "male")), "name")),
    _rule(_any("units unit"), lambda w, n, t, c: (c.rng.choice(("metric", "imperial")), "name")),
    _rule(_any("encoding charset"), lambda w, n, t, c: ("utf-8", "name")),
    _rule(_any("delimiter separator"), lambda w, n, t, c: (c.rng.choice((",", ";", "|")), "name")),
    _rule(_any("method"), lambda w, n, t, c: (c.rng.choice(("GET", "POST")), "name")),
    _rule(
        _any("period interval timeframe range"),
        lambda w, n, t, c: (c.rng.choice(("1d", "5d", "1mo", "3mo", "1y")), "name"),
    ),
    _rule(
        _any("channel"),
        lambda w, n, t, c: (c.rng.choice(("#general", "#release-notes", "#support", "#design")), "name"),
    ),
    _rule(_any("model"), lambda w, n, t, c: (c.rng.choice(vocab.MODELS), "name")),
    _rule(_any("voice"), lambda w, n, t, c: (c.rng.choice(("alloy", "nova", "verse")), "name")),
    _rule(_any("quality resolution"), lambda w, n, t, c: (c.rng.choice(("720p", "1080p", "high")), "name")),
    _rule(_any("word words"), lambda w, n, t, c: (c.rng.choice(vocab.WORDS), "name")),
    _rule(_any("smiles"), lambda w, n, t, c: (c.rng.choice(vocab.SMILES), "id")),
    _rule(_any("mnemonic seed"), lambda w, n, t, c: (" ".join(c.rng.sample(vocab.WORDS_BIP, 12)), "id")),
    _rule(
        _any(
            "message body content text comment reply description summary corpo input markdown html "
            "xml draft stdin transcript document"
        ),
        lambda w, n, t, c: (sv.body(w, t, c), "text"),
    ),
    _rule(_any("subject heading assunto"), lambda w, n, t, c: (c.rng.choice(vocab.TITLES), "text")),
    _rule(_any("note notes memo"), lambda w, n, t, c: (c.rng.choice(vocab.NOTES), "text")),
    _rule(
        _any(
            "thought reasoning analysis hypothesis observation insight conclusion claim premise "
            "premises finding findings resolution explanation idea ideas insights recommendation "
            "decision approach problem issue context task goal reason pitch statement plan step steps "
            "benefits limitations tradeoffs constraints assumptions risks evidence question purpose "
            "requirements feedback use case action instruction instructions objective details areas "
            "techniques outcome"
        ),
        lambda w, n, t, c: (c.rng.choice(vocab.REASONING.get(c.topic, vocab.REASONING["general"])), "text"),
    ),
    _rule(
        _any("key identifier slug number ref sku pid udid device code nif cnpj vin"),
        lambda w, n, t, c: (sv.identifier(n, c.rng), "id"),
    ),
    _rule(
        _any("version"),
        lambda w, n, t, c: (f"{c.rng.randint(1, 4)}.{c.rng.randint(0, 12)}.{c.rng.randint(0, 9)}", "id"),
    ),
    _rule(
        _any("format output mode sort order fileformat"),
        lambda w, n, t, c: (
            c.rng.choice(("json", "markdown", "csv"))
            if w & {"format", "output", "fileformat"}
            else c.rng.choice(("desc", "asc")),
            "name",
        ),
    ),
)
