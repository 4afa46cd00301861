"""What a string parameter of one kind holds, for the rules in ``synth.simulator.values.string_rules``:
an id, a resource's name, a thing's title, code, a kubectl name, a search query, a person's or
thing's name, a spreadsheet cell, a path whose extension fits the tool, free text for its slot."""

from __future__ import annotations

import random
import re
from typing import Any

from synth.simulator import vocab
from synth.simulator.tables import table
from synth.simulator.values.context import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("values/string_values", "keywords", dict[str, re.Pattern[str]])


def identifier(name: str, rng: random.Random) -> str:
    stem = [w for w in words(name) if w not in _SETS["identifier.stem"]]
    prefix = (stem[-1][:3] if stem else "id").lower()
    return f"{prefix}_{rng.randint(10000, 99999)}"


def slug(ctx: Context, noun: str) -> str:
    """A name for a workspace-like resource: ``sales-analytics``, ``billing_db``."""
    base = ctx.rng.choice(vocab.RESOURCE_STEMS)
    suffix = vocab.RESOURCE_SUFFIX.get(noun, "")
    return f"{base}{suffix}"


def titled(ctx: Context, subject: str) -> str:
    """A name for a thing a person creates: a playlist, a project, a note."""
    pool = vocab.NAMED_THINGS.get(subject)
    return ctx.rng.choice(pool) if pool else ctx.rng.choice(vocab.TITLES)


_PEOPLE = table("values/string_values", "people", frozenset[str])


def sql_for(about: str) -> tuple[str, ...]:
    """The statements a tool's purpose takes (its name and first sentence, ``about``): CREATE TABLE for a tool
    that creates tables, INSERT/UPDATE/DELETE for one that writes, SELECT otherwise (issue 38: write_query
    was given SELECTs)."""
    said = set(re.findall(r"[a-z]+", about.lower()))
    if said & _SETS["sql.ddl"] or {"create", "table"} <= said:
        return vocab.SQL_DDL
    return vocab.SQL_WRITE if said & _SETS["sql.write"] else vocab.SQL


def code(w: set[str], name: str, text: str, ctx: Context) -> tuple[Any, str]:
    if "sql" in text or (w & {"query", "where"} and ctx.topic == "data"):
        return ctx.rng.choice(vocab.SQL_WHERE if "where" in w else sql_for(ctx.about)), "code"
    if "mermaid" in text:
        return "graph TD; Signup-->Verify; Verify-->Dashboard", "code"
    if w & _SETS["code.expression"] and "javascript" not in text:
        return ctx.rng.choice(vocab.EXPRESSIONS), "code"
    if "javascript" in text or "js" in w:
        return ctx.rng.choice(vocab.JS_SNIPPETS), "code"
    return ctx.rng.choice(vocab.PY_SNIPPETS), "code"


def kube_name(w: set[str], ctx: Context) -> tuple[str, str]:
    rng = ctx.rng
    if w & {"context", "cluster"}:
        return rng.choice(_POOLS["kube_name.prod-eu-west-1"]), "name"
    if w & {"resource", "kind"} and not w & {"name"}:
        return rng.choice(_POOLS["kube_name.deployment"]), "name"
    if "pod" in w:
        return (
            f"{rng.choice(_POOLS['kube_name.checkout-api'])}-{rng.choice(('7c9f8d6b5', '5d4b9c7f8'))}-{rng.choice(_POOLS['kube_name.x2kqp'])}",  # noqa: E501
            "id",
        )
    if "node" in w:
        return f"ip-10-0-{rng.randint(1, 9)}-{rng.randint(10, 250)}.eu-west-1.compute.internal", "id"
    if "container" in w:
        return rng.choice(_POOLS["kube_name.app"]), "name"
    if w & _SETS["kube_name.annotations"]:
        return rng.choice(_POOLS["kube_name.team=payments"]), "id"
    if "patch" in w:
        return rng.choice(('{"spec": {"replicas": 3}}', '{"metadata": {"labels": {"tier": "backend"}}}')), "code"
    return rng.choice(_POOLS["kube_name.name"]), "name"


