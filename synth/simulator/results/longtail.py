"""Records for the long tail of nouns no larger family covers: weather alerts, page elements, app
store listings, museum objects, courses, chess moves, clinical trials, permissions, circuit parts,
voices and more. Each maker is listed for its nouns in ``data/results/longtail.json`` (``kinds``), some
only when the tool's text is about their world (a "move" of chess, not of a file); the first listed that
fits wins."""

from __future__ import annotations

from typing import Any

from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.results.kinds import Kinds
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker

_ALERTS = table("results/longtail", "alerts", tuple[str, str, str, str])
_WEATHER_ALERTS = table("results/longtail", "weather_alerts", tuple[str, str, str, str])
_PARTS = table("results/longtail", "parts", tuple[tuple[str, str, str], ...])
_APPS = table("results/longtail", "apps", tuple[tuple[str, str, str], ...])
_ARTWORKS = table("results/longtail", "artworks", tuple[tuple[str, str, str], ...])
_ELEMENTS = table("results/longtail", "elements", tuple[tuple[str, str], ...])
_COURSES = table("results/longtail", "courses", tuple[str, str, str])
_MOVES = table("results/longtail", "moves", tuple[tuple[str, str, str], ...])
_TRIALS = table("results/longtail", "trials", tuple[str, str, str])
_TOOLS = table("results/longtail", "tools", tuple[tuple[str, str], ...])
_ICONS = table("results/longtail", "icons", tuple[str, ...])
_UI_COMPONENTS = table("results/longtail", "ui_components", tuple[tuple[str, list[str]], ...])
_CODE_HITS = table("results/longtail", "code_hits", tuple[tuple[str, int, str], ...])
_VOICES = table("results/longtail", "voices", tuple[tuple[str, str, str], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/longtail", "pools", dict[str, tuple[str, ...]])
# words that name other words (a field's value by what was asked), by the function that uses them
_MAPS = table("results/longtail", "maps", dict[str, dict[str, str]])


def record(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any] | None:
    """The record of the first maker listed for ``n`` whose world ``text`` is in, else None."""
    make = _kind.find(n, text)
    return make(n, text, args, ctx, i) if make else None  # None: a listed word with nothing specific to say here


def _pick(pool: tuple[Any, ...], text: str, args: dict[str, Any], i: int) -> Any:
    return pool[E.slot(text, args, i, len(pool))]


def _weather_alert(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    kind = _pick(_WEATHER_ALERTS, text, args, i)
    start = E.stamp(ctx, 0, 1)
    return {
        "title": kind,
        "severity": kind.split(":")[0].split()[0].lower(),
        "area": ctx.city or "Porto",
        "starts": start,
        "ends": E.stamp(ctx, 1, 2),
    }


def _box(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "x": rng.randint(0, 900),
        "y": rng.randint(0, 2000),
        "width": rng.randint(40, 1200),
        "height": rng.randint(16, 600),
    }


def _css(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "color": "rgb(17, 24, 39)",
        "font-size": f"{rng.choice((14, 16, 18, 24))}px",
        "font-weight": rng.choice(("400", "600")),
        "display": rng.choice(_POOLS["css.display"]),
        "margin": "0px 0px 16px",
    }


def _app(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    title, dev, genre = _pick(_APPS, text, args, i)
    return {
        "title": title,
        "developer": dev,
        "genre": genre,
        "rating": round(ctx.rng.uniform(4.3, 4.9), 1),
        "price": 0.0,
    }


def _artwork(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    title, artist, date = _pick(_ARTWORKS, text, args, i)
    department = ctx.rng.choice(_POOLS["artwork.department"])
    return {"title": title, "artist": artist, "date": date, "department": department}


def _object(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "id": str(seed_faker(rng).uuid4()),
        "class": rng.choice(_POOLS["object.class"]),
        "created_at": E.stamp(ctx, -90, -1),
    }


def _element(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    role, name = _pick(_ELEMENTS, text, args, i)
    return {"ref": f"e{3 + 4 * E.slot(text, args, i, 4)}", "role": role, "name": name, "visible": True}


def _coursework(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    if n == "course":
        return {"name": _pick(_COURSES, text, args, i), "term": "Spring 2026", "role": "student"}
    return {
        "name": f"Homework {E.slot(text, args, i, 8) + 1}",
        "due_date": E.stamp(ctx, -10, 14),
        "status": ctx.rng.choice(_POOLS["coursework.status"]),
        "points": 100,
    }


def _design_style(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    return {
        "key": E.hexid(ctx, 40),
        "name": _pick(_POOLS["design_style.name"], text, args, i),
        "style_type": ctx.rng.choice(_POOLS["design_style.style_type"]),
    }


def _chess_move(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    frm, to, piece = _pick(_MOVES, text, args, i)
    san = to if piece == "pawn" else _MAPS["chess_move.letter"][piece] + to
    return {"from": frm, "to": to, "piece": piece, "san": san}


def _trial(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "nct_id": f"NCT0{rng.randint(4000000, 6999999)}",
        "title": _pick(_TRIALS, text, args, i),
        "status": rng.choice(_POOLS["trial.status"]),
        "phase": rng.choice(_POOLS["trial.phase"]),
        "enrollment": rng.randint(40, 4000),
    }


def _pending_command(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    return {
        "id": E.ident("cmd", ctx),
        "command": _pick(_POOLS["pending_command.command"], text, args, i),
        "requested_at": E.stamp(ctx, -0.1, 0),
        "status": "pending",
    }


def _wait(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    secs = next((v for v in args.values() if isinstance(v, (int, float)) and not isinstance(v, bool)), 2)
    return {"slept_ms" if "ms" in text else "waited_s": secs, "completed_at": E.stamp(ctx, 0, 0.001)}


def _tool(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name, desc = _pick(_TOOLS, text, args, i)
    return {"name": name, "description": desc}


def _icon(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name = _pick(_ICONS, text, args, i)
    category = ctx.rng.choice(_POOLS["icon.category"])
    return {"name": name, "category": category, "svg_url": f"https://cdn.example.com/icons/{name}.svg"}


def _permission(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name = _pick(_POOLS["permission.name"], text, args, i)
    return {"name": name, "granted": True, "granted_at": E.stamp(ctx, -200, -5)}


def _role(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name = _pick(_POOLS["role.name"], text, args, i)
    return {"name": name, "members": ctx.rng.randint(1, 40), "permissions": ctx.rng.randint(3, 60)}


def _alert(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "severity": rng.choice(_POOLS["alert.severity"]),
        "title": _pick(_ALERTS, text, args, i),
        "triggered_at": E.stamp(ctx, -2, 0),
        "status": rng.choice(_POOLS["alert.status"]),
    }


def _circuit_part(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    ref, value, fp = _pick(_PARTS, text, args, i)
    return {"reference": ref, "value": value, "footprint": fp}


def _ui_component(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name, props = _pick(_UI_COMPONENTS, text, args, i)
    return {"name": name, "props": props, "import": f"import {{ {name} }} from './components/{name}'"}


def _code_hit(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    path, line, preview = _pick(_CODE_HITS, text, args, i)
    return {"path": path, "line": line, "preview": preview}


def _field(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    name, kind = rng.choice(E.COLUMNS[rng.choice(vocab.TABLES)])
    return {"name": name, "type": kind, "nullable": rng.random() < 0.3}


def _environment(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    level = ctx.rng.choice(("info", "debug"))
    database = "postgresql://app@db.internal:5432/app"
    return {"variables": {"NODE_ENV": "production", "LOG_LEVEL": level, "PORT": "8080", "DATABASE_URL": database}}


def _endpoint(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "method": rng.choice(("GET", "POST")),
        "path": rng.choice(_POOLS["endpoint.path"]),
        "auth": "bearer",
        "rate_limit_per_min": rng.choice((60, 600)),
    }


def _agent(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    model = E.MODELS[E.slot(text, args, i, len(E.MODELS))][0]
    name = ctx.rng.choice(_POOLS["agent.name"])
    return {"name": name, "model": model, "status": "active"}


# "space" alone is often a workspace, not disk space
def _storage(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    total = rng.choice((50, 100, 500))
    return {"total_gb": total, "used_gb": round(rng.uniform(0.1, total), 1), "files": rng.randint(10, 90000)}


def _session(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    rng = ctx.rng
    return {
        "session_id": str(seed_faker(rng).uuid4()),
        "status": rng.choice(_POOLS["session.status"]),
        "started_at": E.stamp(ctx, -0.3, -0.05),
        "last_activity_at": E.stamp(ctx, -0.02, 0),
        "requests": rng.randint(3, 140),
    }


def _voice(n: str, text: str, args: dict[str, Any], ctx: Context, i: int) -> dict[str, Any]:
    name, lang, gender = _pick(_VOICES, text, args, i)
    return {"name": name, "language": lang, "gender": gender}


_kind = Kinds.load("results/longtail", globals())
NOUNS = _kind.nouns
