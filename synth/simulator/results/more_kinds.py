"""More kinds of thing, for the long tail of getters: page content, rankings, suggestions,
matches, time series, processes, channels, runs, catalogue items (films, books, breeds),
scripture passages, circuit parts, UI elements and more. Same contract as ``things.record``.
"""

from __future__ import annotations

import re
from typing import Any

from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.results import longtail
from synth.simulator.results.kinds import Family, families, from_families
from synth.simulator.results.texts import FILE_TEXT, KNOWN, page_text
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/more_kinds", "keywords", dict[str, re.Pattern[str]])

_MOVIES = table("results/more_kinds", "movies", tuple[tuple[str, int, str, float], ...])
_BOOKS = table("results/more_kinds", "books", tuple[tuple[str, str, int], ...])
_BREEDS = table("results/more_kinds", "breeds", tuple[tuple[str, str, str], ...])
_HEROES = table("results/more_kinds", "heroes", tuple[tuple[str, str, str], ...])
_RESTAURANTS = table("results/more_kinds", "restaurants", tuple[str, ...])
_QURAN = table("results/more_kinds", "quran", tuple[tuple[int, int, str], ...])
_BIBLE = table("results/more_kinds", "bible", tuple[tuple[str, int, int, str], ...])
_PROMPTS = table("results/more_kinds", "prompts", tuple[tuple[str, str, list[str]], ...])
_PROCESSES = table("results/more_kinds", "processes", tuple[str, ...])
_CHANNELS = table("results/more_kinds", "channels", tuple[str, ...])
_SUFFIXES = table("results/more_kinds", "suffixes", tuple[str, ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/more_kinds", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/more_kinds", "sets", dict[str, frozenset[str]])


def record(names: list[str], text: str, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any] | None:
    return from_families(_FAMILIES, names, text, args, ctx, index)


def _content(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    url = next((v for v in args.values() if isinstance(v, str) and v.startswith("http")), None)
    path = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["content.path"]),
        None,
    )
    if path and not url:
        body = FILE_TEXT.get(path) or KNOWN.get(path) or f"{path}: {rng.randint(3, 400)} lines."
        return {"path": path, "content": body, "size_bytes": len(body.encode()) * rng.randint(1, 3)}
    lib = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & _SETS["content.lib"]),
        None,
    )
    if lib and not url:
        name = lib.strip("/").split("/")[-1] if lib.count("/") == 1 else lib.strip("/").split("/")[0]
        section = _POOLS["content.section"][min(i, 2)]
        body = (
            f"npm install {name}",
            f"Import {name}, create a client with your connection settings and call connect() before the first request.",  # noqa: E501
            f"{name} reads its options from a config object or environment variables; timeouts default to 30 seconds.",
        )[min(i, 2)]
        return {"title": f"{name} - {section}", "content": body, "source": f"https://github.com/{lib.strip('/')}"}
    title, body = page_text(url, text, args, i)
    if n == "html":
        return {
            "url": url or rng.choice(vocab.URLS),
            "html": f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p></body></html>",
        }
    if n in ("markdown", "md"):
        return {"markdown": f"# {title}\n\n{body}", "url": url or rng.choice(vocab.URLS)}
    out = {"title": title, "content": body, "word_count": len(body.split())}
    if url:
        out = {"url": url, "status_code": 200, **out}
    return out


