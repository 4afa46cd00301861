"""A deterministic stand-in for a model behind the loopback OpenAI server: it answers every agent role.

It reads only what a real model would see (the request's messages and tools), recognises the role
from the system prompt, and does what synth's prompt asks, as a capable model would: the query
generator states values as ``<parameter words> <JSON value>`` and leaves out one the person knows;
the executor finds them there, in the result the request points to, or asks (once: told the person
does not know, it stops and says why), does not repeat a read it already made, and answers with what
each result says (a failure as one, an empty result as nothing found). Same request, same answer."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

from synth.offline.language import intent
from synth.records import ToolSpec, content_hash
from synth.simulator.results.simulate import simulate
from synth.simulator.values.values import Context, human, make_value
from synth.stages.reader import reads

ROLE_OF = {
    "query generator": "query",
    "query refiner": "refine",
    "planner": "plan",
    "user simulator": "user",
    "tool simulator": "tool",
    "reviewer": "review",
}


def _tag(text: str, tag: str) -> Any:
    m = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.S)
    return json.loads(m.group(1)) if m else None


def _rng(body: Any) -> random.Random:
    return random.Random(int(content_hash(body, 16), 16))


def _spec(t: dict[str, Any]) -> ToolSpec:
    return ToolSpec(
        server="fake",
        name=t["name"],
        description=t.get("description", ""),
        input_schema=t.get("input_schema") or t.get("parameters") or {"type": "object"},
        schema_hash="x",
    )


def role_of(request: dict[str, Any]) -> str:
    system = request["messages"][0].get("content") or ""
    m = re.match(r"You are synth's ([a-z ]+?)\.", system)
    return ROLE_OF.get(m.group(1), "unknown") if m else "executor"


def respond(request: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for one chat completions request body."""
    role = role_of(request)
    user = request["messages"][1]["content"] if len(request["messages"]) > 1 else ""
    rng = _rng([request["messages"], request.get("tools")])
    answer = {"query": _query, "refine": _refine, "plan": _plan, "user": _user, "tool": _tool, "review": _review}.get(
        role
    )
    if answer is None:
        return _executor(request)
    return {"content": json.dumps(answer(user, rng), ensure_ascii=False)}


def say(param: str, value: Any) -> str:
    return f"{human(param)} {json.dumps(value, ensure_ascii=False)}"


def _query(text: str, rng: random.Random) -> dict[str, Any]:
    data = _tag(text, "scenario")
    steps = data["steps"]
    tools = [_spec(step["tool"]) for step in steps]
    linked = {
        (i, got["param"]): (got["from_step"], got["field"]) for i, step in enumerate(steps) for got in step["gets"]
    }
    ctx = Context(rng=rng, city=rng.choice(["Porto", "Lisbon", "Tokyo", "Denver"]))
    # the value left out is one no other step states too (else the request still says it, and no one asks)
    said = Counter(human(p) for i, tool in enumerate(tools) for p in tool.required if (i, p) not in linked)
    parts, details = [], []
    for i, tool in enumerate(tools):
        stated = []
        for p in tool.required:
            schema = tool.properties.get(p)
            if not isinstance(schema, dict):
                continue
            if (i, p) in linked:  # where it is, as the prompt says it (a model reads "item 5 of tables", "step 2")
                step, field = linked[(i, p)]
                stated.append(f"the {human(p)} from step {step}'s result (at {field})")
                continue
            value, _ = make_value(p, schema, ctx)
            if data["multi_turn"] and not details and said[human(p)] == 1:  # any value the person knows
                details.append({"step": i + 1, "param": p, "value": value})
                continue
            stated.append(say(p, value))
        clause = intent(tool) + (" with " + ", ".join(stated) if stated else "")
        parts.append(clause if i == 0 else f"then {clause}")
    return {"request": f"Could you {'; '.join(parts)}?", "details": details}


def _refine(text: str, rng: random.Random) -> dict[str, Any]:
    draft = re.search(r"<draft>(.*?)</draft>", text, re.S).group(1).strip()
    return {"request": draft if draft.startswith(("Hi", "Hello")) else f"Hi! {draft}"}


