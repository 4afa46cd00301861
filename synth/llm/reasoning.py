"""Reasoning models: which names they go by, which parameters they refuse, where their thinking is.

OpenAI's o-series and gpt-5 take the answer's length as ``max_completion_tokens`` (reasoning
included) and only the default temperature; servers for open reasoning models (vLLM, SGLang,
DeepSeek, OpenRouter) return the thinking next to the answer as ``reasoning_content`` or
``reasoning``, or, without a reasoning parser, inside the content as a leading ``<think>`` block.
"""

from __future__ import annotations

import re
from typing import Any

import openai

# OpenAI's reasoning models, with or without a provider prefix ("openai/o3-mini", "azure/gpt-5")
_REASONING = re.compile(r"(^|/)(o\d|gpt-5)([-.:]|$)", re.I)
_REFUSAL = re.compile(r"unsupported|not supported|does not support|max_completion_tokens")
_THINK = re.compile(r"^\s*<think>(.*?)</think>\s*", re.S)


def is_reasoning_model(model: str) -> bool:
    """Whether ``model`` names an OpenAI-style reasoning model (takes max_completion_tokens, no temperature)."""
    return bool(_REASONING.search(model or ""))


def unsupported_param(exc: openai.APIStatusError, body: dict[str, Any]) -> str | None:
    """``max_tokens`` or ``temperature`` when a 400 says that parameter (which we sent) is not supported."""
    error = exc.body.get("error", exc.body) if isinstance(exc.body, dict) else {}
    param = error.get("param") if isinstance(error, dict) else None
    text = str(exc.message).lower()
    for name in ("max_tokens", "temperature"):
        named = param == name or any(f"{q}{name}{q}" in text for q in ("'", '"', "`", " "))
        if name in body and named and _REFUSAL.search(text):  # not e.g. "max_tokens is too large"
            return name
    return None


def split_reasoning(message: dict[str, Any]) -> tuple[str | None, str | None]:
    """(answer, thinking): the thinking from ``reasoning_content``/``reasoning`` or a leading <think> block."""
    content = message.get("content")
    thought = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(thought, dict):  # some gateways: {"reasoning": {"content"/"text": ...}}
        thought = thought.get("content") or thought.get("text")
    if isinstance(content, str) and (think := _THINK.match(content)):
        thought = "\n".join(x for x in (thought if isinstance(thought, str) else None, think.group(1).strip()) if x)
        content = content[think.end() :] or None
    return content, thought if isinstance(thought, str) and thought else None
