"""Unit mix-ups for error injection: a gold number converted to the unit it is confused with.

A proposal only, like everything in synth.stages.mutate: the injector (synth.stages.inject) checks
each candidate with synth.grade and the schema before it becomes a record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from synth.grade import Facts, words

_UNITS: tuple[tuple[str, str, str, Callable[[float], float]], ...] = (
    # (what in the name or description says the unit, the unit, the one it is mixed up with, convert)
    (r"celsius|°c\b|\bdeg(?:rees)?\s*c\b", "Celsius", "Fahrenheit", lambda x: x * 9 / 5 + 32),
    (r"fahrenheit|°f\b", "Fahrenheit", "Celsius", lambda x: (x - 32) * 5 / 9),
    (r"\bcents?\b|\bminor units?\b", "cents", "dollars", lambda x: x / 100),
    (r"\bdollars?\b|\busd\b|\beuros?\b", "dollars", "cents", lambda x: x * 100),
    (r"\bkilomet(?:er|re)s?\b|\bkm\b", "kilometres", "miles", lambda x: x * 0.621371),
    (r"\bmiles?\b|\bmi\b", "miles", "kilometres", lambda x: x * 1.609344),
    (r"\bmet(?:er|re)s?\b", "metres", "feet", lambda x: x * 3.28084),
    (r"\bfeet\b|\bft\b", "feet", "metres", lambda x: x / 3.28084),
    (r"\bkilograms?\b|\bkg\b", "kilograms", "pounds", lambda x: x * 2.20462),
    (r"\bpounds?\b|\blbs?\b", "pounds", "kilograms", lambda x: x / 2.20462),
    (r"\bmillisec(?:ond)?s?\b|\bms\b", "milliseconds", "seconds", lambda x: x / 1000),
    (r"\bsec(?:ond)?s?\b", "seconds", "milliseconds", lambda x: x * 1000),
    (r"\bminutes?\b|\bmins?\b", "minutes", "hours", lambda x: x / 60),
    (r"\bhours?\b|\bhrs?\b", "hours", "minutes", lambda x: x * 60),
)


def unit_mixup(value: Any, f: Facts) -> list[tuple[Any, str, str]]:
    """The gold number converted to the unit it is confused with: (value, unit, other unit).

    Only where the parameter's name or description names the unit ("timeout in seconds",
    ``temp_c``, "amount in cents"): 20 (Celsius) -> 68, 1999 (cents) -> 19.99, 30 s -> 30000.
    """
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value == 0:
        return []
    text = " ".join(words(f.name)) + " " + f.description.lower()
    out = []
    for pattern, unit, other, convert in _UNITS:
        if not re.search(pattern, text):
            continue
        new = convert(float(value))
        new = (
            round(new)
            if f.schema.get("type") == "integer" or isinstance(value, int) and new.is_integer()
            else round(new, 2)
        )
        if new != value and (f.schema.get("type") != "integer" or float(new).is_integer()):
            out.append((int(new) if float(new).is_integer() and isinstance(value, int) else new, unit, other))
    return out[:2]
