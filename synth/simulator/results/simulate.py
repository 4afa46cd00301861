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

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import described, domains, entities, purpose, texts, themes, things
from synth.simulator.results import more_kinds as catalog
from synth.simulator.results import verbs as results
from synth.simulator.tables import table
from synth.simulator.toolnames import (
    ACTION_VERBS,
    CHANGES,
    GETTERS,
    LINKERS,
    LIST_VERBS,
    STOP,
    head_noun,
    kind,
    plural,
    singular,
    subject,
    verb,
)
from synth.simulator.values.values import Context, make_value, words


def _pack(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int = 0) -> dict[str, Any]:
    """The record a getter returns: by the tool's purpose, theme, nouns, then described fields."""
    name = " ".join(words(tool.name))
    first = _first_sentence(tool)
    w = words(tool.name)
    sql = any(isinstance(v, str) and _SQL.match(v) for v in args.values())
    steps = (
        lambda: results.shape("run", tool, args, ctx) if sql else None,
        lambda: described.declared(tool, args, ctx),
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
        lambda: described.described(tool, args, ctx),
    )
    return _first(steps) or entities.fallback(head_noun(tool), ctx, index)


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
        lambda: described.described(tool, args, ctx),
    )
    return _first(steps) or _found(tool, args, ctx, index) or entities.fallback(head_noun(tool), ctx, index)


_QUERY_KEYS = table("results/simulate", "query_keys", frozenset[str])
_FOUND = table("results/simulate", "found", tuple[str, ...])


