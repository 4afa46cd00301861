"""Word lists for realistic offline values: real places, tickers, queries, people's phrasing.

Faker covers people, companies, addresses, emails and phone numbers well; its cities are
invented ("Lake Jamesfort") and its sentences are lorem-like, so those come from here.

The words themselves are data: ``data/vocab.json`` (one table per key), read once by ``synth.simulator.tables``."""

from __future__ import annotations

from typing import Any

from synth.simulator.tables import table

# city | country | country code | latitude | longitude
_ROWS = table("vocab", "PLACES", tuple[tuple[str, str, str, float, float], ...])
CITIES: tuple[tuple[str, str], ...] = tuple((city, country) for city, country, *_ in _ROWS)
CITY_COORDS: dict[str, tuple[float, float]] = {city: (lat, lon) for city, _, _, lat, lon in _ROWS}
COUNTRY_CODES: dict[str, str] = {country: code for _, country, code, *_ in _ROWS}
AIRPORTS = table("vocab", "AIRPORTS", tuple[str, ...])
TIMEZONES = table("vocab", "TIMEZONES", tuple[str, ...])
LANGUAGES = table("vocab", "LANGUAGES", tuple[tuple[str, str], ...])
CURRENCIES = table("vocab", "CURRENCIES", tuple[str, ...])
TICKERS = table("vocab", "TICKERS", tuple[str, ...])
CRYPTO = table("vocab", "CRYPTO", tuple[tuple[str, str], ...])
ENTITIES = table("vocab", "ENTITIES", tuple[str, ...])
PROTOCOLS = table("vocab", "PROTOCOLS", tuple[str, ...])
CHAINS = table("vocab", "CHAINS", tuple[str, ...])
GITHUB_OWNERS = table("vocab", "GITHUB_OWNERS", tuple[str, ...])
GITHUB_REPOS = table("vocab", "GITHUB_REPOS", tuple[str, ...])
BRANCHES = table("vocab", "BRANCHES", tuple[str, ...])
FILE_PATHS = table("vocab", "FILE_PATHS", tuple[str, ...])
# IANA time zones a person asks about, with their UTC offset in June 2026 (summer time where there is one)
ZONE_OFFSETS = table("vocab", "ZONE_OFFSETS", dict[str, int])
DIRECTORIES = table("vocab", "DIRECTORIES", tuple[str, ...])
URLS = table("vocab", "URLS", tuple[str, ...])
DOMAINS = table("vocab", "DOMAINS", tuple[str, ...])
PRODUCTS = table("vocab", "PRODUCTS", tuple[str, ...])
CATEGORIES = table("vocab", "CATEGORIES", tuple[str, ...])
TABLES = table("vocab", "TABLES", tuple[str, ...])
SQL = table("vocab", "SQL", tuple[str, ...])
COLORS = table("vocab", "COLORS", tuple[str, ...])
TAGS = table("vocab", "TAGS", tuple[str, ...])
STATUSES = table("vocab", "STATUSES", tuple[str, ...])
# Search phrases by topic word found in the server's category, name or tool description.
QUERIES = table("vocab", "QUERIES", dict[str, Any])
TOPIC_WORDS = table("vocab", "TOPIC_WORDS", dict[str, tuple[str, ...]])
# Things a person might write or send; each stands alone as a realistic text value.
MESSAGES = table("vocab", "MESSAGES", tuple[str, ...])
TITLES = table("vocab", "TITLES", tuple[str, ...])
NOTES = table("vocab", "NOTES", tuple[str, ...])
PERSONAS = table("vocab", "PERSONAS", dict[str, Any])
OPENERS = table("vocab", "OPENERS", tuple[str, ...])
# --- names of things people create or work in ------------------------------------------------
RESOURCE_STEMS = table("vocab", "RESOURCE_STEMS", tuple[str, ...])
RESOURCE_SUFFIX = table("vocab", "RESOURCE_SUFFIX", dict[str, str])
NAMED_THINGS = table("vocab", "NAMED_THINGS", dict[str, Any])
DESCRIPTIONS = table("vocab", "DESCRIPTIONS", dict[str, tuple[str, str]])
GITHUB_PAIRS = table("vocab", "GITHUB_PAIRS", tuple[str, ...])
CURSORS = table("vocab", "CURSORS", tuple[str, ...])
REGIONS = table("vocab", "REGIONS", tuple[str, ...])
CLOUD_REGIONS = table("vocab", "CLOUD_REGIONS", tuple[str, ...])
EXCHANGES = table("vocab", "EXCHANGES", tuple[str, ...])
PAIRS = table("vocab", "PAIRS", tuple[str, ...])
SQL_WHERE = table("vocab", "SQL_WHERE", tuple[str, ...])
SQL_WRITE = table("vocab", "SQL_WRITE", tuple[str, ...])  # for a tool that writes: INSERT, UPDATE, DELETE
SQL_DDL = table("vocab", "SQL_DDL", tuple[str, ...])  # for a tool that creates tables
EXPRESSIONS = table("vocab", "EXPRESSIONS", tuple[str, ...])
JS_SNIPPETS = table("vocab", "JS_SNIPPETS", tuple[str, ...])
PY_SNIPPETS = table("vocab", "PY_SNIPPETS", tuple[str, ...])
COMMANDS = table("vocab", "COMMANDS", tuple[str, ...])
SELECTORS = table("vocab", "SELECTORS", tuple[str, ...])
ELEMENTS = table("vocab", "ELEMENTS", tuple[str, ...])
INDUSTRIES = table("vocab", "INDUSTRIES", tuple[str, ...])
MODELS = table("vocab", "MODELS", tuple[str, ...])
WORDS = table("vocab", "WORDS", tuple[str, ...])
SMILES = table("vocab", "SMILES", tuple[str, ...])
# the first words of the BIP-39 list
BIP39_WORDS = table("vocab", "BIP39_WORDS", tuple[str, ...])
WORDS_BIP = table("vocab", "WORDS_BIP", tuple[str, ...])
DOIS = table("vocab", "DOIS", tuple[str, ...])
ISBNS = table("vocab", "ISBNS", tuple[str, ...])
PARAGRAPHS = table("vocab", "PARAGRAPHS", tuple[str, ...])
# Statements for reasoning-style parameters (thought, problem, hypothesis, steps...), by topic.
REASONING = table("vocab", "REASONING", dict[str, Any])
CODE_NAMES = table("vocab", "CODE_NAMES", tuple[str, ...])
MEDIA_PATHS = table("vocab", "MEDIA_PATHS", dict[str, Any])
