"""The pack format, as pydantic models (the JSON Schema in registry/packs/pack.schema.json is made from them).

Slots (see ``synth.packs.template``):
- in goals, ``{param}`` is a value of the call's parameter, written as the user would say it;
- in results, ``{param}`` is the argument (typed when it is the whole string), plus generators
  ``{int:1-9}``, ``{num:1.5-9.9}``, ``{pick:a|b}``, ``{date:+3}``, ``{fake:name}``, ``{id:AB-####}``,
  and lists ``[{"$repeat": "2-4", "$item": {...}}]`` (``{n}`` is the item's number);
- in answers, ``{param}``, ``{r.path.0.field}`` (a value of the result), ``{count:r.path}`` and
  ``{each:r.path|$title ($score points)}`` (every item of a list, each said by the text after ``|``).

A goal may declare the items it asks for (``Goal.items``: the periods, the number wanted, each entity, a
verdict); its answer is then written from them, each said from the result or why not.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from synth.records import Sandbox

JSON = Any


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Range(_Model):
    """Numbers from ``range[0]`` to ``range[1]``; floats when either bound or ``step`` is a float."""

    range: tuple[float, float]
    step: float | None = None
    phrase: dict[str, str] = Field(
        default_factory=dict,
        description="how the user says a value, e.g. {'1': 'tomorrow'}; "
        "must contain the value unless the parameter is an enum or boolean",
    )


class Pool(_Model):
    """Literal values (generators allowed in strings), with optional phrasings per value."""

    pool: list[JSON] = Field(min_length=1)
    phrase: dict[str, str] = Field(default_factory=dict)


Values = list[JSON] | Range | Pool


class Item(_Model):
    """One thing a goal asks for (a period, the items wanted, an entity, a verdict, a comparison) and how the
    answer says it from the result; slots as in ``answers``."""

    ask: str = Field(min_length=2, description="the request's own words for it: 'month', 'each chain', 'maintained'")
    say: str = Field(
        min_length=2,
        description="the answer's words for it, from the result: '{r.total30d} over the past 30 days', "
        "'{each:r.chains|$name ($tvl)}'; a verdict says yes or no and why: 'yes: the newest release is from "
        "{r.0.created_at}'",
    )
    when: str | None = Field(
        default=None,
        description="a verdict's test on the result, 'SLOT OP VALUE' ('r.0.created_at >= 2025-11-01', "
        "'r.apy_change < 1', 'r.stops has Mong Kok'): ``say`` when it holds, ``otherwise`` when not",
    )
    otherwise: str | None = Field(default=None, description="the verdict's words when ``when`` does not hold")
    missing: str | None = Field(
        default=None,
        description="what the answer says when the result lacks what ``say`` needs ('the result has no 30-day "
        "figure'); default: 'the result gives no figure for <ask>'",
    )


class Goal(_Model):
    """A request: its text, values it implies without saying them (enum or boolean parameters only), and the
    items it asks for, from which its answer is written (else the tool's ``answers`` serve)."""

    text: str = Field(min_length=8)
    set: dict[str, JSON] = Field(default_factory=dict)
    items: list[Item] = Field(
        default_factory=list,
        description="what the request asks for, each said in the answer from the result (of the goal's last "
        "tool, for a feed's goal) or why not",
    )
    answer: str | None = Field(
        default=None,
        description="the answer around the items: '{protocol} took {items} in fees.' ({items}: the items "
        "said one after another, 'a, b and c'); default: the items alone",
    )


class Failure(_Model):
    """A real way the tool fails for a correct call (nothing found, a closed market...), and the honest answer."""

    label: Literal["unable_to_accomplish", "internal_error", "input_error"] = "unable_to_accomplish"
    result: JSON
    answer: str = Field(min_length=8)


class Feed(_Model):
    """A value in this tool's result that becomes a parameter of another tool, and goals for the pair."""

    to: str
    param: str
    path: str = Field(description="where the value is in this tool's result, e.g. 'locations.0.name'")
    goals: list[str | Goal] = Field(
        default_factory=list,
        description="requests for the pair; slots are parameters of either tool except the fed one",
    )
    then: list[str | Goal] = Field(
        default_factory=list,
        description="later requests of the same conversation, made after seeing this tool's result, for the "
        "other tool with the value from it ('Open {path}, from that search.'); slots are the other tool's "
        "parameters, the fed one included (the person names what they saw)",
    )


class Followup(_Model):
    """A follow-up the tool's result already answers, and the answer from it (slots as in ``answers``)."""

    ask: str = Field(min_length=8, description="what the person asks next, in their words")
    answer: str = Field(min_length=8, description="the answer, stating the fact from the earlier result")


class Declined(_Model):
    """A request near the server's domain that none of its tools can serve."""

    text: str = Field(min_length=8, description="what a person asks, in their words")
    cannot: str = Field(min_length=3, description="what that needs, as a verb phrase: 'book rides'")


class Ref(_Model):
    """A field that names another entity: the fields it shares with that entity agree with it."""

    entity: str = Field(description="the kind the field names")
    key: str | None = Field(default=None, description="the field of that kind the value matches (default: its id)")
    agree: dict[str, str] = Field(
        default_factory=dict,
        description="this record's field -> the named entity's field it repeats (default: title and name fields "
        "both have)",
    )


class Derived(_Model):
    """A field computed from the entities that name this one (a story's comments, a knowledge base's doc count,
    a gem's latest version), so every view of it agrees with them and a write is seen in it."""

    entity: str = Field(description="the kind whose entities name this one")
    by: str = Field(description="their field that holds this entity's id")
    op: Literal["list", "count", "sum", "first"] = Field(
        default="list",
        description="list: the entities (or their ``field``); count; sum of ``field``; first's ``field``",
    )
    field: str | None = Field(default=None, description="list: this field of each instead of the record; sum, first")
    order: str | None = Field(
        default=None, description="the entities sorted by this field ('-created_at': newest first)"
    )


class Entity(_Model):
    """A kind of thing the server holds (a paper, a doc, an event): its id field, the entities a world starts with;
    or, with ``one``, the one object a server's state is (a chess board, a session, a cart)."""

    id: str = Field(default="", description="the field that holds an entity's id (PMID, slug, id...); '' with one")
    one: bool = Field(
        default=False,
        description="true: the server's state is one object (a board, a session), seeded once; every tool reads or "
        "writes it, with no id in any call",
    )
    refs: dict[str, str | Ref] = Field(
        default_factory=dict,
        description="field -> the kind it names (titleSlug -> problem, story_id -> story, owner -> user): the "
        "entity's title-like fields (or ``agree``) are the named entity's",
    )
    derived: dict[str, Derived] = Field(
        default_factory=dict,
        description="field -> how it is computed from other entities (a story's kids: its comments' ids); shown "
        "wherever the entity is, in the result template's shape",
    )
    seed: list[JSON] = Field(
        min_length=1,
        description="the entities every conversation's world starts with: records in the server's own keys; "
        "generators and $repeat as in results; expanded per conversation from (seed, scenario)",
    )
    open: bool = Field(
        default=False,
        description="true for a server whose holdings have no end (PubMed, a news index): an id or a search "
        "beyond the seeded entities gets an entity made from the result template (the same one every time); "
        "false: an unknown id gets the tool's failure",
    )


class World(_Model):
    """The state behind a server: its kinds of entities."""

    entities: dict[str, Entity] = Field(min_length=1)
    person: str | None = Field(
        default=None,
        description="the kind of the one a conversation is with (a customer, a user): every value drawn from it in "
        "a conversation is the same entity, and a draw with ``of`` keeps to that entity's own (their orders)",
    )


class Draw(_Model):
    """A parameter's value taken from the conversation's world: an id (or a field) of one of its entities."""

    entity: str
    field: str | None = Field(default=None, description="default: the entity's id field")
    of: str | None = Field(
        default=None, description="the field naming the conversation's person (user_id): only their entities"
    )
    where: dict[str, JSON] = Field(
        default_factory=dict, description="only entities with these field values (a pending order to cancel)"
    )


class Touch(_Model):
    """What a tool does to the world: reads, searches, lists, creates, changes or deletes an entity."""

    op: Literal["read", "search", "list", "create", "update", "delete"]
    entity: str
    by: str | None = Field(default=None, description="the parameter naming the entity (read, update, delete)")
    key: str | None = Field(default=None, description="the field ``by`` matches (default: the entity's id field)")
    match: list[str] = Field(
        default_factory=list, description="search: parameters whose words rank entities (by their text fields)"
    )
    where: dict[str, JSON] = Field(
        default_factory=dict,
        description="search/list: only entities whose field equals this value, whatever the call says (a top list "
        "leaves out the parent entries its protocols add up to)",
    )
    within: list[str] = Field(
        default_factory=list,
        description="search: the fields whose words it looks at (a route's destination, a stop's name); default all",
    )
    filter: dict[str, str] = Field(
        default_factory=dict,
        description="parameter -> field: only entities whose field equals the value (an enum value, a status), "
        "holds it (a list field: the chains a protocol runs on) or is one of the values sent (a list of tickers); "
        "a read names its entity among those (a day's close of the stock the call names)",
    )
    limit: str | None = Field(default=None, description="the parameter that says how many items a list holds")
    fuzzy: bool = Field(
        default=False,
        description="search: the server ranks every entity, matching or not (a relevance search that never comes "
        "back empty); by default a search returns only the entities that match its words",
    )
    path: str = Field(default="", description="where the entity (or the list) is in the result; '' = the result")
    set: dict[str, str] = Field(default_factory=dict, description="create/update: parameter -> the field it writes")
    part: str | None = Field(
        default=None,
        description="read: the parameter whose value names a record of the entity shown as its fields (data_type: "
        "dailyFees or dailyRevenue, each a record of the protocol's period totals); the schema default when unsent",
    )
    assign: dict[str, JSON] = Field(
        default_factory=dict,
        description="create/update: parameter -> what the service fills in when the call leaves it out (a "
        "generator: docker names a container '{pick:quirky_turing|eager_hopper}'); without one a result shows "
        "the schema's default or nothing, never a value the person did not give",
    )
    append: dict[str, str] = Field(
        default_factory=dict, description="update: parameter -> a list field the value is added to (a game's moves)"
    )
    cycle: dict[str, list[JSON]] = Field(
        default_factory=dict,
        description="update: field -> the values it steps through, one per write (whose turn: [white, black])",
    )
    since: dict[str, str] = Field(
        default_factory=dict,
        description="search/list: parameter -> field (a dotted path: start.dateTime): only entities whose field is "
        "at or after the value (timeMin)",
    )
    until: dict[str, str] = Field(
        default_factory=dict,
        description="search/list: parameter -> field: only entities whose field is before the value (timeMax)",
    )
    through: dict[str, str] = Field(
        default_factory=dict,
        description="search/list: parameter -> field: only entities whose field is at or before the value (an end "
        "date the range includes); a call that sends it, on a tool with no page size, gets the whole range",
    )
    order: str | None = Field(
        default=None,
        description="search/list: the field the server sorts by ('-points': highest first, 'created': oldest "
        "first); the list is sorted by it",
    )
    sort: str | None = Field(
        default=None,
        description="search/list: the parameter that names the sort field ('points', '-points', 'points desc', "
        "'name asc'); overrides order when the call sends it (a bare field name sorts in order's direction)",
    )
    sort_dir: str | None = Field(
        default=None, description="search/list: the parameter that says asc or desc beside sort's (sort_order)"
    )
    page: str | None = Field(
        default=None, description="search/list: the parameter numbering the page (from 1) of limit items a call shows"
    )
    becomes: dict[str, str] = Field(
        default_factory=dict,
        description="update: field -> the entity's field holding what it becomes, written ahead (a cancelled "
        "order's payment history with its refunds, as the service computes them)",
    )
    each: str | None = Field(
        default=None,
        description="create/update/delete: the list parameter whose items are written one by one (tenants: "
        "[{name, activityStatus}]); an object item's keys are read as parameters, a plain item as this parameter",
    )
    changes: list[str] = Field(
        default_factory=list,
        description="update: the result template's fields that are the write's change (a cancel's status and "
        "refund): shown as the template says and kept by the entity, so later reads see them",
    )
    fields: dict[str, str] = Field(
        default_factory=dict,
        description="result key -> entity field, where the result names a field otherwise (document_id for id); "
        "'' -> field: the result (at path) is that one field of the entity (a bare number, a history list), or for "
        "a search or list each item is (a search that returns object ids)",
    )


class ToolPack(_Model):
    goals: list[str | Goal] = Field(
        min_length=3,
        description="what people want when they need this tool, in their words; no tool or parameter names",
    )
    values: dict[str, Values | Draw] = Field(default_factory=dict)
    cases: list[dict[str, JSON]] = Field(default_factory=list, description="values that must agree, chosen together")
    ask: dict[str, str] = Field(
        default_factory=dict, description="the assistant's question for a value the user left out"
    )
    say: dict[str, list[str]] = Field(
        default_factory=dict, description="how the user gives a value when asked; {value}"
    )
    results: list[JSON] = Field(min_length=1, description="result templates, consistent with the arguments")
    failures: list[Failure] = Field(default_factory=list)
    answers: list[str] = Field(min_length=2, description="final answers stating facts from the result")
    feeds: list[Feed] = Field(default_factory=list)
    followups: list[Followup] = Field(
        default_factory=list, description="questions about a result that the result answers (no new call)"
    )
    world: Touch | None = Field(default=None, description="what this tool does to the server's world")


class Pack(_Model):
    pack: Literal[1] = 1
    server: str = Field(description="the server's qualifiedName (its id in the registry)")
    declines: list[Declined] = Field(
        default_factory=list, description="requests near the server's domain that none of its tools serves"
    )
    sandbox: Sandbox | None = Field(
        None,
        description="the world a live run's server starts from in each scenario (files to write, commands to run, "
        "calls to make on the server; docs/live.md): it replaces the entry's own and makes the server fresh per "
        "scenario, so the pack's values and feeds name what is really there",
    )
    chain: float | None = Field(
        None,
        ge=0,
        le=1,
        description="how often a request around a tool that feeds or is fed is a chain (default 0.6): people "
        "on a server with a world to look at list or search before they act",
    )
    tools: dict[str, ToolPack]
    world: World | None = None


def goal_of(goal: str | Goal) -> Goal:
    return goal if isinstance(goal, Goal) else Goal(text=goal)


def pack_json_schema() -> dict[str, Any]:
    schema = Pack.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "synth server pack"
    return schema
