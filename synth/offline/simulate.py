"""The offline tool runtime: a plausible result for a call, consistent with the call.

The result is shaped by the tool's ``outputSchema`` when it has one. Otherwise, in order:
what the tool *does*, from the verbs in its name and description (``results``: summarize,
calculate, validate, a browser click, a command, market trades, a status check ...); what
it is *about*, from its nouns (``themes`` for weather, quotes, issues, files, news;
``things``, ``catalog`` and ``domains`` for tasks, pods, leads, packages, tables, papers
...); the fields its description promises; and only then a named record of its kind.
Search and list tools return items with ids; actions return a confirmation. Identifiers the
call used are echoed back, and a field a later step needs (``provide``) is put where that
step will read it, so chains stay consistent. All randomness comes from ``ctx.rng``.
"""

from __future__ import annotations

import re
from typing import Any

from synth.offline import catalog, domains, entities, purpose, results, texts, themes, things, vocab
from synth.offline.values import Context, make_value, words
from synth.records import ToolSpec

LIST_VERBS = {"search", "list", "find", "query", "lookup", "browse", "discover", "explore", "scan", "filter"}
ACTION_VERBS = {
    "create",
    "add",
    "send",
    "post",
    "update",
    "delete",
    "remove",
    "set",
    "write",
    "upload",
    "insert",
    "move",
    "rename",
    "edit",
    "publish",
    "schedule",
    "book",
    "cancel",
    "start",
    "stop",
    "run",
    "execute",
    "save",
    "submit",
    "reply",
    "comment",
    "merge",
    "close",
    "open",
    "install",
    "deploy",
    "trigger",
    "invite",
    "assign",
    "archive",
    "mark",
    "put",
    "push",
    "register",
    "subscribe",
}
_STOP = {
    "tool",
    "controller",
    "get",
    "the",
    "a",
    "an",
    "of",
    "for",
    "by",
    "to",
    "and",
    "or",
    "with",
    "mcp",
    "api",
    "data",
    "info",
    "information",
    "all",
    "details",
}


def verb(tool: ToolSpec) -> str:
    w = words(tool.name)
    return w[0] if w else ""


def kind(tool: ToolSpec) -> str:
    """``list`` (returns items), ``action`` (changes something) or ``get`` (returns a record)."""
    w = words(tool.name)
    if w and w[0] in ACTION_VERBS:
        return "action"
    if w and (
        w[0] in LIST_VERBS
        or w[-1] in LIST_VERBS
        or "list" in w[:3]  # "sls_list_projects", "get_list_of_sheets"
        or (
            len(w) > 1
            and w[0] == "get"
            and w[-1].endswith("s")
            and w[-1] not in {"details", "status", "news", "stats", "analytics", "settings", "metrics"}
        )
    ):
        return "list"
    if w and (w[0] in ACTION_VERBS or w[-1] in ACTION_VERBS):
        return "action"
    return "get"


def subject(tool: ToolSpec) -> list[str]:
    """The words naming what a tool is about: ``pull_requests_create`` -> ["pull", "request"]."""
    rest = [w for w in words(tool.name) if w not in _STOP and w not in LIST_VERBS and w not in ACTION_VERBS]
    return [*rest[:-1], singular(rest[-1])] if rest else ["item"]


def noun(tool: ToolSpec) -> str:
    """The thing a tool is about: ``search_locations_tool`` -> "location"."""
    return subject(tool)[-1]


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3 and word not in _PLURAL_ONLY:
        return word[:-1]
    return word


_PLURAL_ONLY = {
    "news",
    "series",
    "species",
    "canvas",
    "alias",
    "atlas",
    "analytics",
    "physics",
    "mathematics",
    "economics",
    "kudos",
}


