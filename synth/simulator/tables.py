"""The simulator's word tables and keyword rules, read from data files (as Faker keeps its providers' words).

A table lives in ``synth/simulator/data/<subject>.json``: one JSON object per subject (``results/netsec``,
``values/string_rules``...), one entry per table. The module that uses a table names it with its shape::

    _CVES = table("results/netsec", "cves", tuple[tuple[str, str, float], ...])

and gets it back in that shape, checked: arrays become tuples (or frozensets, lists), objects dicts, and
a ``re.Pattern`` is a string (or ``{"re": ..., "flags": [...]}``) compiled once. A file is read once;
an entry that does not fit its shape raises TableError naming the file, the entry and the place in it.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from importlib import resources
from typing import Any, TypeVar

from synth.errors import TableError

T = TypeVar("T")
ROOT: Any = resources.files("synth.simulator") / "data"  # a Traversable: found inside a wheel or a zip as on disk
_TAKEN: set[tuple[str, str]] = set()


def path_of(subject: str) -> str:
    return f"synth/simulator/data/{subject}.json"


@functools.cache
def entries(subject: str) -> dict[str, Any]:
    """The entries of one subject's file, read once."""
    source = ROOT.joinpath(*f"{subject}.json".split("/"))
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise TableError(f"{path_of(subject)}: no such data file; it ships with synth (reinstall it)") from e
    except json.JSONDecodeError as e:
        raise TableError(f"{path_of(subject)}: not JSON ({e}); fix the file") from e
    if not isinstance(data, dict):
        raise TableError(f"{path_of(subject)}: holds {type(data).__name__}; it must be one object of named tables")
    return data


def table(subject: str, name: str, shape: type[T]) -> T:
    """The table ``name`` of ``subject``'s file, in ``shape``."""
    data = entries(subject)
    user = sys._getframe(1).f_globals.get("__name__", "?")  # the module that declares the shape, for the message
    if name not in data:
        raise TableError(f"{path_of(subject)}: no entry {name!r}, which {user} reads; add it, shaped {_show(shape)}")
    _TAKEN.add((subject, name))
    try:
        return typing.cast(T, _conform(data[name], shape))
    except _Misfit as e:
        raise TableError(
            f"{path_of(subject)}: entry {name!r}{e.where}: {e}; {user} reads it as {_show(shape)}: fix the entry"
        ) from None


def named(subject: str, name: str, namespace: Mapping[str, Any]) -> Any:
    """The function a rule of ``subject`` names ("_movie", "money.bank"), found in ``namespace`` (the
    globals of the module that reads the rule), for rules whose words are data and whose making is code."""
    head, *rest = name.split(".")
    found = namespace.get(head)
    for attr in rest:
        found = getattr(found, attr, None)
    if not callable(found):
        raise TableError(f"{path_of(subject)}: names {name!r}, which {namespace.get('__name__')} has not; fix the name")
    return found


def taken() -> frozenset[tuple[str, str]]:
    """Every (subject, entry) a module has asked for so far: the test that no entry is dead reads it."""
    return frozenset(_TAKEN)


class _Misfit(ValueError):
    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


def _show(shape: Any) -> str:
    return shape.__name__ if isinstance(shape, type) and not typing.get_args(shape) else str(shape)


def _conform(value: Any, shape: Any) -> Any:
    return _converter(shape)(value)


Convert = Callable[[Any], Any]


@functools.cache
def _converter(shape: Any) -> Convert:
    """The function that checks a JSON value against ``shape`` and builds it: made once per shape."""
    if shape is Any:
        return _frozen
    origin, args = typing.get_origin(shape), typing.get_args(shape)
    if origin in (typing.Union, types.UnionType):
        return _union(shape, [_converter(a) for a in args])
    if shape in (str, int, float, bool, type(None)):
        return _scalar(shape)
    if shape is re.Pattern or origin is re.Pattern:
        return _pattern
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _array(tuple, _converter(args[0]))
    if origin is tuple:
        return _row([_converter(a) for a in args])
    if origin in (list, frozenset, set) or shape in (list, frozenset, set):
        return _array(origin or shape, _converter(args[0] if args else Any))
    if origin is dict or shape is dict:
        key, value = args or (str, Any)
        return _object(key is int, _converter(value))
    raise _Misfit(f"the shape {_show(shape)} is not one a table can have")


def _union(shape: Any, options: list[Convert]) -> Convert:
    def convert(value: Any) -> Any:
        for option in options:
            try:
                return option(value)
            except _Misfit:
                continue
        raise _Misfit(f"{_brief(value)} is none of {_show(shape)}")

    return convert


def _frozen(value: Any) -> Any:
    """JSON as the tables always were in code: arrays as tuples (hashable, read-only)."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


def _brief(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _scalar(kind: type) -> Convert:
    def check(value: Any) -> Any:
        if type(value) is not kind:  # exact: a bool is no int here, an int no float
            raise _Misfit(f"{_brief(value)} is not {kind.__name__}")
        return value

    return check


def _each(value: list[Any], items: Iterable[Convert]) -> list[Any]:
    """Each element through its converter, a misfit saying which element it is."""
    out = []
    for i, (v, item) in enumerate(zip(value, items)):
        try:
            out.append(item(v))
        except _Misfit as e:
            raise _Misfit(str(e), f"[{i}]{e.where}") from None
    return out


def _array(kind: Callable[[list[Any]], Any], item: Convert) -> Convert:
    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            raise _Misfit(f"{_brief(value)} is not an array")
        return kind(_each(value, itertools.repeat(item)))

    return convert


def _row(items: list[Convert]) -> Convert:
    def convert(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(items):
            raise _Misfit(f"{_brief(value)} is not an array of {len(items)}")
        return tuple(_each(value, items))

    return convert


def _object(int_keys: bool, item: Convert) -> Convert:
    def convert(value: Any) -> dict[Any, Any]:
        if not isinstance(value, dict):
            raise _Misfit(f"{_brief(value)} is not an object")
        out = {}
        for k, v in value.items():
            try:
                out[int(k) if int_keys else k] = item(v)
            except (_Misfit, ValueError) as e:
                raise _Misfit(str(e), f"[{k!r}]{getattr(e, 'where', '')}") from None
        return out

    return convert


def _pattern(value: Any) -> re.Pattern[str]:
    """A regex: its text, or {"re": text, "flags": ["IGNORECASE", ...]}; compiled here, once."""
    text, flags = (value.get("re"), value.get("flags", [])) if isinstance(value, dict) else (value, [])
    if not isinstance(text, str) or not all(isinstance(f, str) and f in re.RegexFlag.__members__ for f in flags):
        raise _Misfit(f'{_brief(value)} is not a regex (a string, or {{"re": string, "flags": [names]}})')
    try:
        return re.compile(text, functools.reduce(lambda a, f: a | re.RegexFlag[f], flags, re.RegexFlag(0)))
    except re.error as e:
        raise _Misfit(f"{_brief(text)} does not compile: {e}") from None
