"""How real a run's data reads: the automatic rows of the "Data worth training on" table.

``benchmarks/realism.py RUN`` prints them as JSON; the dataset card shows the same figures.

Rows (targets in brackets):
- requests_naming_tool: first user messages with a called tool's name or a verbatim 5-word span of
  its description [<= 5%]
- requests_with_slots: first user messages that spell values as slots ("Set a to 30", "Key: value",
  a parameter name followed by its value) [<= 5%]
- top_first_sentence: share of the most common first sentence of first user messages [<= 1%]
- top_answer_opening: share of the most common 3-word opening of answers after tool results [<= 5%]
- calls_per_conversation / user_turns_per_conversation: means [>= 2.5 / >= 2.5]
- parallel_call_turns: share of assistant tool-call turns with several calls [>= 5%]
- ids_described_two_ways: accepted conversations where two tool results describe one id two ways (a PMID
  with two titles; synth.stages.consistency.conflicting_ids); the reader gate rejects those, so its share of
  all written ones is reader_gates.conflicting_ids [<= 0.5%]
- lists_off_limit: conversations with a result list longer or shorter than the ``limit`` its call gave [0]
- order_claims_contradicted: answers' order claims about listed items ("the most-read doc is X with 483
  reads") that the turn's result contradicts (another item has more reads; synth.stages.order), their
  share of all such claims, with how many claims were made [0]
- phrases_over_3_params: string values that fill more than three different parameter names [0]
- wrong_values_absent: wrong-value negatives whose changed value (leaf by leaf) appears nowhere in the history [<= 15%]
- unexpected_extra_names: distinct parameter names the unexpected_extra negatives add [>= 100 on the
  shipped registry], and the five most used
- review_labels_used / review_error_json_accuracy: T-Eval review labels used [5], and how well
  "is the response error JSON" predicts the label [<= 70%]
- review_regex_accuracy: the best rule over text-only regex cues of the response (validation words, server
  failure words, not-found words, "error"), fitted on the labels themselves [<= 50%]; an upper bound,
  optimistic on a small run (each of up to 16 cells of cues answers its own items' majority)
- review_regex_heldout: that rule fitted on alternate items and scored on the others, both ways: what it
  gets on items it was not made from [<= 50%]
- parallel_items / both_calls_score: eval items of a turn with parallel gold calls, and the mean score of
  an answer that makes every call of the turn [1.0]
- announced_withholds: conversations where the user announces a value to come ("I'll send the slug")
  instead of leaving it out [<= 2%]
- top_stock_phrase: the short phrase (four words or fewer, a sentence or a lead-in of its own: "Thanks!",
  "Also:") found in the most conversations' user turns, and its share [<= 5%]
- decisions: per move (call, ask, decline, answer) the conversations holding it and their share
  [each >= 3%: a model learns when not to call only from turns where no call is right]
- periods_unsaid: of the answered turns whose request names two or more periods together ("week, month
  and all time"), the share whose answer leaves one unsaid (synth.asks) [<= 2%], with the turns counted
- items_fewer: of the answered turns that ask for a number of things ("the first 5 comments", "top 20"),
  the share whose answer names fewer than asked while the result holds them, without saying why [<= 2%]
- raw_field_followups: conversations whose follow-up (an answer-from-context turn) asks back a result's raw field
  name ("what was the datetime again?", "the total records", "the created") or is answered "Field: value." [<= 0.2%]
- pointer_sentences: conversations with a user sentence that only points at a value of an earlier call ("Same
  workspace slug as before (northwind-eng).", "(https://github.com/tox-dev/tox again.)", "Still Graz.") [<= 0.5%]
- decline_offers_quoting: decline turns whose offer repeats five words in a row of a tool's description
  ("I can calculate MELD 3.0 Score for liver disease ...") [<= 5%]
- raw_stamps_in_answers: conversations with an answer holding an ISO stamp with its time ("2026-05-04T14:47:05")
  or a unix time ("start 1718504400") [<= 2%]
- system_prompts: distinct system prompts (the server's name aside; none at all counts as one) and the share
  of conversations the most common one opens [>= 20, <= 20%]
- reader_gates: per reader gate (synth.stages.reader) the share of checked conversations it found
  something in, from the manifest [dropped_request, repeated_request, conflicting_ids <= 1% of accepted]
- worlds: search_filler, invented_echoes and created_missing (synth.export.card.worlds: search items holding
  none of the query's words, creates reporting a value the call did not send, created entities a later list
  leaves out) [<= 2%, <= 1%, 0]
The registry (default: the one in the run's manifest) gives tool descriptions for the first row.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from synth.asks import count_asked, named_fewer, unsaid_periods
from synth.asks import periods as asked_periods
from synth.export.card.worlds import figures as world_figures
from synth.grade import Call, score_turn, without
from synth.records import DECISIONS, Message
from synth.rundir import CONVERSATIONS, EVAL, SCORED, RunDir, lines, read_jsonl, stored, teval_rows
from synth.stages.consistency import conflicting_ids, limit_mismatches
from synth.stages.order import claims_and_contradictions
from synth.stages.reader import turns
from synth.wording import PROMISE

WORD = re.compile(r"[a-z0-9]+")
SENTENCE = re.compile(r"(?<=[.!?])\s+")
SET_TO = re.compile(r"\bset (?:the )?[\w ]{1,30}? to\b", re.I)
ANNOUNCE = PROMISE
PIECE = re.compile(r"(?<=[.!?:])\s+")
# a sentence that only points at a value ("Still Graz.", "(tox again.)", "Same workspace slug as before (x).")
POINTER = re.compile(
    r"(?i)^(?:\((.+?) again\.\)|still (.+?)\.|that's (.+?) again\.|same one as before: (.+?)\."
    r"|(?:use the )?same [\w ]{1,40}?(?: as (?:before|last time))?[,:]? \(?(.+?)\)?\.)$"
)
# a field name a person does not say: a stamp word, a bare participle, a count or a unit stuck to a noun
RAW_FIELD = re.compile(
    r"(?i)\bthe (?:datetime|timestamp|created|updated|modified|published|(?:total|num) \w+s"
    r"|(?:\w+ ){1,3}(?:miles|km|usd|pct|ms|c|f|kg)|(?!way\b)[a-z]{1,3})(?: again| is\b|\?|,)"
    r"|\bdid it say what the [\w ]+ is\?"
)
FIELD_VALUE = re.compile(r"^[A-Z][a-z]+(?: [a-z]+){0,3}: \S")  # "Volume: 1368420.0."
STAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|(?i:\b(?:start|end|time|at|since|until|created|updated|on)\W+)1[5-9]\d{8}\b"
)


def _words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def _spans(text: str, n: int = 5) -> set[tuple[str, ...]]:
    w = _words(text)
    return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}


def _descriptions(registry: Path | None) -> dict[tuple[str, str], str]:
    if registry is None or not registry.exists():
        return {}
    from synth.registry.files import registry_files

    stamps = tuple((str(p), st.st_mtime_ns, st.st_size) for p in registry_files(registry) if (st := p.stat()))
    return _read_descriptions(registry.resolve(), stamps)


@lru_cache(maxsize=4)
def _read_descriptions(registry: Path, stamps: tuple[tuple[str, int, int], ...]) -> dict[tuple[str, str], str]:
    """Read once per registry as its files are (a card rebuilt in the same process reads none again)."""
    from synth.registry import load_registry

    loaded = load_registry(registry)
    names = {(s.id, ""): s.name for s in loaded.servers}  # (server, ""): the server's name
    return names | {(t.server, t.name): t.description for t in loaded.tools}


@lru_cache(maxsize=8192)
def _bare(word: str) -> re.Pattern[str]:
    """``word`` standing alone (no word character either side), case-sensitive."""
    return re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])")


@lru_cache(maxsize=8192)
def _assigned(param: str) -> re.Pattern[str]:
    """``param`` followed by ``:``, ``=``, "is" or "to" and a value ("limit: 10", "city is Paris")."""
    return re.compile(rf"(?<![\w]){re.escape(param)}\s*(?:[:=]|is\b|to\b)\s*\S", re.I)


def _names_tool(text: str, calls: list[dict[str, Any]], server: str, descriptions: dict) -> bool:
    low = text.lower()
    spans = _spans(text)
    for call in calls:
        name = call["name"]
        if _bare(name.lower()).search(low) and (
            "_" in name or len(_words(name)) > 1 or any(c.isupper() for c in name[1:])
        ):
            return True
        if spans & _spans(descriptions.get((server, name), "")):
            return True
    return False


def _slotted(text: str, calls: list[dict[str, Any]]) -> bool:
    if SET_TO.search(text):
        return True
    for call in calls:
        for param in call["arguments"]:
            odd = "_" in param or any(c.isupper() for c in param[1:])
            if odd and _bare(param).search(text):
                return True
            if len(param) > 2 and _assigned(param).search(text):
                value = call["arguments"][param]
                if isinstance(value, (str, int, float)) and str(value).lower() in text.lower():
                    return True
    return False


def conversations(run: Path, descriptions: dict) -> dict[str, Any]:
    """The rows read off conversations.jsonl, in one pass (a large run is never held); ``by_author``: the
    main rows for pack and fallback conversations apart (a run's figures mix what each writes)."""
    c = _Tally()
    groups: dict[str, _Tally] = defaultdict(_Tally)
    # value -> its parameter, a set once it fills two (most fill one: no set each)
    fills: dict[str, str | set[str]] = {}
    for conv in read_jsonl(run / CONVERSATIONS):
        c.add(conv, descriptions)
        groups[author_of(conv)].add(conv, descriptions)
        c.string_args += _note_fills(conv["messages"], fills)
    spread = {v: sorted(p) for v, p in fills.items() if isinstance(p, set) and len(p) > 3}
    n = c.n
    top_first = c.first_sentences.most_common(1)
    top_open = c.openings.most_common(1)
    return {
        "conversations": n,
        "from_packs": round(c.packed / n, 4) if n else 0.0,
        **_shares(c),
        "top_first_sentence": {"share": round(top_first[0][1] / n, 4), "text": top_first[0][0][:120]}
        if top_first
        else None,
        "top_answer_opening": {"share": round(top_open[0][1] / c.answers, 4), "text": top_open[0][0]}
        if top_open
        else None,
        "phrases_over_3_params": {
            "count": len(spread),
            "examples": dict(list(sorted(spread.items()))[:5]),
            "share_of_string_args": round(sum(len(p) for p in spread.values()) / c.string_args, 4)
            if c.string_args
            else 0.0,
        },
        "by_author": {a: {"conversations": t.n, **_shares(t)} for a, t in sorted(groups.items())},
    }


def author_of(conv: dict[str, Any]) -> str:
    """Who wrote a conversation row: its ``author`` (pack, fallback, shop), else what its scenario says
    (runs made before conversations carried one; model agents: ``agents``)."""
    if conv.get("author"):
        return str(conv["author"])
    return "pack" if conv["scenario"].get("turns") is not None else "agents"


def _shares(c: _Tally) -> dict[str, Any]:
    n = c.n
    return {
        "requests_naming_tool": round(c.naming / n, 4) if n else 0.0,
        "requests_with_slots": round(c.slotted / n, 4) if n else 0.0,
        "calls_per_conversation": round(c.calls / n, 3) if n else 0.0,
        "user_turns_per_conversation": round(c.users / n, 3) if n else 0.0,
        "parallel_call_turns": round(c.parallel / c.tool_turns, 4) if c.tool_turns else 0.0,
        "announced_withholds": round(c.announced / n, 4) if n else 0.0,
        "top_stock_phrase": _top(c.stock, n),
        "decisions": {
            move: {"conversations": c.moves[move], "share": round(c.moves[move] / n, 4) if n else 0.0}
            for move in DECISIONS
        },
        "ids_described_two_ways": round(c.two_ways / n, 4) if n else 0.0,
        "lists_off_limit": round(c.off_limit / n, 4) if n else 0.0,
        "periods_unsaid": _part(c.unsaid, c.period_turns),
        "items_fewer": _part(c.fewer, c.count_turns),
        "raw_field_followups": round(c.raw_followups / n, 4) if n else 0.0,
        "pointer_sentences": round(c.pointers / n, 4) if n else 0.0,
        "decline_offers_quoting": round(c.quoting / c.declines, 4) if c.declines else 0.0,
        "raw_stamps_in_answers": round(c.stamps / n, 4) if n else 0.0,
        "system_prompts": {
            "distinct": len(c.systems),
            "top_share": round(c.systems.most_common(1)[0][1] / n, 4) if n else 0.0,
        },
        "order_claims_contradicted": {
            "share": round(c.contradicted / c.claims, 4) if c.claims else 0.0,
            "claims": c.claims,
            "count": c.contradicted,
        },
    }


def _part(found: int, of: int) -> dict[str, Any]:
    return {"share": round(found / of, 4) if of else 0.0, "turns": of, "found": found}


def _top(counts: Counter[str], n: int) -> dict[str, Any] | None:
    """The five short phrases in the most conversations, with their shares; the first is the row's figure."""
    top = counts.most_common(5)
    if not top or not n:
        return None
    return {"share": round(top[0][1] / n, 4), "text": top[0][0], "next": {t: round(k / n, 4) for t, k in top[1:]}}


_MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "is_error")