def _pack(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any]:
    """The record a getter returns: by the tool's purpose, theme, nouns, then described fields."""
    name = " ".join(words(tool.name))
    first = _first_sentence(tool)
    w = words(tool.name)
    sql = any(isinstance(v, str) and _SQL.match(v) for v in args.values())
    steps = (
        lambda: results.shape("run", tool, args, ctx) if sql else None,
        lambda: _declared(tool, args, ctx),
        lambda: _by_purpose(purpose.purposes(tool, strong=True), tool, args, ctx),
        lambda: texts.transform(w, args),
        lambda: texts.ack(w, tool.description, ctx, args),
        lambda: _head(tool, args, ctx, index),
        lambda: themes.themed(name, tool, args, ctx, index),
        lambda: _by_purpose(purpose.purposes(tool, strong=False), tool, args, ctx),
        lambda: _by_purpose([p] if (p := purpose.described_purpose(tool)) else [], tool, args, ctx),
        lambda: _kind_of_thing(tool, args, ctx, index, description=False),
        lambda: themes.themed(first, tool, args, ctx, index),
        lambda: _kind_of_thing(tool, args, ctx, index),
        lambda: _described(tool, args, ctx),
    )
    return _first(steps) or entities.fallback(_head_noun(tool), ctx, index)


def _first(steps: tuple[Any, ...]) -> dict[str, Any] | None:
    """The first shape that recognises the tool, most specific first."""
    return next((out for step in steps if (out := step()) is not None), None)


def _item(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any]:
    """One item of a list/search result: a thing of the kind the tool lists."""
    name = " ".join(words(tool.name))
    first = _first_sentence(tool)
    steps = (
        lambda: _head(tool, args, ctx, index),
        lambda: themes.themed(name, tool, args, ctx, index),
        lambda: _kind_of_thing(tool, args, ctx, index, description=False),
        lambda: _web(tool, args, ctx, index),
        lambda: themes.themed(first, tool, args, ctx, index),
        lambda: _kind_of_thing(tool, args, ctx, index),
        lambda: _described(tool, args, ctx),
    )
    return _first(steps) or _found(tool, args, ctx, index) or entities.fallback(_head_noun(tool), ctx, index)


_FOUND = ("{Q}: a survey", "{Q} in practice", "Notes on {q}", "{Q}: what we know", "A short guide to {q}")


