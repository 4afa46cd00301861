"""The one tool-call grader: canonical values, the four-way label, and per-call scores.

The injector's label checks, ``synth review`` edits, ``synth grade`` and ``synth eval`` all grade here.
Values are compared the way BFCL's AST checker compares them: JSON strings are parsed, numeric
strings are numbers (``"4" == 4``, ``1 == 1.0``), key order is irrelevant, and with string
leniency strings are standardised (lower case, without spaces and ``,./-_*^``, ``'`` as ``"``).
Booleans are never numbers here, though Python says ``True == 1``.

One comparison (``_problems``) gives every difference between an expected and a predicted call;
two vocabularies read it:

- ``classify``: the label of a scored call (correct, incorrect_tool, incorrect_parameter_names,
  incorrect_parameter_values), always lenient: an omitted optional parameter equal to its default
  is fine and strings are standardised, so a label we emit is one an evaluator agrees with.
- ``diagnose``: BFCL's diagnosis (wrong_func_name, missing_required, unexpected_param, type_error,
  value_error, wrong_count, invalid_arguments), strict unless ``Leniency`` says otherwise.

``score_turn`` scores one turn: 1.0 per right tool with right arguments, 0.5 per right tool with
other arguments, matched without regard to order (exact matches first) and combined as a soft F1,
as Microsoft Foundry's tool-call grader does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

# The injector and the mutators take these from here (the facts and names a failure_reason is made of).
from synth.facts import FORMAT_NAMES, Evidence, Facts, branch, facts, format_ok, show  # noqa: F401
from synth.memo import ByIdentity
from synth.records import ToolCall, ToolSpec, canonical_json
from synth.wording import FILLER_WORDS, infinitive, loose, purpose, spell, words  # noqa: F401

DIAGNOSES = (
    "correct",
    "wrong_func_name",
    "missing_required",
    "unexpected_param",
    "type_error",
    "value_error",
    "wrong_count",
    "invalid_arguments",
    "unnecessary_call",  # a call where the right move was none (ask, decline, answer)
)
_STRIP = re.compile(r"[ ,./\-_*^]")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?")  # "00123" stays a string: an id, not 123
_NAMES = {"missing_required", "unexpected_param", "missing_optional"}  # what makes a names error


def standardize(text: str) -> str:
    """BFCL's ``standardize_string``: "April 1, 2024" and "april 1 2024" are the same answer."""
    return _STRIP.sub("", text).lower().replace("'", '"')


def canonical(value: Any, strings: bool = True) -> Any:
    """One spelling per value, for comparison (not for display); ``strings=False`` keeps text as written."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                return canonical(json.loads(text), strings)
            except ValueError:
                pass
        if _NUMBER.fullmatch(text):
            return canonical(float(text) if "." in text else int(text), strings)
        return standardize(value) if strings else text
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {str(k): canonical(v, strings) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v, strings) for v in value]
    return value


_ASKS = re.compile(r"\?\s*$")
_DECLINES = re.compile(
    r"\b(?:can(?:no|')t|can not|unable to|not able to|no way to|not something I can|outside what I can|"
    r"don't have (?:a|any) (?:tool|way))\b",
    re.IGNORECASE,
)


def text_decision(content: str | None) -> str:
    """Which no-call move a text answer makes, read by its words: ``decline`` when it says it cannot,
    ``ask`` when it ends on a question, else ``answer``. A rule for the eval's confusion table, not a judge."""
    text = (content or "").strip()
    if _DECLINES.search(text):
        return "decline"
    return "ask" if _ASKS.search(text) else "answer"


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):  # True == 1 in Python, not in JSON
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):  # order matters, as in BFCL
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    return bool(a == b)


def same_value(a: Any, b: Any, strings: bool = True) -> bool:
    """True when an evaluator would accept ``b`` for ``a``."""
    return _equal(canonical(a, strings), canonical(b, strings))


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    kinds = {str: "string", list: "array", dict: "object", type(None): "null"}
    return kinds.get(type(value), "unknown")


