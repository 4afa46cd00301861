"""Whether a text in a conversation was cut short: the gate behind ``finish_reason``.

The backend refuses an answer the endpoint says it cut (synth.llm.openai_wire.is_cut); this catches the
cuts nobody reported (a proxy or a server that ends the body early and still says "stop"), in every role
that writes text: the user's turns (query, refiner, user simulator), the assistant's (executor) and
results a model played (the tool simulator). Signs no whole text shows: a JSON value that does not parse,
a code block or a double quote never closed, a last character that promises more (a comma, a colon, an
opening bracket), or a last word that cannot end a sentence ("the", "and", "I"). The assistant's prose
must also end as a sentence ends (".", "!", "?", a closing bracket or quote...) unless its last line is
a list item, a table row or a heading, or its last word a URL, a path, a name or a number; a person's turn
that lacks a full stop is whole: people write that way. A cut right after a digit or a whole word that
could end a phrase ("...temperature 2", "...in Porto") still reads as whole: no rule tells it apart.
"""

from __future__ import annotations

import json
import re

from synth.records import Message

# Words no sentence ends on; a text whose last word is one of these, with no punctuation after it, was cut.
DANGLING = frozenset("a an the and or but nor of my your our their its whose i we than because very".split())
_OPENS = (",", ":", "(", "[", "{", "—", "–")
_LAST_WORD = re.compile(r"(?:^|\s)([A-Za-z']+)$")
_ENDS = tuple(".!?…)]}\"'`*»”’>|")
_NOT_PROSE = re.compile(r"^\s*(?:[-*•#|>]|\d+[.)]\s)")  # a list item, a heading, a table row, a quote
_NAMEISH = re.compile(r"[\d/._@#:=<>|`~\\-]")  # a URL, a path, an identifier, a number, a date


def cut_reason(text: str | None, prose: bool = False) -> str | None:
    """Why ``text`` looks cut short, or None when it reads as whole; ``prose``: the assistant's own words,
    held to ending as a sentence ends."""
    body = (text or "").strip()
    if not body:
        return None
    if body[0] in "{[":
        try:  # a whole value, maybe with words after it ("[...], please")
            json.JSONDecoder().raw_decode(body)
        except ValueError:
            return f"a JSON value that is not whole: {_tail(body)}"
    if body.count("```") % 2:
        return f"a code block that is not closed: {_tail(body)}"
    if body.count('"') % 2:
        return f"a quote that is not closed: {_tail(body)}"
    if body.endswith(_OPENS):
        return f"it ends on {body[-1]!r}, as if more were coming: {_tail(body)}"
    last = _LAST_WORD.search(body)
    if last and last.group(1).lower() in DANGLING:
        return f"it ends on {last.group(1)!r}, mid-sentence: {_tail(body)}"
    if prose and not body.endswith(_ENDS) and not _ends_on_a_name(body):
        return f"it stops mid-sentence, without a full stop: {_tail(body)}"
    return None


def _ends_on_a_name(body: str) -> bool:
    """Whether the text's end is not prose: a list item, table row or heading, or a URL, path, name or number."""
    last_line = body.rsplit("\n", 1)[-1]
    return bool(_NOT_PROSE.match(last_line)) or bool(_NAMEISH.search(last_line.split()[-1]))


def cut_message(message: Message, by_model: bool = False) -> str | None:
    """Why a conversation's message looks cut, or None: user and assistant text, and results a model played.
    ``by_model``: a model wrote the assistant's turns, so they are held to ending as sentences end (the
    offline writer's are made whole, and may end on a quoted statement)."""
    if message.role in ("user", "assistant") or (message.role == "tool" and message.source == "llm"):
        return cut_reason(message.content, prose=by_model and message.role == "assistant")
    return None


def _tail(text: str) -> str:
    return ("..." + text[-60:]) if len(text) > 60 else text
