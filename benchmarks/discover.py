"""Discover, then act, measured on run folders of live servers without a pack (issue 39): prints one JSON object.

    python benchmarks/discover.py RUN [RUN ...]

For each run folder (``synth generate --execute live --allow-exec --allow-fallback`` on a server without a pack),
from its accepted conversations (synth.rundir reads them):
- ``named_values``: argument values that name something in the store: a value of a parameter whose name says
  id, name, title, table or key, and every table and column a SQL statement names (synth.facts.sql.parts);
  ``from_results``: of those, the ones an earlier tool result of the conversation held when the call was made
  (synth.facts.Evidence: as whole words), the share the issue asks to be at least 60%; ``from_person``: the
  ones only the person said (a table or a task they ask to create); ``from_nowhere``: the rest (made up);
  ``ids`` and ``ids_from_results``: the same for ids alone;
- ``create_then_read``: conversations where a call that creates (CREATE TABLE, INSERT, a create tool) is
  followed by a read (a list, a describe, a SELECT, a get) whose result holds a value the create sent;
- ``sql_wrong_kind``: SQL statements sent to a tool whose purpose is another kind (a SELECT to a write tool,
  an INSERT to a read tool, anything but CREATE TABLE to a create-table tool: synth.scenarios.discover.role);
- ``error_share_train_valid``: tool messages that are errors (``is_error``) in train and valid conversations,
  of all their tool messages (the issue asks at most 10%);
- ``made_up_not_found``: calls with an id no earlier result held (made up, whoever says it) whose result says
  not found.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from synth.facts import sql  # noqa: E402
from synth.facts.evidence import Evidence  # noqa: E402
from synth.records import Message  # noqa: E402
from synth.registry import load_registry  # noqa: E402
from synth.rundir import read_jsonl  # noqa: E402
from synth.scenarios.discover import role  # noqa: E402
from synth.simulator.values.values import words  # noqa: E402
from synth.stages.gates import leaves  # noqa: E402

NAMING = {"id", "name", "title", "table", "key"}
CREATES = re.compile(r"(?i)^\s*(create\s+table|insert)\b")
KINDS = {"sql_read": ("select", "with"), "sql_write": ("insert", "update", "delete"), "sql_create": ("create",)}


def named(args: dict[str, Any]) -> list[tuple[Any, bool]]:
    """The values of one call that name something in the store, each with whether it is an id."""
    out: list[tuple[Any, bool]] = []
    for path, value in leaves(args):
        parts = sql.parts(value) if isinstance(value, str) else None
        said = words(path.strip("/").split("/")[0])
        if parts is not None:
            out += [(name, False) for name in parts[0]]
        elif set(said) & NAMING:
            out.append((value, said[-1:] == ["id"]))
    return out


def measure(run: Path) -> dict[str, Any]:
    manifest = json.loads((run / "manifest.json").read_text())
    tools = {t.name: t for t in load_registry(Path(manifest["config"]["servers"])).tools}
    counts = dict.fromkeys(("conversations", "named_values", "from_results", "from_person", "create_then_read"), 0)
    counts |= dict.fromkeys(("sql_statements", "sql_wrong_kind", "made_up_not_found", "tool_messages_tv"), 0)
    counts |= dict.fromkeys(("errors_tv", "ids", "ids_from_results", "from_nowhere"), 0)
    for conv in read_jsonl(run / "conversations.jsonl"):
        counts["conversations"] += 1
        messages = [Message.model_validate(m) for m in conv["messages"]]
        results = {m.tool_call_id: m for m in messages if m.role == "tool"}
        if conv["split"] in ("train", "valid"):
            counts["tool_messages_tv"] += len(results)
            counts["errors_tv"] += sum(bool(m.is_error) for m in results.values())
        created: list[Any] = []
        read_back = False
        for i, m in enumerate(messages):
            for call in m.tool_calls:
                before = Evidence(messages[:i])
                for value, is_id in named(call.arguments):
                    held = any(r.holds(value) for r in before.results)
                    counts["named_values"] += 1
                    counts["from_results"] += held
                    counts["from_person"] += not held and before.said(value)
                    counts["from_nowhere"] += not held and not before.said(value)
                    counts["ids"] += is_id
                    counts["ids_from_results"] += is_id and held
                text = " ".join(v for _, v in leaves(call.arguments) if isinstance(v, str))
                spec = tools.get(call.name)
                kind = role(spec) if spec else None
                for _, v in leaves(call.arguments):
                    if isinstance(v, str) and sql.statement(v):
                        counts["sql_statements"] += 1
                        first = v.split()[0].lower()
                        counts["sql_wrong_kind"] += kind in KINDS and first not in KINDS[kind]
                result = results.get(call.id)
                reply = (result.content or "") if result else ""
                if created and any(str(x) in reply for x in created):
                    read_back = True
                if CREATES.match(text) or (kind in ("create_item", "rows_create")):
                    created += [v for _, v in leaves(call.arguments) if isinstance(v, str) and not sql.statement(v)]
                    names, literals = sql.parts(text) or ([], [])
                    created += literals + (names if text.lstrip().lower().startswith("create") else [])
                ids = [v for p, v in leaves(call.arguments) if words(p.strip("/").split("/")[0])[-1:] == ["id"]]
                if result is not None and result.is_error and "not found" in reply.lower():
                    counts["made_up_not_found"] += any(not any(r.holds(v) for r in before.results) for v in ids)
        counts["create_then_read"] += read_back
    share = lambda a, b: round(a / b, 3) if b else None  # noqa: E731
    return {
        **counts,
        "from_results_share": share(counts["from_results"], counts["named_values"]),
        "ids_from_results_share": share(counts["ids_from_results"], counts["ids"]),
        "error_share_train_valid": share(counts["errors_tv"], counts["tool_messages_tv"]),
    }


if __name__ == "__main__":
    print(json.dumps({arg: measure(Path(arg)) for arg in sys.argv[1:]}, indent=1))
