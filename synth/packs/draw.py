"""Drawing argument values from a pack: cases first (values that must agree), then each parameter's pool."""

from __future__ import annotations

import random
from typing import Any

from synth.packs.model import Draw, Goal, Pool, Range, ToolPack, Values
from synth.packs.template import Expander, Missing, slots
from synth.packs.world import drawn


def draw(values: Values | Draw, rng: random.Random, expander: Expander, picked: dict[str, Any] | None = None) -> Any:
    """One value from a parameter's pool or range (generators in strings expanded), or from the world
    (``picked``: the entity each kind's values come from in this call)."""
    if isinstance(values, Draw):
        if expander.world is None:
            raise Missing(f"world:{values.entity}")
        return drawn(expander.world, values, rng, {} if picked is None else picked)
    if isinstance(values, Range):
        lo, hi = values.range
        is_float = any(isinstance(x, float) and not float(x).is_integer() for x in (lo, hi, values.step or 1))
        if values.step:
            steps = int((hi - lo) / values.step)
            value = lo + values.step * rng.randint(0, max(steps, 0))
            return round(value, 6) if is_float else int(value)
        return round(rng.uniform(lo, hi), 2) if is_float else rng.randint(int(lo), int(hi))
    pool = values.pool if isinstance(values, Pool) else values
    return expander.value(rng.choice(pool))


def phrase_of(values: Values | Draw | None, value: Any) -> str | None:
    """How the user says ``value``, when the pack gives a phrasing for it."""
    if isinstance(values, (Pool, Range)) and values.phrase:
        key = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        if isinstance(value, bool):
            key = "true" if value else "false"
        return values.phrase.get(key)
    return None


def goal_params(goal: Goal) -> list[str]:
    """The parameters a goal states (its slots) or implies (its ``set``)."""
    return [*dict.fromkeys(s for s in slots(goal.text) if ":" not in s), *goal.set]


def arguments(
    pack: ToolPack, params: list[str], rng: random.Random, expander: Expander, fixed: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Values for ``params`` (in that order): ``fixed`` first, then a case that covers some, then pools."""
    out: dict[str, Any] = dict(fixed or {})
    picked: dict[str, Any] = {}
    if pack.cases:
        fitting = [c for c in pack.cases if not (set(c) & set(out))]
        if fitting:
            case = rng.choice(fitting)
            out.update({k: expander.value(v) for k, v in case.items() if k in params or k in out})
    for param in params:
        if param not in out and param in pack.values:
            out[param] = draw(pack.values[param], rng, expander, picked)
    return {p: out[p] for p in params if p in out}