def _plan(text: str, rng: random.Random) -> dict[str, Any]:
    tools = _tag(text, "tools")
    return {
        "steps": [
            {"tool": t["name"], "purpose": intent(_spec(t)), "depends_on": [i] if i else []}  # steps count from 1
            for i, t in enumerate(tools)
        ]
    }


def _user(text: str, rng: random.Random) -> dict[str, Any]:
    said = re.search(r"<next>(.*?)</next>", text, re.S)
    if said:  # a turn the conversation adds, in this person's words: the text as given
        return {"reply": said.group(1).strip()}
    details = _tag(text, "details") or []
    last = [line for line in text.split("\n") if line.startswith("assistant:")][-1:]
    for d in details:
        p, v = d["param"], d["value"]
        if last and human(p) in last[0].lower():
            if d["say"] == "in your own words":  # a fixed option, said as a person says it
                return {"reply": f"The {human(str(v))} one, please."}
            return {"reply": f"{say(p, v)}, please."}
    return {"reply": "Sorry, I don't know that."}


def _tool(text: str, rng: random.Random) -> dict[str, Any]:
    tool = _spec(_tag(text, "tool"))
    arguments = _tag(text, "arguments")
    m = re.search(r"Fields later steps will read from this result: (.*)", text)
    ctx = Context(rng=rng)
    provide = {f: make_value(f, {"type": "string"}, ctx)[0] for f in (m.group(1).split(", ") if m else [])}
    return {"result": simulate(tool, arguments, ctx, provide), "is_error": False}


def _review(text: str, rng: random.Random) -> dict[str, Any]:
    results = [line for line in text.split("\n") if line.startswith("tool result")]
    labels = ["internal_error" if line.startswith("tool result (ERROR") else "success" for line in results]
    return {
        "step_labels": labels,
        "verdict": "accept",
        "reasons": ["each call follows the request and uses stated or returned values"]
        + (["the assistant reports the failed call instead of pretending it worked"] if "ERROR" in text else []),
        "confidence": 0.9 if "internal_error" not in labels else 0.7,
    }


_DECODER = json.JSONDecoder()


def _find(text: str, param: str) -> Any:
    """The JSON value stated right after the parameter's words ("days 4", 'city "Porto"')."""
    for m in re.finditer(rf"(?<![\w]){re.escape(human(param))} (?=[\"\[{{\-\dtf])", text, re.I):
        try:
            return _DECODER.raw_decode(text, m.end())[0]
        except ValueError:
            continue
    return None


def _option(text: str, schema: dict[str, Any]) -> Any:
    """The enum value a person named in their own words ("the cash flow one" for "cash_flow")."""
    said = re.sub(r"[\W_]+", " ", text.lower())
    for value in schema.get("enum") or []:
        if isinstance(value, str) and f" {human(value).lower()} " in f" {said} ":
            return value
    return None


def _at(results: dict[int, Any], text: str, param: str) -> tuple[bool, Any]:
    """(whether the request points to an earlier result for ``param``, the value there): "the table name from
    step 1's result (at tables.4)" is a field of that name in step 1's result, or the path followed into it."""
    m = re.search(rf"the {re.escape(human(param))} from step (\d+)'s result \(at ([\w.]+)\)", text)
    if m is None:
        return False, None
    step, path = int(m.group(1)) - 1, m.group(2)
    if step not in results:
        return True, None
    node = results[step]
    flat = _from_results([node], path)  # the simulator may put the field under that very name
    if flat is not None:
        return True, flat
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return True, None
    return True, node if not isinstance(node, (dict, list)) else None


def _from_results(results: list[Any], param: str) -> Any:
    for result in reversed(results):
        stack = [result]
        while stack:
            node = stack.pop(0)
            if isinstance(node, dict):
                if param in node and not isinstance(node[param], (dict, list)):
                    return node[param]
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node[:1])
    return None


def _nameable(value: Any) -> bool:
    """A value a reader can find in an answer: a string of 3+ characters (a two-character name in Korean or
    Japanese: "서울"), a number of 2+ digits."""
    if isinstance(value, str):
        text = value.strip()
        return len(text) >= 3 or (len(text) == 2 and not text.isascii())
    return isinstance(value, (int, float)) and not isinstance(value, bool) and len(str(value).strip("-.")) >= 2


