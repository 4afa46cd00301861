"""A SQL statement read for grounding: the assistant writes SQL from the schema it read and the person's words,
so a statement is grounded when every name in it (tables, columns) and every literal is, not as one string (a
person never types ``SELECT title FROM books WHERE year = 1965``; they say "books from 1965")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_START = re.compile(r"(?is)^\s*(?:select|insert|update|delete|create|with|pragma|alter|drop|replace)\b")
_TOKEN = re.compile(
    r"'((?:[^']|'')*)'"  # a string literal
    r'|"([^"]+)"|`([^`]+)`|\[([^\]]+)\]'  # a quoted name
    r"|(\d+(?:\.\d+)?)"  # a number
    r"|([A-Za-z_][A-Za-z0-9_]*)"  # a name or a word of SQL
    r"|\S"
)
# the words of SQL (SQLite's dialect and the common types and functions): they need no source
WORDS = frozenset(
    """select from where and or not in is null like glob between order by group having limit offset asc desc distinct
    all as on join left right inner outer cross natural using insert into values update set delete create table if
    exists primary key autoincrement unique default check references foreign integer int text real numeric blob
    boolean bool date datetime timestamp varchar char float double decimal count sum avg min max lower upper length
    coalesce ifnull substr round abs case when then else end with pragma alter add column drop replace true false
    current_timestamp current_date collate nocase returning""".split()
)


def statement(text: str) -> bool:
    return bool(_START.match(text))


def writes(value: Any) -> bool:
    """Whether ``value`` (a call's arguments, or one of them) holds a SQL statement that changes the store."""
    if isinstance(value, dict):
        return any(writes(v) for v in value.values())
    found = _START.match(value) if isinstance(value, str) else None
    return found is not None and found.group(0).strip().lower() not in ("select", "with", "pragma")


def parts(text: str) -> tuple[list[str], list[Any]] | None:
    """(names, literals) of a SQL statement: the tables and columns it names, and the strings and numbers it
    holds; None when ``text`` is not a statement."""
    if not statement(text):
        return None
    names: list[str] = []
    literals: list[Any] = []
    for m in _TOKEN.finditer(text):
        literal, q1, q2, q3, number, word = m.groups()
        if literal is not None:
            literals.append(literal.replace("''", "'"))
        elif number is not None:
            literals.append(float(number) if "." in number else int(number))
        elif (quoted := q1 or q2 or q3) is not None:
            names.append(quoted)
        elif word is not None and word.lower() not in WORDS:
            names.append(word)
    return names, literals


def grounded(text: str, holds: Callable[[Any], bool]) -> bool:
    """Whether every name and literal of the statement ``text`` is held by the conversation (``holds``)."""
    found = parts(text)
    if found is None:
        return False
    names, literals = found
    return all(holds(x) for x in [*names, *literals])