def _found(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A hit of a search nothing above knows the things of: titled after what was searched for, never a stock name."""
    if not set(words(tool.name)) & (LIST_VERBS - {"list", "browse"}):
        return None
    key, query = entities.focus(args)
    if not query or not set(words(key)) & {
        "query",
        "q",
        "search",
        "keyword",
        "keywords",
        "term",
        "text",
        "title",
        "topic",
    }:
        return None
    q = " ".join(query.split())[:80]
    title = _FOUND[(index + len(q)) % len(_FOUND)].format(Q=q[:1].upper() + q[1:], q=q)
    return {"id": entities.ident(_head_noun(tool), ctx), "title": title}


def _head(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A record of the kind the head noun names ("crm_get_contact_properties" -> a property), if one is known."""
    text = " ".join(words(tool.name)) + " " + _first_sentence(tool)
    for module in (things, catalog, domains):
        out = module.record([_head_noun(tool)], text, args, ctx, index)
        if out is not None:
            return out
    return None


def _kind_of_thing(
    tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int, description: bool = True
) -> dict[str, Any] | None:
    """A record of the kind of thing the tool's name (then its description's first sentence) is about."""
    text = " ".join(words(tool.name)) + " " + _first_sentence(tool)
    w = words(tool.name)
    cut = next((i for i, x in enumerate(w) if x in _LINKERS and i > 1), len(w))  # "find_posts_by_tag": posts, not tags
    nouns = [
        singular(x) for x in w[:cut] if x not in _STOP and x not in LIST_VERBS and x not in ACTION_VERBS
    ] or subject(tool)
    for module in (things, catalog, domains):
        out = module.record(nouns, text, args, ctx, index)
        if out is not None:
            return out
    if description:
        said = [
            singular(x)
            for x in re.findall(r"[a-z]+", _first_sentence(tool))[:14]
            if x not in _STOP and singular(x) not in _VAGUE
        ]
        for module in (things, catalog, domains):
            out = module.record(said[::-1], text, args, ctx, index)  # record() tries the last noun first
            if out is not None:
                return out
    return None


def _first_sentence(tool: ToolSpec) -> str:
    return re.split(r"(?<=[.!?])\s|\n", tool.description.strip().lower(), maxsplit=1)[0][:160]


def _by_purpose(found: list[str], tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    for p in found:
        out = results.shape(p, tool, args, ctx)
        if out is not None:
            return out
    return None


_SEARCHY = {
    "search",
    "web",
    "internet",
    "google",
    "bing",
    "duckduckgo",
    "brave",
    "exa",
    "tavily",
    "serp",
    "result",
    "item",
    "crawl",
}
_WEB = _SEARCHY - {"search", "result", "item"}
_WEB_TEXT = re.compile(r"\bweb\b|internet|search engine|google|bing|duckduckgo|websites?\b|web pages?", re.I)
_SITES = (
    "en.wikipedia.org/wiki",
    "www.britannica.com/topic",
    "www.bbc.com/news",
    "medium.com/@techwriter",
    "www.theguardian.com/science",
)


def _web(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A web search hit about the query, for search tools about no particular kind of thing."""
    w = set(words(tool.name))
    if not w & _SEARCHY or (
        w & {"search", "result", "item"} and not w & _WEB and not _WEB_TEXT.search(tool.description)
    ):
        return None  # a search of works, products or cigarettes returns those, not web pages
    _, query = entities.focus(args)
    query = (query or ctx.rng.choice(vocab.QUERIES["general"])).strip()
    site = _SITES[index % len(_SITES)]
    slug = re.sub(r"[^a-z0-9]+", "_" if "wiki" in site else "-", query.lower()).strip("_-")
    title = (query[0].upper() + query[1:]) if query else "Results"
    titles = (
        f"{title} - Wikipedia",
        f"{title} | Britannica",
        f"{title}: what you need to know - BBC News",
        f"A practical guide to {query.lower()} | Medium",
        f"{title} | The Guardian",
    )
    return {
        "title": titles[index % len(titles)],
        "url": f"https://{site}/{slug}",
        "snippet": f"An overview of {query.lower()}: background, key facts and recent developments.",
        "published_at": entities.stamp(ctx, -400, -2),
    }


_DECLARED = re.compile(r"\breturns?\b[^.]{0,80}?\b(?:with|containing|including|has|of)\b([^.]{4,200})", re.I)
_KEY = re.compile(r"""['"`](\w+)['"`]\s*(?:\((\w+)\))?""")


def _declared(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The keys a description says the result has ("Returns a dictionary with 'installed' (bool) and 'version' (str)
    or 'error' (str)": installed and version; the error is the other outcome), as the tool's own output schema."""
    m = _DECLARED.search(tool.description or "")
    if m is None:
        return None
    first = re.split(r"""\s+or\s+(?=['"`])""", m.group(1))[0]  # "..., or 'error'" names what a failure returns
    keys = _KEY.findall(first)
    if len(keys) < 2:
        return None
    out: dict[str, Any] = {}
    for key, kind in keys:
        if kind in ("bool", "boolean"):
            out[key] = ctx.rng.random() < 0.85
        elif kind in ("int", "integer", "float", "number"):
            value = texts.field_value(key, ctx, args)
            out[key] = value if isinstance(value, (int, float)) else ctx.rng.randint(1, 500)
        else:
            value = texts.field_value(key, ctx, args)
            out[key] = value if value is not None else make_value(key, {"type": "string"}, ctx)[0]
    return out


_RETURNS = re.compile(r"(?=\b(?:returns?|including|includes|such as|containing|contains)\s*:?\s*([^.\n]{5,160}))", re.I)


def _described_fields(description: str) -> list[str]:
    """Field names from "Returns temperature, conditions and humidity" in a tool's description."""
    best: list[str] = []
    for m in _RETURNS.finditer(description or ""):
        fields = []
        for part in re.split(r",|\band\b|\bor\b|;", m.group(1)):
            w = re.findall(r"[a-zA-Z]+", part.lower())
            w = [x for x in w if x not in _FILLER]
            if 1 <= len(w) <= 3:
                fields.append("_".join(w))
        fields = list(dict.fromkeys(fields))[:5]
        if len(fields) >= len(best):  # on a tie the later, more specific list wins
            best = fields
    return best if len(best) >= 2 else []


def _described(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    """The fields a description promises, when at least two have names that say what they hold."""
    out = {}
    for field in _described_fields(tool.description):
        value = texts.field_value(field, ctx, args)
        if value is not None:
            out[field] = value
    return out if len(out) >= 2 else None


_FILLER = {"the", "a", "an", "of", "its", "their", "etc", "current", "data", "information", "details", "list", "with"}


def simulate(
    tool: ToolSpec, args: dict[str, Any], ctx: Context, provide: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A result for ``tool(args)``; ``provide`` maps fields to values a later step will use."""
    provide = provide or {}
    rng = ctx.rng
    if tool.output_schema and (tool.output_schema.get("properties") or {}):
        result, _ = make_value("result", tool.output_schema, ctx)
        if isinstance(result, dict):
            result.update(
                {k: v for k, v in _echo(tool, args).items() if k in (tool.output_schema.get("properties") or {})}
            )
            result.update(provide)
            return result
    k = kind(tool)
    w = words(tool.name)
    if k == "get" and w and (w[0] in _CHANGES or (w[0] not in _GETTERS and any(x in ACTION_VERBS for x in w[1:]))):
        k = "action"  # "discord_add_reaction" changes something, whatever its first word
    thing = _head_noun(tool)
    if k == "list":
        special = _by_purpose(
            [p for p in purpose.purposes(tool, True) + purpose.purposes(tool, False) if p in _LISTING], tool, args, ctx
        )
        if special is None and any(isinstance(v, str) and _SQL.match(v) for v in args.values()):
            special = results.shape("run", tool, args, ctx)
        if special is not None:
            return _provided(special, provide)
        n = rng.randint(2, 4)
        items = []
        for i in range(n):
            record = _item(tool, args, ctx, i)
            item = (
                {}
                if "id" in record
                else {f"{thing}_id" if thing != "item" else "id": f"{thing[:3]}_{rng.randint(10000, 99999)}"}
            )
            item.update(record)
            items.append(item)
        return _provided({_plural(thing): items, "total": n + rng.randint(0, 30)}, provide)
    if k == "action":
        found = [p for p in purpose.purposes(tool, True) if p in _ACTING]
        found += [p for p in purpose.purposes(tool, False) if p in ("browser", "export")]
        if w and w[0] in ACTION_VERBS | _CHANGES:  # "terminate_simulator_session" ends a session; it simulates nothing
            lead = purpose.STRONG.get(w[0]) or purpose.WEAK.get(w[0])
            numeric = bool(args) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in args.values())
            found = [
                p
                for p in found
                if p == lead or (p == "generate" and w[0] in ("write", "create")) or (p == "calculate" and numeric)
            ]  # add(a=9, b=33) adds numbers; it creates nothing
        shaped = _by_purpose(found, tool, args, ctx)
        if shaped is not None:
            out = _echo(tool, args)
            out.update(shaped)
            out.update(provide)
            return out
        out = _confirm(tool, args, ctx, thing)
        out.update(provide)
        return out
    out = _echo(tool, args)
    for key, value in _pack(tool, args, ctx).items():  # a name or symbol the call asked for stays the one it asked for
        if not (isinstance(value, str) and isinstance(out.get(key), str)):
            out[key] = value
    out.update(provide)
    return out


_MAKING = {
    "create",
    "add",
    "insert",
    "register",
    "book",
    "schedule",
    "upload",
    "publish",
    "post",
    "submit",
    "invite",
    "send",
    "reply",
    "comment",
}


def _confirm(tool: ToolSpec, args: dict[str, Any], ctx: Context, thing: str) -> dict[str, Any]:
    """What an API says after a change: success, the new id when something was made, and when it happened."""
    w = words(tool.name)
    v = next((x for x in w if x in ACTION_VERBS), verb(tool))
    named = any("id" in words(key) or key.endswith("Id") for key in args)  # the call already names the thing
    out: dict[str, Any] = {"status": "success"}
    if v in _MAKING and not (named and v in ("send", "reply", "comment")):
        out[f"{thing}_id"] = f"{thing[:3]}_{ctx.rng.randint(10000, 99999)}"
    out.update(_echo(tool, args))
    listed = [x for x in args.values() if isinstance(x, list)]
    if "batch" in w or (listed and "bulk" in w):
        out["processed"] = max(1, sum(len(x) for x in listed))
    now = entities.stamp(ctx, 0, 0.001)
    if v in _MAKING - {"send", "reply", "comment"} or v in ("install", "deploy", "save"):
        out["created_at"] = now
    elif v in ("delete", "remove"):
        out["deleted"] = True
    elif v in ("cancel", "archive", "close"):
        out["state"] = {"cancel": "cancelled", "archive": "archived"}.get(v, "closed")
    elif v in ("send", "reply", "comment"):
        out["sent_at"] = now
    elif v in ("push", "trigger", "start", "run", "execute"):
        out["started_at"] = now
    else:
        out["updated_at"] = now
    return out


_GETTERS = LIST_VERBS | {
    "get",
    "fetch",
    "read",
    "show",
    "retrieve",
    "describe",
    "check",
    "view",
    "download",
    "export",
    "count",
    "calculate",
    "compute",
    "analyze",
    "validate",
    "summarize",
    "translate",
    "is",
    "has",
    "can",
}
_CHANGES = {
    "unregister",
    "deregister",
    "revoke",
    "disable",
    "enable",
    "approve",
    "reject",
    "pause",
    "resume",
    "restart",
    "reset",
    "unsubscribe",
    "uninstall",
    "unlink",
    "unpin",
    "unfollow",
    "block",
    "unblock",
    "mute",
    "unmute",
    "kick",
    "ban",
    "launch",
    "spawn",
    "boot",
    "shutdown",
    "terminate",
    "kill",
}
_VAGUE = {
    "service",
    "server",
    "function",
    "resource",
    "instance",
    "app",
    "application",
    "host",
    "node",
    "object",
    "call",
    "type",
    "state",
    "context",
    "change",
    "history",
    "content",
    "text",
    "page",
    "source",
    "data",
    "result",
    "item",
    "option",
    "mode",
    "model",
    "key",
    "name",
    "id",
    "value",
    "code",
    "user",
    "project",
    "system",
    "session",
    "time",
    "list",
    "file",
}
_LINKERS = {"by", "for", "from", "with", "in", "on", "of", "using", "via", "to"}


def _plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("x", "ch", "sh")) else "s")


def _head_noun(tool: ToolSpec) -> str:
    """The thing a tool returns: ``find_posts_by_tag`` -> "post" (``noun`` would say "tag")."""
    w = words(tool.name)
    cut = next((i for i, x in enumerate(w) if x in _LINKERS and i > 1), None)
    if cut is None:
        return noun(tool)
    rest = [x for x in w[:cut] if x not in _STOP and x not in LIST_VERBS and x not in ACTION_VERBS]
    return singular(rest[-1]) if rest else noun(tool)


_LISTING = {"market", "logs", "run", "browser"}
_ACTING = {
    "summarize",
    "translate",
    "calculate",
    "analyze",
    "generate",
    "validate",
    "simulate",
    "think",
    "browser",
    "run",
    "crypt",
    "connect",
    "echo",
}
_SQL = re.compile(r"\s*(select|with|insert|update|delete|show)\s", re.I)


def _same_key(a: str, b: str) -> bool:
    """``event_id`` and ``eventId`` name the same field."""
    return a.replace("_", "").replace("-", "").lower() == b.replace("_", "").replace("-", "").lower()


def _provided(result: dict[str, Any], provide: dict[str, Any]) -> dict[str, Any]:
    """Put the values a later step reads into the first item of the result's list (or at the top).

    When the items already carry that field under another spelling (``event_id`` for ``eventId``),
    every item is renamed to the spelling the next call uses, so an item has one id, not two.
    """
    if not provide:
        return result
    lists = [v for v in result.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
    if not lists:
        result.update(provide)
        return result
    items = lists[0]
    for field in provide:
        old = next((k for k in items[0] if k != field and _same_key(k, field)), None)
        if old is not None:
            items[:] = [{(field if k == old else k): v for k, v in item.items()} for item in items]
    items[0].update(provide)
    return result


def _echo(tool: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """Identifiers and short scalars from the call, as a real API echoes what it was asked for."""
    return {
        k: v
        for k, v in args.items()
        if isinstance(v, (str, int, float)) and not isinstance(v, bool) and (not isinstance(v, str) or len(v) <= 60)
    }
