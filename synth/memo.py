"""Values worked out once per object, found again by the object's identity.

For objects a run makes once and never changes (a tool's schema, its ToolSpec, the tuple of tools a
server offers): spelling them as JSON to look them up costs more than the work saved. Each entry
holds its key objects, so no other object can take their ids while it is kept.
"""

from __future__ import annotations

from typing import Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """``get(*objects)`` the value ``put`` for exactly these objects (``is``, not ``==``), else None."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._entries: dict[tuple[int, ...], tuple[tuple[object, ...], V]] = {}

    def get(self, *objects: object) -> V | None:
        hit = self._entries.get(tuple(map(id, objects)))
        if hit is None or len(hit[0]) != len(objects) or any(a is not b for a, b in zip(hit[0], objects)):
            return None
        return hit[1]

    def put(self, objects: tuple[object, ...], value: V) -> V:
        if len(self._entries) >= self.size:
            self._entries.clear()  # objects made anew would never be asked for again: memory stays bounded
        self._entries[tuple(map(id, objects))] = (objects, value)
        return value
