"""What a result template adds to a world entity, made to agree with the entity.

A template gives a result its shape and the fields the world does not hold (a paper's ``pdf_url`` and
``updated`` when the seed has neither). Drawn on their own they contradict the entity: a PDF link naming
another paper's id, a paper updated before it was published, a note made just now whose ``updated_at``
is an hour before its ``created_at``. ``agreed`` fixes those fields from the entity's own: a made field that
holds something shaped like the entity's id holds its id, and a later stamp (updated, modified) is never
before the first one (created, published); ``fresh`` gives a new entity's stamps one time.
"""

from __future__ import annotations

import re
from typing import Any

FIRST = re.compile(r"(?i)created|published|submitted|added|opened|started|posted")  # when an entity began
LATER = re.compile(r"(?i)updated|modified|edited|changed")  # when it last changed
ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_EDGE = r"(?<![0-9A-Za-z]){}(?![0-9A-Za-z])"


def shape_of(ident: str) -> re.Pattern[str] | None:
    """A pattern for text shaped like ``ident`` (``2604.18248`` -> four digits, a dot, five digits), or None
    for an id too plain to tell apart from other numbers (``90``) or with no digit in it (a name)."""
    if len(ident) < 5 or not any(c.isdigit() for c in ident) or not ident.isascii():
        return None
    parts = []
    for c in ident:
        parts.append("[0-9]" if c.isdigit() else "[a-z]" if c.islower() else "[A-Z]" if c.isupper() else re.escape(c))
    return re.compile(_EDGE.format("".join(parts)))


def _ids(value: Any, pattern: re.Pattern[str], ident: str) -> Any:
    if isinstance(value, str):
        return pattern.sub(ident, value)
    if isinstance(value, list):
        return [_ids(v, pattern, ident) for v in value]
    return value


def _stamp(value: Any) -> str | None:
    return value if isinstance(value, str) and ISO.match(value) else None


def agreed(record: dict[str, Any], made: set[str], ident: Any) -> dict[str, Any]:
    """``record`` (a result record about one entity, changed in place) with the fields in ``made`` (the ones
    the template filled, not the entity) agreeing with the entity: its id where they name one shaped like it,
    and a later stamp no earlier than the first."""
    pattern = shape_of(str(ident)) if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
    if pattern is not None:
        for key in made:
            if key in record:
                record[key] = _ids(record[key], pattern, str(ident))
    firsts = [(k, _stamp(v)) for k, v in record.items() if FIRST.search(k) and not LATER.search(k) and _stamp(v)]
    if not firsts:
        return record
    start = max(str(v) for _, v in firsts)
    for key, value in list(record.items()):
        later = _stamp(value) if LATER.search(key) else None
        if later is None or later >= start[: len(later)]:
            continue
        if key in made:
            record[key] = start if len(start) == len(later) else _same_form(start, later)
        else:  # the entity's own stamp: the made first ones move back to it
            for first, _ in firsts:
                if first in made:
                    record[first] = _same_form(later, str(record[first]))
    return record


def _same_form(value: str, like: str) -> str:
    """``value`` (a date or a time) written as ``like`` is: a date for a date, a time for a time."""
    if len(like) == 10:
        return value[:10]
    if len(value) == 10:
        return value + like[10:]
    return value


def fresh(record: dict[str, Any], sent: set[str]) -> dict[str, Any]:
    """A new entity's stamps (changed in place): made now, so last changed when it was made, unless the call
    said otherwise."""
    first = next((v for k, v in record.items() if FIRST.search(k) and not LATER.search(k) and _stamp(v)), None)
    if first is None:
        return record
    for key, value in list(record.items()):
        if LATER.search(key) and key not in sent and _stamp(value):
            record[key] = _same_form(str(first), str(value))
    return record


def not_before(record: dict[str, Any], was: dict[str, Any], stamps: set[str]) -> dict[str, Any]:
    """An update's stamps (changed in place) no earlier than the ones the entity had: a doc refreshed now was not
    last updated before it was added."""
    for key in stamps:
        now, then = _stamp(record.get(key)), _stamp(was.get(key))
        if now is not None and then is not None and now < then[: len(now)]:
            record[key] = _same_form(then, now)
    return record
