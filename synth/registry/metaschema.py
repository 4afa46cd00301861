"""JSON Schema metaschema checks: which draft a schema declares, and why it fails that draft's metaschema."""

from __future__ import annotations

import functools
import json
import warnings
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for
from jsonschema_specifications import REGISTRY as SPECIFICATIONS

DRAFTS = {
    "Draft3Validator": "draft-03",
    "Draft4Validator": "draft-04",
    "Draft6Validator": "draft-06",
    "Draft7Validator": "draft-07",
    "Draft201909Validator": "draft 2019-09",
    "Draft202012Validator": "draft 2020-12",
}
_VOCABULARIES = ("core", "applicator", "unevaluated", "validation", "meta-data", "format-annotation", "content")


def declared_validator(schema: dict[str, Any]) -> tuple[Any, bool]:
    """The validator class of the draft a schema declares (2020-12 when none); True when ``$schema`` is unknown."""
    declared = schema.get("$schema")
    if declared is None:
        return Draft202012Validator, False
    found = None
    if isinstance(declared, str):  # validator_for crashes on a non-string $schema
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # it warns about unknown ones; the caller reports them
            found = validator_for(schema, default=None)  # type: ignore[arg-type]
    return (found, False) if found is not None else (Draft202012Validator, True)


def metaschema_error(cls: Any, schema: Any) -> SchemaError | None:
    """Why ``schema`` fails the metaschema of the draft ``cls`` validates, or None when it passes."""
    try:
        text = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return _metaschema_error(cls, schema)
    # Forks repeat the same schemas, and a clean schema is checked twice (as given, then normalised).
    return _cached_metaschema_error(cls, text)


@functools.lru_cache(maxsize=8192)
def _cached_metaschema_error(cls: Any, text: str) -> SchemaError | None:
    return _metaschema_error(cls, json.loads(text))


def _metaschema_error(cls: Any, schema: Any) -> SchemaError | None:
    if cls is Draft202012Validator and _flat_2020_12().is_valid(schema):
        return None
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        return exc
    return None


@functools.cache
def _flat_2020_12() -> Draft202012Validator:
    """The 2020-12 metaschema as one document (``$dynamicRef: #meta`` becomes ``$ref: #``).

    Same verdicts as ``check_schema`` for plain schemas, about five times faster: the official one
    resolves a dynamic reference at every level, which made loading 4,400 real tools take 13 s.
    Only its "valid" verdict is trusted; a failure is re-checked by ``check_schema`` for the message.
    """
    props: dict[str, Any] = {}
    defs: dict[str, Any] = {}
    base = "https://json-schema.org/draft/2020-12/meta/"
    for part in [Draft202012Validator.META_SCHEMA, *(SPECIFICATIONS.contents(base + v) for v in _VOCABULARIES)]:
        props.update(part.get("properties", {}))
        defs.update(part.get("$defs", {}))
    text = json.dumps({"type": ["object", "boolean"], "properties": props, "$defs": defs})
    text = text.replace('{"$dynamicRef": "#meta"}', '{"$ref": "#"}')
    text = text.replace('"meta/validation#/', '"#/').replace('"meta/core#/', '"#/')
    return Draft202012Validator(json.loads(text), format_checker=Draft202012Validator.FORMAT_CHECKER)
