"""More kinds of thing, for the long tail of getters: page content, rankings, suggestions,
matches, time series, processes, channels, runs, catalogue items (films, books, breeds),
scripture passages, circuit parts, UI elements and more. Same contract as ``entities.record``.
"""

from __future__ import annotations

import re
from typing import Any

from synth.offline import entities as E
from synth.offline import vocab
from synth.offline.texts import FILE_TEXT, KNOWN, page_text
from synth.offline.values import Context, seed_faker, words

_MOVIES = (
    ("Inception", 2010, "Christopher Nolan", 8.8),
    ("Spirited Away", 2001, "Hayao Miyazaki", 8.6),
    ("Parasite", 2019, "Bong Joon-ho", 8.5),
    ("The Godfather", 1972, "Francis Ford Coppola", 9.2),
    ("Arrival", 2016, "Denis Villeneuve", 7.9),
)
_BOOKS = (
    ("Pride and Prejudice", "Jane Austen", 1813),
    ("Nineteen Eighty-Four", "George Orwell", 1949),
    ("The Hobbit", "J. R. R. Tolkien", 1937),
    ("Beloved", "Toni Morrison", 1987),
    ("Dune", "Frank Herbert", 1965),
)
_BREEDS = (
    ("Labrador Retriever", "Sporting", "10-12 years"),
    ("German Shepherd", "Herding", "9-13 years"),
    ("Beagle", "Hound", "12-15 years"),
    ("Border Collie", "Herding", "12-15 years"),
)
_HEROES = (
    ("Anti-Mage", "agility", "melee"),
    ("Crystal Maiden", "intelligence", "ranged"),
    ("Pudge", "strength", "melee"),
    ("Sniper", "agility", "ranged"),
)
_RESTAURANTS = ("Taberna da Ribeira", "Osteria del Ponte", "Sakura Ramen House", "The Green Fork", "Casa Lupita")
_QURAN = (
    (1, 1, "In the name of Allah, the Beneficent, the Merciful."),
    (1, 2, "Praise be to Allah, Lord of the Worlds,"),
    (1, 3, "The Beneficent, the Merciful."),
    (1, 4, "Master of the Day of Judgment,"),
)
_BIBLE = (
    ("JHN", 1, 1, "In the beginning was the Word, and the Word was with God, and the Word was God."),
    ("GEN", 1, 1, "In the beginning God created the heaven and the earth."),
    ("PSA", 23, 1, "The LORD is my shepherd; I shall not want."),
)
_PROMPTS = (
    ("code-review", "Review a diff for bugs, security issues and style problems", ["diff", "language"]),
    ("summarize-thread", "Summarize a discussion thread into decisions and action items", ["thread_url"]),
    ("write-release-notes", "Draft release notes from a list of merged pull requests", ["version", "changes"]),
    ("explain-error", "Explain an error message and suggest a fix", ["error", "stack_trace"]),
)
_PROCESSES = ("python3", "node", "postgres", "nginx", "java", "chrome", "dockerd")
_CHANNELS = ("#general", "#engineering", "#random", "#support", "#product-launch")
_SUFFIXES = ("app", "game", "online", "for beginners", "2026", "review")
_ALERTS = (
    "High CPU on orders-service (92% for 10 min)",
    "Error rate above 5% on /api/v1/checkout",
    "Disk 85% full on postgres-primary",
    "SSL certificate for api.example.com expires in 7 days",
)
_PARTS = (
    ("R12", "10k", "Resistor_SMD:R_0603"),
    ("C4", "100nF", "Capacitor_SMD:C_0402"),
    ("U1", "STM32F103C8T6", "Package_QFP:LQFP-48"),
    ("D2", "LED_Red", "LED_SMD:LED_0805"),
)


def record(nouns: list[str], text: str, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any] | None:
    return from_families(_FAMILIES, nouns, text, args, ctx, index)


def from_families(
    families: Any, nouns: list[str], text: str, args: dict[str, Any], ctx: Context, index: int = 0
) -> dict[str, Any] | None:
    """A record from the first family that knows one of the nouns (the last noun is the head, so first)."""
    for n in reversed(nouns):
        for keys, make in families:
            if n in keys and (out := make(n, text, args, ctx, index)) is not None:
                return out
    return None