def _facts(result: Any) -> list[tuple[str, Any]]:
    """A few values of one result a reader can name: scalar fields breadth first, a list by its first item."""
    if isinstance(result, str):
        return [("", result.strip()[:80])] if result.strip() else []
    out: list[tuple[str, Any]] = []
    queue = [result]
    while queue and len(out) < 3:
        node = queue.pop(0)
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    queue.append(v)
                elif _nameable(v):
                    out.append((k, v))
        elif isinstance(node, list):
            queue.extend(node[:1])
    return out[:3]


def _error(result: Any) -> str | None:
    """The failure a result reports, as a model reads it: an "error" field, or text that starts with one."""
    if isinstance(result, dict) and ("error" in result or result.get("isError")) and len(result) <= 3:
        return str(result.get("error") or result.get("message") or "the call failed")
    if isinstance(result, str) and re.match(r"(?i)(error|failed)\b", result.strip()):
        return result.strip()[:160]
    return None


def _found(made: list[tuple[dict[str, Any], dict[str, Any], Any]]) -> tuple[str, bool]:
    """What the results say (a failure said as one, an empty result as nothing found), and whether one failed."""
    parts, failed = [], False
    for fn, _, result in made:
        error, facts = _error(result), _facts(result)
        if error is not None:
            parts.append(f"I couldn't {intent(_spec(fn))}: {error}")
        elif not facts:
            parts.append(f"nothing came back when I tried to {intent(_spec(fn))}")
        else:
            parts.append(", ".join(f"{human(k)} {v}" if k else str(v) for k, v in facts))
        failed = failed or error is not None
    return ("; ".join(parts) if parts else "nothing came back"), failed


def _summary(made: list[tuple[dict[str, Any], dict[str, Any], Any]], stop: str = "") -> dict[str, Any]:
    """The final answer: what each result says, then why the rest could not be done."""
    said, failed = _found(made)
    return {"content": f"{'Here is' if failed or stop else 'All done. Here is'} what I found: {said}.{stop}"}


def _fields(value: Any) -> Any:
    """(key, value, the item holding it) for every scalar field of a result, however deep."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, (dict, list)):
                yield from _fields(v)
            elif v is not None and not isinstance(v, bool):
                yield k, v, value
    elif isinstance(value, list):
        for v in value[:50]:
            yield from _fields(v)


def _after_answer(messages: list[dict[str, Any]]) -> bool:
    """The user speaks again after the assistant's final answer (not a question, no call since)."""
    last_tool = max((i for i, m in enumerate(messages) if m["role"] == "tool"), default=-1)
    said = [m.get("content") or "" for m in messages[last_tool + 1 :] if m["role"] == "assistant"]
    answered = any(text and not text.rstrip().endswith("?") for text in said)
    return last_tool >= 0 and answered and messages[-1]["role"] == "user"


def _decide(text: str, made: list[tuple[dict[str, Any], dict[str, Any], Any]], request: dict[str, Any]) -> dict:
    """What a careful model does after its answer: a question about a field of a result is answered from it
    (the lowest or highest of a list by that field), anything else the tools cannot do is declined with what
    they can do."""
    asked = set(re.findall(r"[a-z0-9]+", text.lower()))
    for _, _, result in reversed(made):
        found = [(k, v, item) for k, v, item in _fields(result) if set(human(k).lower().split()) <= asked]
        if not found:
            continue
        key = found[0][0]
        rows = [(v, item) for k, v, item in found if k == key]
        numbers = [(v, item) for v, item in rows if isinstance(v, (int, float))]
        extreme = {"lowest": min, "least": min, "fewest": min, "highest": max, "most": max}
        pick = next((extreme[w] for w in extreme if w in asked), None)
        if pick is not None and numbers:  # the item it is, by its first name-like field
            value, item = pick(numbers, key=lambda r: r[0])
            named = next((v for k, v in item.items() if k != key and isinstance(v, str) and len(v) >= 2), "That one")
            return {"content": f"{named} has the {' '.join(sorted(asked & set(extreme)))} {human(key)}: {value}."}
        return {"content": f"From the result above: the {human(key)} is {rows[0][0]}."}
    names = [t["function"]["name"] for t in request.get("tools") or []][:2]
    return {"content": f"Sorry, I can't do that with the tools I have; I can {' or '.join(map(human, names))} instead."}