def _found(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A hit of a search nothing above knows the things of: titled after what was searched for, never a stock name."""
    if not set(words(tool.name)) & (LIST_VERBS - {"list", "browse"}):
        return None
    key, query = entities.focus(args)
    if not query or not set(words(key)) & _QUERY_KEYS:
        return None
    q = " ".join(query.split())[:80]
    title = _FOUND[(index + len(q)) % len(_FOUND)].format(Q=q[:1].upper() + q[1:], q=q)
    return {"id": entities.ident(head_noun(tool), ctx), "title": title}


def _head(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A record of the kind the head noun names ("crm_get_contact_properties" -> a property), if one is known."""
    return _record([head_noun(tool)], _tool_text(tool), args, ctx, index)


def _record(nouns: list[str], text: str, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A record from the first of the noun families (things, catalog, domains) that knows one of ``nouns``."""
    for module in (things, catalog, domains):
        out = module.record(nouns, text, args, ctx, index)
        if out is not None:
            return out
    return None


def _tool_text(tool: ToolSpec) -> str:
    return " ".join(words(tool.name)) + " " + _first_sentence(tool)


def _kind_of_thing(
    tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int, description: bool = True
) -> dict[str, Any] | None:
    """A record of the kind of thing the tool's name (then its description's first sentence) is about."""
    text = _tool_text(tool)
    w = words(tool.name)
    cut = next((i for i, x in enumerate(w) if x in LINKERS and i > 1), len(w))  # "find_posts_by_tag": posts, not tags
    nouns = [
        singular(x) for x in w[:cut] if x not in STOP and x not in LIST_VERBS and x not in ACTION_VERBS
    ] or subject(tool)
    if (out := _record(nouns, text, args, ctx, index)) is not None:
        return out
    if description:
        said = [
            singular(x)
            for x in re.findall(r"[a-z]+", _first_sentence(tool))[:14]
            if x not in STOP and singular(x) not in _VAGUE
        ]
        return _record(said[::-1], text, args, ctx, index)  # record() tries the last noun first
    return None


def _first_sentence(tool: ToolSpec) -> str:
    return re.split(r"(?<=[.!?])\s|\n", tool.description.strip().lower(), maxsplit=1)[0][:160]


def _by_purpose(found: list[str], tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    for p in found:
        out = results.shape(p, tool, args, ctx)
        if out is not None:
            return out
    return None


_SEARCHY = table("results/simulate", "searchy", frozenset[str])
# the search words that mean the web (all but search, result, item)
_WEB = table("results/simulate", "web", frozenset[str])
_WEB_TEXT = table("results/simulate", "web_text", re.Pattern[str])
_SITES = table("results/simulate", "sites", tuple[str, ...])


def _web(tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> dict[str, Any] | None:
    """A web search hit about the query, for search tools about no particular kind of thing."""
    w = set(words(tool.name))
    if not w & _SEARCHY or (w & _SETS["web.search"] and not w & _WEB and not _WEB_TEXT.search(tool.description)):
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


def simulate(
    tool: ToolSpec, args: dict[str, Any], ctx: Context, provide: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A result for ``tool(args)``; ``provide`` maps fields to values a later step will use."""
    provide = provide or {}
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
    if k == "get" and w and (w[0] in CHANGES or (w[0] not in GETTERS and any(x in ACTION_VERBS for x in w[1:]))):
        k = "action"  # "discord_add_reaction" changes something, whatever its first word
    if k == "list":
        return _agreeing(_provided(_listed(tool, args, ctx), provide), args)
    out = _acted(tool, args, ctx) if k == "action" else _got(tool, args, ctx)
    out.update(provide)
    return _agreeing(out, args)


def _agreeing(result: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A result whose records carry what the call filtered by: a random Pokémon "of type fire" has fire among
    its ``types`` (it came back water and ice), a track of genre jazz has jazz among its ``genres``."""
    asked = {f"{k}s": v for k, v in args.items() if isinstance(v, str) and v and not k.endswith("s")}
    records = [result] + [x for v in result.values() if isinstance(v, list) for x in v if isinstance(x, dict)]
    for record in records:
        for key, value in asked.items():
            held = record.get(key)
            if isinstance(held, list) and held and all(isinstance(x, str) for x in held):
                if value.lower() not in (x.lower() for x in held):
                    record[key] = [value, *held[1:]]
    return result


def _listed(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A list tool's items (with ids), unless what it lists has a shape of its own (trades, logs, rows)."""
    rng = ctx.rng
    thing = head_noun(tool)
    special = _by_purpose(
        [p for p in purpose.purposes(tool, True) + purpose.purposes(tool, False) if p in _LISTING], tool, args, ctx
    )
    if special is None and any(isinstance(v, str) and _SQL.match(v) for v in args.values()):
        special = results.shape("run", tool, args, ctx)
    if special is not None:
        return special
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
    return {plural(thing): items, "total": n + rng.randint(0, 30)}


def _acted(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """An action's result: what its purpose makes (a summary, a command's output), else a confirmation."""
    w = words(tool.name)
    found = [p for p in purpose.purposes(tool, True) if p in _ACTING]
    found += [p for p in purpose.purposes(tool, False) if p in ("browser", "export")]
    if w and w[0] in ACTION_VERBS | CHANGES:  # "terminate_simulator_session" ends a session; it simulates nothing
        lead = purpose.STRONG.get(w[0]) or purpose.WEAK.get(w[0])
        numeric = bool(args) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in args.values())
        found = [
            p
            for p in found
            if p == lead or (p == "generate" and w[0] in ("write", "create")) or (p == "calculate" and numeric)
        ]  # add(a=9, b=33) adds numbers; it creates nothing
    shaped = _by_purpose(found, tool, args, ctx)
    if shaped is None:
        return _confirm(tool, args, ctx, head_noun(tool))
    out = _echo(tool, args)
    out.update(shaped)
    return out


def _got(tool: ToolSpec, args: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A getter's record, keeping the names and symbols the call asked for."""
    out = _echo(tool, args)
    for key, value in _pack(tool, args, ctx).items():  # a name or symbol the call asked for stays the one it asked for
        if not (isinstance(value, str) and isinstance(out.get(key), str)):
            out[key] = value
    return out


_MAKING = table("results/simulate", "making", frozenset[str])


def _confirm(tool: ToolSpec, args: dict[str, Any], ctx: Context, thing: str) -> dict[str, Any]:
    """What an API says after a change: success, the new id when something was made, and when it happened."""
    w = words(tool.name)
    v = next((x for x in w if x in ACTION_VERBS), verb(tool))
    named = any("id" in words(key) or key.endswith("Id") for key in args)  # the call already names the thing
    out: dict[str, Any] = {"status": "success"}
    if v in _MAKING and not (named and v in _POOLS["confirm.send"]):
        out[f"{thing}_id"] = f"{thing[:3]}_{ctx.rng.randint(10000, 99999)}"
    out.update(_echo(tool, args))
    listed = [x for x in args.values() if isinstance(x, list)]
    if "batch" in w or (listed and "bulk" in w):
        out["processed"] = max(1, sum(len(x) for x in listed))
    now = entities.stamp(ctx, 0, 0.001)
    if v in _MAKING - _SETS["confirm.send"] or v in _POOLS["confirm.install"]:
        out["created_at"] = now
    elif v in ("delete", "remove"):
        out["deleted"] = True
    elif v in _POOLS["confirm.cancel"]:
        out["state"] = _MAPS["confirm.state"].get(v, "closed")
    elif v in _POOLS["confirm.send"]:
        out["sent_at"] = now
    elif v in _POOLS["confirm.push"]:
        out["started_at"] = now
    else:
        out["updated_at"] = now
    return out


_VAGUE = table("results/simulate", "vague", frozenset[str])
_LISTING = table("results/simulate", "listing", set[str])
_ACTING = table("results/simulate", "acting", frozenset[str])
_SQL = table("results/simulate", "sql", re.Pattern[str])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/simulate", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/simulate", "sets", dict[str, frozenset[str]])
# words that name other words (a field's value by what was asked), by the function that uses them
_MAPS = table("results/simulate", "maps", dict[str, dict[str, str]])


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
