"""What one themed call asks about: the tool's words, its arguments, and the place, coin, ticker or
file they name, read once so each theme in synth.simulator.results.themes reads it by name."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import entities as E
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/ask", "keywords", dict[str, re.Pattern[str]])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/ask", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/ask", "sets", dict[str, frozenset[str]])


def arg_by_key(args: dict[str, Any], keys: tuple[str, ...], default: Any = None) -> Any:
    """Like ``entities.given``, but the earlier key wins over the earlier argument ("symbol" before "id")."""
    return next((v for key in keys for k, v in args.items() if isinstance(v, str) and key in words(k)), default)


@dataclass(frozen=True)
class Ask:
    """One themed call: the tool's words, its arguments, and the place and coin they name."""

    text: str
    tool: ToolSpec
    args: dict[str, Any]
    ctx: Context
    index: int
    fake: Any
    city: str
    coin: str  # the symbol argument's base coin: "BTC" of "btc-usdt"
    asked: str  # the symbol, ticker or id asked for
    path: str | None

    @property
    def rng(self) -> Any:
        return self.ctx.rng

    @property
    def crypto(self) -> bool:
        return (
            self.ctx.topic == "crypto"
            or bool(_KEYWORDS["crypto"].search(self.text))
            or self.coin in {s for _, s in vocab.CRYPTO}
        )

    def has(self, *keys: str) -> bool:
        """Whole words (and plurals): "temp" is not "template", "post" not "postgres"."""
        return any(re.search(rf"\b{k}(?:s|es)?\b", self.text) for k in keys)

    def pick(self, pool: tuple[Any, ...] | list[Any], shift: int = 0) -> Any:
        """This item's entry of ``pool``: distinct within one result, varied across calls."""
        return pool[E.slot(self.text, self.args, self.index + shift, len(pool))]


def _city(args: dict[str, Any], ctx: Context, index: int) -> str:
    """The place asked about (or nearest the coordinates asked about); later items of a list are other places."""
    rng = ctx.rng
    city = E.given(args, _SETS["city.city"])
    lat = E.given(args, {"lat", "latitude"}, kind=(int, float))
    if city is None and lat is not None:  # the place the coordinates are, not another one
        city = min(vocab.CITY_COORDS, key=lambda c: abs(vocab.CITY_COORDS[c][0] - lat))
    city = city or ctx.city or rng.choice(vocab.CITIES)[0]
    if index:  # later items of a list are other things, not copies of the first
        city = rng.choice([c for c, _ in vocab.CITIES if c != city])
    return str(city)


def read_ask(text: str, tool: ToolSpec, args: dict[str, Any], ctx: Context, index: int) -> Ask:
    fake = seed_faker(ctx.rng)
    city = _city(args, ctx, index)
    base = re.split(r"[/\-_:]", str(E.given(args, _SETS["read_ask.base"], "")).upper())[0]
    asked = str(arg_by_key(args, _POOLS["read_ask.asked"], ""))
    path = arg_by_key(args, _POOLS["read_ask.path"])
    coin = base.removesuffix("USDT").removesuffix("USD")
    return Ask(text, tool, args, ctx, index, fake, city, coin, asked, path)
