"""The LLM agents' turns whose right move is no call (synth.records.Decision), after the conversation.

The scenario says which one it holds (synth.scenarios.planner.decision_of). The user's turn comes from the
same sources as the offline author's, so it is known to be out of scope or answered already: a decline
from the server's pack or its topic's pool (each checked against the server's tools), a follow-up read off
the latest tool result. The executor model then answers it with the tools still offered; a call there is
the scenario's failure (stage ``decision``), never kept as data. Questions the executor asked for a
withheld value are the conversation's ask decisions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from synth.llm.base import ChatResponse
from synth.offline import decisions as D
from synth.packs.model import Pack
from synth.records import Decision, Message, Scenario, ServerSpec, StageFailure
from synth.scenarios.planner import rng_for


def asked(messages: list[Message]) -> list[Decision]:
    """Each assistant question in words answered by the user before a later call: an ask decision."""
    out = []
    for i, m in enumerate(messages[:-1]):
        later_call = any(x.tool_calls for x in messages[i + 1 :])
        if m.role == "assistant" and not m.tool_calls and m.content and messages[i + 1].role == "user" and later_call:
            out.append(D.ask_decision(i, None, "value"))
    return out


async def decide(
    scenario: Scenario,
    server: ServerSpec,
    pack: Pack | None,
    seed: int,
    messages: list[Message],
    executor: Callable[[list[Message]], Awaitable[ChatResponse | StageFailure]],
    voiced: Callable[[str, list[Message]], Awaitable[str | StageFailure]] | None = None,
) -> Decision | StageFailure | None:
    """The scenario's decline or answer turn, appended to ``messages``; None when it holds none (or the
    server offers nothing to ask about); a StageFailure when the executor called a tool there. ``voiced``
    says the added user turn in the person's own voice (the user simulator), as their other turns are."""
    rng = rng_for(seed, "decision", scenario.id)
    tools = [t for t in (server.tool(n) for n in scenario.tools) if t is not None]
    if scenario.decision == "decline":
        options = D.declines_for(server.tools, server, pack)
        if not options or not tools:
            return None
        declined = rng.choice(options)
        said: str | StageFailure = rng.choice(D.ALSO) + declined.text
        if voiced is not None:
            said = await voiced(declined.text, messages)
        if isinstance(said, StageFailure):
            return said
        messages.append(Message(role="user", content=said))
        tool = D.nearest(declined.text, tools)
        args = _reused(tool.properties, messages)
        made: Decision = D.decline_decision(len(messages), declined.text, tool, args, declined.cannot)
    elif scenario.decision == "answer":
        before = len(messages)
        found = D.add_answer(messages, rng, (pack.tools.get if pack is not None else lambda _n: None))
        if found is None:
            return None
        del messages[before + 1 :]  # keep the follow-up; the executor gives the answer
        if voiced is not None:
            spoken = await voiced(messages[before].content or "", messages[:before])
            if isinstance(spoken, StageFailure):
                return spoken
            messages[before] = Message(role="user", content=spoken)
        made = found.model_copy(update={"message": before + 1})
    else:
        return None
    answer = await executor(messages)
    if isinstance(answer, StageFailure):
        return answer
    if answer.tool_calls or not (answer.content or "").strip():
        return StageFailure(
            stage="decision",
            item_id=scenario.id,
            reason=f"called_on_{scenario.decision}",
            detail=f"the executor answered the {scenario.decision} turn with a call or nothing: "
            + ", ".join(c.get("function", {}).get("name", "?") for c in answer.tool_calls),
        )
    messages.append(Message(role="assistant", content=(answer.content or "").strip()))
    return made


def _reused(properties: dict[str, Any], messages: list[Message]) -> dict[str, Any]:
    """Arguments a model reaching for a tool would pass: same-named values of the conversation's calls."""
    out: dict[str, Any] = {}
    for m in messages:
        for call in m.tool_calls:
            out.update({p: v for p, v in call.arguments.items() if p in properties})
    return out
