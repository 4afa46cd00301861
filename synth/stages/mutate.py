"""Plausible wrong values for error injection, proposed from the gold call.

Every function here proposes candidates, best first, from the gold value, what its parameter
allows (synth.grade.Facts) and a ``random.Random``; none decides a label. The injector
(synth.stages.inject) checks each candidate with synth.grade and the schema and draws again when
one does not hold, so a proposal may be imperfect but a mislabelled record is never emitted.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from faker import Faker

from synth.grade import Facts, branch, facts, format_ok, json_type, spell, words
from synth.stages.fakers import Seeded
from synth.stages.names import STOP, join, plural, style


def fake(rng: random.Random) -> Faker:
    """A Faker of its own for one use, seeded from the item's rng (no shared random stream).

    Used only on the paths that need it; the conversation's own values come first.
    """
    return Seeded(rng.getrandbits(32))  # type: ignore[return-value]  # a Faker in all but its class


def _fakes(rng: random.Random, kind: str, n: int = 3) -> list[Any]:
    faker = fake(rng)
    return [getattr(faker, kind)() for _ in range(n)]


# --- wrong values -------------------------------------------------------------------------------


def _scalar(value: Any) -> bool:
    return json_type(value) not in ("array", "object")


def wrong_type(value: Any, f: Facts, rng: random.Random) -> list[Any]:
    """The same content in another JSON type: 4 -> "four", "Porto" -> ["Porto"], true -> "yes".

    Never "4" for 4: graders read numeric strings as numbers.
    """
    if isinstance(value, bool):
        return ["yes" if value else "no", "enabled" if value else "disabled"]
    if isinstance(value, int):
        unit = f.name if f.name.endswith("s") and len(words(f.name)) == 1 else ""
        return [spell(value), f"{value} {unit}" if unit else [value], [value]]
    if isinstance(value, float):
        return [[value], {"value": value}]
    if isinstance(value, str):
        out: list[Any] = [[value]]
        digits = re.sub(r"\D", "", value)
        if 3 <= len(digits) <= 12 and digits != value:  # "pal_12345" -> 12345: an id as a number
            out.insert(rng.randint(0, 1), int(digits))
        if ", " in value:
            out.insert(0, [p.strip() for p in value.split(",") if p.strip()])
        return out
    if isinstance(value, list):
        if len(value) == 1 and _scalar(value[0]):
            return [value[0]]
        return [", ".join(map(str, value))] if all(map(_scalar, value)) else [{"items": value}]
    if isinstance(value, dict):
        if value and all(map(_scalar, value.values())):
            return [list(value.values()), ", ".join(f"{k}={v}" for k, v in value.items())]
        return [[value]]
    return []


_FAMILIES = [
    set(x.split())
    for x in (
        "first second third fourth",
        "small medium large xlarge tiny huge",
        "low medium high critical urgent",
        "beginner intermediate advanced expert",
        "hourly daily weekly monthly quarterly yearly annual",
        "asc desc ascending descending",
        "json xml csv yaml html markdown text pdf source wikitext plain",
        "metric imperial standard kelvin celsius fahrenheit",
        "open closed pending archived draft active inactive",
        "formal casual friendly professional humorous educational inspirational conversational",
        "general technical business academic executive student children",
        "ancient modern nature space underwater library futuristic medieval ocean forest",
        "image icon color shape emoji sound video",
        "public private internal secret",
        "read write admin owner",
        "relevance date popularity rating newest oldest price",
        "minute hour day week month year",
        "png jpg jpeg gif webp svg",
        "get post put patch delete",
        "summary full detailed brief",
    )
]
_GENERIC = ("default", "all", "auto", "other", "custom", "standard")


def out_of_enum(value: Any, f: Facts, rng: random.Random) -> list[Any]:
    """A value of the right type outside the allowed ones: a neighbour, a near miss, a habit."""
    taken = {str(c).lower() for c in f.choices}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        nums = [c for c in f.choices if isinstance(c, (int, float)) and not isinstance(c, bool)]
        top, low = max(nums + [value]), min(nums + [value])
        return [top + 1, low - 1, top * 10] if isinstance(value, int) else [top + 0.5, low - 0.5]
    if not isinstance(value, str):
        return []
    out: list[str] = []
    parts, how = words(value), style(value)
    for i, part in enumerate(parts):  # "first-person" -> "second-person", "withHtml" -> "withPdf"
        for family in (fam for fam in _FAMILIES if part in fam):
            others = sorted(family - {part})  # sorted first: set order changes between processes
            rng.shuffle(others)
            for other in others:
                new = join(parts[:i] + [other] + parts[i + 1 :], how)
                out.append(new.upper() if value.isupper() else new)
    near = [p for p in parts if len(parts) > 1 and len(p) > 2]  # "alter_table" -> "alter"
    if value.isalpha() and len(value) > 3:
        near.append(plural(value))  # "deals" -> "deal", "error" -> "errors"
    rng.shuffle(near)
    return [x for x in out + near + list(_GENERIC) if x and x.lower() not in taken]


def out_of_range(value: Any, f: Facts, rng: random.Random) -> list[Any]:
    """Just outside a numeric bound, a string length or an item count, as a slip would be."""
    s = f.schema
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        above: list[float] = []
        below: list[float] = []
        if f.hi is not None:
            hi = f.hi
            slips = [value + 10, hi + 1, hi * 2, hi * 10] if hi > 0 else [hi + 1]
            above = [hi] * f.hi_open + slips
        if f.lo is not None:
            lo = f.lo
            below = [lo] * f.lo_open + [lo - 1, 0, -abs(value) or -1, lo - 10]
        out = above + below if rng.random() < 0.7 else below + above  # too many: the commoner slip
        as_int = isinstance(value, int) or s.get("type") == "integer"
        picked = [int(x) if as_int and float(x).is_integer() else x for x in out if f.outside(x)]
        head = picked[:2]
        rng.shuffle(head)  # the two likeliest slips, in either order
        return head + picked[2:]
    lo, hi = (
        (s.get("minLength"), s.get("maxLength")) if isinstance(value, str) else (s.get("minItems"), s.get("maxItems"))  # type: ignore[assignment]
    )
    res: list[Any] = []
    if isinstance(value, (str, list)) and isinstance(lo, int) and lo >= 1:
        res.append(value[: lo - 1])
    if isinstance(value, str) and isinstance(hi, int) and 0 < hi <= 300:
        res.append(f"{value} {value}" * (hi // max(len(value), 1) + 1) if value else "x" * (hi + 1))
    if isinstance(value, list) and isinstance(hi, int) and 0 <= hi <= 50 and value:
        res.append((value * (hi // len(value) + 2))[: hi + 1])
    return res


_MONTHS = "January February March April May June July August September October November December"


def wrong_format(value: Any, f: Facts, rng: random.Random) -> list[Any]:
    """The same information written the way people write it, not the way the format requires."""
    if not isinstance(value, str) or not f.fmt or not format_ok(f.fmt, value):
        return []
    if f.fmt == "email":
        local, domain = value.rsplit("@", 1)
        return [f"{local} at {domain}", local, f"{local}@{domain.split('.')[0]}"]
    if f.fmt in ("date", "date-time"):
        d = dt.date.fromisoformat(value[:10])
        clock = ""
        if f.fmt == "date-time":
            hh, mm = int(value[11:13]), value[14:16]
            clock = f" {hh % 12 or 12}:{mm} {'AM' if hh < 12 else 'PM'}"
        month = _MONTHS.split()[d.month - 1]
        return [
            f"{d.month:02d}/{d.day:02d}/{d.year}{clock}",
            f"{month} {d.day}, {d.year}{clock}",
            f"{d.day:02d}/{d.month:02d}/{d.year}{clock}",
        ]
    if f.fmt == "time":
        hh, mm = int(value[:2]), value[3:5]
        return [f"{hh % 12 or 12}:{mm} {'AM' if hh < 12 else 'PM'}", f"{hh}h{mm}"]
    if f.fmt == "uri":
        rest = value.split("://", 1)[1]
        return [rest, rest if rest.startswith("www.") else "www." + rest]
    if f.fmt == "uuid":
        return [value.split("-")[0], value[:13]]
    return [value.rsplit(".", 1)[0]] if f.fmt == "ipv4" else []


_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
_CJK_CITIES = ("北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "武汉", "西安", "重庆")
_CITY_NAMES = tuple(
    "Porto, Lisbon, Madrid, Barcelona, Paris, Lyon, Berlin, Munich, Vienna, Prague, Kraków, Amsterdam, "
    "Copenhagen, Oslo, Tromsø, Dublin, Edinburgh, Rome, Naples, Athens, Istanbul, Cairo, Nairobi, Cape Town, "
    "Mumbai, Bangkok, Singapore, Tokyo, Osaka, Seoul, Sydney, Hobart, Auckland, Toronto, Vancouver, Chicago, "
    "Denver, Austin, Boston, Seattle, Mexico City, Oaxaca, Bogotá, Lima, São Paulo, Buenos Aires".split(", ")
)
_TICKERS = ("AAPL", "MSFT", "NVDA", "TSLA", "AMZN", "GOOGL", "META", "NFLX", "JPM", "KO", "V", "SHOP")
_CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "BRL", "INR")
_URLS = tuple(
    "https://www.bbc.com/news/technology https://en.wikipedia.org/wiki/Porto "
    "https://docs.python.org/3/library/asyncio.html https://github.com/pallets/flask "
    "https://arxiv.org/abs/2310.06770 https://news.ycombinator.com/".split()
)
_CITY_SET = {c.casefold() for c in _CITY_NAMES} | set(_CJK_CITIES)


def contradicting(value: Any, f: Facts, rng: random.Random, held: Callable[[Any], bool]) -> Iterator[Any]:
    """Valid values of the same type that ask for something else: another city, date or choice.

    Values the conversation holds (``held``: another choice a result offered) come first, so a judge must
    read back to see that the request asked for another; then the rest.
    """
    pool = list(_alternatives(value, f, rng))
    yield from (v for v in pool if held(v))
    yield from (v for v in pool if not held(v))


def _alternatives(value: Any, f: Facts, rng: random.Random) -> Iterator[Any]:
    if isinstance(value, bool):
        yield not value
    elif f.choices and f.choices_from == "schema":
        yield from sorted((c for c in f.choices if c != value), key=lambda _: rng.random())
    elif isinstance(value, (int, float)):
        yield from _near_numbers(value, f, rng)
    elif isinstance(value, list) and value:
        i = rng.randrange(len(value))
        items = f.schema.get("items")
        item = facts(f.path, items if isinstance(items, dict) else {}, "", value[i])
        for new in list(_alternatives(value[i], item, rng))[:4]:
            yield value[:i] + [new] + value[i + 1 :]
        if len(value) > 1:
            yield value[:i] + value[i + 1 :]
    elif isinstance(value, str):
        if f.choices:  # described in words: 'Valid periods: "1d", "5d", ...'
            yield from sorted((c for c in f.choices if c != value), key=lambda _: rng.random())
        yield from _strings(value, f, rng)


def _near_numbers(value: float, f: Facts, rng: random.Random) -> Iterator[float]:
    steps: list[float] = [1, 2, 3, 5, 10]
    rng.shuffle(steps)
    if isinstance(value, float) and not value.is_integer():
        steps = [round(abs(value) * s / 20, 2) or 0.5 for s in steps]
    for step in steps:
        for new in (value + step, value - step):
            if not f.outside(new) and (new >= 0 or value < 0):
                yield new
    if value and not f.outside(value * 2):
        yield value * 2


def _strings(value: str, f: Facts, rng: random.Random) -> Iterator[str]:
    w = set(words(f.name))
    if f.fmt in ("date", "date-time") and format_ok(f.fmt, value):
        d = dt.date.fromisoformat(value[:10])
        if dt.date(2, 1, 1) < d < dt.date(9998, 1, 1):
            for delta in rng.sample([1, 2, 3, 7, 14, 30, -1, -7], 4):
                yield (d + dt.timedelta(days=delta)).isoformat() + value[10:]
    elif f.fmt == "email" or ("@" in value and w & {"email", "mail"}):
        yield from _fakes(rng, "email")
    elif f.fmt == "uuid":
        yield from (str(v) for v in _fakes(rng, "uuid4"))
    elif (
        value.casefold() in _CITY_SET
        or w & {"city", "town", "destination", "origin"}
        or (w & {"location", "place"} and len(value) < 30)
    ):
        yield from rng.sample(_CJK_CITIES if _CJK.search(value) else _CITY_NAMES, 4)
    elif w & {"country"}:
        yield from _fakes(rng, "country")
    elif value.upper() in _TICKERS or w & {"symbol", "ticker"}:
        yield from rng.sample(_TICKERS, 3)
    elif w & {"currency"}:
        yield from rng.sample(_CURRENCIES, 3)
    elif re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        yield from _fakes(rng, "hex_color")
    elif w & {"username", "login", "handle"}:
        yield from _fakes(rng, "user_name")
    elif w & {"name", "speaker", "author", "person", "recipient"} and value.istitle() and len(value.split()) in (2, 3):
        yield from _fakes(rng, "name")
    elif re.search(r"\d", value) and (
        f.fmt == "uri" or re.fullmatch(r"[\w\-:./]+", value) or w & {"id", "key", "identifier", "code", "number"}
    ):
        for _ in range(3):  # an id or number of the same shape, other digits
            yield re.sub(r"\d", lambda _: str(rng.randrange(10)), value)
    elif f.fmt == "uri":
        head = value.rstrip("/").rpartition("/")[0]
        if "://" in head:
            faker = fake(rng)
            yield from (f"{head}/{faker.slug()}" for _ in range(2))
        else:
            yield from rng.sample(_URLS, 2)
    else:
        yield from _reworded(value, rng, fake(rng))


def _reworded(value: str, rng: random.Random, faker: Faker) -> Iterator[str]:
    """Free text asking for something else: one content word swapped ("sales" -> "travel")."""
    tokens = value.split(" ")
    if len(tokens) < 2:  # one word (a name, a code, a time zone): a random noun in its place is no mistake
        return  # a model makes ('Dress' for Textualize, 'Friend' for America/New_York)
    spots = [i for i, t in enumerate(tokens) if len(t) >= 4 and t.isalpha() and t.lower() not in STOP]
    for i in rng.sample(spots, min(3, len(spots))):
        new = faker.word(part_of_speech="noun")
        new = new.capitalize() if tokens[i][:1].isupper() else new
        yield " ".join(tokens[:i] + [new] + tokens[i + 1 :])


_SIMPLE = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}


def filler(name: str, schema: Any, rng: random.Random, pool: list[Any] | None = None) -> Any:
    """A value for a sibling's required parameter no gold value fits.

    The schema's default or first choice, else a value of the conversation that fits, else a
    plain value of the type (a fake one for a formatted string).
    """
    s = branch(schema)
    if "default" in s:
        return s["default"]
    if s.get("enum"):
        return s["enum"][0]
    kind = str(s.get("type") or "string")
    fitting = [
        v
        for v in pool or []
        if json_type(v) == {"integer": "number"}.get(kind, kind) and (kind != "integer" or isinstance(v, int))
    ]
    if fitting:
        return fitting[0]
    if kind != "string":
        return _SIMPLE.get(kind, "example")
    f = facts(name, s, "", "")
    w = set(words(name))
    if f.fmt == "email" or w & {"email", "mail"}:
        return fake(rng).email()
    if f.fmt == "uri" or w & {"url", "link", "uri"}:
        return rng.choice(_URLS)
    if f.fmt in ("date", "date-time") or w & {"date"}:
        return (dt.date(2026, 1, 5) + dt.timedelta(days=rng.randrange(120))).isoformat()
    return fake(rng).word() if w & {"id", "key", "slug", "code"} else " ".join(words(name)) or "example"


def partial(value: str) -> list[str]:
    """The first or last part of a value of several: "Hong Kong" -> "Hong", "a, b" -> "a"."""
    for sep in (", ", ",", " - ", " "):
        parts = [p.strip() for p in value.split(sep) if p.strip()]
        if len(parts) >= 2:
            out = [sep.join(parts[:-1]), parts[-1]] if sep == " " else [parts[0], parts[-1]]
            return [p for p in out if len(p) >= 2 and p.lower() not in STOP and p != value]
    return []
