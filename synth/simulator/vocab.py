"""Word lists for realistic offline values: real places, tickers, queries, people's phrasing.

Faker covers people, companies, addresses, emails and phone numbers well; its cities are
invented ("Lake Jamesfort") and its sentences are lorem-like, so those come from here.

The words themselves are data: ``data/vocab.json`` (one table per key), read once here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _tuples(value: Any) -> Any:
    """JSON arrays back as the tuples the tables always were (hashable, read-only)."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


_DATA: dict[str, Any] = _tuples(json.loads((Path(__file__).parent / "data" / "vocab.json").read_text("utf-8")))
# city | country | country code | latitude | longitude
_ROWS: tuple[tuple[str, str, str, float, float], ...] = _DATA["PLACES"]
CITIES: tuple[tuple[str, str], ...] = tuple((city, country) for city, country, *_ in _ROWS)
CITY_COORDS: dict[str, tuple[float, float]] = {city: (lat, lon) for city, _, _, lat, lon in _ROWS}
COUNTRY_CODES: dict[str, str] = {country: code for _, country, code, *_ in _ROWS}
AIRPORTS: tuple[str, ...] = _DATA["AIRPORTS"]
TIMEZONES: tuple[str, ...] = _DATA["TIMEZONES"]
LANGUAGES: tuple[tuple[str, str], ...] = _DATA["LANGUAGES"]
CURRENCIES: tuple[str, ...] = _DATA["CURRENCIES"]
TICKERS: tuple[str, ...] = _DATA["TICKERS"]
CRYPTO: tuple[tuple[str, str], ...] = _DATA["CRYPTO"]
ENTITIES: tuple[str, ...] = _DATA["ENTITIES"]
PROTOCOLS: tuple[str, ...] = _DATA["PROTOCOLS"]
CHAINS: tuple[str, ...] = _DATA["CHAINS"]
GITHUB_OWNERS: tuple[str, ...] = _DATA["GITHUB_OWNERS"]
GITHUB_REPOS: tuple[str, ...] = _DATA["GITHUB_REPOS"]
BRANCHES: tuple[str, ...] = _DATA["BRANCHES"]
FILE_PATHS: tuple[str, ...] = _DATA["FILE_PATHS"]
# IANA time zones a person asks about, with their UTC offset in June 2026 (summer time where there is one)
ZONE_OFFSETS: dict[str, int] = _DATA["ZONE_OFFSETS"]
DIRECTORIES: tuple[str, ...] = _DATA["DIRECTORIES"]
URLS: tuple[str, ...] = _DATA["URLS"]
DOMAINS: tuple[str, ...] = _DATA["DOMAINS"]
PRODUCTS: tuple[str, ...] = _DATA["PRODUCTS"]
CATEGORIES: tuple[str, ...] = _DATA["CATEGORIES"]
TABLES: tuple[str, ...] = _DATA["TABLES"]
SQL: tuple[str, ...] = _DATA["SQL"]
COLORS: tuple[str, ...] = _DATA["COLORS"]
TAGS: tuple[str, ...] = _DATA["TAGS"]
STATUSES: tuple[str, ...] = _DATA["STATUSES"]
# Search phrases by topic word found in the server's category, name or tool description.
QUERIES: dict[str, Any] = _DATA["QUERIES"]
TOPIC_WORDS: dict[str, tuple[str, ...]] = _DATA["TOPIC_WORDS"]
# Things a person might write or send; each stands alone as a realistic text value.
MESSAGES: tuple[str, ...] = _DATA["MESSAGES"]
TITLES: tuple[str, ...] = _DATA["TITLES"]
NOTES: tuple[str, ...] = _DATA["NOTES"]
PERSONAS: dict[str, Any] = _DATA["PERSONAS"]
OPENERS: tuple[str, ...] = _DATA["OPENERS"]
# --- names of things people create or work in ------------------------------------------------
RESOURCE_STEMS: tuple[str, ...] = _DATA["RESOURCE_STEMS"]
RESOURCE_SUFFIX: dict[str, str] = _DATA["RESOURCE_SUFFIX"]
NAMED_THINGS: dict[str, Any] = _DATA["NAMED_THINGS"]
DESCRIPTIONS: dict[str, tuple[str, str]] = _DATA["DESCRIPTIONS"]
GITHUB_PAIRS: tuple[str, ...] = _DATA["GITHUB_PAIRS"]
CURSORS: tuple[str, ...] = _DATA["CURSORS"]
REGIONS: tuple[str, ...] = _DATA["REGIONS"]
CLOUD_REGIONS: tuple[str, ...] = _DATA["CLOUD_REGIONS"]
EXCHANGES: tuple[str, ...] = _DATA["EXCHANGES"]
PAIRS: tuple[str, ...] = _DATA["PAIRS"]
SQL_WHERE: tuple[str, ...] = _DATA["SQL_WHERE"]
EXPRESSIONS: tuple[str, ...] = _DATA["EXPRESSIONS"]
JS_SNIPPETS: tuple[str, ...] = _DATA["JS_SNIPPETS"]
PY_SNIPPETS: tuple[str, ...] = _DATA["PY_SNIPPETS"]
COMMANDS: tuple[str, ...] = _DATA["COMMANDS"]
SELECTORS: tuple[str, ...] = _DATA["SELECTORS"]
ELEMENTS: tuple[str, ...] = _DATA["ELEMENTS"]
INDUSTRIES: tuple[str, ...] = _DATA["INDUSTRIES"]
MODELS: tuple[str, ...] = _DATA["MODELS"]
WORDS: tuple[str, ...] = _DATA["WORDS"]
SMILES: tuple[str, ...] = _DATA["SMILES"]
# the first words of the BIP-39 list
BIP39_WORDS: tuple[str, ...] = _DATA["BIP39_WORDS"]
WORDS_BIP: tuple[str, ...] = _DATA["WORDS_BIP"]
DOIS: tuple[str, ...] = _DATA["DOIS"]
ISBNS: tuple[str, ...] = _DATA["ISBNS"]
PARAGRAPHS: tuple[str, ...] = _DATA["PARAGRAPHS"]
# Statements for reasoning-style parameters (thought, problem, hypothesis, steps...), by topic.
REASONING: dict[str, Any] = _DATA["REASONING"]
CODE_NAMES: tuple[str, ...] = _DATA["CODE_NAMES"]
MEDIA_PATHS: dict[str, Any] = _DATA["MEDIA_PATHS"]
