"""T-Eval subsets from the test split's gold conversations, in T-Eval's own record layout.

Each file is a JSON object keyed by sample id, as T-Eval's loaders read it; every record has
``origin_prompt`` (chat messages), ``ground_truth`` and ``meta_data`` (``meta`` in the plan subsets, where
T-Eval's planning evaluator looks):

- ``instruct_{json,str}``: "call the function X with ...": the call to make. The str subset's
  ``response_format`` is ``"string"`` (T-Eval averages only ``string_*`` metrics) and asks for the
  args as a Python dict, since T-Eval reads them with ``ast.literal_eval`` (JSON ``true`` would fail).
- ``plan_{json,str}``: the request: the calls in order (each distinct call once), then
  ``FinishAction``; each step has ``id``, ``prev`` (the steps it depends on), ``name`` and ``args``
  (an object, as in T-Eval's data), and the record has T-Eval's ``meta``
  (``prompt_type``, ``API_list``). ``API_list`` puts a name before any name that is a prefix of it:
  T-Eval labels a str step with the earliest-found name, the first in the list on a tie.
- ``reason_str``, ``retrieve_str``, ``understand_str`` and ``reason_retrieve_understand_json``:
  the conversation up to a gold call: the thought, the tool, the arguments of that call.
  ``understand_str`` asks for the arguments as a Python dict: T-Eval compares the answer with
  ``str(args)``.
- ``review_str``: a call and the response it got: was it a success (A), the tool's own failure
  (B), wrong input (C), a response that does not answer (D), or a task the tools cannot do (E)?
  Every gold call with a result gets one item: its real result (A), or a server failure (B),
  another tool's real result (D) or a not-found answer (E); every injected negative the schema
  rejects gets its validation error (C). Each outcome comes in several forms, so "is the response
  error JSON" does not give the answer away (synth.export.review_responses).

Tools are named ``Server.tool`` as in T-Eval, both parts word characters only (a ``-`` or ``.`` in
a tool name becomes ``_``), so the str-mode retrieve rule (every ``\\w+\\.\\w+`` in the answer is the
expected name) works. ``synth.evaluate.teval`` scores these files as T-Eval's evaluators do, and its
``reference_answer`` scores 1.0 on every metric in both (``benchmarks/teval_agreement.py``).
Records are written as they come: memory does not grow with the run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from synth.export import review_responses as rr
from synth.export.teval_apis import api, api_list, api_name, api_text, plan_steps, teval_history, thought
from synth.records import Conversation, Message, ScoredCall, ServerSpec, ToolSpec
from synth.rundir import GZ, TEVAL, open_write, storage_name
from synth.rundir.output import Accepted, Closed, Place
from synth.stages.gates import schema_error

FILES = (
    "instruct_json",
    "instruct_str",
    "plan_json",
    "plan_str",
    "reason_str",
    "retrieve_str",
    "understand_str",
    "reason_retrieve_understand_json",
    "review_str",
)
REVIEW_SHARE = 5  # one negative in this many gives an input_error review item (gold calls give the other four)
WRONG_ENTITY = {"partial_value", "context_value"}  # wrong values a server answers with "not found"
REVIEW_OPTIONS = {
    "A": "success: the call worked and its response answers it",
    "B": "internal_error: the tool failed on its own",
    "C": "input_error: the call's arguments were wrong",
    "D": "irrelevant_response: the response does not answer what was asked",
    "E": "unable_to_accomplish: the task cannot be done with these tools",
}
STR_FORMAT = (
    "Please generate the response in the following format:\ngoal: goal to call this action\n\nname: api name to call\n\n"  # noqa: E501
    "args: api args as a Python dict in ONLY one line (True, False, None; not true, false, null)\n"
)
JSON_FORMAT = 'Please answer with one JSON object in ONLY one line: {"goal": "goal to call this action", "name": "api name to call", "args": {JSON format api args}}\n'  # noqa: E501
STR_TEMPLATE = {
    "thought_start": "goal:",
    "thought_end": "\n",
    "action_start": "name:",
    "action_end": "\n",
    "args_start": "args:",
    "args_end": "\n",
}
JSON_TEMPLATE = {"thought": "goal", "action": "name", "args": "args"}


class Teval:
    """The teval output: the subsets, made from the test split's conversations only (synth.rundir.output's shape)."""

    def __init__(self, place: Place):
        self.writer = TevalWriter(place.out, compact=place.storage != "plain")

    def add(self, item: Accepted) -> None:
        if item.split == "test":
            self.writer.add(item.conv, item.server, list(item.scored))

    def close(self) -> Closed:
        return Closed(report=self.writer.close())


class TevalWriter:
    """Streams the subsets into ``<out>/teval/*.json`` as one JSON object per file (``.json.gz`` in a
    compact run folder, see synth.rundir)."""

    def __init__(self, out: Path, compact: bool = False):
        (out / TEVAL).mkdir(parents=True, exist_ok=True)
        self.files: dict[str, TextIO] = {}
        for name in FILES:
            target = out / storage_name(f"{TEVAL}/{name}.json", compact)
            for stale in (out / TEVAL / f"{name}.json", out / TEVAL / f"{name}.json{GZ}"):
                stale.unlink(missing_ok=True)  # a subset of an older storage would shadow this one
            self.files[name] = open_write(target)
        self.count = dict.fromkeys(FILES, 0)
        self.fallback = False  # the conversation being written is the plain fallback's: its records say so
        self.earlier: dict[str, list[tuple[str, str]]] = {}  # server -> (tool, result) of earlier conversations
        for f in self.files.values():
            f.write("{")

    def _put(self, name: str, key: str, record: dict[str, Any]) -> None:
        if self.fallback:  # T-Eval's meta (plan subsets) or meta_data has room for who wrote it (issue 39)
            meta = "meta" if "meta" in record else "meta_data"
            record = {**record, meta: {**record.get(meta, {}), "author": "fallback"}}
        f = self.files[name]
        f.write(
            ("," if self.count[name] else "") + "\n" + json.dumps(key) + ": " + json.dumps(record, ensure_ascii=False)
        )
        self.count[name] += 1

    def close(self) -> dict[str, int]:
        for f in self.files.values():
            f.write("\n}\n")
            f.close()
        return dict(self.count)

    def add(self, conv: Conversation, server: ServerSpec, scored: list[ScoredCall]) -> None:
        """Every subset's records from one test-split conversation."""
        self.fallback = conv.author == "fallback"
        apis, names = api_text(server, conv), [api_name(server, t) for t in conv.tools]
        request = next((m.content or "" for m in conv.messages if m.role == "user"), "")
        steps = plan_steps(conv)
        truth_plan = [
            {"id": i, "prev": prev, "name": api_name(server, c.name), "args": c.arguments}
            for i, (c, prev) in enumerate(steps)
        ]
        used = {d for _, prev in steps for d in prev}
        truth_plan.append(
            {
                "id": len(truth_plan),
                "prev": [i for i in range(len(truth_plan)) if i not in used],
                "name": "FinishAction",
                "args": {},
            }
        )
        for fmt in ("json", "str") if steps else ():  # no calls, no plan: T-Eval divides by the steps
            system = (
                f"You have access to the following API:\n{apis}\nPlan the calls that answer the user, in order, "
                + (
                    'as a JSON list in ONLY one line: [{"id": 0, "prev": [ids of the steps it needs], "name": "api name", '  # noqa: E501
                    '"args": {...}}, ..., {"id": n, "prev": [...], "name": "FinishAction", "args": {}}]'
                    if fmt == "json"
                    else "one call a line as: <step>. <api name>: <JSON args>, and end with FinishAction"
                )
            )
            self._put(
                f"plan_{fmt}",
                conv.id,
                {
                    "origin_prompt": [{"role": "system", "content": system}, {"role": "user", "content": request}],
                    "ground_truth": truth_plan,
                    "meta": {"prompt_type": fmt, "API_list": api_list(names)},
                },
            )
        index = 0
        for position, message in enumerate(conv.messages):
            for call in message.tool_calls:
                self._call(conv, server, call, conv.messages[:position], index, apis)
                index += 1
        made = {c.id: c.name for c in conv.calls}
        kept = self.earlier.setdefault(server.id, [])
        kept += [
            (made[m.tool_call_id], m.content)
            for m in conv.messages
            if m.role == "tool"
            and m.content
            and m.tool_call_id in made
            and not (m.is_error or rr.is_error_json(m.content))
        ]
        del kept[:-40]
        for record in scored:
            if record.score != "correct" and record.tool_call.name == record.gold_call.name:
                self._review_negative(conv, server, record, apis)

    def _call(
        self, conv: Conversation, server: ServerSpec, call: Any, before: tuple[Message, ...], index: int, apis: str
    ) -> None:
        tool = server.tool(call.name)
        if tool is None:
            return
        key = f"{conv.id}:{index}"
        self._instruct(key, server, tool, call)
        history = teval_history(server, before)
        self._abilities(key, server, tool, call, history, apis)
        result = next((m for m in conv.messages if m.tool_call_id == call.id), None)
        if result is not None:
            self._review_gold(conv, server, call, key, history, result.content or "", apis, bool(result.is_error))

    def _instruct(self, key: str, server: ServerSpec, tool: ToolSpec, call: Any) -> None:
        """The instruct subsets: "call the function X with ...", answered in each format."""
        name = api_name(server, call.name)
        for fmt, form, template in (("json", JSON_FORMAT, JSON_TEMPLATE), ("str", STR_FORMAT, STR_TEMPLATE)):
            said = (
                ", ".join(
                    f"'{k}' is {json.dumps(v, ensure_ascii=False) if fmt == 'json' else repr(v)}"
                    for k, v in call.arguments.items()
                )
                or "no parameters"
            )  # values as the answer writes them
            self._put(
                f"instruct_{fmt}",
                key,
                {
                    "origin_prompt": [
                        {
                            "role": "system",
                            "content": f"You have access to the following API:\n{json.dumps(api(server, tool), ensure_ascii=False)}\n{form}",  # noqa: E501
                        },
                        {"role": "user", "content": f"Call the function {name} with the parameter as follows: {said}."},
                    ],
                    "ground_truth": {"action": name, "args": call.arguments},
                    "meta_data": {"response_format": "string" if fmt == "str" else fmt},
                    "template": template,
                },
            )

    def _abilities(
        self, key: str, server: ServerSpec, tool: ToolSpec, call: Any, history: list[dict[str, str]], apis: str
    ) -> None:
        """The reason, retrieve and understand subsets: the conversation up to the call, and one question each."""
        name = api_name(server, call.name)
        truth = {"thought": thought(tool), "name": name, "args": call.arguments}
        ask = {
            "reason": "What do you think about next? Answer with your thought only.",
            "retrieve": "Which API do you call next? Answer with its name only.",
            "understand": f"What are the arguments of the next call ({name})? Answer with them only, as a Python "
            "dict in ONLY one line, e.g. {'city': 'Porto', 'days': 3, 'metric': True}.",
        }
        for ability, question in ask.items():
            self._put(
                f"{ability}_str",
                key,
                {
                    "origin_prompt": [
                        {"role": "system", "content": f"You have access to the following API:\n{apis}"},
                        *history,
                        {"role": "user", "content": question},
                    ],
                    "ground_truth": truth,
                    "meta_data": {"response_format": "str", "ability": ability},
                },
            )
        self._put(
            "reason_retrieve_understand_json",
            key,
            {
                "origin_prompt": [
                    {
                        "role": "system",
                        "content": f"You have access to the following API:\n{apis}\n"
                        'Answer with one JSON object: {"thought": "...", "name": "api name", "args": {...}}',
                    },
                    *history,
                ],
                "ground_truth": truth,
                "meta_data": {"response_format": "json"},
            },
        )

    def _review_gold(
        self,
        conv: Conversation,
        server: ServerSpec,
        call: Any,
        key: str,
        history: list[dict[str, str]],
        result: str,
        apis: str,
        is_error: bool = False,
    ) -> None:
        """One review item for a gold call: its real result, or a failure, another tool's result, a not-found."""
        if is_error or rr.is_error_json(result):  # the conversation's own failure: a not-found, a 4xx, or the server's
            answer = rr.fault(result)
            self._review(f"{key}:{rr.LABELS[answer]}", server, history, call.name, call.arguments, result, answer, apis)
            return
        names = {c.id: c.name for c in conv.calls}
        others = [(names.get(m.tool_call_id or ""), m.content or "") for m in conv.messages if m.role == "tool"]
        others += self.earlier.get(server.id, [])
        others = [(n, c) for n, c in others if n and n != call.name and c and not rr.is_error_json(c)]
        answer = "ABDE"[rr.pick(key, 4, "outcome")]  # one in four each (negatives add C)
        if answer == "D" and not others:
            answer = "A"
        response = {
            "A": result,
            "B": rr.internal_error(key, call.name),
            "D": others[rr.pick(key, len(others), "other")][1] if others else result,
            "E": rr.unable(
                key,
                call.arguments,
                result,
                [
                    m.content or ""
                    for m in conv.messages
                    if m.role == "tool"  # this tool's own not-found
                    and names.get(m.tool_call_id or "") == call.name
                    and rr.not_found(m.content or "")
                ],
            ),
        }[answer]
        self._review(f"{key}:{rr.LABELS[answer]}", server, history, call.name, call.arguments, response, answer, apis)

    def _review_negative(self, conv: Conversation, server: ServerSpec, record: ScoredCall, apis: str) -> None:
        """An input_error item for one negative in REVIEW_SHARE (input errors stay one outcome of five): a
        schema error's response, or the not-found a wrong value the schema accepts gets."""
        tool = server.tool(record.tool_call.name)
        if tool is None or rr.pick(record.id, REVIEW_SHARE, "review") != 0:
            return
        error = schema_error(tool.input_schema, record.tool_call.arguments)
        if error is not None:
            response = rr.input_error(record.id, error, record.tool_call.arguments)
        elif record.subtype in WRONG_ENTITY:
            args = record.tool_call.arguments
            changed = [k for k, v in args.items() if record.gold_call.arguments.get(k) != v]
            if not changed or not rr.names_thing(changed[0], args[changed[0]]):
                return  # a wrong number or message gets a normal-looking response: not an input_error case
            response = rr.nothing(record.id, changed[0], args[changed[0]])
        else:
            return  # another valid value would get a normal-looking response: not an input_error case
        self._review(
            f"{record.id}:input_error",
            server,
            teval_history(server, record.history),
            record.tool_call.name,
            record.tool_call.arguments,
            response,
            "C",
            apis,
        )

    def _review(
        self,
        key: str,
        server: ServerSpec,
        history: list[dict[str, str]],
        tool: str,
        arguments: dict[str, Any],
        response: str,
        answer: str,
        apis: str,
    ) -> None:
        options = "\n".join(f"{k}. {v}" for k, v in REVIEW_OPTIONS.items())
        self._put(
            "review_str",
            key,
            {
                "origin_prompt": [
                    {"role": "system", "content": f"You have access to the following API:\n{apis}"},
                    *history,
                    {
                        "role": "user",
                        "content": f"The call name: {api_name(server, tool)}\nargs: "
                        f"{json.dumps(arguments, ensure_ascii=False)}\ngot this response:\n"
                        f"{response[:1500]}\nWhich describes it?\n{options}\n"
                        "Answer as 'Answer: <letter>'.",
                    },
                ],
                "ground_truth": {"answer": answer},
                "meta_data": {"response_format": "str"},
                "template": {"options": REVIEW_OPTIONS},
            },
        )
