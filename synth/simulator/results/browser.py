"""Results for tools that drive a browser: page state after a click or a navigation, snapshots and
screenshots, typed text, a page script's value, tabs. Used through ``synth.simulator.results.devtools``."""

from __future__ import annotations

import random
import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator.results import entities as E
from synth.simulator.results.arithmetic import evaluate
from synth.simulator.results.entities import arg
from synth.simulator.results.texts import URL_TITLES, page_text
from synth.simulator.tables import table
from synth.simulator.values.values import Context, words

_PAGES = table("results/browser", "pages", tuple[tuple[str, str], ...])
_SNAPSHOT = table("results/browser", "snapshot", str)


def page(args: dict[str, Any], ctx: Context) -> tuple[str, str]:
    url = arg(args, *_POOLS["page.url"])
    if isinstance(url, str) and url.startswith("http"):
        title = dict(_PAGES).get(url) or URL_TITLES.get(url) or f"{E.url_topic(url).title()} | {E.host(url)}"
        return url, title
    return ctx.rng.choice(_PAGES)


def browse(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    """What the page says after the step the tool takes: a navigation, a screenshot, typing, a script..."""
    rng = ctx.rng
    w = words(tool.name)
    url, title = page(args, ctx)
    target = arg(args, *_POOLS["browse.element"]) or 'button "Continue"'
    asked = str(arg(args, *_POOLS["browse.action"]) or "").lower()
    do = (
        next((x for x in w if x in _BROWSER_VERBS), None)
        or (asked if asked in _BROWSER_VERBS else None)
        or next((x for x in _BROWSER_VERBS if re.search(rf"\b{x}", text)), "act")
    )
    if do in _POOLS["browse.navigate"]:
        return {"url": url, "title": title, "status": 200, "load_time_ms": rng.randint(180, 2400)}
    if do in ("screenshot", "capture"):
        return {
            "path": f"screenshots/page-2026-06-01T09-{rng.randint(10, 59)}-{rng.randint(10, 59)}.png",
            "width": 1280,
            "height": rng.choice((720, 800, 2400)),
            "url": url,
        }
    if do == "snapshot":
        return {"url": url, "title": title, "snapshot": _SNAPSHOT.format(title=title.split(" | ")[0])}
    if do in ("type", "fill"):
        typed = arg(args, *_POOLS["browse.text"]) or ""
        return {
            "typed": typed,
            "into": target,
            "url": url,
            "message": f"Typed {len(str(typed))} characters into {target}",
        }
    if do == "press":
        return {"pressed": arg(args, "key", "keys") or "Enter", "url": url, "title": title}
    if do in _POOLS["browse.extract"]:
        return {"url": url, "title": title, "text": page_text(url, text, args, 0)[1], "links": rng.randint(8, 140)}
    if do == "evaluate":
        return _script(str(arg(args, *_POOLS["browse.script"]) or "document.title"), url, title)
    if do in ("tab", "close"):
        pages = enumerate(rng.sample(_PAGES, 2))
        return {"tabs": [{"index": i, "title": t, "url": u, "active": i == 0} for i, (u, t) in pages]}
    if do == "act":
        return _act(arg(args, *_POOLS["browse.action_2"]) or f"Click {target}", url)
    if do in _POOLS["browse.wait"]:
        return {"success": True, "message": _step_done(do, args, target, rng), "url": url}
    return {"success": True, "message": f"Clicked {target}", "url": url, "title": title}


def _script(script: str, url: str, title: str) -> dict[str, Any]:
    """What a page script returns: the title, arithmetic, the location; an unknown name is a ReferenceError."""
    if "title" in script:
        return {"result": title, "type": "string"}
    if (value := evaluate(script)) is not None:
        return {"result": value, "type": "number"}
    if "location" in script or "href" in script:
        return {"result": url, "type": "string"}
    name = re.match(r"\s*([A-Za-z_$][\w$]*)", script)
    if name and name.group(1) not in _POOLS["script.document"]:
        return {"error": f"ReferenceError: {name.group(1)} is not defined"}
    return {"result": None, "type": "undefined"}


_ATOMIC = table("results/browser", "atomic", re.Pattern[str])


def _act(action: str, url: str) -> dict[str, Any]:
    """A natural-language step: done when it is one atomic action on the page, refused otherwise."""
    if not _ATOMIC.match(action):
        return {
            "success": False,
            "action": action,
            "url": url,  # not one atomic step on the page
            "message": f"Could not perform '{action}': no single element on the page matches this action",
        }
    return {"success": True, "action": action, "message": f"Action performed: {action}", "url": url}


def _step_done(do: str, args: dict[str, Any], target: str, rng: random.Random) -> str:
    """What the page says after waiting, a dialog, resizing, scrolling, hovering, dragging, selecting, uploading."""
    size = f"{arg(args, 'width', types=(int, float)) or 1280}x{arg(args, 'height', types=(int, float)) or 800}"
    done = {
        "wait": f"Waited {arg(args, *_POOLS['step_done.time'], types=(int, float)) or 2} seconds",
        "dialog": f'Dialog {"accepted" if rng.random() < 0.7 else "dismissed"}: "Leave site? Changes you made may not'
        ' be saved."',
        "resize": f"Viewport resized to {size}",
        "scroll": f"Scrolled down {rng.choice((400, 800, 1200))} px",
        "hover": f"Hovering over {target}",
        "drag": f"Dragged {target} onto {arg(args, *_POOLS['step_done.end']) or 'the drop zone'}",
        "select": f"Selected option {arg(args, *_POOLS['step_done.value']) or 'United Kingdom'} in {target}",
        "upload": f"Uploaded {arg(args, *_POOLS['step_done.path']) or 'invoices/INV-2026-0142.pdf'}",
    }
    return done[do]


# in the order a verb named in the description is looked for
_BROWSER_VERBS = table("results/browser", "browser_verbs", tuple[str, ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/browser", "pools", dict[str, tuple[str, ...]])
