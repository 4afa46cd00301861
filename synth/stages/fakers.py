"""Seeded Fakers without building one per use.

``Faker("en_US")`` takes about 10 ms to build (it walks every provider with ``dir``), and the
offline path needs a fresh seeded one for most conversations. A ``Seeded`` gives the same values
as ``Faker("en_US")`` after ``seed_instance(seed)``: it owns its ``random.Random(seed)`` and lends
it to one shared Faker per thread just before each call, so users that interleave (a generator
holding one while another draws) never share a random stream.
"""

from __future__ import annotations

import random
import threading
from typing import Any

_LOCAL = threading.local()


def _shared() -> Any:
    faker = getattr(_LOCAL, "faker", None)
    if faker is None:
        from faker import Faker

        faker = _LOCAL.faker = Faker("en_US")
    return faker


class Seeded:
    """Stands in for ``Faker("en_US").seed_instance(seed)``: attribute access returns the shared
    Faker's method with this instance's random stream in place."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)  # what Generator.seed_instance makes

    def __getattr__(self, name: str) -> Any:
        faker = _shared()
        faker.random = self._random
        return getattr(faker, name)
