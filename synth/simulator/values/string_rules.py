"""The rules that give a string parameter its value, tried in order after the description's own
examples, dates, URLs, ids and hosts (``synth.simulator.values.strings``): the first whose words the
parameter's name has makes the value and its *kind* (how the request writer phrases it).

The rules are data (``data/values/string_rules.json``, in the order they are tried): each says when it
applies, ``any`` of its words in the parameter's name (and none of ``unless``) or a test named here, and
what it makes, a word picked from a ``vocab`` table, one of a few ``choose`` words, a fixed ``value``, or
a maker named here. This module holds the tests and the makers: the logic, not the words."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from synth.simulator import vocab
from synth.simulator.tables import named, table
from synth.simulator.values import string_values as sv
from synth.simulator.values.context import Context, number, seed_faker

Rule = Callable[[set[str], str, str, Context], "tuple[Any, str] | None"]  # (name words, name, text, ctx)
Test = Callable[[set[str], str, str, Context], bool]
Make = Callable[[set[str], str, str, Context], "tuple[Any, str] | None"]

_DATA = "values/string_rules"
# a user that logs in (a database, a server, an account) has a user name, not a person's full name
_ACCOUNT = table(_DATA, "account", re.Pattern[str])
# Kubernetes and container tools: a context, a kind, a pod or node is named as kubectl names it
_KUBE = table(_DATA, "kube", re.Pattern[str])
_KUBE_PARAMS = table(_DATA, "kube_params", frozenset[str])
_CONTAINERS = table(_DATA, "containers", re.Pattern[str])
_CONTAINER_IMAGES = table(_DATA, "container_images", tuple[str, ...])
_ID_ENDINGS = table(_DATA, "id_endings", tuple[str, ...])
_YES_OR_NO = table(_DATA, "yes_or_no", re.Pattern[str])
_PICKS = table(_DATA, "picks", dict[str, tuple[str, ...]])
_SET = table(_DATA, "sets", dict[str, frozenset[str]])


# --- the tests a rule names (``when``) -----------------------------------------------------------


def _an_id(w: set[str], n: str, t: str, c: Context) -> bool:
    return n.endswith(_ID_ENDINGS) or bool(w & _SET["id"])


def _yes_or_no(w: set[str], n: str, t: str, c: Context) -> bool:
    return n.endswith("YN") or _YES_OR_NO.search(t) is not None


def _an_api_key(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["api_key"] and w & _SET["api_key_of"])


def _a_kube_name(w: set[str], n: str, t: str, c: Context) -> bool:
    return _KUBE.search(c.about) is not None and bool(w & _KUBE_PARAMS)


def _a_session(w: set[str], n: str, t: str, c: Context) -> bool:
    return "session" in w and not w & _SET["not_a_session"]


def _an_image(w: set[str], n: str, t: str, c: Context) -> bool:
    return w == {"image"} or (bool(w & {"image"}) and bool(w & _SET["image_name"]))


def _a_code_name(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["code_thing"]) and bool(w & _SET["code_name"]) or n in _SET["code_name_whole"]


def _a_crypto_protocol(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["protocol"]) and c.topic == "crypto"


def _a_crypto_chain(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["chain"]) and c.topic == "crypto"


def _a_coin(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["coin"]) and "address" not in w


def _a_hash(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["hash"]) or "hex" in t or (bool(w & _SET["wallet"]) and c.topic == "crypto")


def _a_cell(w: set[str], n: str, t: str, c: Context) -> bool:
    return "cell" in w or (bool(w & {"range"}) and ("excel" in c.about or "sheet" in c.about))


def _a_sheet(w: set[str], n: str, t: str, c: Context) -> bool:
    return "sheet" in w or "worksheet" in w


def _a_connection(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["connection"]) or "connection string" in t


def _a_place_query(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["place_query"]) and c.subject in _SET["place_subject"]


def _some_code(w: set[str], n: str, t: str, c: Context) -> bool:
    if "natural language" in t.lower():  # "a natural language query about Pokémon" is a question, not SQL
        return False
    return bool(w & _SET["code"]) or (bool(w & {"query"}) and c.topic == "data")


def _an_entity_name(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w & _SET["entity_thing"] and w & {"name"}) or n in _SET["entity_whole"]


def _a_graph_end(w: set[str], n: str, t: str, c: Context) -> bool:
    return bool(w) and w <= _SET["graph_end"]


# --- the makers a rule names (``then``) ----------------------------------------------------------


def _hex(c: Context, n: int) -> str:
    return "".join(c.rng.choice("0123456789abcdef") for _ in range(n))


def _identifier_or_uuid(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (str(seed_faker(c.rng).uuid4()) if "uuid" in t else sv.identifier(n, c.rng), "id")


def _demo_secret(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (f"demo-{seed_faker(c.rng).lexify('????????')}", "id")


def _kube_name(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return sv.kube_name(w, c)


def _image(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    if _CONTAINERS.search(t + " " + c.about):
        return (c.rng.choice(_CONTAINER_IMAGES), "id")
    pool = vocab.MEDIA_PATHS["image"] if "image" in vocab.MEDIA_PATHS else vocab.FILE_PATHS
    return (c.rng.choice(pool), "path")


def _decimal(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (str(number(n, {}, t, "number", c)), "number")


def _integer(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (str(number(n, {}, t, "integer", c)), "number")


def _place(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    if "address" in w and c.topic != "crypto":
        return (seed_faker(c.rng).address().replace("\n", ", "), "place")
    if "address" in w:
        return ("0x" + _hex(c, 40), "id")
    return _city(w, n, t, c)


def _city(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.city or c.rng.choice(vocab.CITIES)[0], "place")


def _country(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    country = c.rng.choice(vocab.CITIES)[1]
    if w & _SET["country_code"] or "iso" in t or "2-letter" in t:
        return (vocab.COUNTRY_CODES.get(country, "US"), "id")
    return (country, "place")


def _region(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(vocab.CLOUD_REGIONS if "aws" in t or "cloud" in t else vocab.REGIONS), "name")


def _language(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    code, name = c.rng.choice(vocab.LANGUAGES)
    return (code if "code" in t or len(n) <= 4 else name, "name")


def _symbol(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(vocab.CRYPTO)[1] if c.topic == "crypto" else c.rng.choice(vocab.TICKERS), "id")


def _coin(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(vocab.CRYPTO)[0], "name")


def _hash(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    if w & _SET["commit"]:
        return (_hex(c, 40), "id")
    return ("0x" + _hex(c, 40 if w & _SET["wallet"] else 64), "id")


def _repo(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(vocab.GITHUB_PAIRS) if "/" in t or "owner/" in t else c.rng.choice(vocab.GITHUB_REPOS), "name")


def _cell(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (sv.cell(w, c), "id")


def _path(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (sv.path(w, t, c), "path")


def _connection(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (f"postgresql://analyst@db.internal:5432/{c.rng.choice(_PICKS['databases'])}", "id")


def _resource(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (sv.slug(c, next(iter(sorted(w & set(vocab.RESOURCE_SUFFIX))), "")), "name")


def _query(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (sv.question(t, c) or sv.query(c), "query")


def _phone(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (f"+1-{c.rng.randint(200, 989)}-{c.rng.randint(200, 989)}-{c.rng.randint(1000, 9999)}", "id")


def _barcode(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return ("".join(c.rng.choice("0123456789") for _ in range(13)), "id")


def _postcode(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (seed_faker(c.rng).postcode(), "id")


def _user_name(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    account = w & _SET["user_name"] or _ACCOUNT.search(t + " " + c.about)
    return (seed_faker(c.rng).user_name() if account else seed_faker(c.rng).name(), "name")


def _named(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return sv.named(w, t, c)


def _company(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(vocab.INDUSTRIES) if "industry" in w else seed_faker(c.rng).company(), "name")


def _mnemonic(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (" ".join(c.rng.sample(vocab.WORDS_BIP, 12)), "id")


def _body(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (sv.body(w, t, c), "text")


def _reasoning(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(vocab.REASONING.get(c.topic, vocab.REASONING["general"])), "text")


def _identifier(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (sv.identifier(n, c.rng), "id")


def _version(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (f"{c.rng.randint(1, 4)}.{c.rng.randint(0, 12)}.{c.rng.randint(0, 9)}", "id")


def _format(w: set[str], n: str, t: str, c: Context) -> tuple[Any, str]:
    return (c.rng.choice(_PICKS["formats"] if w & _SET["file_format"] else _PICKS["orders"]), "name")


# --- the rules, from the data file -----------------------------------------------------------------


def _test(spec: dict[str, Any]) -> Test:
    """``when``: the test named; ``any``: one of its words is a word of the name, and none of ``unless``."""
    if "when" in spec:
        return named(_DATA, spec["when"], globals())
    keys, unless = set(spec["any"].split()), set(spec.get("unless", "").split())
    return lambda w, name, text, ctx: bool(w & keys) and not w & unless


def _make(spec: dict[str, Any]) -> Make:
    """``then``: the maker named; ``pick``: a word of a vocab table ("NAMED_THINGS.entity" is a table in
    one); ``choose``: one of the words given; ``value``: that word. The last three say their ``kind``."""
    if "then" in spec:
        return named(_DATA, spec["then"], {**globals(), "sv": sv})
    kind = spec["kind"]
    if "value" in spec:
        return lambda w, n, t, c: (spec["value"], kind)
    if "choose" in spec:
        words = tuple(spec["choose"])
        return lambda w, n, t, c: (c.rng.choice(words), kind)
    table_name, _, key = spec["pick"].partition(".")
    pool = getattr(vocab, table_name)
    pool = pool[key] if key else pool
    return lambda w, n, t, c: (c.rng.choice(pool), kind)


def _rule(test: Test, make: Make) -> Rule:
    """A rule that makes a value when ``test`` recognises the parameter, and passes (None) otherwise."""
    return lambda w, name, text, ctx: make(w, name, text, ctx) if test(w, name, text, ctx) else None


RULES: tuple[Rule, ...] = tuple(
    _rule(_test(spec), _make(spec)) for spec in table(_DATA, "rules", tuple[dict[str, Any], ...])
)
