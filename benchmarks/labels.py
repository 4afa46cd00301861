"""Count the labels of a run a careful reader would call wrong (issue 38), as JSON.

    python benchmarks/labels.py outputs/my-run

- needed_negatives: scored negatives that are a call their turn still needs: another call of the same turn
  (made beside the gold one, or later before the person speaks again) that the negative matches (correct
  against it), or an incorrect_tool negative naming that call's tool ("check a coin's price ... also its
  history": get_current_price labelled incorrect_tool where get_historical_price was the gold call);
  ``same_call`` counts those that match the other call, the rest name its tool with other arguments;
- needed_rejected: preference pairs whose rejected side is such a call;
- review_b_caller: T-Eval review items labelled B (internal_error: the tool failed on its own) whose response
  is a 4xx, a validation message or a not-found, which say the call was at fault or the thing is not there;
- sql_against_tool: gold calls whose SQL contradicts the tool (a tool that reads, writes or creates tables
  by its name given a statement of another kind: write_query("SELECT ...")), of the gold calls carrying SQL;
- task_facts_long / task_gold_fails: facts a read-only task's verify.py checks that are no whole value (over
  80 characters), and tasks whose own gold answer fails their verify.py.
Each figure comes with up to three examples.
"""

from __future__ import annotations

import argparse
import json
import re
import runpy
from pathlib import Path
from typing import Any

from synth.grade import classify
from synth.records import ToolCall, ToolSpec
from synth.rundir import read_jsonl
from synth.rundir.reading import teval_rows

_CALLER = re.compile(r"(?i)\b4\d\d\b|bad request|invalid|not found|could not find|does not exist|no results|-32602")


def _call(c: dict[str, Any]) -> ToolCall:
    f = c.get("function", c)
    args = f.get("arguments", {})
    return ToolCall(
        id=c.get("id") or "x", name=f["name"], arguments=json.loads(args) if isinstance(args, str) else args
    )


def _turns(run: Path) -> dict[tuple[str, str], list[ToolCall]]:
    """(conversation, gold call id) -> the calls its turn still makes besides it."""
    out: dict[tuple[str, str], list[ToolCall]] = {}
    for conv in read_jsonl(run / "conversations.jsonl"):
        messages = conv["messages"]
        for position, message in enumerate(messages):
            for call in message.get("tool_calls") or []:
                rest = [c for c in message["tool_calls"] if c is not call]
                for later in messages[position + 1 :]:
                    if later["role"] == "user":
                        break
                    rest += later.get("tool_calls") or []
                out[conv["id"], call["id"]] = [_call(c) for c in rest]
    return out


def _needed(
    conversation: str, gold: ToolCall, call: ToolCall, label: str, specs: dict[str, ToolSpec], turns: dict[Any, Any]
) -> str:
    """The turn's other call that the negative ``call`` is, or ""."""
    for other in turns.get((conversation, gold.id), []):
        if classify(specs.get(other.name), other, call) == "correct":
            return f"{other.name}({json.dumps(other.arguments)})"
        if label == "incorrect_tool" and call.name == other.name:
            return f"{other.name}({json.dumps(other.arguments)}), other arguments"
    return ""


def _spec(server: str, name: str, schema: dict[str, Any]) -> ToolSpec:
    return ToolSpec(server=server, name=name, input_schema=schema, schema_hash="")