_QUERY_POOLS = table("values/string_values", "query_pools", dict[str, str])
# subjects whose named things are not search queries
_NOT_NAMED = table("values/string_values", "not_named", tuple[str, ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("values/string_values", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("values/string_values", "sets", dict[str, frozenset[str]])


def query(ctx: Context) -> str:
    """What a person searches for: the kind of thing the tool finds (a book for a book search), else the server's
    topic."""
    subject = _QUERY_POOLS.get(ctx.subject, ctx.subject)
    if subject in vocab.QUERIES:
        return ctx.rng.choice(vocab.QUERIES[subject])
    if subject in vocab.NAMED_THINGS and subject not in _NOT_NAMED:
        return ctx.rng.choice(vocab.NAMED_THINGS[subject])
    return ctx.rng.choice(vocab.QUERIES.get(ctx.topic, vocab.QUERIES["general"]))


_ABOUT = table("values/string_values", "about", re.Pattern[str])
_ASKED = table("values/string_values", "questions", tuple[str, ...])


def question(text: str, ctx: Context) -> str | None:
    """A question in words for a parameter that takes one ("a natural language query about Pokémon"), about
    what the description says it is about; None when it does not say."""
    about = _ABOUT.search(text)
    if about is None:
        return None
    return ctx.rng.choice(_ASKED).format(x=about.group(1).strip())


def named(w: set[str], text: str, ctx: Context) -> tuple[str, str]:
    """A name: a person's when the thing is a person, else the kind of name that thing gets."""
    fake = seed_faker(ctx.rng)
    if w & _SETS["named.company"]:
        return fake.company(), "name"
    if w & {"product", "item"}:
        return ctx.rng.choice(vocab.PRODUCTS), "name"
    if w & {"file"}:
        return ctx.rng.choice(vocab.FILE_PATHS).rsplit("/", 1)[-1], "name"
    if w & _SETS["named.project"]:
        return slug(ctx, next(iter(sorted(w & set(vocab.RESOURCE_SUFFIX))), "")), "name"
    subject = next((x for x in sorted(w) if x in vocab.NAMED_THINGS), ctx.subject)  # "stop_name" names a stop
    if w & _SETS["named.title"] and _KEYWORDS["named.wiki"].search(ctx.about):
        subject = "article"
    if (
        w & _SETS["named.firstname"]
        or subject in _PEOPLE
        or (w == {"name"} and set(re.findall(r"[a-z]+", ctx.about[:40])) & _PEOPLE)
        or _KEYWORDS["named.person"].search(text)
    ):
        return (fake.first_name() if "first" in w else fake.last_name() if "last" in w else fake.name()), "name"
    if w & {"title", "remark"} or subject in vocab.NAMED_THINGS:
        return titled(ctx, subject), "text" if w & {"title", "remark"} else "name"
    return titled(ctx, subject), "name"


def cell(w: set[str], ctx: Context) -> str:
    """Spreadsheet cells as a spreadsheet names them: A1, a range A1:D20."""
    if w & {"range"}:
        return ctx.rng.choice(_POOLS["cell.A1:D20"])
    if w & _SETS["cell.top"]:
        return ctx.rng.choice(("A1", "B2"))
    if w & _SETS["cell.bottom"]:
        return ctx.rng.choice(_POOLS["cell.D20"])
    return f"{ctx.rng.choice('ABCDEF')}{ctx.rng.randint(1, 40)}"


def path(w: set[str], text: str, ctx: Context) -> str:
    """A path whose extension fits what the tool works on: a video for a video, a folder for a cwd."""
    if "cwd" in w or "directory" in text.split()[:6]:
        return ctx.rng.choice(vocab.DIRECTORIES)
    for where in (" ".join(w), text, ctx.about):  # the parameter first, then the tool it belongs to
        for media, paths in vocab.MEDIA_PATHS.items():
            if re.search(rf"\b{media}", where):
                return ctx.rng.choice(paths)
    return ctx.rng.choice(vocab.FILE_PATHS)


def body(w: set[str], text: str, ctx: Context) -> str:
    """Free text that fits its slot: HTML for html, a short message for a message, a paragraph for content."""
    rng = ctx.rng
    if "html" in w or "html" in text.split():
        return "<h1>Trail Runner 2</h1><p>Lightweight running shoe with a grippy sole.</p>"
    if "xml" in w:
        return '<order id="4521"><item sku="TR2-42" qty="1"/></order>'
    if w & _SETS["body.markdown"]:
        return rng.choice(vocab.PARAGRAPHS)
    if w & {"description", "summary"}:
        return rng.choice(vocab.DESCRIPTIONS.get(ctx.subject, vocab.MESSAGES))
    return rng.choice(vocab.MESSAGES)