def _same_kind(a: Any, b: Any) -> bool:
    """The same JSON type, counting a numeric string as a number ("5" stands for 5)."""
    kinds = {json_type(a), json_type(b)}
    if kinds == {"string", "number"}:
        text = a if isinstance(a, str) else b
        return bool(_NUMBER.fullmatch(text.strip()))
    return len(kinds) == 1


def _mismatch(a: Any, b: Any, strings: bool) -> str:
    """type_error when the first value that differs (looked for inside objects, and lists of the same
    length) has another JSON type, else value_error."""
    if isinstance(a, dict) and isinstance(b, dict):
        return next(
            (_mismatch(a[k], b[k], strings) for k in a if k in b and not same_value(a[k], b[k], strings)), "value_error"
        )
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return next((_mismatch(x, y, strings) for x, y in zip(a, b) if not same_value(x, y, strings)), "value_error")
    return "value_error" if _same_kind(a, b) else "type_error"


@lru_cache(maxsize=8192)
def _validator(schema_json: str) -> Validator:
    schema = json.loads(schema_json)
    return validator_for(schema, default=Draft202012Validator)(schema)


def schema_validator(schema: dict[str, Any]) -> Validator:
    """A validator of the schema's own draft (2020-12 when it names none), compiled once.

    Keyed by the canonical JSON of the schema, so equal schemas share one compiled validator; the
    same schema object asked again (a tool's, for each of its calls) is found without spelling it.
    """
    known = _VALIDATORS.get(schema)
    return known if known is not None else _VALIDATORS.put((schema,), _validator(canonical_json(schema)))


_VALIDATORS: ByIdentity[Validator] = ByIdentity()


# --- calls -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leniency:
    defaults: bool = False  # an omitted optional parameter equal to its default matches
    int_float: bool = False  # 3 where 3.0 is expected matches (canonical values already treat 3 and 3.0 alike)
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


LABELS_LENIENCY = Leniency(defaults=True, int_float=True, strings=True)  # how a scored call's label is decided


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


def _problems(
    want: dict[str, Any], got: dict[str, Any], props: dict[str, Any], required: list[str], lenient: Leniency
) -> list[tuple[str, str]]:
    """Every (problem, parameter) of ``got`` against ``want``, in the order BFCL reports them.

    A required parameter must be there; an optional one given on one side only is fine when
    ``lenient.defaults`` and its value is the schema default (BFCL marks it optional).
    """

    def default_ok(name: str, value: Any) -> bool:
        prop = props.get(name)
        return (
            lenient.defaults
            and isinstance(prop, dict)
            and "default" in prop
            and same_value(prop["default"], value, lenient.strings)
        )

    out = [("missing_required", k) for k in want if k not in got and k in required]
    out += [("unexpected_param", k) for k in got if k not in want and not default_ok(k, got[k])]
    for k, v in want.items():
        if k in got and not same_value(v, got[k], lenient.strings):
            out.append((_mismatch(v, got[k], lenient.strings), k))
    out += [("missing_optional", k) for k in want if k not in got and k not in required and not default_ok(k, want[k])]
    return out


def diagnose(expected: Call, predicted: Call, schema: dict[str, Any] | None, lenient: Leniency = Leniency()) -> str:
    """Why ``predicted`` is not ``expected`` (or ``correct``), BFCL style, for one pair of calls."""
    if predicted.name != expected.name:
        return "wrong_func_name"
    if predicted.arguments is None:
        return "invalid_arguments"
    schema = schema or {}
    found = _problems(
        expected.arguments or {},
        predicted.arguments,
        schema.get("properties") or {},
        list(schema.get("required") or []),
        lenient,
    )
    if not found:
        return "correct"
    return "value_error" if found[0][0] == "missing_optional" else found[0][0]  # a set optional one left out


