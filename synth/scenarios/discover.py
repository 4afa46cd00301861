"""Discover, then act: what each tool of a server without a pack does to its store, read from its name, its
description and its parameters, for a live run that takes every value from what the server itself holds (issue 39).

    roles = Roles.of(server)        # None: the server is neither a SQL store nor a store of items with ids
    roles.act(tool)                 # the role of one tool ("sql_read", "get_item", ...) or None
    roles.tools(primary)            # the tools a scenario on ``primary`` may call: it first, then the others

Two kinds of store are read this way. A SQL store (a tool that takes a SQL statement, or one that takes a table
and a row) is listed (its tables), described (a table's columns), created in (CREATE TABLE, INSERT), read (SELECT)
and changed (UPDATE, DELETE). A store of things a person adds by name (tasks, chores, notes, reminders: one
noun across its tools) is listed (the items with their ids), created in (a create tool taking names), and read,
changed or deleted by id. Any other server, or a tool with no such role, is left to the plain fallback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from synth.records import ServerSpec, ToolSpec
from synth.simulator.toolnames import kind, noun
from synth.simulator.values.values import words

SQL_PARAMS = frozenset({"query", "sql", "statement", "sql_query", "sqlquery"})
SQL_ROLES = ("sql_read", "sql_write", "sql_create", "sql_any")
ROW_ROLES = ("rows_create", "rows_read", "rows_update", "rows_delete")
ITEM_ROLES = ("list_items", "create_item", "get_item", "update_item", "delete_item")
TODO_NOUNS = frozenset({"task", "todo", "chore", "reminder", "note", "item", "errand"})  # names from NAMES fit
_CREATE = frozenset({"create", "add", "new", "insert", "make"})
_UPDATE = frozenset({"update", "edit", "set", "modify", "complete", "mark", "change", "rename"})
_DELETE = frozenset({"delete", "remove", "drop", "destroy"})
_READ = frozenset({"get", "read", "show", "fetch", "view", "find", "select", "records"})


def sql_param(tool: ToolSpec) -> str | None:
    """The parameter that takes a SQL statement, if the tool takes one (a ``query`` only when the tool or the
    parameter speaks of SQL: a search's ``query`` is words)."""
    for p in tool.required:
        if p.lower() not in SQL_PARAMS or _type(tool, p) != "string":
            continue
        said = f"{tool.name} {tool.description} {(tool.properties.get(p) or {}).get('description') or ''}".lower()
        if p.lower() != "query" or re.search(r"\b(sql|sqlite|select|database|table)\b", said.replace("_", " ")):
            return p
    return None


def table_param(tool: ToolSpec) -> str | None:
    """The required parameter naming a table (``table``, ``table_name``, ``tableName``)."""
    return next((p for p in tool.required if "table" in words(p) and _type(tool, p) == "string"), None)


def id_param(tool: ToolSpec) -> str | None:
    """The required parameter naming one item by its id (``id``, ``task_id``, ``invoiceId``)."""
    return next(
        (p for p in tool.required if words(p)[-1:] == ["id"] and _type(tool, p) in ("integer", "string", "number")),
        None,
    )


def object_params(tool: ToolSpec) -> list[str]:
    return [p for p in tool.required if _type(tool, p) == "object"]


def _type(tool: ToolSpec, param: str) -> Any:
    schema = tool.properties.get(param)
    return schema.get("type") if isinstance(schema, dict) else None


def role(tool: ToolSpec) -> str | None:
    """What ``tool`` does to its store, or None when it is none of the discover-then-act moves."""
    w = set(words(tool.name))
    text = f"{tool.name} {tool.description}".lower().replace("_", " ")
    if (p := sql_param(tool)) is not None:
        text += " " + str((tool.properties.get(p) or {}).get("description") or "").lower()
        if "create table" in text or {"create", "table"} <= w:
            return "sql_create"
        if w & {"read", "select"} or ("select" in text and not any(x in text for x in ("insert", "update", "delete"))):
            return "sql_read"
        if w & {"write", "insert", "update", "delete", "modify"} or any(
            x in text for x in ("insert", "update", "delete")
        ):
            return "sql_write"
        return "sql_any"
    if table_param(tool) is not None:
        objects = object_params(tool)
        if w & _CREATE and objects:
            return "rows_create"
        if w & _UPDATE and objects:
            return "rows_update"
        if w & _DELETE:
            return "rows_delete"
        if w & {"schema", "describe", "columns", "structure", "info"}:
            return "describe"
        if w & _READ and len(tool.required) == 1:
            return "rows_read"
        return None
    if not tool.required:
        if "tables" in w:
            return "list_tables"
        return "list_items" if kind(tool) == "list" else None
    if (p := id_param(tool)) is not None:
        if w & _DELETE:
            return "delete_item"
        if w & _UPDATE:
            return "update_item"
        return "get_item" if len(tool.required) == 1 else None
    if w & _CREATE and all(_type(tool, p) in ("string", "array") for p in tool.required):
        return "create_item"
    return None


@dataclass(frozen=True)
class Roles:
    """The roles of one server's tools (tool name -> role), when the server is a store this module can read."""

    server: ServerSpec
    by_tool: dict[str, str]
    sql: bool  # a SQL store: it can create tables, and list or describe them
    items: bool  # a store of items: it can create them, and list or get them

    @classmethod
    def of(cls, server: ServerSpec) -> Roles | None:
        found = {t.name: r for t in server.tools if (r := role(t)) is not None}
        have = set(found.values())
        sql = bool(have & {"sql_create", "sql_any", "rows_create"}) and bool(have & {"list_tables", "describe"})
        # a store of things a person adds by name: one noun across its tools (task_create, task_list, task_get)
        todo = {t.name for t in server.tools if found.get(t.name) in ITEM_ROLES and noun(t) in TODO_NOUNS}
        found = {name: r for name, r in found.items() if r not in ITEM_ROLES or name in todo}
        have = set(found.values())
        items = "create_item" in have and bool(have & {"list_items", "get_item"})
        return cls(server, found, sql, items) if sql or items else None

    def act(self, tool: ToolSpec) -> str | None:
        return self.by_tool.get(tool.name)

    def first(self, *roles: str) -> ToolSpec | None:
        """The server's first tool with the first of ``roles`` it has (in the order given)."""
        for wanted in roles:
            for t in self.server.tools:
                if self.by_tool.get(t.name) == wanted:
                    return t
        return None

    def tools(self, primary: ToolSpec) -> tuple[str, ...] | None:
        """The tools a scenario acting with ``primary`` may call: ``primary`` first, then every other tool with a
        role of the same kind of store; None when ``primary`` has no role (the plain fallback writes it)."""
        act = self.act(primary)
        if act is None or not (self.items if act in ITEM_ROLES else self.sql):
            return None
        family = ITEM_ROLES if act in ITEM_ROLES else (*SQL_ROLES, *ROW_ROLES, "list_tables", "describe")
        rest = [t.name for t in self.server.tools if t.name != primary.name and self.by_tool.get(t.name) in family]
        return (primary.name, *rest)
