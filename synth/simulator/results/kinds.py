"""How a noun picks the maker of its record. A *family* is a set of nouns with one maker
(``from_families``); inside a family, ``Kinds`` holds one maker per kind of thing, tried in the
order registered, some only when the tool's text is about their world (a "move" of chess)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

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


class Kinds:
    """Makers registered by noun, with the words their world needs in the tool's text when they name any."""

    def __init__(self) -> None:
        self._makers: list[tuple[frozenset[str], str | None, Maker]] = []

    def __call__(self, names: str, near: str | None = None) -> Callable[[Maker], Maker]:
        """Registers a maker for ``names`` (space-separated), when the tool's text matches ``near`` if given."""

        def register(make: Maker) -> Maker:
            self._makers.append((nouns(names), near, make))
            return make

        return register

    def find(self, n: str, text: str) -> Maker | None:
        """The first maker registered for ``n`` whose world ``text`` is in."""
        return next(
            (make for names, near, make in self._makers if n in names and (near is None or re.search(near, text))),
            None,
        )

    @property
    def nouns(self) -> frozenset[str]:
        return frozenset().union(*(names for names, _, _ in self._makers))