def classify(tool: ToolSpec | None, gold: ToolCall, candidate: ToolCall) -> str:
    """The label of ``candidate`` against ``gold``: the first of tool, names, values that is wrong.

    Leaving out ``days`` is correct when the gold call asked for its default; any other
    difference in the parameter names is a names error, whatever the values.
    """
    if candidate.name != gold.name:
        return "incorrect_tool"
    props = tool.properties if tool is not None else {}
    required = tool.required if tool is not None else []
    kinds = {kind for kind, _ in _problems(gold.arguments, candidate.arguments, props, required, LABELS_LENIENCY)}
    if kinds & _NAMES:
        return "incorrect_parameter_names"
    return "incorrect_parameter_values" if kinds else "correct"


def _match(
    expected: list[Call], predicted: list[Call], schemas: dict[str, dict[str, Any]], lenient: Leniency
) -> tuple[int, list[tuple[Call, Call]], list[tuple[Call, Call]], list[Call]]:
    """(exact matches, name-only pairs, pairs whose arguments are broken, expected calls not made)."""
    free = list(range(len(predicted)))
    exact = 0
    unmatched: list[Call] = []
    for e in expected:  # exact matches first, so a name-only match never takes an exact one's partner
        hit = next((i for i in free if diagnose(e, predicted[i], schemas.get(e.name), lenient) == "correct"), None)
        if hit is None:
            unmatched.append(e)
        else:
            free.remove(hit)
            exact += 1
    pairs: list[tuple[Call, Call]] = []
    broken: list[tuple[Call, Call]] = []
    rest: list[Call] = []
    for e in unmatched:
        # arguments that are not a JSON object earn nothing: the call could not have run
        hit = next((i for i in free if predicted[i].name == e.name and predicted[i].arguments is not None), None)
        bad = next((i for i in free if predicted[i].name == e.name), None) if hit is None else None
        if hit is not None:
            free.remove(hit)
            pairs.append((e, predicted[hit]))
        elif bad is not None:
            free.remove(bad)
            broken.append((e, predicted[bad]))
        else:
            rest.append(e)
    return exact, pairs, broken, rest


def score_turn(
    expected: list[Call], predicted: list[Call], schemas: dict[str, dict[str, Any]], lenient: Leniency = Leniency()
) -> TurnScore:
    """Soft-F1 score and diagnosis of the calls a model made in one turn against the expected ones."""
    if not expected:  # an item whose right move is no call: any text is right, any call wrong
        if not predicted:
            return TurnScore(1.0, "correct")
        return TurnScore(
            0.0, "unnecessary_call", details=[f"{p.name}: called where no call was right" for p in predicted]
        )
    if not predicted:
        return TurnScore(0.0, "wrong_count", details=["no tool call (the model answered with text)"])
    exact, pairs, broken, rest = _match(expected, predicted, schemas, lenient)
    credit = exact + 0.5 * len(pairs)
    precision, recall = credit / len(predicted), credit / len(expected)
    f1 = 0.0 if credit == 0 else 2 * precision * recall / (precision + recall)
    if len(predicted) != len(expected):
        diagnosis = "wrong_count"
    elif pairs or broken:
        e, p = (pairs or broken)[0]
        diagnosis = diagnose(e, p, schemas.get(e.name), lenient)
    else:
        diagnosis = "wrong_func_name" if rest else "correct"
    details = [f"{e.name}: {diagnose(e, p, schemas.get(e.name), lenient)}" for e, p in pairs + broken]
    details += [f"{e.name}: not called" for e in rest]
    return TurnScore(round(f1, 6), diagnosis, exact, len(pairs), details)


def without(
    parallel: list[Call], predicted: list[Call], schemas: dict[str, dict[str, Any]], lenient: Leniency = Leniency()
) -> list[Call]:
    """The predicted calls less those that exactly match one of the turn's other gold calls (made in parallel
    with the item's own): an eval item expects one call of its turn, and a model that makes the others too is
    right, not scored down. Each gold call takes one prediction at most."""
    free = list(predicted)
    for gold in parallel:
        hit = next((p for p in free if diagnose(gold, p, schemas.get(gold.name), lenient) == "correct"), None)
        if hit is not None:
            free.remove(hit)
    return free