@dataclass
class _Tally:
    """The counts ``conversations`` turns into shares, added one conversation at a time."""

    n: int = 0
    packed: int = 0
    naming: int = 0
    slotted: int = 0
    answers: int = 0
    calls: int = 0
    users: int = 0
    tool_turns: int = 0
    parallel: int = 0
    string_args: int = 0
    announced: int = 0
    moves: Counter[str] = field(default_factory=Counter)  # decision -> conversations holding it
    two_ways: int = 0  # conversations with an id two results describe two ways
    off_limit: int = 0  # conversations with a list longer or shorter than its call's limit
    period_turns: int = 0  # answered turns whose request asks two or more periods together
    unsaid: int = 0  # ... whose answer leaves one unsaid
    count_turns: int = 0  # answered turns whose request asks for a number of things
    fewer: int = 0  # ... whose answer names fewer while the result holds them
    claims: int = 0  # answers' order claims about listed items
    contradicted: int = 0  # of them, the ones their result contradicts
    first_sentences: Counter[str] = field(default_factory=Counter)
    openings: Counter[str] = field(default_factory=Counter)
    stock: Counter[str] = field(default_factory=Counter)  # short phrase -> conversations with it
    raw_followups: int = 0
    pointers: int = 0
    declines: int = 0  # decline turns
    quoting: int = 0  # decline turns whose offer quotes a tool description
    stamps: int = 0
    systems: Counter[str] = field(default_factory=Counter)  # system prompt, the server's name aside -> conversations

    def add(self, conv: dict[str, Any], descriptions: dict) -> None:
        self.n += 1
        self.packed += conv["scenario"].get("turns") is not None
        messages = conv["messages"]
        calls = [c for m in messages for c in m.get("tool_calls") or []]
        self.moves.update({d["kind"] for d in conv.get("decisions") or ()} | ({"call"} if calls else set()))
        first = next((m.get("content") or "" for m in messages if m["role"] == "user"), "")
        self.naming += _names_tool(first, calls, conv["scenario"]["server"], descriptions)
        self.slotted += _slotted(first, calls)
        self.first_sentences[SENTENCE.split(first.strip())[0].lower()] += 1
        self.calls += len(calls)
        self.users += sum(m["role"] == "user" for m in messages)
        said = [m.get("content") or "" for m in messages if m["role"] == "user"]
        self.announced += any(ANNOUNCE.search(text) for text in said)
        self.stock.update({p for text in said for p in _short_pieces(text)})
        self.two_ways += bool(conflicting_ids(messages))
        self._words_of(conv, descriptions)
        self.off_limit += bool(limit_mismatches(messages))
        self._asks(messages)
        claims, contradicted = claims_and_contradictions(messages)
        self.claims += claims
        self.contradicted += len(contradicted)
        for i, m in enumerate(messages):
            if m.get("tool_calls"):
                self.tool_turns += 1
                self.parallel += len(m["tool_calls"]) > 1
            if m["role"] == "assistant" and m.get("content") and i and messages[i - 1]["role"] == "tool":
                self.answers += 1
                self.openings[" ".join(_words(m["content"])[:3])] += 1

    def _asks(self, messages: list[dict[str, Any]]) -> None:
        """The turns that ask for periods or a number of things, and those whose answer falls short: a turn
        whose call failed is left out (its answer says why, and the result holds nothing to name)."""
        split = turns(Message.model_validate({k: m[k] for k in _MESSAGE_KEYS if k in m}) for m in messages)
        for turn in split:
            if not turn.calls or turn.answer is None or any(failed for *_, failed in turn.calls):
                continue
            request = " ".join(turn.user)
            if asked_periods(request):
                self.period_turns += 1
                self.unsaid += bool(unsaid_periods(request, turn.answer))
            if (wanted := count_asked(request)) >= 2:
                self.count_turns += 1
                self.fewer += bool(named_fewer(wanted, turn.answer, [result for _, _, result, _ in turn.calls]))

    def _words_of(self, conv: dict[str, Any], descriptions: dict) -> None:
        """The devices a real user never meets: raw field names asked back, pointer sentences, offers that quote a
        tool's description, stamps in answers; and which system prompt the conversation opens with."""
        messages, server = conv["messages"], conv["scenario"]["server"]
        system = messages[0].get("content") or "" if messages and messages[0]["role"] == "system" else ""
        name = descriptions.get((server, ""))
        self.systems[system.replace(name, "{server}") if name else system] += 1
        earlier: set[str] = set()  # values of the calls before each user message
        pointed = False
        for m in messages:
            if m["role"] == "user" and earlier:
                for sentence in SENTENCE.split((m.get("content") or "").strip()):
                    hit = POINTER.match(sentence)
                    pointed |= bool(hit and next(g for g in hit.groups() if g).strip().lower() in earlier)
            for call in m.get("tool_calls") or []:
                earlier |= {str(v).lower() for v in call["arguments"].values() if isinstance(v, (str, int))}
        self.pointers += pointed
        raw = False
        for d in conv.get("decisions") or ():
            said = messages[d["message"]].get("content") or "" if d["message"] < len(messages) else ""
            if d["kind"] == "answer":
                ask = messages[d["message"] - 1].get("content") or ""
                raw |= bool(RAW_FIELD.search(ask) or FIELD_VALUE.match(said))
            elif d["kind"] == "decline":
                self.declines += 1
                tools = {n for (srv, n) in descriptions if srv == server and n} if descriptions else set()
                spans = _spans(said)
                self.quoting += any(spans & _spans(descriptions[(server, t)]) for t in tools)
        self.raw_followups += raw
        self.stamps += any(
            STAMP.search(m.get("content") or "")
            for i, m in enumerate(messages)
            if m["role"] == "assistant" and not m.get("tool_calls") and i and messages[i - 1]["role"] == "tool"
        )