def needed(run: Path) -> dict[str, Any]:
    """needed_negatives and needed_rejected."""
    turns = _turns(run)
    found: dict[str, list[dict[str, Any]]] = {"needed_negatives": [], "needed_rejected": []}
    total = dict.fromkeys(found, 0)
    tool_only = dict.fromkeys(found, 0)

    def look(kind: str, row: dict[str, Any], gold: ToolCall, call: ToolCall, label: str, specs: dict[str, Any]) -> None:
        total[kind] += 1
        if hit := _needed(row["conversation_id"], gold, call, label, specs, turns):
            tool_only[kind] += hit.endswith("other arguments")
            history = row.get("message_history") or row.get("prompt") or []
            found[kind].append(
                {
                    "request": [m["content"] for m in history if m["role"] == "user"],
                    "negative": f"{call.name}({json.dumps(call.arguments)})",
                    "label": label,
                    "failure_reason": row["failure_reason"],
                    "also_asked": hit,
                }
            )

    for row in read_jsonl(run / "scored.jsonl"):
        if row["score"] != "correct":
            specs = {t["name"]: _spec(row["server"], t["name"], t["input_schema"]) for t in row["available_tools"]}
            look("needed_negatives", row, _call(row["gold_call"]), _call(row["tool_call"]), row["score"], specs)
    pairs = run / "preference.jsonl"
    for row in read_jsonl(pairs) if pairs.exists() else []:
        if row.get("decision", "call") == "call":
            specs = {
                t["function"]["name"]: _spec(row["server"], t["function"]["name"], t["function"]["parameters"])
                for t in row["tools"]
            }
            gold, call = _call(row["chosen"][0]["tool_calls"][0]), _call(row["rejected"][0]["tool_calls"][0])
            look("needed_rejected", row, gold, call, row["label"], specs)
    first = lambda e: e["also_asked"].endswith("other arguments")  # noqa: E731 (the same call first)
    return {
        k: {"count": len(v), "same_call": len(v) - tool_only[k], "of": total[k], "examples": sorted(v, key=first)[:3]}
        for k, v in found.items()
    }


def review(run: Path) -> dict[str, Any]:
    """review_b_caller."""
    found, total = [], 0
    path = run / "teval" / "review_str.json"
    for record in teval_rows(path) if path.with_suffix(".json.gz").exists() or path.exists() else []:
        if record["ground_truth"]["answer"] != "B":
            continue
        total += 1
        text = record["origin_prompt"][-1]["content"]
        response = text.split("got this response:\n", 1)[1].rsplit("\nWhich describes it?", 1)[0]
        if _CALLER.search(response):
            found.append(response[:200])
    return {"review_b_caller": {"count": len(found), "of": total, "examples": found[:3]}}


_SQL = re.compile(r"^\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\b", re.I)
_PURPOSE = (("create_table", {"CREATE"}), ("write", {"INSERT", "UPDATE", "DELETE"}), ("read", {"SELECT", "WITH"}))


def sql(run: Path) -> dict[str, Any]:
    """sql_against_tool."""
    found, total = [], 0
    for conv in read_jsonl(run / "conversations.jsonl"):
        for call in (c for m in conv["messages"] for c in m.get("tool_calls") or []):
            for value in (v for v in call["arguments"].values() if isinstance(v, str)):
                if (statement := _SQL.match(value)) is None:
                    continue
                total += 1
                name = call["name"].lower()
                want = next((verbs for word, verbs in _PURPOSE if word in name), None)
                if want is not None and statement.group(1).upper() not in want:
                    found.append(f"{call['name']}({value[:80]})")
    return {"sql_against_tool": {"count": len(found), "of": total, "examples": found[:3]}}


def tasks(run: Path) -> dict[str, Any]:
    """task_facts_long and task_gold_fails."""
    from synth.tasks.world_verify import run_verify

    long: list[str] = []
    fails: list[str] = []
    facts = written = 0
    for meta_path in sorted((run / "tasks").glob("**/meta.json")):
        folder, meta = meta_path.parent, json.loads(meta_path.read_text(encoding="utf-8"))
        checked = runpy.run_path(str(folder / "verify.py"), run_name="facts").get("FACTS") or []
        if not checked or not (folder / "world.json").exists():
            continue
        written += 1
        facts += len(checked)
        long += [f["forms"][0] for f in checked if len(f["forms"][0]) > 80]
        state = json.loads((folder / "world.json").read_text(encoding="utf-8"))
        if run_verify(folder, state, meta["synth"].get("gold_answer") or "").returncode != 0:
            fails.append(folder.name)
    return {
        "task_facts_long": {"count": len(long), "of": facts, "examples": long[:3]},
        "task_gold_fails": {"count": len(fails), "of": written, "examples": fails[:3]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Labels a careful reader would call wrong.")
    parser.add_argument("run", type=Path)
    args = parser.parse_args()
    print(
        json.dumps(
            {"run": str(args.run), **needed(args.run), **review(args.run), **sql(args.run), **tasks(args.run)},
            indent=2,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
