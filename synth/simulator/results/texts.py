"""Text the offline results quote: what known pages, files and messages say; values for
fields a description names; plain text transforms (reverse, upper-case, word count) and a
past-tense acknowledgement for command-like tools ("Make the avatar jump." -> "Made the avatar jump")."""

from __future__ import annotations

import re
from typing import Any

from synth.simulator.results import entities as E
from synth.simulator.values.values import Context, words

_PARAGRAPHS = (  # (title, text) of pages with no URL given
    (
        "Shipping and returns",
        "Our support team is available Monday to Friday, 9:00-18:00 CET. Orders placed before 14:00 ship the same day; "
        "returns are free within 30 days if the item is unused and in its original packaging.",
    ),
    (
        "Getting started",
        "To get started, install the CLI, run the login command and create a project. The free plan includes 3 projects, "
        "1 GB of storage and community support; paid plans add SSO and audit logs.",
    ),
    (
        "City approves new cycling network",
        "The city council approved the new cycling network on Tuesday. Construction of the first 12 km starts in September "
        "and is expected to finish by mid-2027, at a cost of EUR 18 million.",
    ),
)
KNOWN = {  # short, true-to-source summaries of values the writer uses
    "Running about ten minutes late, start without me.": "The sender is running about ten minutes late and asks everyone to start without them.",
    "Can we move our 1:1 to Thursday afternoon?": "A request to move the 1:1 meeting to Thursday afternoon.",
    "The quarterly report is ready for review.": "The quarterly report is finished and waiting for review.",
    "Reminder: the team offsite is on Friday at 9am.": "A reminder that the team offsite starts on Friday at 9am.",
    "Thanks for the quick turnaround on the invoice.": "A thank-you for turning the invoice around quickly.",
    "Please review the draft before the client call.": "A request to review the draft before the client call.",
    "Deployment finished, all checks are green.": "The deployment completed and every check passed.",
    "https://en.wikipedia.org/wiki/Porto": "Porto is Portugal's second-largest city, on the Douro estuary; it is known for port wine, the Ribeira district and the Dom Luís I Bridge.",
    "https://docs.python.org/3/library/asyncio.html": "asyncio is Python's library for concurrent code with async/await; the page covers the event loop, tasks, streams, synchronisation primitives and subprocesses.",
    "https://github.com/pallets/flask": "Flask is a lightweight WSGI web framework; the README covers installing it with pip, a minimal 'Hello, World!' app and links to the documentation.",
    "https://www.bbc.com/news/technology": "BBC technology news: the top stories cover new EU rules for AI assistants, a record quarter for chipmakers and a look at battery recycling.",
    "https://www.nytimes.com/section/science": "The New York Times science section: today's stories cover a new exoplanet atmosphere result, coral reef heat stress and a long read on sleep research.",
    "https://example-shop.com/products/trail-runner-2": "Trail Runner 2: a lightweight trail shoe with a grippy lug outsole and 8 mm drop, USD 129, free returns within 30 days.",
    "https://news.ycombinator.com/": "The Hacker News front page: a Show HN for a local-first notes app, a post on Postgres query planning and a discussion about four-day work weeks.",
    "https://arxiv.org/abs/2310.06770": "SWE-bench evaluates language models on 2,294 real GitHub issues from 12 Python repositories; a model must write a patch that makes the failing tests pass.",
    "reports/q3-summary.md": "Q3 revenue grew 8% over Q2, driven by the enterprise plan; churn fell to 2.1% and two hires are planned for Q4.",
    "src/app/main.py": "The app's entry point: it builds the FastAPI application, registers the orders and users routers and starts Uvicorn on port 8000.",
    "docs/getting-started.md": "How to install the package, set the API key and run a first example in under five minutes.",
    "data/sales_2025.csv": "Monthly 2025 sales by region (4,812 rows); EMEA is the largest region and December the strongest month.",
    "notes/meeting-2026-03-12.txt": "Notes from the 12 March meeting: the launch moves to April, Ana owns the pricing page and the next sync is on the 19th.",
    "invoices/INV-2026-0142.pdf": "Invoice INV-2026-0142 for EUR 2,340.00 from Northwind Supplies, due 30 June 2026, for 12 hours of consulting and one licence.",
}
FILE_TEXT = {
    "reports/q3-summary.md": "# Q3 summary\n\nRevenue: EUR 1.84M (+8% QoQ), driven by the enterprise plan.\nChurn: 2.1% (down from 2.6%).\nNext: two hires in Q4.",
    "src/app/main.py": "from fastapi import FastAPI\n\nfrom app.routers import orders, users\n\napp = FastAPI()\napp.include_router(orders.router)\napp.include_router(users.router)",
    "docs/getting-started.md": "# Getting started\n\n1. `pip install acme-sdk`\n2. `export ACME_API_KEY=...`\n3. `acme hello`",
    "data/sales_2025.csv": "month,region,revenue\n2025-01,EMEA,182340\n2025-01,AMER,151200\n2025-02,EMEA,176905",
    "notes/meeting-2026-03-12.txt": "Launch moves to April.\nAna owns the pricing page.\nNext sync: 19 March.",
    "config/settings.yaml": "database_url: postgresql://app@db.internal:5432/app\nlog_level: info\nretries: 3\ntimeout_s: 30",
}
URL_TITLES = {
    "https://www.bbc.com/news/technology": "Technology - BBC News",
    "https://en.wikipedia.org/wiki/Porto": "Porto - Wikipedia",
    "https://docs.python.org/3/library/asyncio.html": "asyncio — Asynchronous I/O — Python 3 documentation",
    "https://github.com/pallets/flask": "GitHub - pallets/flask: The Python micro framework for building web applications.",
    "https://www.nytimes.com/section/science": "Science - The New York Times",
    "https://example-shop.com/products/trail-runner-2": "Trail Runner 2 – Example Shop",
    "https://arxiv.org/abs/2310.06770": "[2310.06770] SWE-bench: Can Language Models Resolve Real-World GitHub Issues?",
    "https://news.ycombinator.com/": "Hacker News",
}


