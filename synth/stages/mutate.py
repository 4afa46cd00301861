"""Plausible wrong names and values for error injection, proposed from the gold call.

Every function here proposes candidates, best first, from the gold value, what its parameter
allows (synth.grade.Facts) and a ``random.Random``; none decides a label. The injector
(synth.stages.inject) checks each candidate with synth.grade and the schema and draws again when
one does not hold, so a proposal may be imperfect but a mislabelled record is never emitted.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any, Callable, Iterator

from faker import Faker

from synth.grade import (FILLER_WORDS, Facts, branch, facts, format_ok, json_type, loose, spell,
                         words)
from synth.offline import vocab
from synth.offline.values import Context, make_value

_FAKER = Faker("en_US")  # one instance, reseeded from the per-call rng: Faker() costs milliseconds


def fake(rng: random.Random) -> Faker:
    _FAKER.seed_instance(rng.getrandbits(32))
    return _FAKER


def style(name: str) -> str:
    """The naming convention of a name: snake, kebab, camel or pascal."""
    if "_" in name:
        return "snake"
    if "-" in name:
        return "kebab"
    if re.search(r"[a-z][A-Z]", name):
        return "pascal" if name[:1].isupper() else "camel"
    return "snake"


def join(parts: list[str], how: str) -> str:
    if how == "kebab":
        return "-".join(parts)
    if how in ("camel", "pascal"):
        out = "".join(p.capitalize() for p in parts)
        return out if how == "pascal" else out[:1].lower() + out[1:]
    return "_".join(parts)


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


_FAMILIES = [set(x.split()) for x in (
    "first second third fourth", "small medium large xlarge tiny huge",
    "low medium high critical urgent", "beginner intermediate advanced expert",
    "hourly daily weekly monthly quarterly yearly annual", "asc desc ascending descending",
    "json xml csv yaml html markdown text pdf source wikitext plain",
    "metric imperial standard kelvin celsius fahrenheit",
    "open closed pending archived draft active inactive",
    "formal casual friendly professional humorous educational inspirational conversational",
    "general technical business academic executive student children",
    "ancient modern nature space underwater library futuristic medieval ocean forest",
    "image icon color shape emoji sound video", "public private internal secret",
    "read write admin owner", "relevance date popularity rating newest oldest price",
    "minute hour day week month year", "png jpg jpeg gif webp svg", "get post put patch delete",
    "summary full detailed brief")]
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
                new = join(parts[:i] + [other] + parts[i + 1:], how)
                out.append(new.upper() if value.isupper() else new)
    near = [p for p in parts if len(parts) > 1 and len(p) > 2]  # "alter_table" -> "alter"
    if value.isalpha() and len(value) > 3:
        near.append(_plural(value))  # "deals" -> "deal", "error" -> "errors"
    rng.shuffle(near)
    return [x for x in out + near + list(_GENERIC) if x and x.lower() not in taken]


def _plural(word: str) -> str:
    """The other number of an English noun."""
    low = word.lower()
    if low.endswith("ies"):
        out = word[:-3] + "y"
    elif low.endswith(("ses", "xes", "ches", "shes")):
        out = word[:-2]
    elif low.endswith("s"):
        out = word[:-1]
    elif low.endswith("y") and low[-2:-1] not in "aeiou":
        out = word[:-1] + "ies"
    else:
        out = word + ("es" if low.endswith(("x", "ch", "sh")) else "s")
    return out.upper() if word.isupper() else out


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
    lo, hi = (s.get("minLength"), s.get("maxLength")) if isinstance(value, str) else \
        (s.get("minItems"), s.get("maxItems"))
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
        return [f"{d.month:02d}/{d.day:02d}/{d.year}{clock}", f"{month} {d.day}, {d.year}{clock}",
                f"{d.day:02d}/{d.month:02d}/{d.year}{clock}"]
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
_CITY_NAMES = tuple(c for c, _ in vocab.CITIES)
_CITY_SET = {c.casefold() for c in _CITY_NAMES} | set(_CJK_CITIES)
_STOP = {"the", "and", "for", "with", "from", "into", "that", "this", "about", "what", "when",
         "your", "have", "to", "by", "of", "in", "on", "a", "an"}


def contradicting(value: Any, f: Facts, rng: random.Random,
                  said: Callable[[Any], bool]) -> Iterator[Any]:
    """Valid values of the same type that ask for something else: another city, date or choice.

    Values the user never said come first, so the contradiction shows against the request.
    """
    pool = list(_alternatives(value, f, rng))
    yield from (v for v in pool if not said(v))
    yield from (v for v in pool if said(v))


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
            yield value[:i] + [new] + value[i + 1:]
        if len(value) > 1:
            yield value[:i] + value[i + 1:]
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
    faker = fake(rng)
    if f.fmt in ("date", "date-time") and format_ok(f.fmt, value):
        d = dt.date.fromisoformat(value[:10])
        if dt.date(2, 1, 1) < d < dt.date(9998, 1, 1):
            for delta in rng.sample([1, 2, 3, 7, 14, 30, -1, -7], 4):
                yield (d + dt.timedelta(days=delta)).isoformat() + value[10:]
    elif f.fmt == "email" or ("@" in value and w & {"email", "mail"}):
        yield from (faker.email() for _ in range(3))
    elif f.fmt == "uuid":
        yield from (str(faker.uuid4()) for _ in range(3))
    elif (value.casefold() in _CITY_SET or w & {"city", "town", "destination", "origin"}
          or (w & {"location", "place"} and len(value) < 30)):
        yield from rng.sample(_CJK_CITIES if _CJK.search(value) else _CITY_NAMES, 4)
    elif w & {"country"}:
        yield from (faker.country() for _ in range(3))
    elif value.upper() in vocab.TICKERS or w & {"symbol", "ticker"}:
        yield from rng.sample(vocab.TICKERS, 3)
    elif w & {"currency"}:
        yield from rng.sample(vocab.CURRENCIES, 3)
    elif re.fullmatch(r"#[0-9a-fA-F]{6}", value):
        yield from (faker.hex_color() for _ in range(3))
    elif w & {"username", "login", "handle"}:
        yield from (faker.user_name() for _ in range(3))
    elif (w & {"name", "speaker", "author", "person", "recipient"} and value.istitle()
          and len(value.split()) in (2, 3)):
        yield from (faker.name() for _ in range(3))
    elif re.search(r"\d", value) and (f.fmt == "uri" or re.fullmatch(r"[\w\-:./]+", value)
                                      or w & {"id", "key", "identifier", "code", "number"}):
        for _ in range(3):  # an id or number of the same shape, other digits
            yield re.sub(r"\d", lambda _: str(rng.randrange(10)), value)
    elif f.fmt == "uri":
        head = value.rstrip("/").rpartition("/")[0]
        if "://" in head:
            yield from (f"{head}/{faker.slug()}" for _ in range(2))
        else:
            yield from rng.sample(vocab.URLS, 2)
    else:
        yield from _reworded(value, rng, faker)


def _reworded(value: str, rng: random.Random, faker: Faker) -> Iterator[str]:
    """Free text asking for something else: one content word swapped ("sales" -> "travel")."""
    tokens = value.split(" ")
    spots = [i for i, t in enumerate(tokens)
             if len(t) >= 4 and t.isalpha() and t.lower() not in _STOP]
    for i in rng.sample(spots, min(3, len(spots))):
        new = faker.word(part_of_speech="noun")
        new = new.capitalize() if tokens[i][:1].isupper() else new
        yield " ".join(tokens[:i] + [new] + tokens[i + 1:])
    if not spots:
        for _ in range(2):
            new = faker.word(part_of_speech="noun")
            yield new.capitalize() if value[:1].isupper() else new


def filler(name: str, schema: Any, rng: random.Random) -> Any:
    """A value for a sibling's required parameter no gold value fits: the offline writer's pick."""
    s = branch(schema)
    if "default" in s:
        return s["default"]
    try:
        return make_value(name, s, Context(rng=rng))[0]
    except Exception:  # the writer is not ours to trust on every schema; a simple value will do
        simple = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
        return simple.get(str(s.get("type")), "example")


# --- wrong names --------------------------------------------------------------------------------

def _table(text: str) -> dict[str, list[str]]:
    """``"city: location town; q: query"`` -> {"city": ["location", "town"], "q": ["query"]}."""
    pairs = (item.split(":") for item in text.split(";") if item.strip())
    return {k.strip(): v.split() for k, v in pairs}


SYNONYMS = _table("""city: location city_name town; location: place address city;
    place: location destination; query: search_term keywords q; q: query search_query;
    search: query search_term; keyword: search_term query; keywords: search_terms query;
    term: query; days: num_days day_count duration; limit: max_results count size;
    count: limit num_items; page: page_number page_num; offset: skip start;
    id: identifier uid key; name: title label; title: name heading subject;
    description: details summary desc; content: body text; body: content text message;
    text: content body; message: text body content; email: email_address mail;
    url: link uri address; date: day when; symbol: ticker stock; ticker: symbol;
    username: user login; password: pass pwd; language: lang locale; lang: language;
    path: file_path filepath; file: filename file_path; tone: style voice;
    audience: target_audience readers; theme: style; size: dimensions; color: colour;
    position: coordinates coords; transcript: transcript_text text; summary: abstract overview;
    period: timeframe range; interval: frequency granularity; freq: frequency; hashtags: tags;
    tags: labels; raw: raw_html plain; source: content wikitext; comment: edit_summary note;
    role: user_role; full_name: display_name""")
_WORD_SYNONYMS = _table("""max: maximum limit; min: minimum; num: number; number: num count;
    start: begin from; end: finish to; from: origin source; to: destination target;
    id: identifier key; user: account; include: with; city: location; date: day; url: link;
    name: title; count: total; index: position; results: items; items: results; key: token;
    video: clip; word: words; type: kind; latest: last; older: before; newer: after""")
VERBS = _table("""get: fetch retrieve; fetch: get retrieve; retrieve: get fetch;
    search: find lookup; find: search lookup; list: get_all fetch_all; create: add new;
    add: create insert; update: edit modify; delete: remove; remove: delete; send: post;
    set: update configure; check: verify validate; generate: create make; run: execute;
    execute: run; read: get load; write: save; query: search; extract: parse get; scrape: fetch;
    summarize: generate_summary; take: start; export: download; ensure: create; lookup: search;
    count: compute tally; calculate: compute; analyze: inspect; download: fetch; upload: send;
    start: begin launch; stop: end halt; convert: transform; translate: convert;
    validate: check verify; scan: check; parse: extract; book: reserve; cancel: delete;
    manage: update; save: store; load: read; show: display; view: show; open: launch; close: end;
    connect: open link; navigate: go goto; track: monitor follow; gen: generate; make: create;
    post: publish send; install: add setup; upgrade: update; verify: check validate;
    describe: get explain; explain: describe""")
EXTRAS = [(set(t.split()), n, v) for t, n, v in (  # (words of the tool that invite it, name, value)
    ("weather forecast temperature temp climate", "units", "metric"),
    ("weather forecast", "include_hourly", True),
    ("search find query list lookup", "sort_by", "relevance"),
    ("search find query list", "max_results", 10),
    ("stock price finance crypto currency market", "currency", "USD"),
    ("user account email", "send_welcome_email", True), ("create add post update", "notify", True),
    ("page document post file article wiki", "include_metadata", True),
    ("url fetch scrape web page download", "timeout", 30),
    ("date time schedule calendar history", "timezone", "UTC"),
    ("summary summarize generate post text", "max_length", 280), ("", "language", "en"),
    ("", "verbose", True), ("", "response_format", "json"), ("", "include_details", True),
    ("", "max_retries", 3))]


def misspellings(name: str, rng: random.Random) -> list[str]:
    """Typos a model makes: two letters swapped, one dropped or doubled, a vowel changed."""
    if len(name) < 3:
        return []
    out = []
    spots = list(range(1, len(name) - 1))
    rng.shuffle(spots)
    for i in spots[:4]:
        a, b = name[i], name[i + 1]
        if a.isalpha() and b.isalpha() and a.lower() != b.lower():
            out.append(name[:i] + b + a + name[i + 2:])
        if a.isalpha():
            out += [name[:i] + name[i + 1:], name[:i] + a + name[i:]]
        if a in "aeiou":
            out.append(name[:i] + rng.choice([v for v in "aeiou" if v != a]) + name[i + 1:])
    return [t for t in dict.fromkeys(out) if t.lower() != name.lower()]


def case_renamed(name: str) -> list[str]:
    """``start_date`` <-> ``startDate``: the same words in the other convention."""
    parts = words(name)
    if len(parts) < 2:
        return []
    return [join(parts, "camel" if style(name) in ("snake", "kebab") else "snake")]


def synonym_renamed(name: str, rng: random.Random) -> list[str]:
    """``city`` -> ``location``, ``query`` -> ``search_term``, ``maxResults`` -> ``maxItems``."""
    parts, how = words(name), style(name)
    out = list(SYNONYMS.get("_".join(parts), []))
    for i, part in enumerate(parts):
        out += ["_".join(parts[:i] + [alt] + parts[i + 1:]) for alt in _WORD_SYNONYMS.get(part, [])]
    rng.shuffle(out)
    return [join(x.split("_"), how) for x in dict.fromkeys(out)]


def extra_params(topic: set[str], props: list[str], rng: random.Random) -> list[tuple[str, Any]]:
    """Parameters a model adds from habit (``units``, ``sort_by``), styled like the tool's own."""
    taken = {loose(p) for p in props}
    taken |= {loose(s) for p in props for s in SYNONYMS.get("_".join(words(p)), [])}
    how = next((style(p) for p in props if len(words(p)) > 1), "snake")
    fitting = [(n, v) for t, n, v in EXTRAS if t & topic]
    generic = [(n, v) for t, n, v in EXTRAS if not t]
    rng.shuffle(fitting)
    rng.shuffle(generic)
    return [(join(n.split("_"), how), v) for n, v in fitting + generic
            if loose(n) not in taken and not set(SYNONYMS.get(n, [])) & set(props)]


def hallucinated_names(name: str, noun: str, rng: random.Random) -> list[str]:
    """Names a model invents for a tool it needs: ``get_forecast`` -> ``fetch_forecast``.

    ``noun`` (from the first parameter) gives a verb-only tool an object: ``fetch`` -> ``get_url``.
    """
    parts, how = words(name), style(name)
    core = [p for p in parts if p not in FILLER_WORDS] or parts
    at = next((i for i, p in enumerate(core) if p in VERBS), None)  # "git_create_tag": verb second
    head, verb, rest = (core[:at], core[at], core[at + 1:]) if at is not None else ([], "", core)
    if verb and noun and all(w in _STOP for w in rest):
        rest = [noun]  # "fetch" -> "get_url", "navigate_to" -> "go_city"
    out = [join(head + alt.split("_") + rest, how) for alt in VERBS.get(verb, [])]
    rng.shuffle(out)
    if not verb:
        out.append(join(["get"] + core, how))
    if rest:
        out.append(join(head + rest + [rng.choice(("lookup", "info", "details"))], how))
    if len(rest) >= 2:
        out.append(join(head + [verb or "get"] + rest[-1:], how))
    if verb and rest:
        out.append(join(head + rest, how))
    return list(dict.fromkeys(out))
