"""Discover, then act, on a SQL store: list the tables, describe one, and write SQL from the columns it has.

The steps of one conversation (synth.offline.discovered.Convo): the tables are listed first; a table the act
needs that is not there is created from what the person describes (CREATE TABLE, then a describe or a list that
shows it); a read of an empty table first gets the person's row (INSERT); every write is read back (SELECT).
Each statement fits the tool it goes to (CREATE TABLE to a create tool, INSERT/UPDATE/DELETE to a write tool,
SELECT to a read tool) and names only tables and columns an earlier result showed or the person said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from synth.offline.discovered import Convo, parsed, records, said
from synth.records import ToolSpec
from synth.scenarios.discover import ROW_ROLES, Roles, sql_param, table_param


@dataclass(frozen=True)
class Design:
    """A table a person might keep, said in their words: its name, what it is for, its columns, some rows."""

    name: str
    purpose: str
    columns: tuple[tuple[str, str], ...]
    rows: tuple[tuple[Any, ...], ...]
    form: str  # one row in words, from its values by column name

    @property
    def article(self) -> str:
        return "an" if self.name[0] in "aeiou" else "a"

    def say(self, row: dict[str, Any]) -> str:
        return self.form.format(**row)

    def row(self, values: tuple[Any, ...]) -> dict[str, Any]:
        return dict(zip((c for c, _ in self.columns), values))


DESIGNS = (
    Design(
        "books",
        "my reading list",
        (("title", "TEXT"), ("author", "TEXT"), ("year", "INTEGER")),
        (
            ("Dune", "Frank Herbert", 1965),
            ("Kindred", "Octavia Butler", 1979),
            ("Beloved", "Toni Morrison", 1987),
            ("Middlemarch", "George Eliot", 1871),
            ("Piranesi", "Susanna Clarke", 2020),
        ),
        "{title} by {author} ({year})",
    ),
    Design(
        "expenses",
        "what I spend",
        (("item", "TEXT"), ("amount", "REAL"), ("category", "TEXT")),
        (
            ("Groceries", 54.2, "food"),
            ("Train ticket", 23.5, "travel"),
            ("Desk lamp", 39.9, "home"),
            ("Concert", 45.0, "fun"),
            ("Gym", 29.99, "health"),
        ),
        "{item} for {amount} under {category}",
    ),
    Design(
        "contacts",
        "the people I keep in touch with",
        (("name", "TEXT"), ("email", "TEXT"), ("city", "TEXT")),
        (
            ("Dana Okafor", "dana@example.com", "Lisbon"),
            ("Lars Berg", "lars@example.org", "Oslo"),
            ("Mei Tanaka", "mei@example.net", "Osaka"),
            ("Ana Ruiz", "ana.ruiz@example.com", "Valencia"),
        ),
        "{name} ({email}) in {city}",
    ),
    Design(
        "workouts",
        "my training log",
        (("activity", "TEXT"), ("minutes", "INTEGER"), ("day", "TEXT")),
        (
            ("Running", 35, "Monday"),
            ("Swimming", 50, "Wednesday"),
            ("Yoga", 40, "Saturday"),
            ("Cycling", 75, "Sunday"),
        ),
        "{activity} for {minutes} minutes on {day}",
    ),
    Design(
        "plants",
        "the plants in my flat",
        (("plant", "TEXT"), ("room", "TEXT"), ("days", "INTEGER")),
        (("Monstera", "living room", 7), ("Basil", "kitchen", 2), ("Cactus", "bedroom", 21), ("Fern", "bathroom", 4)),
        "the {plant} in the {room}, watered every {days} days",
    ),
    Design(
        "recipes",
        "the recipes I cook",
        (("dish", "TEXT"), ("cuisine", "TEXT"), ("minutes", "INTEGER")),
        (("Shakshuka", "Tunisian", 30), ("Risotto", "Italian", 40), ("Pad thai", "Thai", 25), ("Dal", "Indian", 45)),
        "{dish} ({cuisine}, {minutes} minutes)",
    ),
    Design(
        "trips",
        "the trips I am planning",
        (("city", "TEXT"), ("month", "TEXT"), ("nights", "INTEGER")),
        (("Porto", "May", 4), ("Kraków", "September", 3), ("Kyoto", "April", 7), ("Tromsø", "February", 5)),
        "{city} in {month} for {nights} nights",
    ),
)


def literal(value: Any) -> str:
    return str(value) if isinstance(value, (int, float)) else "'" + str(value).replace("'", "''") + "'"


def table_names(value: Any) -> list[str]:
    """The tables a listing result names: objects with a name, plain names, or one name a line."""
    if isinstance(value, dict) and isinstance(value.get("tables"), list):
        value = value["tables"]
    if isinstance(value, list):
        names = [
            v
            if isinstance(v, str)
            else next((v[k] for k in ("name", "table_name", "tbl_name", "table") if k in v), None)
            for v in value
            if isinstance(v, (str, dict))
        ]
        return [n for n in names if isinstance(n, str) and not n.startswith("sqlite_")]
    if isinstance(value, str):
        lines = [x.strip() for x in value.splitlines()]
        return [x for x in lines if x and " " not in x and x.isidentifier()]
    return []


def column_types(value: Any) -> list[tuple[str, str]]:
    """(name, type) of each column a describe result names (SQLite's PRAGMA table_info rows, or objects with a
    name and a type)."""
    if isinstance(value, dict) and isinstance(value.get("columns"), list):
        value = value["columns"]
    return [(str(c["name"]), str(c.get("type") or "")) for c in records(value) if "name" in c]


def column_names(value: Any) -> list[str]:
    return [name for name, _ in column_types(value)]


LOOK = (  # the look the list call answers; "" when the request to make the table says it (MAKE's second half)
    "Check which tables my database has.",
    "First look at the tables in my database.",
    "Can you see what tables are in my database?",
    "Have a look at what's in my database.",
    "What tables do I have so far?",
    "",
    "",
    "",
)
EMPTY = (  # each names the tables and says "no" as the dropped_request gate hears it (synth.stages.reader)
    "Your database had no tables yet.",
    "I found no tables in your database yet.",
    "The database had no tables so far.",
    "Nothing was there yet: no tables in the database.",
)
ADD = ("Add {rows} to it.", "Then add {rows}.", "Enter {rows}.", "Then put in {rows}.")
WHOLE = (
    "Then show me what the {name} table holds.",
    "Then read the {name} table back to me.",
    "Then show me all of it.",
)
ONE = ("Then show me the row for {value}.", "Then pull up {value} so I can check it.", "Then show me {value}'s row.")
MAKE = (
    "If there's no {name} table yet, set one up for {purpose}, with the columns {cols}.",
    "I'd like a table called {name} for {purpose} ({cols}); make it if it isn't there.",
    "If {name} is missing, create it for {purpose}: columns {cols}.",
    "Set up {a} {name} table for {purpose} unless there's one already, with {cols} as its columns.",
    "I want to keep {purpose} in {a} {name} table ({cols}); create it if my database doesn't have it.",
    "Unless I already have {a} {name} table, make one with the columns {cols}: it's for {purpose}.",
)


class Sql:
    """The SQL steps of one conversation on ``roles``' server, acting with ``primary`` (role ``act``)."""

    def __init__(self, convo: Convo, roles: Roles, primary: ToolSpec, act: str):
        self.convo, self.act = convo, act
        rows = act in ROW_ROLES
        own = lambda *want: primary if act in want else roles.first(*want)  # noqa: E731
        self.design = convo.rng.choice(DESIGNS)
        self.lister, self.describer = own("list_tables"), own("describe")
        self.creator = own("sql_create", "sql_any")
        self.writer = own(*(("rows_create", "sql_write", "sql_any") if rows else ("sql_write", "sql_any")))
        self.reader = own(*(("rows_read", "sql_read", "sql_any") if rows else ("sql_read", "sql_any")))
        self.changer = own(*(("rows_update",) if rows else ("sql_write", "sql_any")))
        self.remover = own(*(("rows_delete",) if rows else ("sql_write", "sql_any")))
        self.columns: list[str] = []

    def run(self) -> None:
        c, d = self.convo, self.design
        tables: list[str] = []
        if self.lister is not None:
            look = c.rng.choice(LOOK)
            c.asked += [look] if look else []
            tables = table_names(parsed(c.call(self.lister, {})))
            if c.failed:
                return
            c.told.append(f"Your database has the tables {said(tables)}." if tables else c.rng.choice(EMPTY))
        reads = self.act in ("sql_read", "sql_any", "rows_read", "describe", "list_tables")
        if tables and d.name not in tables and reads:
            self.existing(self.convo.rng.choice(tables))
        elif d.name not in tables or self.act == "sql_create":
            self.create(exists=d.name in tables)
        elif self.describer is not None:
            self.describe(d.name, ask=True)
        if not c.failed and self.act not in ("sql_create", "describe", "list_tables"):
            self.change()

    def create(self, exists: bool) -> None:
        """The person's table, created unless it is there, then shown: described, or listed (a list act)."""
        c, d = self.convo, self.design
        cols = said([name for name, _ in d.columns])
        if exists or self.creator is None:
            c.asked.append(f"I want {d.article} {d.name} table for {d.purpose}, with the columns {cols}.")
            c.told.append(f"The {d.name} table is there already." if exists else "I have no tool that creates tables.")
            c.failed = True  # nothing more to do on it
            return
        c.asked.append(c.rng.choice(MAKE).format(name=d.name, purpose=d.purpose, cols=cols, a=d.article))
        sql = f"CREATE TABLE {d.name} ({', '.join(f'{n} {t}' for n, t in d.columns)})"
        c.call(self.creator, {sql_param(self.creator) or "query": sql})
        if c.failed:
            return
        if self.describer is not None and self.act != "list_tables":
            self.describe(d.name, ask=False, made=True)
        elif self.lister is not None:
            shown = table_names(parsed(c.call(self.lister, {})))
            if not c.failed:
                c.told.append(
                    f"I created the {d.name} table, and the table list now shows {said(shown)}."
                    if d.name in shown
                    else f"I created the {d.name} table, but it does not show up in the table list."
                )
        else:
            c.told.append(f"I created the {d.name} table with the columns {cols}.")

    def describe(self, table: str, ask: bool, made: bool = False) -> None:
        c = self.convo
        assert self.describer is not None
        if ask:
            c.asked.append(f"What columns does the {table} table have?")
        value = parsed(c.call(self.describer, {table_param(self.describer) or "table": table}))
        if c.failed:
            return
        self.columns = column_names(value)
        typed = [f"{n} ({t})" if t else n for n, t in column_types(value)]
        if made:
            c.told.append(
                f"I created the {table} table; it now has the columns {said(typed)}."
                if typed
                else f"I created the {table} table, but describing it shows no columns."
            )
        else:
            c.told.append(
                f"The {table} table has the columns {said(typed)}." if typed else f"The {table} table shows no columns."
            )

    def existing(self, table: str) -> None:
        """A read on a store that has tables of its own: one of them described and read."""
        c = self.convo
        if self.describer is not None:
            self.describe(table, ask=False)
        if c.failed or self.act in ("describe", "list_tables") or self.reader is None:
            return
        c.asked.append(f"Then show me what the {table} table holds.")
        cols = ", ".join(self.columns) or "*"
        found = records(parsed(self.read(table, f"SELECT {cols} FROM {table}", {})))
        if not c.failed:
            c.told.append(self.rows_said(found, table))

    def read(self, table: str, sql: str, where: dict[str, Any]) -> Any:
        assert self.reader is not None
        if (p := sql_param(self.reader)) is not None:
            return self.convo.call(self.reader, {p: sql})
        args: dict[str, Any] = {table_param(self.reader) or "table": table}
        if where and "conditions" in self.reader.properties:
            args["conditions"] = where
        return self.convo.call(self.reader, args)

    def change(self) -> None:
        """The act on the person's table: a row added (then changed, or taken out again), then read back."""
        c, d = self.convo, self.design
        if self.writer is None or self.reader is None:
            return
        row, other = (d.row(v) for v in c.rng.sample(d.rows, 2))
        first, value = next(iter(row.items()))
        draw = c.rng.random()
        deleting = self.act == "rows_delete" or (self.act == "sql_write" and draw < 0.25 and self.remover is not None)
        updating = self.act == "rows_update" or (self.act == "sql_write" and 0.25 <= draw < 0.5)
        added = [row, other] if deleting else [row]
        c.asked.append(c.rng.choice(ADD).format(rows=said([d.say(r) for r in added])))
        self.insert(added)
        if c.failed:
            return
        c.told.append("I added " + said([d.say(r) for r in added]) + ".")
        where = {first: value}
        if updating and self.changer is not None:
            col = c.rng.choice([n for n, _ in d.columns[1:]])
            c.asked.append(f"Then change its {col} to {other[col]}.")
            self.update(col, other[col], where)
            row[col] = other[col]
        elif deleting and self.remover is not None:
            c.asked.append(f"Then take {value} out again.")
            self.delete(where)
        whole = deleting or (not updating and c.rng.random() < 0.5)
        if not (updating or deleting):
            c.asked.append(c.rng.choice(WHOLE if whole else ONE).format(name=d.name, value=value))
        if c.failed:
            return
        sql = f"SELECT * FROM {d.name}" + ("" if whole else f" WHERE {first} = {literal(value)}")
        found = records(parsed(self.read(d.name, sql, {} if whole else where)))
        if not c.failed:
            c.told.append(self.rows_said(found, d.name))

    def insert(self, rows: list[dict[str, Any]]) -> None:
        c, d = self.convo, self.design
        assert self.writer is not None
        if (p := sql_param(self.writer)) is not None:
            cols = ", ".join(rows[0])
            values = ", ".join("(" + ", ".join(literal(v) for v in r.values()) + ")" for r in rows)
            c.call(self.writer, {p: f"INSERT INTO {d.name} ({cols}) VALUES {values}"})
            return
        for r in rows:
            c.call(self.writer, {table_param(self.writer) or "table": d.name, "data": dict(r)})
            if c.failed:
                return

    def update(self, col: str, new: Any, where: dict[str, Any]) -> None:
        c, d = self.convo, self.design
        assert self.changer is not None
        ((first, value),) = where.items()
        if (p := sql_param(self.changer)) is not None:
            c.call(self.changer, {p: f"UPDATE {d.name} SET {col} = {literal(new)} WHERE {first} = {literal(value)}"})
        else:
            c.call(
                self.changer, {table_param(self.changer) or "table": d.name, "data": {col: new}, "conditions": where}
            )
        if not c.failed:
            c.told.append(f"I changed its {col} to {new}.")

    def delete(self, where: dict[str, Any]) -> None:
        c, d = self.convo, self.design
        assert self.remover is not None
        ((first, value),) = where.items()
        if (p := sql_param(self.remover)) is not None:
            c.call(self.remover, {p: f"DELETE FROM {d.name} WHERE {first} = {literal(value)}"})
        else:
            c.call(self.remover, {table_param(self.remover) or "table": d.name, "conditions": where})
        if not c.failed:
            c.told.append(f"I took {value} out again.")

    def rows_said(self, found: list[dict[str, Any]], table: str) -> str:
        """What a read showed, in the person's words where the rows are the person's table's."""
        d = self.design
        names = {n for n, _ in d.columns}
        if not found:
            return f"The {table} table is empty."
        shown = [
            d.say(r) if table == d.name and names <= set(r) else ", ".join(f"{k} {v}" for k, v in r.items())
            for r in found[:5]
        ]
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        return (
            f"The {table} table now holds {said(shown)}{more}."
            if table == d.name
            else f"The {table} table holds {said(shown)}{more}."
        )


def sql(convo: Convo, roles: Roles, primary: ToolSpec, act: str) -> None:
    """The SQL steps of one conversation (see the module's docstring)."""
    Sql(convo, roles, primary, act).run()
