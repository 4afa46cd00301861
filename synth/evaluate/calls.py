"""The tool-call grader shared by ``synth grade``, ``synth eval`` and the label checks.

Per expected call: 1.0 for the right tool with the right arguments, 0.5 for the right tool with
other arguments, 0.0 otherwise. Several calls in one turn are matched without regard to order,
exact matches first, then name-only matches, and combined as a soft F1 (precision over the
predicted calls, recall over the expected ones), as Microsoft Foundry's tool-call grader does.

Arguments are compared after canonicalisation: JSON-string arguments are parsed, key order is
ignored, a numeric string equals its number ("5" == 5) and 1 == 1.0. Beside the score each turn
gets a diagnosis in BFCL's vocabulary (wrong_func_name, missing_required, unexpected_param,
type_error, value_error, wrong_count), plus invalid_arguments for arguments that are not a JSON
object. Leniency is opt-in: an omitted optional parameter equal to its default, an int where a
float is expected, and BFCL's string normalisation ("April 1, 2024" == "april 1 2024").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from synth.grade import json_type

DIAGNOSES = ("correct", "wrong_func_name", "missing_required", "unexpected_param", "type_error", "value_error",
             "wrong_count", "invalid_arguments")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")
_STRIP = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True)
class Leniency:
    defaults: bool = False  # an omitted optional parameter equal to its default matches
    int_float: bool = False  # 3 where 3.0 is expected (and the schema says number) matches
    strings: bool = False  # BFCL's standardize_string on both sides

    @classmethod
    def parse(cls, text: str) -> Leniency:
        """``"defaults,int_float"`` -> Leniency(defaults=True, int_float=True); ``"all"`` turns on all."""
        names = {x.strip() for x in text.split(",") if x.strip()}
        if "all" in names:
            return cls(True, True, True)
        unknown = names - {"defaults", "int_float", "strings"}
        if unknown:
            raise ValueError(f"unknown leniency {sorted(unknown)}; use defaults, int_float, strings or all")
        return cls(**{n: True for n in names})


@dataclass(frozen=True)
class Call:
    """A call as a model made it: the name, and the arguments if they were a JSON object."""

    name: str
    arguments: dict[str, Any] | None  # None: not a JSON object

    @classmethod
    def from_openai(cls, call: dict[str, Any]) -> Call:
        fn = call.get("function") or call
        raw = fn.get("arguments")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw) if raw.strip() else {}
            except ValueError:
                raw = None
        return cls(name=str(fn.get("name") or ""), arguments=raw if isinstance(raw, dict) else None)


@dataclass(frozen=True)
class TurnScore:
    score: float
    diagnosis: str
    exact: int = 0
    name_only: int = 0
    details: list[str] = field(default_factory=list)


def _canonical(value: Any, lenient: Leniency) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                return _canonical(json.loads(text), lenient)
            except ValueError:
                pass
        if _NUMBER.fullmatch(text):
            return _canonical(float(text) if "." in text else int(text), lenient)
        return _STRIP.sub("", text).lower().replace("'", '"') if lenient.strings else text
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): _canonical(v, lenient) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_canonical(v, lenient) for v in value]
    return value


def _same_kind(a: Any, b: Any) -> bool:
    """The same JSON type, counting a numeric string as a number ("5" stands for 5)."""
    kinds = {json_type(a), json_type(b)}
    if kinds == {"string", "number"}:
        text = a if isinstance(a, str) else b
        return bool(_NUMBER.fullmatch(text.strip()))
    return len(kinds) == 1


def diagnose(expected: Call, predicted: Call, schema: dict[str, Any] | None, lenient: Leniency = Leniency()) -> str:
    """Why ``predicted`` is not ``expected`` (or ``correct``), BFCL style, for one pair of calls."""
    if predicted.name != expected.name:
        return "wrong_func_name"
    if predicted.arguments is None:
        return "invalid_arguments"
    schema = schema or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    want = expected.arguments or {}
    got = predicted.arguments

    def default_ok(name: str, value: Any) -> bool:
        prop = props.get(name)
        return lenient.defaults and isinstance(prop, dict) and "default" in prop and \
            _canonical(prop["default"], lenient) == _canonical(value, lenient)

    missing = [k for k in want if k not in got and not default_ok(k, want[k])]
    if any(k in required for k in missing):
        return "missing_required"
    extra = [k for k in got if k not in want and not default_ok(k, got[k])]
    if extra:
        return "unexpected_param"
    for k, v in want.items():
        if k not in got:
            continue
        a, b = _canonical(v, lenient), _canonical(got[k], lenient)
        if a == b:
            continue
        if not _same_kind(v, got[k]):
            return "type_error"
        if isinstance(v, float) and isinstance(got[k], int) and not isinstance(got[k], bool) and not lenient.int_float \
                and float(got[k]) == v:
            return "type_error"
        return "value_error"
    if missing:
        return "value_error"  # an optional parameter the expected call set was left out
    return "correct"


def _same(expected: Call, predicted: Call, schema: dict[str, Any] | None, lenient: Leniency) -> bool:
    return diagnose(expected, predicted, schema, lenient) == "correct"


def score_turn(expected: list[Call], predicted: list[Call], schemas: dict[str, dict[str, Any]],
               lenient: Leniency = Leniency()) -> TurnScore:
    """Soft-F1 score and diagnosis of the calls a model made in one turn against the expected ones."""
    if not expected:
        return TurnScore(1.0 if not predicted else 0.0, "correct" if not predicted else "wrong_count")
    if not predicted:
        return TurnScore(0.0, "wrong_count", details=["no tool call (the model answered with text)"])
    free = list(range(len(predicted)))
    credit = exact = name_only = 0
    unmatched: list[Call] = []
    for e in expected:  # exact matches first, so a name-only match never takes an exact one's partner
        hit = next((i for i in free if _same(e, predicted[i], schemas.get(e.name), lenient)), None)
        if hit is None:
            unmatched.append(e)
        else:
            free.remove(hit)
            exact += 1
    pairs: list[tuple[Call, Call]] = []
    pairs_broken: list[tuple[Call, Call]] = []
    rest: list[Call] = []
    for e in unmatched:
        # arguments that are not a JSON object earn nothing: the call could not have run
        hit = next((i for i in free if predicted[i].name == e.name and predicted[i].arguments is not None), None)
        broken = next((i for i in free if predicted[i].name == e.name), None) if hit is None else None
        if hit is None and broken is not None:
            free.remove(broken)
            pairs_broken.append((e, predicted[broken]))
        elif hit is None:
            rest.append(e)
        else:
            free.remove(hit)
            name_only += 1
            pairs.append((e, predicted[hit]))
    credit = exact + 0.5 * name_only
    precision, recall = credit / len(predicted), credit / len(expected)
    f1 = 0.0 if credit == 0 else 2 * precision * recall / (precision + recall)
    if len(predicted) != len(expected):
        diagnosis = "wrong_count"
    elif pairs or pairs_broken:
        e, p = (pairs or pairs_broken)[0]
        diagnosis = diagnose(e, p, schemas.get(e.name), lenient)
    elif rest:
        diagnosis = "wrong_func_name"
    else:
        diagnosis = "correct"
    details = [f"{e.name}: {diagnose(e, p, schemas.get(e.name), lenient)}" for e, p in pairs + pairs_broken]
    details += [f"{e.name}: not called" for e in rest]
    return TurnScore(round(f1, 6), diagnosis, exact, name_only, details)
