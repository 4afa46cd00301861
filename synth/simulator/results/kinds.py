"""How a noun picks the maker of its record. A *family* is a set of nouns with one maker
(``from_families``); inside a family, ``Kinds`` holds one maker per kind of thing, tried in the
order listed, some only when the tool's text is about their world (a "move" of chess).

Both are keyword rules, so both are data: a module's file (``synth/simulator/data/results/<module>.json``)
lists its ``families`` as [nouns, maker] and its ``kinds`` as [nouns, world regex or null, maker], in the
order they are tried; the maker is named as the module that loads them names it (``_movie``, ``money.bank``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from types import ModuleType
from typing import Any

from synth.simulator.tables import named, table
from synth.simulator.values.values import Context

Maker = Callable[[str, str, dict[str, Any], Context, int], "dict[str, Any] | None"]
Family = tuple[Collection[str], Maker]


def from_families(
    families: Iterable[Family], nouns: list[str], text: str, args: dict[str, Any], ctx: Context, index: int = 0
) -> dict[str, Any] | None:
    """A record from the first family that knows one of the nouns; the last noun is the head, so it goes first
    ("company_properties": a property). A family that returns None passes the noun on to the next."""
    for n in reversed(nouns):
        for keys, make in families:
            if n in keys and (out := make(n, text, args, ctx, index)) is not None:
                return out
    return None


def nouns(text: str) -> frozenset[str]:
    return frozenset(text.split())


def families(subject: str, namespace: Mapping[str, Any], *modules: ModuleType) -> tuple[Family, ...]:
    """The families listed in ``subject``'s data file, each maker found by its name in ``namespace`` (the
    module's globals) or in one of ``modules`` ("money.bank")."""
    where = {**namespace, **{m.__name__.rpartition(".")[2]: m for m in modules}}
    rows = table(subject, "families", tuple[tuple[str, str], ...])
    return tuple((nouns(words), named(subject, name, where)) for words, name in rows)


class Kinds:
    """Makers registered by noun, with the words their world needs in the tool's text when they name any."""

    def __init__(self) -> None:
        self._makers: list[tuple[frozenset[str], re.Pattern[str] | None, Maker]] = []

    @classmethod
    def load(cls, subject: str, namespace: Mapping[str, Any]) -> Kinds:
        """The kinds listed in ``subject``'s data file, in its order, each maker found by name in ``namespace``."""
        kinds = cls()
        for words, near, name in table(subject, "kinds", tuple[tuple[str, re.Pattern[str] | None, str], ...]):
            kinds._makers.append((nouns(words), near, named(subject, name, namespace)))
        return kinds

    def find(self, n: str, text: str) -> Maker | None:
        """The first maker registered for ``n`` whose world ``text`` is in."""
        return next(
            (make for names, near, make in self._makers if n in names and (near is None or near.search(text))),
            None,
        )

    @property
    def nouns(self) -> frozenset[str]:
        return frozenset().union(*(names for names, _, _ in self._makers))
