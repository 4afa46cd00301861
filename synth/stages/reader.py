"""The gates a careful reader applies to a whole conversation, after the per-call gates (synth.stages.gates).

Each gate has a reason name and a decision (``DECISIONS``): ``reject`` drops the conversation (counted
in the funnel and written to rejected.jsonl with the reason), ``queue`` keeps it and puts it in the
review queue with the reason, first in the queue.

- dropped_request: a call the user asked for whose result the turn's answer never speaks of (no value
  of its result or arguments in the answer, and no word of failure), a result field the request names
  in words ("total assets and shareholders' equity") whose value the answer never states, or a turn with
  calls and no answer.
- conflicting_ids: two results say different things of one record (synth.stages.consistency).
- derived_mismatch: an end before its start in a call or a result (checkout before checkin).
- mixed_owners: results about the records of more than one customer (the identified user, then another
  customer's order), synth.stages.consistency.
- asks_internal: the assistant asks the user for a value internal to the tool (``internal``: a
  parameter the model writes, such as why it calls) or one the user never had (the answer is a value
  an earlier tool result returned).
- unpointed_reuse: a call of a later request reuses a value of an earlier turn that the request does
  not point to (no "same", "that one", "again", and not the value itself); a credential (a token, an API
  key) holds for the session, and a choice among a tool's options (an enum) is said in words: neither counts.
- repeated_request: the user makes the same request twice. repeated_call: the same call (name and
  arguments) twice with no write between.
- success_after_error: the answer after a failed call claims success.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from synth.asks import counts, named_fewer
from synth.facts import sql
from synth.records import Message, ServerSpec, StageFailure, ToolSpec
from synth.stages.consistency import conflicting_ids, derived_mismatch, mixed_owners
from synth.wording import large, when_forms, words

Decision = Literal["reject", "queue"]
DECISIONS: dict[str, Decision] = {
    "dropped_request": "reject",
    "conflicting_ids": "reject",
    "derived_mismatch": "reject",
    "mixed_owners": "reject",
    "asks_internal": "reject",
    "unpointed_reuse": "queue",
    "repeated_request": "reject",
    "repeated_call": "reject",
    "success_after_error": "reject",
}
GATES = tuple(DECISIONS)

_INTERNAL_NAME = re.compile(
    r"(?i)^(?:call_?benefit|reason(?:ing)?|rationale|justification|thoughts?|explanation|purpose|intent"
    r"|why|motivation|request_?id|trace_?id|session_?id|cursor|page_?token|next_?token)$"
)
_INTERNAL_TEXT = re.compile(
    r"(?i)\b(?:why (?:this|the) (?:function|tool) is (?:being )?called|intended benefit|your reasoning"
    r"|explain why you|for internal use|internal (?:use|id)|set by the (?:model|assistant))\b"
)
_FAILED = re.compile(
    r"(?i)\b(?:could ?n[o']t|can ?n[o']t|cannot|unable|fail(?:ed|s|ure)?|error|not found|no such|did ?n[o']t"
    r"|does ?n[o']t|is ?n[o']t|was ?n[o']t|are ?n[o']t|invalid|denied|refused|rejected|sorry|unfortunately"
    r"|no (?:\w+ )?(?:match|result|record|data|access)|missing|unavailable|timed out|not (?:allowed|available|exist)"
    # "RubyGems.org has no owner with the handle ...", "Nothing came up for Steam", "There's no pull request #142"
    r"|nothing\b|(?:has|have|had|there'?s|there is|there are|returned|found) no\b"
    # "No active weather alerts found for Denver": the result's own words for an empty outcome
    r"|\bno (?:[\w-]+ ){1,3}found\b)"
)
_SUCCESS = re.compile(
    r"(?i)\b(?:done|success(?:ful(?:ly)?)?|created|saved|updated|deleted|sent|downloaded|completed|booked"
    r"|here(?:'s| is| are)|all set|went through)\b"
)
_POINTER = re.compile(
    r"(?i)\b(?:same|again|above|earlier|previous|before|still|those|them|that one|this one|the one"
    r"|the (?:first|second|third|last|top)|you (?:found|listed|showed|just))\b"
)


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_SECRET = {"token", "secret", "password", "passwd", "cookie", "credential", "credentials", "authorization"}


def credential(param: str) -> bool:
    """A value that opens the session rather than names what is asked about (a token, an API key, a user agent):
    given once, it holds for every later request, and a person does not say it again."""
    said = [w.lower() for w in words(param)]
    return bool(said) and (said[-1] in _SECRET or said[-2:] in (["api", "key"], ["user", "agent"]) or "apikey" in said)


def internal(tool: ToolSpec, param: str) -> bool:
    """A value the model writes, not one a person knows: why it calls the tool, a paging cursor, a trace id."""
    if _INTERNAL_NAME.match(param):
        return True
    described = (tool.properties.get(param) or {}).get("description")
    return isinstance(described, str) and bool(_INTERNAL_TEXT.search(described))


@dataclass
class Turn:
    """One request: the user's words (the request and replies to questions), the assistant's questions,
    the calls with their results, and the answer."""

    user: list[str] = field(default_factory=list)
    questions: list[tuple[str, str]] = field(default_factory=list)  # the question, the user's reply
    calls: list[tuple[str, dict[str, Any], str, bool]] = field(default_factory=list)  # name, args, result, failed
    answer: str | None = None


def _failed(message: Message) -> bool:
    flag = getattr(message, "is_error", None)
    if isinstance(flag, bool):
        return flag
    text = (message.content or "").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return bool(re.match(r"(?i)(?:error|failed|exception)\b", text))
    return isinstance(data, dict) and (data.get("isError") is True or ("error" in data and len(data) <= 3))


# a question, or a request for what the person holds ("Paste the SQL.", "Go ahead and paste the pipeline stages.")
_ASKS = re.compile(r"\?|^(?:(?:sure|ok|okay)[,.!]?\s+)?(?:go ahead and\s+)?(?:paste|send|share|upload)\b", re.I)


def turns(messages: Iterable[Message]) -> list[Turn]:
    """The conversation as requests; a user message after an answer opens the next one."""
    out: list[Turn] = []
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    for m in messages:
        if m.role == "user":
            if not out or out[-1].answer is not None:
                out.append(Turn())
            turn = out[-1]
            if turn.questions and not turn.questions[-1][1]:
                turn.questions[-1] = (turn.questions[-1][0], m.content or "")
            turn.user.append(m.content or "")
        elif not out:
            continue
        elif m.role == "assistant" and m.tool_calls:
            pending.update({c.id: (c.name, c.arguments) for c in m.tool_calls})
        elif m.role == "tool":
            name, args = pending.get(m.tool_call_id or "", ("?", {}))
            out[-1].calls.append((name, args, m.content or "", _failed(m)))
        elif m.role == "assistant":
            if out[-1].calls or not _ASKS.search(m.content or ""):
                out[-1].answer = m.content or ""
            else:
                out[-1].questions.append((m.content or "", ""))
    return out


def _words(value: Any) -> Iterator[str]:
    """The values of a result or arguments an answer could name (strings of 3+ characters, numbers of 2+ digits)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from _words(v)
    elif isinstance(value, list):
        for v in value[:50]:
            yield from _words(v)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float)):
        text = f"{value:g}" if isinstance(value, float) else str(value)
        if len(text.strip("-").replace(".", "")) >= 2:
            yield text
    elif isinstance(value, str):
        text = value.strip()
        if len(text) >= 3 or (len(text) == 2 and _CJK.search(text)):  # "서울", "東京": a whole name in two
            yield text[:60].lower()
            yield from (w for w in re.findall(r"[\w.\-@/]{4,}", text.lower())[:40])


