"""Do a conversation's tool results agree with each other and with themselves?

- ``conflicting_ids``: a record that comes back twice (the same id in two results) says the same of
  itself both times, unless a call between them (or the later call itself) changed that record.
- ``derived_mismatch``: dates and numbers that go together agree: an end is not before its start
  (checkout before checkin), a maximum is not below its minimum, in a call's arguments and in a result.
- ``limit_mismatches``: a result list holds as many items as the ``limit`` (``page_size``...) its call gave.
- ``mixed_owners``: the records a conversation reads and changes belong to one person: results name one
  ``user_id`` (or ``customer_id``), not the identified user's and then another customer's order.

Both read messages only (records or OpenAI chat lines), so the gates, realism.py and the worlds share them.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

ID_KEYS = ("id", "uuid", "slug", "key", "nctId", "nct_id", "pmid", "number")  # any case: PMID is pmid
_ID_LOWER = frozenset(k.lower() for k in ID_KEYS)
# arguments that say where a record lives (a repository, a workspace, a database): PR 142 of two repositories
# is two records
_SCOPE = re.compile(r"(?i)(?:slug|_?id|repo\w*|workspace|owner|project|database|namespace|bucket|org\w*|url)$")
_ID_SUFFIX = re.compile(r"(?:_id|Id|ID)$")
# fields that may differ between two honest reads of one record: clocks, counters of views, rankings
_VOLATILE = re.compile(r"(?i)(?:time|date|_at$|At$|updated|fetched|timestamp|now|score|rank|relevance|index)")
_READ = re.compile(r"(?i)^(?:get|list|search|read|fetch|find|show|describe|query|lookup|view|check|count|browse)")
# what a start/end pair measures when it is not a time: an amount, which can be lower at the end
_QUANTITY = re.compile(r"tvl|price|value|balance|supply|amount|volume|circulating|apy|cap|count|usd|total")
_PAIRS = (
    ("checkin", "checkout"),
    ("check_in", "check_out"),
    ("start", "end"),
    ("from", "to"),
    ("since", "until"),
    ("begin", "end"),
    ("departure", "return"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("low", "high"),
    ("first", "last"),
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")


def _parsed(content: Any) -> Any:
    if not isinstance(content, str):
        return content
    try:
        return json.loads(content)
    except ValueError:
        return None


def _calls(message: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(id, name, arguments) of each call in a message, record or OpenAI shape."""
    out = []
    for call in message.get("tool_calls") or ():
        fn = call.get("function") or call
        args = fn.get("arguments")
        args = _parsed(args) if isinstance(args, str) else args
        out.append((call.get("id") or "", fn.get("name") or "", args if isinstance(args, dict) else {}))
    return out


def _records(value: Any) -> Iterator[dict[str, Any]]:
    """Every object inside a result, however deep."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _records(v)
    elif isinstance(value, list):
        for v in value:
            yield from _records(v)


def _identity(record: dict[str, Any]) -> tuple[str, str] | None:
    """The record's own id: the first ID_KEYS key with a scalar value (a ``*_id`` key may name another record)."""
    keys = {k.lower(): k for k in record}
    for key in ID_KEYS:
        value = record.get(keys.get(key.lower(), key))
        if isinstance(value, (str, int)) and not isinstance(value, bool) and len(str(value)) >= 2:
            return keys.get(key.lower(), key), str(value)
    return None