def _made(messages: list[dict[str, Any]], tools: dict[str, dict[str, Any]]) -> list[tuple[dict, dict, Any]]:
    """The calls made so far, each with its tool, arguments and result."""
    pending: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
    made = []
    for m in messages:
        for c in m.get("tool_calls") or []:
            fn = tools.get(c["function"]["name"]) or {"name": c["function"]["name"]}
            pending[c["id"]] = (fn, json.loads(c["function"]["arguments"] or "{}"))
        if m["role"] == "tool":
            fn, args = pending.get(m.get("tool_call_id") or "", ({"name": "?"}, {}))
            try:
                result: Any = json.loads(m["content"])
            except ValueError:
                result = m["content"]
            made.append((fn, args, result))
    return made


def _arguments(
    fn: dict[str, Any], clause: str, users: list[str], served: dict[int, Any], made: list[Any], messages: list[Any]
) -> dict[str, Any]:
    """One step's arguments: each value from the request (this step's part first), the user's later answers,
    the earlier result the request points to, or any earlier result; else a question, or, when the user
    could not say it or the result pointed to does not hold it, a final answer saying why it stops there."""
    schema = fn.get("parameters") or {}
    required = schema.get("required") or []
    args: dict[str, Any] = {}
    for p, spec in (schema.get("properties") or {}).items():
        value = next((v for text in (clause, *users[1:], "\n".join(users)) if (v := _find(text, p)) is not None), None)
        if value is None and isinstance(spec, dict):
            value = next((v for text in users[1:] if (v := _option(text, spec)) is not None), None)
        if value is None and p in required:
            pointed, value = (
                _at(served, clause, p) if f"the {human(p)} from step" in clause else _at(served, users[0], p)
            )
            if pointed and value is None:  # the result it comes from holds none (an empty search): say so
                why = f" I couldn't go on to {intent(_spec(fn))}: the earlier result has no {human(p)} to use."
                return {"stop": _summary(made, why)}
            if value is None:
                value = _from_results([r for _, _, r in made], p)
        if value is None and p in required:
            question = f"What {human(p)} should I use?"
            if any(m["role"] == "assistant" and question in (m.get("content") or "") for m in messages):  # not known
                return {"stop": _summary(made, f" Without a {human(p)} I can't {intent(_spec(fn))}.")}
            # asked after some calls, the question says what they gave so far (the turn speaks of its results)
            so_far = f"So far: {_found(made)[0]}." if made else "Sure."
            return {"stop": {"content": f"{so_far} {question}"}}
        if value is not None:
            args[p] = value
    return args


def _executor(request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    plan = next(
        (_tag(m["content"], "plan") for m in messages if m["role"] == "system" and "<plan>" in (m["content"] or "")), []
    )
    users = [m["content"] or "" for m in messages if m["role"] == "user"]
    clauses = users[0].split("; then ") if users else [""]
    tools = {t["function"]["name"]: t["function"] for t in request.get("tools") or []}
    made = _made(messages, tools)
    if _after_answer(messages):  # a turn after the final answer: decline or answer
        return _decide(users[-1], made, request)
    served: dict[int, Any] = {}  # step -> its result
    j = 0
    for i, step in enumerate(plan):
        fn = tools.get(step["tool"]) or next(iter(tools.values()))
        if j < len(made) and made[j][0]["name"] == fn["name"]:
            served[i], j = made[j][2], j + 1
            continue
        args = _arguments(fn, clauses[min(i, len(clauses) - 1)], users, served, made, messages)
        if "stop" in args:
            return args["stop"]
        # the conversation already holds this call's answer (the same read, no write since): use it again
        last_write = max((k for k, (f, _, _) in enumerate(made) if not reads(f["name"])), default=-1)
        same = [r for k, (f, a, r) in enumerate(made) if k >= last_write and f["name"] == fn["name"] and a == args]
        if same:
            served[i] = same[-1]
            continue
        call = {"name": fn["name"], "arguments": json.dumps(args, ensure_ascii=False)}
        return {"tool_calls": [{"id": f"call_{len(made)}", "type": "function", "function": call}]}
    return _summary(made)