def _content(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    url = next((v for v in args.values() if isinstance(v, str) and v.startswith("http")), None)
    path = next(
        (v for k, v in args.items() if isinstance(v, str) and set(words(k)) & {"path", "file", "filename", "filepath"}),
        None,
    )
    if path and not url:
        body = FILE_TEXT.get(path) or KNOWN.get(path) or f"{path}: {rng.randint(3, 400)} lines."
        return {"path": path, "content": body, "size_bytes": len(body.encode()) * rng.randint(1, 3)}
    lib = next(
        (
            v
            for k, v in args.items()
            if isinstance(v, str) and set(words(k)) & {"library", "package", "lib", "framework"}
        ),
        None,
    )
    if lib and not url:
        name = lib.strip("/").split("/")[-1] if lib.count("/") == 1 else lib.strip("/").split("/")[0]
        section = ("Installation", "Quick start", "Configuration")[min(i, 2)]
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
    if re.search(r"contest|leetcode|codeforces|user", text):
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
    team = f"{rng.choice(vocab.CITIES)[0]} {rng.choice(('United', 'FC', 'Rovers', 'Athletic'))}"
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
        "user": rng.choice(("root", "www-data", "dev")),
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
    state = rng.choice(("COMPLETED", "COMPLETED", "RUNNING", "FAILED"))
    return {
        "name": rng.choice(("nightly-etl", "sync-crm-contacts", "daily-report", "backup-db")),
        "state": state,
        "started_at": E.stamp(ctx, -2, -0.05),
        "duration_s": rng.randint(12, 3600) if state != "RUNNING" else None,
    }


def _catalog(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    k = E.slot(text, args, i, 1000)
    if n in ("movie", "film", "show"):
        title, year, director, rating = _MOVIES[k % len(_MOVIES)]
        return {"title": title, "year": year, "director": director, "rating": rating}
    if n in ("book", "novel", "edition"):
        title, author, year = _BOOKS[k % len(_BOOKS)]
        return {"title": title, "author": author, "first_published": year}
    if n == "breed":
        name, group, life = _BREEDS[k % len(_BREEDS)]
        return {"name": name, "group": group, "life_span": life}
    if n in ("hero", "heroe", "character"):
        name, attr, attack = _HEROES[k % len(_HEROES)]
        return {"name": name, "primary_attribute": attr, "attack_type": attack}
    fake = seed_faker(rng)
    return {
        "name": _RESTAURANTS[k % len(_RESTAURANTS)],
        "cuisine": rng.choice(("Portuguese", "Italian", "Japanese", "Mexican")),
        "rating": round(rng.uniform(3.8, 4.8), 1),
        "price_level": rng.choice(("$", "$$", "$$$")),
        "address": fake.street_address(),
    }


def _scripture(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    if re.search(r"quran|kuran|surah|sura\b|juz|ruku|manzil|ayah|maqra", text):
        chapter, verse, t = _QURAN[i % len(_QURAN)]
        asked = {k.lower(): v for k, v in args.items() if isinstance(v, (int, str)) and not isinstance(v, bool)}
        chapter = next((asked[k] for k in ("chapter_no", "chapter", "surah", "surah_no") if k in asked), chapter)  # type: ignore[assignment]
        verse = next((asked[k] for k in ("verse_no", "verse", "ayah", "ayah_no") if k in asked), verse + i)  # type: ignore[assignment]
        edition = next((asked[k] for k in ("edition_name", "edition") if k in asked), "en.pickthall")
        return {"surah": chapter, "ayah": verse, "text": t, "edition": edition}  # the verse asked for, in its edition
    book, chapter, verse, t = _BIBLE[i % len(_BIBLE)]
    return {"book": book, "chapter": chapter, "verse": verse, "text": t, "translation": "KJV"}


def _misc(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    rng = ctx.rng
    if n in ("alert", "warning", "advisory") and re.search(
        r"\b(weather|storms?|floods?|heat|wind|rain|nws|meteo\w*)\b", text
    ):
        kind = (
            "Yellow warning: thunderstorms",
            "Heat advisory: highs near 38°C",
            "Strong wind warning along the coast",
            "Flood watch for low-lying areas",
        )[E.slot(text, args, i, 4)]
        start = E.stamp(ctx, 0, 1)
        return {
            "title": kind,
            "severity": kind.split(":")[0].split()[0].lower(),
            "area": ctx.city or "Porto",
            "starts": start,
            "ends": E.stamp(ctx, 1, 2),
        }
    if n in ("dimension", "position", "rect", "bounding", "box") and re.search(r"element|selector|page|browser", text):
        return {
            "x": rng.randint(0, 900),
            "y": rng.randint(0, 2000),
            "width": rng.randint(40, 1200),
            "height": rng.randint(16, 600),
        }
    if n == "style" and re.search(r"element|selector|css", text):
        return {
            "color": "rgb(17, 24, 39)",
            "font-size": f"{rng.choice((14, 16, 18, 24))}px",
            "font-weight": rng.choice(("400", "600")),
            "display": rng.choice(("block", "flex", "inline-block")),
            "margin": "0px 0px 16px",
        }
    if n in ("app", "application") and re.search(r"store|play|itunes|apple|google", text):
        title, dev, genre = (
            ("Todoist: To-Do List & Planner", "Doist Inc.", "Productivity"),
            ("Duolingo - Language Lessons", "Duolingo", "Education"),
            ("Strava: Run, Bike, Hike", "Strava Inc.", "Health & Fitness"),
        )[E.slot(text, args, i, 3)]
        return {
            "title": title,
            "developer": dev,
            "genre": genre,
            "rating": round(rng.uniform(4.3, 4.9), 1),
            "price": 0.0,
        }
    if n in ("object", "artwork", "artifact", "collection") and re.search(
        r"museum|\bart|gallery|cultural|institution", text
    ):
        title, artist, date = (
            ("The Great Wave off Kanagawa", "Katsushika Hokusai", "c. 1831"),
            ("Wheat Field with Cypresses", "Vincent van Gogh", "1889"),
            ("Washington Crossing the Delaware", "Emanuel Leutze", "1851"),
        )[E.slot(text, args, i, 3)]
        return {
            "title": title,
            "artist": artist,
            "date": date,
            "department": rng.choice(("Asian Art", "European Paintings", "American Wing")),
        }
    if n == "object":
        return {
            "id": str(seed_faker(rng).uuid4()),
            "class": rng.choice(("Article", "Product", "Document")),
            "created_at": E.stamp(ctx, -90, -1),
        }
    if n == "element" and re.search(r"browser|page|interactive|ui|screen", text):
        role, name = (
            ("button", "Sign in"),
            ("textbox", "Email address"),
            ("link", "Forgot password?"),
            ("checkbox", "Remember me"),
        )[E.slot(text, args, i, 4)]
        return {"ref": f"e{3 + 4 * E.slot(text, args, i, 4)}", "role": role, "name": name, "visible": True}
    if n in ("assignment", "homework", "course") and re.search(r"gradescope|canvas|course|class|student", text):
        if n == "course":
            return {
                "name": ("CS 161: Operating Systems", "MATH 53: Multivariable Calculus", "ECON 1: Principles")[
                    E.slot(text, args, i, 3)
                ],
                "term": "Spring 2026",
                "role": "student",
            }
        return {
            "name": f"Homework {E.slot(text, args, i, 8) + 1}",
            "due_date": E.stamp(ctx, -10, 14),
            "status": rng.choice(("submitted", "not submitted", "graded")),
            "points": 100,
        }
    if n == "style" and re.search(r"figma|design|team|file", text):
        return {
            "key": E.hexid(ctx, 40),
            "name": ("Primary/500", "Heading/H1", "Shadow/Card", "Neutral/100")[E.slot(text, args, i, 4)],
            "style_type": rng.choice(("FILL", "TEXT", "EFFECT")),
        }
    if n == "move" and re.search(r"chess|board|game|piece", text):
        frm, to, piece = (("e2", "e4", "pawn"), ("g1", "f3", "knight"), ("d2", "d4", "pawn"), ("f1", "c4", "bishop"))[
            E.slot(text, args, i, 4)
        ]
        return {
            "from": frm,
            "to": to,
            "piece": piece,
            "san": (to if piece == "pawn" else {"knight": "N", "bishop": "B"}[piece] + to),
        }
    if n in ("trial", "study") and re.search(r"clinical|trial|study|studies", text):
        return {
            "nct_id": f"NCT0{rng.randint(4000000, 6999999)}",
            "title": (
                "Semaglutide for Weight Maintenance in Adults",
                "Early Mobilisation After Hip Fracture Surgery",
                "Digital CBT for Insomnia in Older Adults",
            )[E.slot(text, args, i, 3)],
            "status": rng.choice(("RECRUITING", "COMPLETED", "ACTIVE_NOT_RECRUITING")),
            "phase": rng.choice(("PHASE2", "PHASE3", "NA")),
            "enrollment": rng.randint(40, 4000),
        }
    if n == "command" and re.search(r"pending|queue|approv", text):
        return {
            "id": E.ident("cmd", ctx),
            "command": ("git push origin main", "rm -rf build/", "npm publish")[E.slot(text, args, i, 3)],
            "requested_at": E.stamp(ctx, -0.1, 0),
            "status": "pending",
        }
    if n in ("sleep", "wait", "delay"):
        secs = next((v for v in args.values() if isinstance(v, (int, float)) and not isinstance(v, bool)), 2)
        return {"slept_ms" if "ms" in text else "waited_s": secs, "completed_at": E.stamp(ctx, 0, 0.001)}
    if n == "tool":
        name, desc = (
            ("search_docs", "Search the documentation"),
            ("fetch_page", "Fetch a web page as Markdown"),
            ("run_query", "Run a read-only SQL query"),
            ("create_issue", "Open an issue in the tracker"),
        )[E.slot(text, args, i, 4)]
        return {"name": name, "description": desc}
    if n == "icon":
        name = ("arrow-right-01", "home-01", "search-02", "settings-01", "user-circle", "calendar-03")[
            E.slot(text, args, i, 6)
        ]
        return {
            "name": name,
            "category": rng.choice(("arrows", "interface", "users", "time")),
            "svg_url": f"https://cdn.example.com/icons/{name}.svg",
        }
    if n in ("permission", "role", "scope"):
        name = (
            ("repo:read", "repo:write", "admin:org", "read:user")
            if n != "role"
            else ("Viewer", "Editor", "Admin", "Billing manager")
        )[E.slot(text, args, i, 4)]
        return (
            {"name": name, "granted": True if n != "role" else None, "granted_at": E.stamp(ctx, -200, -5)}
            if n != "role"
            else {"name": name, "members": rng.randint(1, 40), "permissions": rng.randint(3, 60)}
        )
    if n in ("alert", "incident", "error", "warning"):
        return {
            "severity": rng.choice(("critical", "warning", "info")),
            "title": _ALERTS[E.slot(text, args, i, len(_ALERTS))],
            "triggered_at": E.stamp(ctx, -2, 0),
            "status": rng.choice(("firing", "acknowledged", "resolved")),
        }
    if n in ("component", "part", "footprint", "symbol") and re.search(r"kicad|circuit|pcb|schematic|netlist", text):
        ref, value, fp = _PARTS[E.slot(text, args, i, len(_PARTS))]
        return {"reference": ref, "value": value, "footprint": fp}
    if n == "component":
        name, props = (
            ("Button", ["variant", "size", "disabled"]),
            ("Card", ["title", "footer"]),
            ("Modal", ["open", "onClose"]),
            ("DatePicker", ["value", "minDate", "onChange"]),
        )[E.slot(text, args, i, 4)]
        return {"name": name, "props": props, "import": f"import {{ {name} }} from './components/{name}'"}
    if n == "code" and re.search(r"search|grep|find", text):
        path, line, preview = (
            ("src/app/retry.py", 12, "def retry(times: int = 3):"),
            ("src/app/http.py", 48, "    @retry(times=5)"),
            ("tests/test_retry.py", 7, "def test_retry_gives_up_after_three_attempts():"),
        )[E.slot(text, args, i, 3)]
        return {"path": path, "line": line, "preview": preview}
    if n in ("field", "attribute", "column", "variable"):
        name, kind = rng.choice(E.COLUMNS[rng.choice(vocab.TABLES)])
        return {"name": name, "type": kind, "nullable": rng.random() < 0.3}
    if n in ("env", "environment"):
        return {
            "variables": {
                "NODE_ENV": "production",
                "LOG_LEVEL": rng.choice(("info", "debug")),
                "PORT": "8080",
                "DATABASE_URL": "postgresql://app@db.internal:5432/app",
            }
        }
    if n in ("endpoint", "api"):
        return {
            "method": rng.choice(("GET", "POST")),
            "path": rng.choice(("/api/v1/orders", "/api/v1/users/{id}", "/api/v1/invoices")),
            "auth": "bearer",
            "rate_limit_per_min": rng.choice((60, 600)),
        }
    if n in ("agent", "assistant", "bot"):
        name, provider, _ = E.MODELS[E.slot(text, args, i, len(E.MODELS))]
        return {
            "name": rng.choice(("Support assistant", "Research agent", "Code reviewer")),
            "model": name,
            "status": "active",
        }
    if n == "space" and not re.search(r"disk|storage|quota|drive|bucket", text):
        return None
    if n in ("storage", "space", "disk", "quota"):
        total = rng.choice((50, 100, 500))
        return {"total_gb": total, "used_gb": round(rng.uniform(0.1, total), 1), "files": rng.randint(10, 90000)}
    if n == "session":
        return {
            "session_id": str(seed_faker(rng).uuid4()),
            "status": rng.choice(("active", "active", "idle")),
            "started_at": E.stamp(ctx, -0.3, -0.05),
            "last_activity_at": E.stamp(ctx, -0.02, 0),
            "requests": rng.randint(3, 140),
        }
    if n == "voice":
        name, lang, gender = (
            ("alloy", "en-US", "neutral"),
            ("nova", "en-US", "female"),
            ("en-GB-Sonia", "en-GB", "female"),
            ("pt-PT-Duarte", "pt-PT", "male"),
        )[E.slot(text, args, i, 4)]
        return {"name": name, "language": lang, "gender": gender}
    return None  # a word this family lists but has nothing specific to say about here


_FAMILIES = (
    (
        {
            "html",
            "markdown",
            "md",
            "content",
            "text",
            "txt",
            "read",
            "fetch",
            "document",
            "doc",
            "webpage",
            "scrape",
            "crawl",
            "crawling",
            "scraping",
            "body",
            "readme",
            "page",
        },
        _content,
    ),
    ({"rank", "ranking", "standing", "leaderboard", "table_standing"}, _ranking),
    ({"suggestion", "suggest", "autocomplete", "completion", "related"}, _suggestion),
    ({"game", "match", "fixture", "schedule"}, _match),
    (
        {
            "history",
            "historical",
            "chart",
            "snapshot",
            "performance",
            "trend",
            "timeline",
            "series",
            "minute",
            "hourly",
            "daily",
            "change",
            "tvl",
        },
        _series,
    ),
    ({"process", "pid"}, _process),
    ({"channel", "guild", "room"}, _channel),
    ({"run", "flow", "pipeline", "job", "workflow", "zap", "automation", "build"}, _run),
    (
        {"movie", "film", "show", "book", "novel", "edition", "breed", "hero", "heroe", "character", "restaurant"},
        _catalog,
    ),
    ({"verse", "chapter", "quran", "surah", "juz", "ruku", "manzil", "ayah", "bible", "passage", "maqra"}, _scripture),
    (
        {"prompt", "template"},
        lambda n, text, args, ctx, i: dict(
            zip(("name", "description", "arguments"), _PROMPTS[E.slot(text, args, i, len(_PROMPTS))])
        ),
    ),
    (
        {
            "alert",
            "incident",
            "error",
            "warning",
            "component",
            "part",
            "footprint",
            "field",
            "attribute",
            "column",
            "variable",
            "env",
            "environment",
            "endpoint",
            "api",
            "agent",
            "assistant",
            "bot",
            "storage",
            "space",
            "disk",
            "quota",
            "advisory",
            "dimension",
            "position",
            "rect",
            "bounding",
            "box",
            "permission",
            "role",
            "scope",
            "style",
            "app",
            "application",
            "object",
            "artwork",
            "artifact",
            "icon",
            "collection",
            "code",
            "element",
            "assignment",
            "homework",
            "course",
            "move",
            "trial",
            "study",
            "tool",
            "command",
            "sleep",
            "wait",
            "delay",
            "session",
            "voice",
        },
        _misc,
    ),
)
