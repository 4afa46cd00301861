"""Offline argument values: what a person would type, from the parameter's name, schema and description.

The cases are parameters as real servers declare them (names and descriptions copied from the
Toucan crawl of Smithery servers).
"""

from __future__ import annotations

import random
import re

import pytest
from jsonschema import Draft202012Validator

from synth.registry import load_registry
from synth.simulator.values.strings import examples
from synth.simulator.values.values import Context, make_value

FILLER = re.compile(r"^(string|text|value|example|test|foo|bar|lorem.*|placeholder)$", re.I)


def value(name: str, schema: dict, seed: int = 1, topic: str = "general", subject: str = "") -> tuple[object, str]:
    return make_value(name, schema, Context(rng=random.Random(seed), topic=topic, city="Porto", subject=subject))


@pytest.mark.parametrize(
    "description, expected",
    [
        ("Region code (e.g., wt-wt, us-en, uk-en)", {"wt-wt", "us-en", "uk-en"}),
        ("Exchange ID (e.g., binance, coinbase)", {"binance", "coinbase"}),
        ("Client name (cline, roo_code, windsurf, claude)", {"cline", "roo_code", "windsurf", "claude"}),
        ('At what frequency. Valid frequencies: "yearly", "quarterly"', {"yearly", "quarterly"}),
        ("Instrument ID (e.g. BTC-USDT)", {"BTC-USDT"}),
        ('Title for the pull request. Example: "Add new feature"', {"Add new feature"}),
    ],
)
def test_values_offered_by_the_description_are_used(description, expected):
    assert set(examples(description)) == expected
    for seed in range(5):
        assert value("whatever", {"type": "string", "description": description}, seed)[0] in expected


@pytest.mark.parametrize(
    "name, schema, pattern",
    [
        ("startTime", {"type": "string", "description": "Start time in ISO format"}, r"^2026-\d\d-\d\dT\d\d:\d\d:00Z$"),
        ("checkin", {"type": "string", "description": "Check-in date (YYYY-MM-DD)"}, r"^2026-\d\d-\d\d$"),
        ("pmid", {}, r"^\d{8}$"),
        ("doi", {"type": "string"}, r"^10\.\d{4,5}/"),
        ("barcode", {"type": "string"}, r"^\d{13}$"),
        (
            "selector",
            {"type": "string", "description": "CSS selector for the HTML fragment to extract"},
            r"[#.\[]|^\w+ ",
        ),
        ("command", {"type": "string", "description": "The command to run"}, r"^[a-z]+( |$)"),
        ("country_code", {"type": "string"}, r"^[A-Z]{2}$"),
        ("id", {"type": "string", "description": "The UUID of the object to retrieve"}, r"^[0-9a-f-]{36}$"),
        ("privateKey", {"type": "string", "minLength": 64}, r"^\S{64,}$"),
    ],
)
def test_parameters_get_values_of_their_kind(name, schema, pattern):
    for seed in range(4):
        got, _ = value(name, schema, seed)
        assert re.search(pattern, str(got)), (name, got)


def test_people_things_and_resources_get_names_that_fit():
    assert value("stop_name", {"type": "string"})[0] in {
        "Central Station",
        "Market Street & 5th",
        "Airport Terminal 2",
        "City Hall",
    }
    playlist, _ = value("name", {"type": "string"}, subject="playlist")
    assert playlist in {"Sunday morning jazz", "Road trip 2026", "Deep focus", "Running mix"}
    person, _ = value("name", {"type": "string"}, subject="contact")
    assert len(person.split()) >= 2 and person[0].isupper()
    database, _ = value("database", {"type": "string", "description": "Database name"})
    assert database.endswith("_db")


def test_body_measures_are_plausible_for_an_adult():
    for seed in range(10):
        assert 52 <= value("weight", {"type": "number"}, seed)[0] <= 110
        assert 0.6 <= value("scr", {"type": "number"}, seed)[0] <= 1.6
        assert 18 <= value("age", {"type": "integer"}, seed)[0] <= 85


def test_an_unknown_parameter_gets_a_guess_the_writer_can_leave_out():
    got, kind = value("call_benefit", {"type": "string"})
    assert kind == "guess" and len(got.split()) >= 2 and not FILLER.match(got)


def test_every_value_of_the_default_registry_validates_and_is_never_filler():
    registry = load_registry("registry")
    for tool in registry.tools:
        for param, schema in tool.properties.items():
            got, _ = value(param, schema, seed=len(param))
            errors = list(Draft202012Validator(schema).iter_errors(got)) if isinstance(schema, dict) else []
            assert not errors or "pattern" in str(errors[0].validator), (tool.key, param, got, errors[0].message)
            if isinstance(got, str) and got not in str(schema):  # enum values and examples are the schema's own
                assert got.strip() and not FILLER.match(got), (tool.key, param, got)


def test_the_word_tables_are_data_read_once_and_shipped():
    """The simulator's words live in synth/simulator/data/vocab.json (a table per key), not in code: vocab.py
    names each table and holds no word of its own (tests/test_tables.py: the wheel ships the file)."""
    import ast
    import json
    from pathlib import Path

    from synth.simulator import vocab

    root = Path(__file__).parents[1]
    data = json.loads((root / "synth/simulator/data/vocab.json").read_text(encoding="utf-8"))
    assert vocab.TICKERS == tuple(data["TICKERS"]) and vocab.CITIES[0] == tuple(data["PLACES"][0][:2])
    code = ast.parse((root / "synth/simulator/vocab.py").read_text(encoding="utf-8"))
    docs = {ast.get_docstring(n, clean=False) for n in ast.walk(code) if isinstance(n, (ast.Module, ast.FunctionDef))}
    strings = {n.value for n in ast.walk(code) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert strings - docs - set(data) == {"vocab"}  # table names and the file's subject, no words


@pytest.mark.parametrize(
    ("about", "statement"),
    [
        ("read_query execute a select query on the sqlite database", r"SELECT\b"),
        ("write_query execute an insert, update, or delete query on the sqlite database", r"(INSERT|UPDATE|DELETE)\b"),
        ("create_table create a new table in the sqlite database", r"CREATE TABLE\b"),
    ],
)
def test_sql_fits_what_the_tool_does(about: str, statement: str) -> None:
    """A write tool is given a write and a create-table tool DDL, never one pool of SELECTs (issue 38:
    write_query("SELECT ...") was a correct record, read_query's SELECT labelled incorrect_tool)."""
    schema = {"type": "string", "description": "SQL query to execute"}
    for seed in range(12):
        ctx = Context(rng=random.Random(seed), topic="data", subject="query", about=about)
        sql, _ = make_value("query", schema, ctx)
        assert re.match(statement, sql), (about, sql)