def _scalars(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The record's words of itself (a title, a name, a status); numbers are left out: two tools may count
    different things under one name (a day's volume and a day's fees, both ``total24h``)."""
    for k, v in record.items():
        if isinstance(v, str) and k.lower() not in _ID_LOWER and not _VOLATILE.search(k) and not _ID_SUFFIX.search(k):
            yield k, v


def _as_dict(m: Any) -> Mapping[str, Any]:
    return m if isinstance(m, Mapping) else m.to_json()


def conflicting_ids(messages: Iterable[Any]) -> list[str]:
    """Each place where a record (the same id) is said to have two different values of one field by two
    read results of one conversation, with no call between them changing that record; one line each
    ("id 4512: status 'shipped' then 'pending' (get_order, then list_orders)")."""
    seen: dict[tuple[str, str], tuple[Any, str, int, dict[str, str]]] = {}  # (id, field) -> value, tool, place, scope
    names: dict[str, str] = {}
    scopes: dict[str, dict[str, str]] = {}
    writes: list[tuple[int, set[str]]] = []  # place of a write call, the values it names
    out: list[str] = []
    for place, m in enumerate(_as_dict(x) for x in messages):
        for cid, name, args in _calls(m):
            names[cid] = name
            scopes[cid] = {k: str(v) for k, v in args.items() if _SCOPE.search(k) and isinstance(v, (str, int))}
            if not _READ.search(name):
                writes.append((place, {str(v) for v in args.values() if isinstance(v, (str, int))}))
        if m.get("role") != "tool":
            continue
        tool = names.get(m.get("tool_call_id") or "", "?")
        scope = scopes.get(m.get("tool_call_id") or "", {})
        for record in _records(_parsed(m.get("content"))):
            ident = _identity(record)
            if ident is None:
                continue
            for key, value in _scalars(record):
                earlier = seen.get((ident[1], key))
                seen[(ident[1], key)] = (value, tool, place, scope)
                if earlier is None or earlier[0] == value or any(earlier[3].get(k, v) != v for k, v in scope.items()):
                    continue
                if any(earlier[2] < at <= place and ident[1] in named for at, named in writes) or not _READ.search(
                    tool
                ):
                    continue
                out.append(f"{ident[0]} {ident[1]}: {key} {earlier[0]!r} then {value!r} ({earlier[1]}, then {tool})")
    return out


# the fields and parameters that name whose records a call is about: one customer per conversation
OWNER_KEYS = ("user_id", "customer_id", "userId", "customerId")


def mixed_owners(messages: Iterable[Any]) -> list[str]:
    """The people whose records the results are about (a result's own ``user_id``, or the id a user lookup
    returned), when there are several: one line, "user_id 'a' (find_user_id_by_email), then 'b' (...)"."""
    names: dict[str, str] = {}
    owners: dict[str, str] = {}  # owner -> the first tool that named it
    for m in (_as_dict(x) for x in messages):
        for cid, name, _ in _calls(m):
            names[cid] = name
        if m.get("role") != "tool":
            continue
        tool = names.get(m.get("tool_call_id") or "", "?")
        data = _parsed(m.get("content"))
        found = next((data[k] for k in OWNER_KEYS if isinstance(data, dict) and isinstance(data.get(k), str)), None)
        if found is None and isinstance(data, str) and "user_id" in tool:
            found = data
        if found:
            owners.setdefault(found, tool)
    if len(owners) < 2:
        return []
    return ["user_id " + ", then ".join(f"{o!r} ({t})" for o, t in owners.items())]


def _ordered(low: Any, high: Any) -> bool:
    if isinstance(low, (int, float)) and isinstance(high, (int, float)) and not isinstance(low, bool):
        return low <= high
    if isinstance(low, str) and isinstance(high, str) and _DATE.match(low) and _DATE.match(high):
        if len(low) > 10 and len(high) > 10:  # two times: an event that ends at 00:42 before it starts at 23:42
            try:
                return dt.datetime.fromisoformat(low) <= dt.datetime.fromisoformat(high)
            except (TypeError, ValueError):  # one with a zone and one without, or a time fromisoformat refuses
                pass
        return low[:10] <= high[:10]
    return True


def _pair_breaks(values: dict[str, Any]) -> Iterator[str]:
    """Pairs of keys (checkin/checkout, minPrice/maxPrice, start_date/end_date) whose end is before their start."""
    low_keys = {k.lower().replace("-", "_"): k for k in values}
    for first, second in _PAIRS:
        for key, original in low_keys.items():
            if first not in key:
                continue
            partner = low_keys.get(key.replace(first, second, 1))
            if partner is None or partner == original:
                continue
            if first != "min" and _QUANTITY.search(key) and not isinstance(values[original], str):
                continue  # a quantity at the start and the end of a window: it can fall (start_tvl, end_price)
            if not _ordered(values[original], values[partner]):
                yield f"{partner} {values[partner]!r} is before {original} {values[original]!r}"


def derived_mismatch(messages: Iterable[Any]) -> list[str]:
    """Each call argument pair or result record whose end comes before its start; one line each."""
    out: list[str] = []
    for m in (_as_dict(x) for x in messages):
        for _, name, args in _calls(m):
            out += [f"{name}: {line}" for line in _pair_breaks(args)]
        if m.get("role") == "tool":
            for record in _records(_parsed(m.get("content"))):
                out += [f"result: {line}" for line in _pair_breaks(record)]
    return out


def record_identity(record: dict[str, Any]) -> tuple[str, str] | None:
    """A record's own id as ``conflicting_ids`` reads it: (key, value), or None."""
    return _identity(record)


def record_words(record: dict[str, Any]) -> dict[str, str]:
    """The fields ``conflicting_ids`` compares between two reads of one record (its words of itself)."""
    return dict(_scalars(record))


def call_scope(arguments: dict[str, Any]) -> dict[str, str]:
    """The arguments that say where a record lives (a repository, a database): one id in two scopes is two records."""
    return {k: str(v) for k, v in arguments.items() if _SCOPE.search(k) and isinstance(v, (str, int))}


# --- lists and their limit ------------------------------------------------------------------------

# call parameters that set how many items a list holds
LIMIT_KEY = re.compile(
    r"(?i)^(limit|page_?size|per_?page|max_?results|num_?results|max_?items|top_?k|top_?n|max_?count|"
    r"maxResults|numResults|pageSize|perPage|count|n)$"
)
# count fields beside a list: how many match in all (a list shorter than its limit holds them all when this
# equals its length), and how many the list itself holds
TOTAL_KEY = re.compile(
    r"(?i)^(total|total_?(count|results|hits|matches|items|size|records|entries|found)|nb_?hits|num_?found|hits"
    r"|matches|found)$"
)
COUNT_KEY = re.compile(r"(?i)^(count|returned|result_?count|num_?results|n_?results|size)$")


def keyed_lists(data: Any) -> list[tuple[str, list[Any]]]:
    """The lists of records a result is made of, with where each is: ``""`` for the result itself, else its key."""
    if isinstance(data, list):
        return [("", data)]
    if isinstance(data, dict):
        return [(k, v) for k, v in data.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
    return []


def limit_of(arguments: dict[str, Any]) -> tuple[str, int] | None:
    """The first argument that sets how many items a list holds, and its value."""
    for key, value in arguments.items():
        if LIMIT_KEY.match(key) and isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return key, value
    return None


def limit_mismatches(messages: Iterable[Any]) -> list[str]:
    """Each result whose one list of records holds more or fewer items than a limit its call gave (``limit: 5``
    and three items); one line each. A result with no list, several lists (which one the limit counts is
    unknown), an empty list (nothing found: a failure, not a count) or an error is not judged, nor a shorter
    list whose result says that is all that matched (``total: 2`` beside two items)."""
    limits: dict[str, tuple[str, str, int]] = {}  # call id -> tool, parameter, limit
    out: list[str] = []
    for m in (_as_dict(x) for x in messages):
        for cid, name, args in _calls(m):
            found = limit_of(args)
            if found is not None:
                limits[cid] = (name, *found)
        if m.get("role") != "tool" or (m.get("tool_call_id") or "") not in limits:
            continue
        data = _parsed(m.get("content"))
        if isinstance(data, dict) and ("error" in data or data.get("isError")):
            continue
        lists = keyed_lists(data)
        if len(lists) != 1 or not lists[0][1]:
            continue
        tool, param, limit = limits[m.get("tool_call_id") or ""]
        if len(lists[0][1]) < limit and _all_there_is(data, len(lists[0][1])):
            continue
        if len(lists[0][1]) != limit:
            out.append(f"{tool}: {param}={limit} but the result lists {len(lists[0][1])} items")
    return out


def _all_there_is(data: Any, shown: int) -> bool:
    if not isinstance(data, dict):
        return False
    totals = [v for k, v in data.items() if TOTAL_KEY.match(k) and isinstance(v, int) and not isinstance(v, bool)]
    return bool(totals) and all(v == shown for v in totals)