def _covered(answer: str, name: str, args: dict[str, Any], result: str, failed: bool) -> bool:
    low = re.sub(r"(?<=\d),(?=\d{3})", "", answer.lower())
    if failed:
        return bool(_FAILED.search(low))
    try:
        data: Any = json.loads(result)
    except ValueError:
        data = result
    fields = _fields(data, {})
    values = [v for vs in fields.values() for v in vs]
    rounded = (large(v) for v in values)  # "$21.38 billion" for 21375055345
    dates = (
        d for k, vs in fields.items() for v in vs for d in when_forms(v, k)
    )  # "18 May at 17:30", "17:30 on 18 May"
    return (
        any(w in low for w in _words(data))
        or any(w in low for w in _words(args))
        or any(r and r in low for r in rounded)
        or (len(values) <= 3 and any(_whole(v, low) for v in values))  # a score of 8: one digit is its answer
        or (not any(True for _ in _words(data)) and bool(_FAILED.search(low)))  # nothing found, said so
        or any(d.lower() in low for d in dates)
    )


def _whole(value: Any, text: str) -> bool:
    """A number of a small result said as a whole number in ``text`` ("8" in "the score is 8", not in "18")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d]|\.\d)", text) is not None


def _fields(value: Any, out: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Every scalar field of a result, however deep: key -> its values (the first 20)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                _fields(v, out)
            elif v is not None and not isinstance(v, bool):
                out.setdefault(k, [])
                if len(out[k]) < 20:
                    out[k].append(v)
    elif isinstance(value, list):
        for v in value[:50]:
            _fields(v, out)
    return out


def _asked_fields(request: str, answer: str, result: str) -> list[str]:
    """Fields of a result that the request names in words ("total assets" for ``total_assets``, "return
    types" for ``returnType``: two words or more in a row, so "name" or "date" alone never count) of which
    the answer states no value; a field whose value the user gave (an echo of the request) is left out."""
    words = re.findall(r"[a-z0-9]+", request.lower().replace("'", ""))
    said = " " + " ".join(w.rstrip("s") for w in words) + " "
    try:
        data = json.loads(result)
    except ValueError:
        return []
    low = re.sub(r"(?<=\d),(?=\d{3})", "", answer.lower())
    asked = re.sub(r"(?<=\d),(?=\d{3})", "", request.lower())
    missing = []
    for key, values in _fields(data, {}).items():
        parts = [w.rstrip("s") for w in re.findall(r"[a-z0-9]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", key).lower())]
        if len(parts) < 2 or min(map(len, parts)) < 3 or f" {' '.join(parts)} " not in said:
            continue
        shown = [w for v in values for w in _words(v)]  # a float also as a reader writes it: 3 for 3.0, 5912340000000
        shown += [
            str(int(v)) if isinstance(v, float) and v.is_integer() else f"{v:g}"
            for v in values
            if isinstance(v, (int, float))
        ]
        shown += [r for r in map(large, values) if r]
        shown += [d.lower() for v in values for d in when_forms(v, key)]
        if not any(w in low or w in asked for w in shown):
            missing.append(key)
    return missing


def _short_list(request: str, args: dict[str, Any], answer: str, result: str) -> str:
    """A count the request asks for and the call passes ("5 stories", limit 5) of which the answer names fewer
    items than the result holds, without saying why ("only", "the first 3", "and 2 more"): "" when it does not."""
    wanted = counts(request)
    asked = next((v for v in args.values() if isinstance(v, int) and not isinstance(v, bool) and v in wanted), 0)
    return named_fewer(asked, answer, [result])


def _feeds(result: str, later: list[tuple[str, dict[str, Any], str, bool]]) -> bool:
    """Whether a later call of the turn takes a value of this result (a list searched to pick one: the answer
    speaks of the one picked, not of the whole list)."""
    return any(
        isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) >= 3 and str(v) in result
        for _, args, _, _ in later
        for v in args.values()
    )


def dropped(turns_: list[Turn]) -> list[str]:
    out = []
    for number, turn in enumerate(turns_):
        if turn.calls and turn.answer is None:
            out.append(f"turn {number + 1}: {len(turn.calls)} call(s) and no answer")
            continue
        request = " ".join(turn.user)
        for at, (name, args, result, failed) in enumerate(turn.calls):
            if turn.answer is None:
                continue
            if not _covered(turn.answer, name, args, result, failed):
                out.append(f"turn {number + 1}: the answer says nothing of {name}'s result")
            elif not failed and (asked := _asked_fields(request, turn.answer, result)):
                out.append(f"turn {number + 1}: the request asks for {', '.join(asked)} and the answer gives none")
            elif (
                not failed
                and not _feeds(result, turn.calls[at + 1 :])
                and (short := _short_list(request, args, turn.answer, result))
            ):
                out.append(f"turn {number + 1}: {name}: {short}")
    return out


def _said(text: str, value: Any) -> bool:
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    rounded = large(value)  # "$21.38 billion" says the TVL 21375055345
    return (len(shown) >= 2 and shown.lower() in text.lower()) or (rounded is not None and rounded in text)


def asks_internal(turns_: list[Turn], server: ServerSpec, withheld: Iterable[str], tools: list[str]) -> list[str]:
    out = []
    for key in withheld:
        step, _, param = key.partition(".")
        tool = server.tool(tools[int(step)]) if step.isdigit() and int(step) < len(tools) else None
        if tool is not None and internal(tool, param):
            out.append(f"asked the user for {tool.name}'s {param}, which the model writes")
    results = ""
    for number, turn in enumerate(turns_):
        for _, reply in turn.questions:
            words = re.findall(r"[\w\-]{5,}", reply)
            hits = [w for w in words if any(c.isdigit() for c in w) and w.lower() in results]
            if hits:
                out.append(f"turn {number + 1}: asked the user for {hits[0]}, which a tool returned earlier")
        results += " ".join(c[2].lower() for c in turn.calls)
    return out


def unpointed(turns_: list[Turn], server: ServerSpec | None = None) -> list[str]:
    out = []
    for number, turn in enumerate(turns_[1:], start=2):
        earlier = " ".join(" ".join(t.user) + " " + " ".join(c[2] for c in t.calls) for t in turns_[: number - 1])
        own = " ".join(turn.user)  # the request, the replies, and the results that came before each call
        pointed = bool(_POINTER.search(own))
        for name, args, content, _ in turn.calls:
            for param, value in args.items():
                if isinstance(value, (str, int)) and not isinstance(value, bool) and len(str(value)) >= 4:
                    if credential(param) or _choice(server, name, param):  # the session's token holds for every
                        continue  # request; a choice among a tool's options is said in words ("most active first")
                    if _said(earlier, value) and not _said(own, value) and not pointed:
                        out.append(f"turn {number}: {name}.{param}={value!r} comes from an earlier turn, unasked")
            own += " " + content
    return out


def _choice(server: ServerSpec | None, tool: str, param: str) -> bool:
    """Whether ``param`` of ``tool`` takes one of a fixed set of options (an enum: sortOrder desc, scope code)."""
    spec = server.tool(tool) if server is not None else None
    schema = spec.properties.get(param) if spec is not None else None
    return isinstance(schema, dict) and "enum" in schema


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


_READS = re.compile(r"(?i)(get|list|search|read|fetch|find|show|describe|query|lookup|view|check)")


def reads(tool: str) -> bool:
    """Whether a tool's name says it only reads: the same call made again after it, with no write between,
    gets the same answer (a write may change what the next read sees)."""
    return bool(_READS.match(tool))


def repeats(turns_: list[Turn], messages: list[Message]) -> tuple[list[str], list[str]]:
    """(repeated requests, repeated calls)."""
    requests: list[str] = []
    seen: set[str] = set()
    for number, turn in enumerate(turns_):
        key = _norm(turn.user[0]) if turn.user else ""
        # in the order said (a set's order changes with the process's string hashing: rejected.jsonl did too)
        sentences = [s for s in re.split(r"(?<=[.?!])\s+", turn.user[0]) if len(s) > 25] if turn.user else []
        for s in sentences:
            if _norm(s) in seen:
                requests.append(f"turn {number + 1} asks again: {s[:80]!r}")
                break
        seen |= {_norm(s) for s in sentences} | ({key} if key else set())
    calls: list[str] = []
    made: dict[str, int] = {}
    for m in messages:
        for c in m.tool_calls:
            key = json.dumps([c.name, c.arguments], sort_keys=True)
            if key in made:
                calls.append(f"{c.name} called twice with the same arguments")
            made[key] = 1
            if not reads(c.name) or sql.writes(c.arguments):
                made = {
                    key: 1
                }  # a write (a CREATE sent to a query tool too): the same read after it sees something new
    return requests, calls


def claims_success(turns_: list[Turn]) -> list[str]:
    out = []
    for number, turn in enumerate(turns_):
        if turn.answer is None or not any(c[3] for c in turn.calls):
            continue
        if _SUCCESS.search(turn.answer) and not _FAILED.search(turn.answer):
            failed = next(c[0] for c in turn.calls if c[3])
            out.append(f"turn {number + 1}: {failed} failed and the answer reads as success")
    return out


def read(
    messages: tuple[Message, ...], server: ServerSpec, withheld: Iterable[str] = (), tools: Iterable[str] = ()
) -> dict[str, list[str]]:
    """What each reader gate finds in one conversation: gate -> one line per finding (empty: passed)."""
    conversation = list(messages)
    split = turns(conversation)
    requests, calls = repeats(split, conversation)
    return {
        "dropped_request": dropped(split),
        "conflicting_ids": conflicting_ids(conversation),
        "derived_mismatch": derived_mismatch(conversation),
        "mixed_owners": mixed_owners(conversation),
        "asks_internal": asks_internal(split, server, withheld, list(tools)),
        "unpointed_reuse": unpointed(split, server),
        "repeated_request": requests,
        "repeated_call": calls,
        "success_after_error": claims_success(split),
    }


def decide(found: dict[str, list[str]], item_id: str) -> StageFailure | tuple[str, ...]:
    """A reject gate's finding as the conversation's StageFailure (the first such gate names it), else the
    queue gates' findings as the review's flags ("gate: finding"), empty when nothing was found."""
    rejected = [g for g in GATES if found.get(g) and DECISIONS[g] == "reject"]
    if rejected:
        detail = " | ".join(f"{g}: {line}" for g in rejected for line in found[g])
        return StageFailure(stage="reader", item_id=item_id, reason=rejected[0], detail=detail[:1000])
    return tuple(f"{g}: {line}" for g in GATES if DECISIONS[g] == "queue" for line in found.get(g, ()))


def report(checked: int, found: dict[str, int]) -> dict[str, Any]:
    """The manifest's ``reader_gates``: per gate its decision, the conversations it found, and their share
    of the conversations checked (found before the decision: a rejected one is counted here too)."""
    return {
        "checked": checked,
        "gates": {
            g: {"decision": DECISIONS[g], "found": found.get(g, 0), "rate": round(found.get(g, 0) / checked, 4)}
            for g in GATES
        }
        if checked
        else {},
    }
