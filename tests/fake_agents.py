"""A deterministic stand-in for a model behind the loopback OpenAI server: it answers every agent role.

It reads only what a real model would see (the request's messages and tools), recognises the role
from the system prompt, and answers plausibly: the query generator states values as
``<parameter words> <JSON value>``, the executor finds them there (or in earlier tool results, or
asks the user), the tool simulator uses the offline simulator. The same request always gets the
same answer, so runs are reproducible and a cache hit equals a fresh call.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from synth.offline.language import intent
from synth.records import ToolSpec, content_hash
from synth.simulator.results.simulate import simulate
from synth.simulator.values.values import Context, human, make_value

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
    linked = {(i, got["param"]): got["field"] for i, step in enumerate(steps) for got in step["gets"]}
    ctx = Context(rng=rng, city=rng.choice(["Porto", "Lisbon", "Tokyo", "Denver"]))
    parts, details = [], []
    for i, tool in enumerate(tools):
        stated = []
        for p in tool.required:
            schema = tool.properties.get(p)
            if not isinstance(schema, dict):
                continue
            if (i, p) in linked:  # where it is, as the prompt says it (a model reads "item 5 of tables")
                stated.append(f"the {human(p)} from the first result (at {linked[(i, p)]})")
                continue
            value, _ = make_value(p, schema, ctx)
            if data["multi_turn"] and not details and i == 0 and isinstance(value, (str, int)):
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


def _at(results: list[Any], text: str, param: str) -> Any:
    """The value the request points to in an earlier result ("the table name from the first result (at
    tables.4)"): a field of that name, or the path followed into the result."""
    m = re.search(rf"the {re.escape(human(param))} from the first result \(at ([\w.]+)\)", text)
    if m is None or not results or not isinstance(results[0], dict):
        return None
    path, node = m.group(1), results[0]
    flat = _from_results(results[:1], path)  # the simulator may put the field under that very name
    if flat is not None:
        return flat
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node if not isinstance(node, (dict, list)) else None


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


def _facts(result: Any) -> str:
    """A few values of one result, in words: its first scalar fields (inside the first item of a list)."""
    node = result
    while isinstance(node, list) and node:
        node = node[0]
    if isinstance(node, dict):
        scalars = [(k, v) for k, v in node.items() if not isinstance(v, (dict, list))]
        if not scalars:
            inner = next((v for v in node.values() if isinstance(v, (dict, list))), None)
            return _facts(inner) if inner is not None else "an empty result"
        return ", ".join(f"{human(k)} {v}" for k, v in scalars[:3])
    return str(node)[:80]


def _after_answer(messages: list[dict[str, Any]]) -> bool:
    """The user speaks again after the assistant's final answer (no call since): the decision turn."""
    last_tool = max((i for i, m in enumerate(messages) if m["role"] == "tool"), default=-1)
    answered = any(m["role"] == "assistant" and m.get("content") for m in messages[last_tool + 1 :])
    return last_tool >= 0 and answered and messages[-1]["role"] == "user"


def _decide(text: str, results: list[Any], request: dict[str, Any]) -> dict[str, Any]:
    """What a careful model does after its answer: a question about the result is answered from it, anything
    else the tools cannot do is declined with what they can do."""
    last = results[-1] if results else {}
    if re.search(r"\b(again|which|what|highest|lowest|most|least)\b", text, re.I) and isinstance(last, dict):
        facts = ", ".join(f"{human(k)} {v}" for k, v in list(last.items())[:3])
        return {"content": f"From the result above: {facts}."}
    names = [t["function"]["name"] for t in request.get("tools") or []][:2]
    return {"content": f"Sorry, I can't do that with the tools I have; I can {' or '.join(map(human, names))} instead."}


def _executor(request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    plan = next(
        (_tag(m["content"], "plan") for m in messages if m["role"] == "system" and "<plan>" in (m["content"] or "")), []
    )
    users = [m["content"] or "" for m in messages if m["role"] == "user"]
    steps = users[0].split("; then ") if users else [""]
    results = []
    for m in messages:
        if m["role"] == "tool":
            try:
                results.append(json.loads(m["content"]))
            except ValueError:
                results.append(m["content"])
    done = sum(1 for m in messages if m["role"] == "tool")
    if done >= len(plan) and _after_answer(messages):  # a turn after the final answer: decline or answer
        return _decide(users[-1], results, request)
    if done >= len(plan):  # a capable model's answer speaks of every result the request got, not the last alone
        facts = "; ".join(_facts(result) for result in results) if results else "nothing came back"
        return {"content": f"All done. Here is what I found: {facts}."}
    step = plan[done]
    tools = {t["function"]["name"]: t["function"] for t in request.get("tools") or []}
    fn = tools.get(step["tool"]) or next(iter(tools.values()))
    schema = fn.get("parameters") or {}
    args: dict[str, Any] = {}
    for p in schema.get("properties") or {}:
        # this step's part of the request first, then the user's later answers, then anything said
        value = next(
            (
                v
                for text in (steps[min(done, len(steps) - 1)], *users[1:], "\n".join(users))
                if (v := _find(text, p)) is not None
            ),
            None,
        )
        if value is None and isinstance(schema["properties"][p], dict):
            value = next((v for text in users[1:] if (v := _option(text, schema["properties"][p])) is not None), None)
        if value is None and p in (schema.get("required") or []):
            value = _at(results, users[0] if users else "", p)
        if value is None and p in (schema.get("required") or []):
            value = _from_results(results, p)
            if value is None:
                return {"content": f"Sure. What {human(p)} should I use?"}
        if value is not None:
            args[p] = value
    return {
        "tool_calls": [
            {
                "id": f"call_{done}",
                "type": "function",
                "function": {"name": fn["name"], "arguments": json.dumps(args, ensure_ascii=False)},
            }
        ]
    }