def _ranking(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    if _KEYWORDS["ranking"].search(text):
        return {
            "rating": rng.randint(1400, 2600),
            "global_ranking": rng.randint(300, 400000),
            "attended_contests": rng.randint(3, 120),
            "top_percentage": round(rng.uniform(0.5, 60), 2),
        }
    if re.search(r"[\u4e00-\u9fff]", text):
        return {
            "rank": i + 1,
            "title": E.TRENDING[E.slot(text, args, i, len(E.TRENDING))],
            "heat": rng.randint(10**5, 9 * 10**6),
        }
    team = f"{rng.choice(vocab.CITIES)[0]} {rng.choice(_POOLS['ranking.team'])}"
    played = rng.randint(28, 38)
    won = rng.randint(8, played - 6)
    return {
        "position": i + 1,
        "team": team,
        "played": played,
        "won": won,
        "points": won * 3 + rng.randint(0, played - won),
    }


def _suggestion(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    _, q = E.focus(args)
    q = (q or rng_pick(ctx)).lower()
    return {"suggestions": [f"{q} {s}" for s in ctx.rng.sample(_SUFFIXES, 4)]}


def rng_pick(ctx: Context) -> str:
    return ctx.rng.choice(vocab.QUERIES["general"])


def _match(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    home, away = rng.sample([c for c, _ in vocab.CITIES[:20]], 2)
    played = rng.random() < 0.6
    out = {
        "home_team": f"{home} FC",
        "away_team": f"{away} United",
        "date": E.day(ctx, -10 if played else 1, -1 if played else 14),
        "venue": f"{home} Stadium",
        "status": "finished" if played else "scheduled",
    }
    if played:
        out["score"] = f"{rng.randint(0, 4)}-{rng.randint(0, 3)}"
    return out


def _series(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    base = rng.choice((42.5, 180.0, 1250.0, 98000.0))
    points, v = [], base
    for d in range(4):
        v = round(v * (1 + rng.uniform(-0.04, 0.05)), 2)
        points.append({"date": E.day(ctx, -4 + d, -4 + d), "value": v})
    return {"series": points, "change_pct": round((points[-1]["value"] / base - 1) * 100, 2)}  # type: ignore[operator]


def _process(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "pid": rng.randint(300, 48000),
        "name": _PROCESSES[E.slot(text, args, i, len(_PROCESSES))],
        "cpu_pct": round(rng.uniform(0.1, 85), 1),
        "memory_mb": rng.randint(12, 3200),
        "user": rng.choice(_POOLS["process.user"]),
    }


def _channel(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "name": _CHANNELS[E.slot(text, args, i, len(_CHANNELS))],
        "members": rng.randint(3, 800),
        "topic": rng.choice(vocab.MESSAGES),
        "created_at": E.stamp(ctx, -600, -20),
    }


def _run(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    rng = ctx.rng
    if re.search(r"\bcash\b|\bfund", text):
        return None
    state = rng.choice(_POOLS["run.state"])
    return {
        "name": rng.choice(_POOLS["run.name"]),
        "state": state,
        "started_at": E.stamp(ctx, -2, -0.05),
        "duration_s": rng.randint(12, 3600) if state != "RUNNING" else None,
    }


def _catalog(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    k = E.slot(text, args, i, 1000)
    if n in _POOLS["catalog.movie"]:
        title, year, director, rating = _MOVIES[k % len(_MOVIES)]
        return {"title": title, "year": year, "director": director, "rating": rating}
    if n in _POOLS["catalog.book"]:
        title, author, year = _BOOKS[k % len(_BOOKS)]
        return {"title": title, "author": author, "first_published": year}
    if n == "breed":
        name, group, life = _BREEDS[k % len(_BREEDS)]
        return {"name": name, "group": group, "life_span": life}
    if n in _POOLS["catalog.hero"]:
        name, attr, attack = _HEROES[k % len(_HEROES)]
        return {"name": name, "primary_attribute": attr, "attack_type": attack}
    fake = seed_faker(rng)
    return {
        "name": _RESTAURANTS[k % len(_RESTAURANTS)],
        "cuisine": rng.choice(_POOLS["catalog.cuisine"]),
        "rating": round(rng.uniform(3.8, 4.8), 1),
        "price_level": rng.choice(_POOLS["catalog.price_level"]),
        "address": fake.street_address(),
    }


def _scripture(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    if _KEYWORDS["scripture"].search(text):
        chapter, verse, t = _QURAN[i % len(_QURAN)]
        asked = {k.lower(): v for k, v in args.items() if isinstance(v, (int, str)) and not isinstance(v, bool)}
        chapter = next((asked[k] for k in _POOLS["scripture.chapter"] if k in asked), chapter)  # type: ignore[assignment]
        verse = next((asked[k] for k in _POOLS["scripture.verse"] if k in asked), verse + i)  # type: ignore[assignment]
        edition = next((asked[k] for k in ("edition_name", "edition") if k in asked), "en.pickthall")
        return {"surah": chapter, "ayah": verse, "text": t, "edition": edition}  # the verse asked for, in its edition
    book, chapter, verse, t = _BIBLE[i % len(_BIBLE)]
    return {"book": book, "chapter": chapter, "verse": verse, "text": t, "translation": "KJV"}


def _prompt(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    return dict(zip(_POOLS["prompt.name"], _PROMPTS[E.slot(text, args, i, len(_PROMPTS))]))


_FAMILIES: tuple[Family, ...] = (*families("results/more_kinds", globals()), (longtail.NOUNS, longtail.record))