def _short_pieces(text: str) -> set[str]:
    """The pieces of a user message of four words or fewer, values aside ("Thanks!", "Also:", "Perfect.")."""
    out = set()
    for piece in PIECE.split(text.strip()):
        words = piece.split()
        if 0 < len(words) <= 4 and not any(ch.isdigit() for ch in piece) and piece[-1:] in ".!?:":
            out.add(piece.lower())
    return out


def _note_fills(messages: list[dict[str, Any]], fills: dict[str, str | set[str]]) -> int:
    """Record which parameters each string value of these calls fills; returns how many string values there were."""
    string_args = 0
    for call in (c for m in messages for c in m.get("tool_calls") or []):
        for param, value in call["arguments"].items():
            if isinstance(value, str) and len(value) >= 4 and not value.replace(".", "").isdigit():
                string_args += 1
                key, had = value.lower(), fills.get(value.lower())
                if had is None:
                    fills[key] = sys.intern(param)
                elif isinstance(had, str):
                    if had != param:
                        fills[key] = {had, param}
                else:
                    had.add(param)
    return string_args


def _arguments(call: Any) -> dict[str, Any]:
    """Arguments of a scored call, in the OpenAI shape ({"function": {"arguments": "..."}}) or flat."""
    if not isinstance(call, dict):
        return {}
    raw = (call.get("function") or call).get("arguments") or {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _changed(gold: Any, call: Any) -> list[Any]:
    """The values a negative changed, read leaf by leaf inside objects of the same keys (an event's changed
    start date, not the whole event, is the value a judge looks for in the history)."""
    if isinstance(gold, dict) and isinstance(call, dict) and gold.keys() == call.keys():
        return [v for k in call for v in _changed(gold[k], call[k])]
    return [] if gold == call else [call]


def negatives(run: Path) -> dict[str, Any]:
    """Wrong-value negatives whose value is nowhere in the history, and the names unexpected_extra adds."""
    total = absent = 0
    extras: Counter[str] = Counter()
    for _, text in lines(run / SCORED):  # a quarter of the rows, parsed without their tool lists put back
        if '"score": "incorrect_parameter_values"' not in text and '"subtype": "unexpected_extra"' not in text:
            continue
        row = json.loads(text)
        gold, call = _arguments(row.get("gold_call")), _arguments(row.get("tool_call"))
        if row.get("subtype") == "unexpected_extra":
            extras.update(k for k in call if k not in gold)
        if row.get("score") != "incorrect_parameter_values":
            continue
        changed = _changed(gold, call)
        if not changed:
            continue
        total += 1
        history = json.dumps(row.get("message_history"), ensure_ascii=False).lower()
        if not any(json.dumps(v, ensure_ascii=False).strip('"').lower() in history for v in changed):
            absent += 1
    return {
        "wrong_value_negatives": total,
        "wrong_values_absent": round(absent / total, 4) if total else 0.0,
        "unexpected_extra_names": {"distinct": len(extras), "top": dict(extras.most_common(5))},
    }


def parallel_eval(run: Path) -> dict[str, Any]:
    """Eval items whose gold turn made several calls at once, and the mean score of an answer that makes
    all of them (each item expects one; the grader is given the others) [1.0]."""
    scores = []
    for line in read_jsonl(run / EVAL) if stored(run / EVAL).exists() else ():
        item = line["item"]
        parallel = item["metadata"].get("parallel_calls") or []
        if not parallel:
            continue
        expected = [Call.from_openai(c) for c in item["expected_output"]["tool_calls"]]
        others = [Call.from_openai(c) for c in parallel]
        schemas = {t["function"]["name"]: t["function"].get("parameters") or {} for t in item["tools"]}
        scores.append(score_turn(expected, without(others, expected + others, schemas), schemas).score)
    return {"parallel_items": len(scores), "both_calls_score": round(sum(scores) / len(scores), 4) if scores else None}


def review(run: Path) -> dict[str, Any]:
    path = run / "teval" / "review_str.json"
    if not stored(path).exists():
        return {"review_items": 0}
    pairs: list[tuple[Any, str]] = []
    cues: list[tuple[Any, str]] = []
    for item in teval_rows(path):  # streamed: the subset is the largest T-Eval file
        options = item.get("template", {}).get("options", {})
        label = options.get(item["ground_truth"]["answer"], "").split(":")[0]
        prompt = item["origin_prompt"][-1]["content"]
        response = prompt.split("got this response:\n", 1)[-1].rsplit("\nWhich describes it?", 1)[0]
        try:
            parsed = json.loads(response)
            is_error = isinstance(parsed, dict) and ("error" in parsed or "isError" in parsed)
        except ValueError:
            is_error = False
        pairs.append((is_error, label))
        cues.append((tuple(bool(rx.search(response)) for rx in CUES.values()), label))
    return {
        "review_items": len(pairs),
        "review_labels_used": len({label for _, label in pairs}),
        "review_labels": dict(Counter(label for _, label in pairs)),
        "review_error_json_accuracy": _best_rule(pairs),
        "review_regex_accuracy": _best_rule(cues),
        "review_regex_heldout": _heldout_rule(cues),
    }


# what a response's text alone can show: the cues a lazy reader (or a text-only classifier) goes by
CUES = {
    "validation": re.compile(
        r"(?i)invalid|validation|must be|is not of type|required (?:property|parameter)|greater than|less than"
        r"|is not one of|value_error|-32602|\b4(?:00|22)\b"
    ),
    "server": re.compile(
        r"(?i)internal|timed? ?out|gateway|unavailable|traceback|locked|\b50[0-4]\b|connection|went wrong|failed"
    ),
    "missing": re.compile(
        r"(?i)not found|no \w+(?: \w+)? found|nothing matched|\"found\": false|\[\]|\"total\": 0|does not exist"
    ),
    "error": re.compile(r"(?i)\berror\b"),
}


def _best_rule(pairs: list[tuple[Any, str]]) -> float:
    """The accuracy of the best rule over these features: each cell of feature values answers its most
    common label (an upper bound for any regex rule built on the same cues, fitted on the data itself)."""
    by_feature: dict[Any, Counter[str]] = defaultdict(Counter)
    for feature, label in pairs:
        by_feature[feature][label] += 1
    best = sum(c.most_common(1)[0][1] for c in by_feature.values())
    return round(best / len(pairs), 4) if pairs else 0.0


def _heldout_rule(pairs: list[tuple[Any, str]]) -> float:
    """The same rule fitted on one half of the items (alternate ones) and scored on the other, both ways: what
    a regex rule gets on items it was not made from. The fitted figure above is optimistic on a small set
    (each cell of cues answers its own items' majority); a cell unseen in the fitting half answers that
    half's most common label."""
    if len(pairs) < 2:
        return 0.0
    right = 0
    for part in (0, 1):
        fit = [p for i, p in enumerate(pairs) if i % 2 == part]
        by_feature: dict[Any, Counter[str]] = defaultdict(Counter)
        for feature, label in fit:
            by_feature[feature][label] += 1
        default = Counter(label for _, label in fit).most_common(1)[0][0]
        rule = {f: c.most_common(1)[0][0] for f, c in by_feature.items()}
        right += sum(rule.get(f, default) == label for i, (f, label) in enumerate(pairs) if i % 2 != part)
    return round(right / len(pairs), 4)


def report(run: Path, registry: Path | None = None) -> dict[str, Any]:
    """Every row for the run folder ``run``; the registry (default: the manifest's) gives tool descriptions."""
    if registry is None and RunDir(run).is_run():
        registry = Path(RunDir(run).manifest()["config"]["servers"])
    return {
        **conversations(run, _descriptions(registry)),
        **negatives(run),
        **review(run),
        **parallel_eval(run),
        "worlds": world_figures(run, registry),
        "reader_gates": _gates(run),
    }


def _gates(run: Path) -> dict[str, float] | None:
    """Each reader gate's share of checked conversations, from the manifest (None for runs made before them)."""
    if not RunDir(run).is_run():
        return None
    section = RunDir(run).manifest().get("reader_gates") or {}
    return {g: v["rate"] for g, v in (section.get("gates") or {}).items()} or None
