"""The system prompt a conversation opens with, as deployments write them.

Deployments bring their own prompt: none at all, a product's assistant with its rules and tone, a persona,
one terse line or a page of guidelines, with or without the guidance about asking for a missing value. A
model tuned on one template learns the skill under that template only, so each scenario draws one from
``prompts/system_prompts.json`` (seeded by the scenario: the same run gives the same prompt). Every prompt
there allows what the data teaches (call, ask, decline, answer from the conversation); none forbids it.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from synth.errors import TemplateError
from synth.records import Message, ServerSpec
from synth.scenarios.planner import rng_for
from synth.templates import shipped

FILE = "system_prompts.json"


@cache
def table() -> tuple[float, tuple[str, ...]]:
    """(the share of conversations with no system prompt, the prompts with ``{server}`` for the server's name)."""
    path = shipped("prompts", "prompts") / FILE
    data: Any = json.loads(path.read_text(encoding="utf-8"))
    none, prompts = data.get("none"), data.get("prompts")
    if not isinstance(none, float) or not 0 <= none < 1 or not isinstance(prompts, list) or not prompts:
        raise TemplateError(f"{path}: expected {{'none': a share in [0, 1), 'prompts': [text, ...]}}")
    if not all(isinstance(p, str) and p.strip() for p in prompts):
        raise TemplateError(f"{path}: every entry of 'prompts' is a non-empty text")
    return none, tuple(prompts)


def system_prompt(server: ServerSpec, seed: int, scenario: str) -> str | None:
    """The system prompt of ``scenario``'s conversation on ``server``, or None when it has none. The server's
    name is a value put in the text, never template code."""
    none, prompts = table()
    rng = rng_for(seed, "system", scenario)
    if rng.random() < none:
        return None
    return rng.choice(prompts).replace("{server}", server.name)


def opening(server: ServerSpec, seed: int, scenario: str) -> list[Message]:
    """The conversation's first messages: its system prompt, or nothing."""
    text = system_prompt(server, seed, scenario)
    return [] if text is None else [Message(role="system", content=text)]
