"""The entities a world kind starts with (``Entity.seed``), expanded per conversation from its own random stream.

Most seeds draw nothing (fixed records: ten routes' flights, a shop's products), and expanding one is a copy of
the template; those are expanded once per process and handed out as copies (``marshal``), which is the same
records for a fraction of the time.
"""

from __future__ import annotations

import copy
import marshal
import random
from collections.abc import Callable
from typing import Any

from synth.packs.model import Entity
from synth.packs.template import Expander


def plain_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists and scalars), several times faster than ``copy.deepcopy``; any
    other container is copied by ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: plain_copy(v) for k, v in value.items()}
    if kind is list:
        return [plain_copy(v) for v in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    return copy.deepcopy(value)


def _static(template: Any) -> bool:
    """Whether ``Expander.value`` of ``template`` draws nothing: no slot, no ``$pick``, no ``$repeat``, so every
    expansion is the same (a plain copy of the template)."""
    if isinstance(template, dict):
        return "$pick" not in template and "$repeat" not in template and all(map(_static, template.values()))
    if isinstance(template, list):
        return all(map(_static, template))
    return not isinstance(template, str) or "{" not in template


# id(entity) -> (the entity, its seed records marshalled when the seed draws nothing, else None): most worlds are
# fixed, and ``marshal.loads`` makes a fresh copy of JSON data in C, types and key order kept
_FIXED: dict[int, tuple[Entity, bytes | None]] = {}


def seeded(entity: Entity, rng: Callable[[], random.Random]) -> list[dict[str, Any]]:
    """The entities a kind starts with; a seed that draws nothing is expanded once per process and copied."""
    held = _FIXED.get(id(entity))
    if held is None or held[0] is not entity:
        held = _FIXED[id(entity)] = (entity, _fixed(entity))
    if held[1] is not None:
        return marshal.loads(held[1])
    return _kept(entity, Expander(rng()).value(entity.seed))


def _fixed(entity: Entity) -> bytes | None:
    """The seed's records, marshalled, when expanding it draws nothing and marshal holds them (JSON data does)."""
    if not _static(entity.seed):
        return None
    try:
        return marshal.dumps(_kept(entity, Expander(random.Random(0)).value(entity.seed)))
    except ValueError:  # a value marshal cannot hold: expanded per world, as before
        return None


def _kept(entity: Entity, records: Any) -> list[dict[str, Any]]:
    return [r for r in records if isinstance(r, dict)][: 1 if entity.one else None]