def page_text(url: str | None, text: str, args: dict[str, Any], i: int) -> tuple[str, str]:
    """(title, text) of a page: known pages say what they really say; others only what their address implies."""
    if url and url in KNOWN:
        return URL_TITLES.get(url, E.host(url)), KNOWN[url]
    if url:
        topic = E.url_topic(url)
        return (
            f"{topic.capitalize()} | {E.host(url)}",
            f"This page on {E.host(url)} covers {topic}: an overview, the main details and links to related pages.",
        )
    return _PARAGRAPHS[E.slot(text, args, i, len(_PARAGRAPHS))]


# --- text transforms and acknowledgements --------------------------------------------------------

TRANSFORMS = frozenset("reverse uppercase upper lowercase lower capitalize slugify slug wordcount length".split())


def transform(tool_words: list[str], args: dict[str, Any]) -> dict[str, Any] | None:
    """Plain text operations computed for real: reverse, change case, slugify, count words."""
    _, value = E.focus(args)
    value = FILE_TEXT.get(value, value)  # a known file's text, not its path
    w = set(tool_words)
    if "longest" in w and w & {"word", "words"}:
        found = [
            x
            for v in args.values()
            for s in (v if isinstance(v, list) else [v])
            if isinstance(s, str)
            for x in re.findall(r"[A-Za-z]+", s)
        ]
        best = max(found, key=len) if found else ""
        return {"word": best, "length": len(best)}
    if tool_words[:1] and tool_words[0] in ("is", "has", "can") and len(tool_words) > 1:
        return {"_".join(tool_words): bool(len(value) % 3), "checked_at": "2026-06-01T09:00:00Z"}
    if "reverse" in w:
        return {"result": value[::-1]}
    if w & {"uppercase", "upper"}:
        return {"result": value.upper()}
    if w & {"lowercase", "lower"}:
        return {"result": value.lower()}
    if "capitalize" in w:
        return {"result": value.title()}
    if w & {"slugify", "slug"}:
        return {"result": re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")}
    if w & {"wordcount", "count", "length"} and w & {
        "word",
        "words",
        "wordcount",
        "character",
        "characters",
        "text",
        "string",
        "length",
    }:
        return {
            "words": len(value.split()),
            "characters": len(value),
            "characters_no_spaces": len(value.replace(" ", "")),
        }
    return None


COMMANDS = frozenset(
    """
    make apply toggle restart reboot play push force swipe tap press jump scale change plot open perform
    handle move look start stop pause resume enable disable reset refresh clear mark sync trigger switch
    turn rotate zoom speak say draw paint place drop attack equip cast walk follow mine craft dig teleport
    focus highlight copy paste undo redo import install uninstall upgrade deploy rollback subscribe
    unsubscribe join leave kick ban mute pin react approve reject archive restore lock unlock schedule
    confirm finalize complete store remember forget attach detach mount unmount link unlink greet notify
    combine merge split resize crop record set send request stream broadcast continue step kill flush reload
    wake sleep chat
""".split()
)
_IRREGULAR = {
    "make": "made",
    "set": "set",
    "send": "sent",
    "stream": "streamed",
    "split": "split",
    "dig": "dug",
    "run": "ran",
    "leave": "left",
    "say": "said",
    "speak": "spoke",
    "draw": "drew",
    "cast": "cast",
    "sleep": "slept",
    "wake": "woke",
    "build": "built",
    "put": "put",
    "find": "found",
    "give": "gave",
    "take": "took",
    "write": "wrote",
    "hold": "held",
    "undo": "undid",
    "redo": "redid",
    "do": "did",
    "equip": "equipped",
    "get": "got",
    "buy": "bought",
    "sell": "sold",
    "pay": "paid",
    "read": "read",
    "begin": "began",
    "choose": "chose",
    "throw": "threw",
}


def past(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgklmnprt]", verb) and len(verb) <= 4:
        return verb + verb[-1] + "ed"
    return verb + "ed"


def ack(
    tool_name_words: list[str], description: str, ctx: Context, args: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """For a command-like tool ("Make the avatar jump."): a success flag and what was done, in the past tense,
    about what the call named ("Said hello to Ana Reis", not "Said hello to someone")."""
    first = re.split(r"(?<=[.!?])\s|\n", description.strip(), maxsplit=1)[0].strip().rstrip(".!")
    lead = re.findall(r"[A-Za-z]+", first[:20])
    verb = lead[0].lower() if lead and first[:1].isalpha() and first.isascii() else ""
    if verb.endswith("s") and verb[:-1] in COMMANDS:
        verb = verb[:-1]
    if verb in COMMANDS and len(first) <= 120:
        rest = first[len(lead[0]) :].strip()
        message = f"{past(verb).capitalize()} {rest}".strip()
    elif tool_name_words and tool_name_words[0] in COMMANDS and not description.strip():
        message = f"{past(tool_name_words[0]).capitalize()} {' '.join(tool_name_words[1:])}".strip()
    else:
        return None
    return {"success": True, "message": _named_in(message, args or {}), "completed_at": E.stamp(ctx, 0, 0.001)}


def _named_in(message: str, args: dict[str, Any]) -> str:
    """ "Equipped a specific item" with ``itemName="torch"`` -> "Equipped torch"; "someone" -> the name given."""
    said = {
        k: v for k, v in args.items() if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) <= 40
    }
    person = next(
        (v for k, v in said.items() if set(words(k)) & {"name", "user", "person", "recipient", "username"}), None
    )
    if person is not None:
        message = re.sub(r"\b(?:someone|somebody)\b", str(person), message)

    def value(m: re.Match[str]) -> str:
        found = next((v for k, v in said.items() if m.group(1).lower() in words(k)), None)
        return m.group(0) if found is None else str(found)

    return re.sub(
        r"\b(?:a|an|the)\s+(?:(?:specific|given|specified|particular|provided)\s+)?(\w+)", value, message, count=1
    )
