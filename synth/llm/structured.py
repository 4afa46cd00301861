"""Structured answers: JSON that validates against a pydantic model, or a counted failure.

The request carries the model's JSON schema (so the backend can ask for ``json_schema`` output);
whatever comes back is parsed leniently (code fences, prose around the object), validated, and
on failure re-asked once with the validation error shown to the model. A second failure is a
``StageFailure``, never an exception and never a silent None.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from synth.errors import BackendError, BudgetError, CutAnswer, EndpointDown, ParseError
from synth.llm.base import ChatBackend, ChatRequest, ChatResponse, stats_of
from synth.records import StageFailure

M = TypeVar("M", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def extract_json(text: str | None) -> Any:
    """The JSON value in a model's text: the whole text, a fenced block, or the object that prose leads up to
    (from its first "{"). Only a whole object counts: a cut one is never mended or replaced by an object nested
    inside it. ParseError when there is none (``ask`` re-asks once with the message, then counts a StageFailure)."""
    if not text or not text.strip():
        raise ParseError("the answer is empty")
    for candidate in (text.strip(), *(m.strip() for m in _FENCE.findall(text))):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    start = text.find("{")
    if start >= 0:
        try:
            return json.JSONDecoder().raw_decode(text, start)[0]
        except ValueError:
            cut = text[start : start + 120]
            raise ParseError(f"the JSON object in the answer is not whole (cut off?): {cut!r}") from None
    raise ParseError(f"no JSON object found in the answer: {text[:120]!r}")


@functools.cache
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, made once per model (pydantic builds it anew on every call, which
    cost more CPU than the request itself); shared, so never mutated."""
    return model.model_json_schema()


def name_of(model: type[BaseModel]) -> str:
    """The name the model reads the schema by: its title (the class name unless the class sets one)."""
    return str(schema_of(model).get("title", model.__name__))


async def ask(
    backend: ChatBackend, request: ChatRequest, model: type[M], stage: str, item_id: str, spent: list[ChatResponse]
) -> M | StageFailure:
    """Ask for a ``model``; one re-ask that shows the validation error; then a StageFailure.

    Every response (the re-ask's too) is appended to ``spent`` so tokens are counted.
    """
    if request.response_schema is None:
        request = request.model_copy(update={"response_schema": schema_of(model), "schema_name": name_of(model)})
    error = ""
    for attempt in range(2):
        try:
            response = await backend.complete(request)
        except EndpointDown:
            raise  # the run stops: every item would fail the same way
        except BackendError as exc:
            return StageFailure(stage=stage, item_id=item_id, reason=failure_reason(exc), detail=str(exc)[:500])
        spent.append(response)
        try:
            return model.model_validate(extract_json(response.content))
        except (ParseError, ValidationError) as exc:
            error = _short(exc)
            if attempt == 0:
                stats = stats_of(backend)
                if stats is not None:
                    stats.reasks += 1
                request = request.model_copy(
                    update={
                        "messages": (
                            *request.messages,
                            {"role": "assistant", "content": response.content or ""},
                            {
                                "role": "user",
                                "content": f"That answer could not be used: {error}. Answer again with only "
                                f"a JSON object that follows the schema {name_of(model)}.",
                            },
                        )
                    }
                )
    return StageFailure(
        stage=stage,
        item_id=item_id,
        reason="invalid_output",
        detail=f"{name_of(model)} did not validate after one re-ask: {error}"[:500],
    )


def _short(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "(answer)"
        return f"{where}: {first.get('msg', 'invalid')}"
    return str(exc).splitlines()[0][:200]


def failure_reason(exc: BackendError) -> str:
    """The reason a call that could not be made is counted under."""
    return "budget" if isinstance(exc, BudgetError) else "cut_answer" if isinstance(exc, CutAnswer) else "backend_error"
