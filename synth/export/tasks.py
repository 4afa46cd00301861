"""MCPMark-style tasks from store conversations: ``description.md``, ``meta.json`` and a standalone ``verify.py``.

Every accepted conversation on a stateful store server (its connection runs ``synth serve store``)
whose tool messages are live becomes a task under ``tasks/<server>/<easy|standard>/<category>/<id>/``,
laid out as MCPMark lays out its own (``tasks/<service>/<suite>/<category_id>/<task_id>/``).

A task is scored by the store's final state, not by how the calls look. So the exporter replays the
conversation's gold calls on a fresh copy of the seed database, through the store's real MCP server
in process, and asserts that every result is the tool message the conversation holds: a conversation
that does not replay exactly is dropped to ``rejected.jsonl`` with the difference, never written as a
wrong task. Diffing the seed state against the replayed state gives the checks ``verify.py`` makes
(each changed field's new value, each new row), and the canonical hash of ``synth.store.state``,
inlined, says that nothing else changed.

``synth tasks check RUN`` (``check_tasks``) replays each task again and runs its ``verify.py`` the
way MCPMark does: on the replayed database it must pass, on an untouched seed database it must fail
whenever the task changes the state.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import inspect
import json
import os
import pprint
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from synth.records import Connection, Conversation, ServerSpec, StageFailure
from synth.store import state as state_module

TASKS = "tasks"
# Deterministic: the same run gives the same bytes. MCPMark dates its tasks; ours are dated by the
# exporter's format, so a changed date means a changed layout.
CREATED_AT = "2026-01-01"
AUTHOR = "synth"
VERIFY_TIMEOUT = 60.0

# What each write of the store does, as the task's category: the first successful write names it.
WRITES = {
    "cancel_pending_order": "cancel_order",
    "modify_pending_order_address": "change_address",
    "modify_pending_order_items": "modify_items",
    "modify_pending_order_payment": "change_payment",
    "return_delivered_order_items": "return_items",
    "exchange_delivered_order_items": "exchange_items",
    "modify_user_address": "change_user_address",
}
READS = frozenset({"find_user_id_by_email", "find_user_id_by_name_zip", "get_user_details", "get_order_details",
                   "get_product_details", "list_all_product_types"})
CATEGORY_NAMES = {
    "cancel_order": "Cancel Order", "change_address": "Change Order Address", "modify_items": "Modify Order Items",
    "change_payment": "Change Payment Method", "return_items": "Return Items", "exchange_items": "Exchange Items",
    "change_user_address": "Change Customer Address", "lookup": "Lookup", "refused": "Refused Request",
}
# A task is easy (MCPMark's L1) with at most one write and this many calls; else standard (L3).
EASY_CALLS = 3


# --- which servers ------------------------------------------------------------------------------

def store_seed(connection: Connection | None) -> int | None:
    """The seed of the store a stateful connection starts (``synth serve store [--seed N]``), else None.

    Only a store that each scenario starts from its seed can be replayed: a task needs a stateful one.
    """
    if connection is None or not connection.stateful:
        return None
    from synth.live.stores import store_seed as live_store_seed  # the command line alone: no MCP SDK

    return live_store_seed(connection)


_STORE = Connection(type="stdio", command="synth", args=("serve", "store"), stateful=True)


# --- replay -------------------------------------------------------------------------------------

def replay(db: Path, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run ``calls`` in order on the store at ``db`` through its real MCP server (in process); the wire results.

    In process rather than a child process: the server, its tools and the SDK's result encoding are the
    ones ``synth serve store`` runs, and the exporter asserts the texts are the conversation's anyway.
    """
    from synth.live.client import connect  # loads the MCP SDK: only when a run has store tasks
    from synth.store.server import build_server
    from synth.store.shop import Store

    async def run() -> list[dict[str, Any]]:
        store = Store.open(db)
        try:
            async with connect(_STORE, "synth/store", local=build_server(store)) as session:
                return [await session.call(c["name"], c["arguments"]) for c in calls]
        finally:
            store.close()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside an event loop: run beside it
        return pool.submit(asyncio.run, run()).result()


class SeedStores:
    """Seed databases made once per seed in a temporary folder; a task copies one (a copy is far cheaper
    than seeding) and diffs against its state, indexed once."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="synth-tasks-"))
        self._states: dict[int, dict[str, dict[tuple[Any, ...], dict[str, Any]]]] = {}
        self._hashes: dict[int, str] = {}

    def path(self, seed: int) -> Path:
        path = self.folder / f"seed-{seed}.db"
        if not path.exists():
            from synth.store.seed import seed_database

            seed_database(path, seed)
        return path

    def fresh(self, seed: int, name: str) -> Path:
        """A new copy of the seed database, to replay on or to verify as untouched."""
        target = self.folder / f"{name}.db"
        target.unlink(missing_ok=True)
        shutil.copyfile(self.path(seed), target)
        return target

    def state(self, seed: int) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
        if seed not in self._states:
            self._states[seed] = indexed_state(self.path(seed))
        return self._states[seed]

    def hash(self, seed: int) -> str:
        if seed not in self._hashes:
            self._hashes[seed] = state_module.file_state_hash(str(self.path(seed)))
        return self._hashes[seed]

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


# --- the checks: seed state against final state -------------------------------------------------

def indexed_state(db: Path) -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """Every table's rows by primary key (the canonical state, so values are what the hash sees)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        keys = primary_keys(conn)
        return {table: {tuple(row[k] for k in keys[table]): row for row in rows}
                for table, rows in state_module.canonical_state(conn).items()}
    finally:
        conn.close()


def primary_keys(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each table's primary-key columns, in key order (every store table has one)."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    keys = {}
    for table in tables:
        info = sorted((r[5], r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")') if r[5])
        keys[table] = [name for _, name in info]
    return keys


def state_checks(before: dict[str, dict[tuple[Any, ...], dict[str, Any]]],
                 after: dict[str, dict[tuple[Any, ...], dict[str, Any]]],
                 keys: dict[str, list[str]]) -> list[dict[str, Any]]:
    """What the task changes, as checks: a changed field's new value, a new row, a row that is gone."""
    checks: list[dict[str, Any]] = []
    for table in sorted(after):
        old, new = before.get(table, {}), after[table]
        for pk in sorted(set(old) | set(new), key=lambda k: json.dumps(k)):
            key = dict(zip(keys[table], pk))
            if pk not in new:
                checks.append({"table": table, "key": key, "absent": True})
            elif pk not in old:
                checks.append({"table": table, "key": key, "row": new[pk]})
            else:
                for column in new[pk]:
                    if new[pk][column] != old[pk][column]:
                        checks.append({"table": table, "key": key, "column": column, "expected": new[pk][column]})
    return checks


# --- verify.py ----------------------------------------------------------------------------------

VERIFY = '''#!/usr/bin/env python3
"""Verify the synth store task {task_id!r}: {title}

Generated by synth; standard library only. The database is STORE_DB_PATH, else the first argument,
opened read-only. Checks what the task changes, then that nothing else changed (the canonical state
hash, as synth.store.state computes it). Prints one line per check; exits 0 when all pass, else 1.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path

TASK_ID = {task_id!r}
EXPECTED_HASH = {expected_hash!r}
CHECKS = {checks}


{state_code}

def database() -> str:
    path = os.environ.get("STORE_DB_PATH") or (sys.argv[1] if len(sys.argv) > 1 else "")
    if not path:
        print("❌ no database: set STORE_DB_PATH or pass the store's SQLite file as the first argument")
        sys.exit(1)
    if not os.path.isfile(path):
        print(f"❌ no database at {{path}}")
        sys.exit(1)
    return path


def shown(column: str, value: object) -> str:
    """A value as stored; money (integer cents) also in dollars."""
    if column.endswith("_cents") and isinstance(value, int):
        return f"{{value!r}} ({{'-' if value < 0 else ''}}${{abs(value) // 100}}.{{abs(value) % 100:02d}})"
    return repr(value)


def where(check: dict) -> str:
    return check["table"] + " " + ", ".join(f"{{k}}={{v!r}}" for k, v in check["key"].items())


def fetch(conn: sqlite3.Connection, check: dict) -> dict | None:
    cols = " AND ".join(f'"{{k}}" = ?' for k in check["key"])
    cursor = conn.execute(f'SELECT * FROM "{{check["table"]}}" WHERE {{cols}}', list(check["key"].values()))
    row = cursor.fetchone()
    return None if row is None else dict(zip([d[0] for d in cursor.description], row))


def run(conn: sqlite3.Connection, check: dict) -> tuple[bool, str]:
    """One check: (passed, what was seen)."""
    row = fetch(conn, check)
    if "absent" in check:
        return row is None, f"{{where(check)}} is gone" + ("" if row is None else ": it is still there")
    if "row" in check:
        if row is None:
            return False, f"{{where(check)}} exists: it does not"
        wrong = {{k: row.get(k) for k, v in check["row"].items() if row.get(k) != v}}
        if wrong:
            expected = {{k: check["row"][k] for k in wrong}}
            return False, f"{{where(check)}} exists, but with {{wrong}} where {{expected}} was expected"
        return True, f"{{where(check)}} exists"
    if row is None:
        return False, f"{{where(check)}}: {{check['column']}} = {{check['expected']!r}}: the row does not exist"
    column, value = check["column"], row.get(check["column"])
    seen = "" if value == check["expected"] else f", found {{shown(column, value)}}"
    return value == check["expected"], f"{{where(check)}}: {{column}} = {{shown(column, check['expected'])}}{{seen}}"


def main() -> int:
    path = database()
    try:
        conn = sqlite3.connect(Path(path).absolute().as_uri() + "?mode=ro", uri=True)
        results = [run(conn, check) for check in CHECKS]
        found = state_hash(conn)
    except sqlite3.Error as exc:
        print(f"❌ {{path}} is not a readable store database: {{exc}}")
        return 1
    results.append((found == EXPECTED_HASH, "nothing else changed: state hash " + EXPECTED_HASH[:12]
                    + ("" if found == EXPECTED_HASH else f", found {{found[:12]}}")))
    for ok, line in results:
        print(("✅ " if ok else "❌ ") + line)
    passed = all(ok for ok, _ in results)
    print(f"{{'PASS' if passed else 'FAIL'}} {{TASK_ID}}: {{sum(ok for ok, _ in results)}}/{{len(results)}} checks")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
'''


def verify_source(task_id: str, title: str, expected_hash: str, checks: list[dict[str, Any]]) -> str:
    """The task's verify.py: the checks as a literal and the store's own hash code, inlined."""
    state_code = "\n\n".join(inspect.getsource(f) for f in (state_module.canonical_state, state_module.state_hash))
    return VERIFY.format(task_id=task_id, title=title.replace('"""', "'''"), expected_hash=expected_hash,
                         checks=pprint.pformat(checks, width=110, sort_dicts=False), state_code=state_code)


# --- description.md -----------------------------------------------------------------------------

LABELS = {"email": "Email", "first_name": "First name", "last_name": "Last name", "zip": "ZIP code",
          "user_id": "Account id", "order_id": "Order", "item_ids": "Items", "new_item_ids": "Wanted items",
          "payment_method_id": "Payment method", "reason": "Reason", "address": "New address",
          "product_id": "Product"}
ORDER_ID = re.compile(r"#W\d{7}")


def address_text(address: dict[str, Any]) -> str:
    street = ", ".join(p for p in (address.get("address1"), address.get("address2")) if p)
    return f"{street}, {address.get('city')}, {address.get('state')} {address.get('zip')}"


def plain_words(text: str) -> str:
    """A user message without the field names some requests spell an address with ("address1 ..., city ...")."""
    if "address1 " not in text:
        return text
    text = re.sub(r"\baddress[12] ", "", text)
    text = re.sub(r",? city ", ", ", text)
    text = re.sub(r",? state ([A-Z]{2})", r", \1", text)
    return re.sub(r",? zip (\d{5})", r" \1", text)


def objective(call: dict[str, Any], said: str = "") -> str:
    """What the customer asks the write to do, in words (no tool or parameter names).

    An id the customer did not say (a payment method or item id the gold path read from the store) is
    described, not given: the agent has to find it, as the gold path did.
    """
    a, lowered = call["arguments"], said.lower()

    def ids(key: str, what: str) -> str:
        values = a.get(key) if isinstance(a.get(key), list) else [a.get(key)]
        values = [str(v) for v in values if v]
        return ", ".join(values) if values and all(v.lower() in lowered for v in values) else what

    order = ids("order_id", "their order")
    items, wanted = ids("item_ids", "the item they name"), ids("new_item_ids", "the variant they want")
    method = ids("payment_method_id", "the payment method they choose")
    return {
        "cancel_pending_order": lambda: f"Cancel order {order} (reason: {a.get('reason')}).",
        "modify_pending_order_address": lambda: f"Ship order {order} to {address_text(a.get('address') or {})}.",
        "modify_pending_order_items": lambda: f"In order {order}, replace {items} with {wanted}, settling any price "
                                              f"difference with {method}.",
        "modify_pending_order_payment": lambda: f"Pay order {order} with {method} instead.",
        "return_delivered_order_items": lambda: f"Return {items} of order {order}, with the refund going to {method}.",
        "exchange_delivered_order_items": lambda: f"Exchange {items} of order {order} for {wanted}, settling any price "
                                                  f"difference with {method}.",
        "modify_user_address": lambda: f"Make {address_text(a.get('address') or {})} the customer's default address.",
    }[call["name"]]().replace("order their order", "their order")


def known_facts(calls: list[dict[str, Any]], said: str) -> list[tuple[str, str]]:
    """What the customer knows: each gold-call value they said themselves, labelled, plus the orders they name."""
    facts: list[tuple[str, str]] = []

    def add(label: str, value: str) -> None:
        if (label, value) not in facts:
            facts.append((label, value))

    lowered = said.lower()
    for call in calls:
        for param, value in call["arguments"].items():
            label = LABELS.get(param, param.replace("_", " ").capitalize())
            if isinstance(value, dict) and str(value.get("address1", "")).lower() in lowered and value.get("address1"):
                add(label, address_text(value))
            elif isinstance(value, list):
                shown = [str(v) for v in value if str(v).lower() in lowered]
                if shown:
                    add(label, ", ".join(shown))
            elif isinstance(value, (str, int)) and str(value) and str(value).lower() in lowered:
                add(label, str(value))
    for order in ORDER_ID.findall(said):
        add("Order", order)
    return facts


def description_md(title: str, said: list[str], facts: list[tuple[str, str]], objectives: list[str],
                   questions: bool, verified: bool) -> str:
    """MCPMark's description layout: the task, what the customer knows, the objectives.

    ``verified`` says the gold path acts without looking the customer up first (the store's policy asks
    for it): the instruction then says so, so the task stays solvable by an agent that keeps the policy.
    """
    lines = [f"# {title}", "", "## 📋 Task Description", "",
             "You are the customer service agent of the Synth Store online shop. Follow the shop's policy (the "
             "store server's instructions). A customer writes to you; here is everything they say, in order:", ""]
    lines += [f"> {plain_words(text).strip()}" + ("\n>" if i < len(said) - 1 else "") for i, text in enumerate(said)]
    lines += ["", "## 🧾 What the Customer Knows", ""]
    lines += [f"- {label}: {value}" for label, value in facts] or ["- Nothing beyond what they say above."]
    if verified:
        lines += ["- Their identity is already confirmed: act on the orders and account they name without "
                  "looking them up by email or by name and ZIP code first."]
    lines += ["", "## 🎯 Task Objectives", ""]
    steps = [*objectives]
    if questions:
        steps.append("Answer the customer's questions with facts from the store.")
    steps.append("Make only the changes the customer asks for and the shop's rules allow; when a request cannot be "
                 "done, say why and leave it undone. The store's final state is checked.")
    lines += [f"{i}. {step}" for i, step in enumerate(steps, 1)]
    return "\n".join(lines) + "\n"


def leaked_names(text: str, server: ServerSpec) -> list[str]:
    """Tool and parameter names (the ones no customer would say: snake_case or with digits) found in ``text``."""
    names = {t.name for t in server.tools}
    for tool in server.tools:
        names |= _schema_names(tool.input_schema)
    wanted = sorted(n for n in names if "_" in n or any(ch.isdigit() for ch in n))
    return [n for n in wanted if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)]


def _schema_names(schema: Any) -> set[str]:
    out: set[str] = set()
    if isinstance(schema, dict):
        if isinstance(schema.get("properties"), dict):
            out |= set(schema["properties"])
        for value in schema.values():
            out |= _schema_names(value)
    elif isinstance(schema, list):
        for value in schema:
            out |= _schema_names(value)
    return out


# --- one task -----------------------------------------------------------------------------------

class Dropped(Exception):
    """A conversation that cannot become a correct task: (reason code, detail) for rejected.jsonl."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason, self.detail = reason, detail


@dataclass
class Task:
    folder: Path  # relative to tasks/
    meta: dict[str, Any]
    description: str
    verify: str


def gold_calls(conv: Conversation) -> tuple[list[dict[str, Any]], list[str]]:
    """The conversation's calls as ``{"name", "arguments"}`` and the tool message each got, in order."""
    texts = {m.tool_call_id: m for m in conv.messages if m.role == "tool"}
    calls, results = [], []
    for call in conv.calls:
        message = texts.get(call.id)
        if message is None:
            raise Dropped("task_no_result", f"call {call.id} ({call.name}) has no tool message")
        if message.source != "live":
            raise Dropped("task_not_live", f"the result of call {call.id} ({call.name}) is {message.source or 'unknown'}, "
                                           "not live: only real store results can be replayed")
        unknown = call.name not in READS and call.name not in WRITES
        if unknown:
            raise Dropped("task_unknown_tool", f"{call.name} is not a tool of the store this exporter knows")
        calls.append({"name": call.name, "arguments": call.arguments})
        results.append(message.content or "")
    if not calls:
        raise Dropped("task_no_calls", "the conversation makes no tool call, so there is nothing to replay or verify")
    return calls, results


def check_replay(calls: list[dict[str, Any]], expected: list[str], got: list[dict[str, Any]]) -> None:
    """Every replayed result must be the tool message the conversation holds (else its task would be wrong)."""
    from synth.live.client import result_text

    for i, (call, want, wire) in enumerate(zip(calls, expected, got)):
        text = result_text(wire)
        if text != want:
            at = next((j for j, (a, b) in enumerate(zip(text, want)) if a != b), min(len(text), len(want)))
            raise Dropped("task_replay_differs", f"call {i} ({call['name']}) replays to a different result at "
                                                 f"character {at}: {text[at:at + 60]!r} instead of {want[at:at + 60]!r}")


@dataclass
class Replayed:
    """A conversation's gold calls replayed on a fresh store: their results, the checks and the final hash."""

    calls: list[dict[str, Any]]
    results: list[dict[str, Any]]
    checks: list[dict[str, Any]]
    final_hash: str
    seed_hash: str
    intent: str = ""  # the write the customer asked for (the scenario's first tool), done or not

    @property
    def writes(self) -> list[tuple[dict[str, Any], bool]]:
        """(write call, refused) in order."""
        return [(c, bool(r.get("isError"))) for c, r in zip(self.calls, self.results) if c["name"] in WRITES]

    @property
    def category(self) -> str:
        done = [c for c, refused in self.writes if not refused]
        if done:
            return WRITES[done[0]["name"]]
        return "refused" if self.writes or self.refused_by_policy else "lookup"

    @property
    def refused_by_policy(self) -> bool:
        """The customer asked for a change and no write was made: the policy said no."""
        return not self.writes and self.intent in WRITES

    @property
    def easy(self) -> bool:
        return len(self.writes) <= 1 and len(self.calls) <= EASY_CALLS


def replay_conversation(conv: Conversation, seed: int, stores: SeedStores) -> Replayed:
    """Replay ``conv`` on a fresh seed store, assert it gives the conversation's results, and diff the states."""
    calls, expected = gold_calls(conv)
    db = stores.fresh(seed, "replay")
    try:
        results = replay(db, calls)
    except Exception as exc:  # noqa: BLE001 - a replay that breaks drops this task, never the run
        raise Dropped("task_replay_failed", f"replaying the calls failed: {type(exc).__name__}: {exc}") from None
    check_replay(calls, expected, results)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        keys, final_hash = primary_keys(conn), state_module.state_hash(conn)
    finally:
        conn.close()
    checks = state_checks(stores.state(seed), indexed_state(db), keys)
    return Replayed(calls, results, checks, final_hash, stores.hash(seed))


def build_task(conv: Conversation, server: ServerSpec, seed: int, stores: SeedStores) -> Task:
    """The task of one store conversation, or Dropped with the reason."""
    done = replay_conversation(conv, seed, stores)
    problem = one_customer_problem(done)
    if problem:
        raise Dropped("task_other_customer", problem)
    done.intent = conv.scenario.tools[0] if conv.scenario.tools else ""
    category, writes = done.category, [c for c, _ in done.writes]
    said = [m.content or "" for m in conv.messages if m.role == "user"]
    title = _title(writes, done.calls)
    verified = unidentified_writes(done.calls, done.results)
    objectives = [objective(c, "\n".join(said)) for c in writes]
    refused_by_policy = done.refused_by_policy
    if refused_by_policy:
        order = next((c["arguments"]["order_id"] for c in done.calls if c["name"] == "get_order_details"), "")
        title = _title([{"name": done.intent, "arguments": {"order_id": order}}], done.calls)  # the request, not the outcome
        objectives = ["Do what the customer asks if the shop's rules allow it for this order; if they do not, "
                      "find that out from the store, explain it, and change nothing."]
    text = description_md(title, said, known_facts(done.calls, "\n".join(said)), objectives,
                          questions=(not writes and not refused_by_policy) or asks_questions(conv), verified=verified)
    leaked = leaked_names(text, server)
    if leaked:
        raise Dropped("task_names_in_description", f"the customer's words name tools or parameters ({', '.join(leaked)}), "
                                                   "which an instruction to an agent must not")
    task_id = f"{category}_{conv.id.removeprefix('conv_')[:10]}"
    meta = task_meta(task_id, title, conv, server, seed, done, verified, objectives)
    folder = Path(server.id.replace("/", "__")) / ("easy" if done.easy else "standard") / category / task_id
    return Task(folder, meta, text, verify_source(task_id, title, done.final_hash, done.checks))


def task_meta(task_id: str, title: str, conv: Conversation, server: ServerSpec, seed: int, done: Replayed,
              verified: bool, objectives: list[str]) -> dict[str, Any]:
    """MCPMark's meta.json keys, then ``synth``: what replays and verifies the task."""
    changes = done.final_hash != done.seed_hash
    tags = ({WRITES[c["name"]] for c, _ in done.writes} | ({"refusal"} if any(r for _, r in done.writes) or done.refused_by_policy else set())
            | ({"multi-turn"} if conv.query.withheld else set()) | ({"read-only"} if not changes else set())
            | ({"pre-verified"} if verified else set()))
    return {
        "task_id": task_id,
        "task_name": title,
        "category_id": done.category,
        "category_name": CATEGORY_NAMES[done.category],
        "description": " ".join(objectives) or "Answer the customer's questions with facts from the store; change nothing.",
        "author": AUTHOR,
        "created_at": CREATED_AT,
        "difficulty": "L1" if done.easy else "L3",
        "tags": sorted(tags) or ["lookup"],
        "mcp": ["store"],
        "meta_data": {"stateType": "text",
                      "stateContent": f"A fresh synth store database: `synth serve store --seed {seed}` "
                                      f"(state hash {done.seed_hash[:12]}).",
                      "stateUrl": None, "stateOriginalUrl": None},
        "synth": {
            "server": server.id,
            "conversation_id": conv.id,
            "split": conv.split,
            "seed": seed,
            "gold_calls": done.calls,
            "failed_calls": [i for i, r in enumerate(done.results) if r.get("isError")],
            "seed_state_hash": done.seed_hash,
            "expected_state_hash": done.final_hash,
            "changes_state": changes,
            "checks": len(done.checks) + 1,
        },
    }


IDENTIFY = ("find_user_id_by_email", "find_user_id_by_name_zip")
LOOKUPS = {"get_order_details": "Look up order {order_id}", "get_user_details": "Look up the customer's account",
           "get_product_details": "Look up product variants", "list_all_product_types": "Look up the product catalog"}


def asks_questions(conv: Conversation) -> bool:
    """Whether some user turn asks something ("?") that the assistant answers without a write."""
    turns: list[tuple[str, list[str]]] = []
    for m in conv.messages:
        if m.role == "user":
            turns.append((m.content or "", []))
        elif turns:
            turns[-1][1].extend(c.name for c in m.tool_calls)
    return any("?" in text and not any(name in WRITES for name in names) for text, names in turns)


def one_customer_problem(done: Replayed) -> str | None:
    """Why the gold path breaks the policy's "one customer per conversation", or None.

    A task is graded by its final state, so a gold path that changes another customer's order than the
    one it identified (or several customers' orders) would teach, and reward, breaking the policy.
    """
    def owner(result: dict[str, Any]) -> str | None:
        content = result.get("structuredContent")
        return content.get("user_id") if isinstance(content, dict) else None

    identified = {owner(r) for c, r in zip(done.calls, done.results) if c["name"] in IDENTIFY and not r.get("isError")}
    acted = {owner(r) for c, r in zip(done.calls, done.results) if c["name"] in WRITES and not r.get("isError")}
    identified.discard(None)
    acted.discard(None)
    if len(acted) > 1:
        return f"the gold path changes the orders or accounts of {len(acted)} customers ({', '.join(sorted(acted))})"
    if identified and acted - identified:
        return (f"the gold path identifies {', '.join(sorted(identified))} but changes the order or account of "
                f"{', '.join(sorted(acted - identified))}")
    return None


def unidentified_writes(calls: list[dict[str, Any]], results: list[dict[str, Any]]) -> bool:
    """Whether a write comes before any successful lookup of the customer (the policy wants one first)."""
    for call, result in zip(calls, results):
        if call["name"] in IDENTIFY and not result.get("isError"):
            return False
        if call["name"] in WRITES:
            return True
    return False


def _title(writes: list[dict[str, Any]], calls: list[dict[str, Any]]) -> str:
    """A short name: what the customer asks first and the order it is about, or the first thing looked up.
    A refused request keeps its name (the title must not give the outcome away)."""
    if writes:
        a = writes[0]["arguments"]
        what = a.get("order_id") or ""  # an order id the customer gives; never the account id a lookup finds
        name = CATEGORY_NAMES[WRITES[writes[0]["name"]]]
        more = f" (+{len(writes) - 1} more request{'s' if len(writes) > 2 else ''})" if len(writes) > 1 else ""
        return f"{name} {what}".strip() + more
    lookup = next((c for c in calls if c["name"] in LOOKUPS), None)
    if lookup is None:
        return "Identify the customer"
    return LOOKUPS[lookup["name"]].format(order_id=lookup["arguments"].get("order_id", ""))


# --- the run's tasks ----------------------------------------------------------------------------

@dataclass
class TaskWriter:
    """Writes the tasks of a run's store conversations as they are accepted; ``close`` gives the counts."""

    out: Path
    reject: Callable[[dict[str, Any]], None]
    written: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    categories: dict[str, int] = field(default_factory=dict)
    difficulty: dict[str, int] = field(default_factory=dict)
    _stores: SeedStores | None = None

    def __post_init__(self) -> None:
        shutil.rmtree(self.out / TASKS, ignore_errors=True)  # tasks of an earlier run in this folder are not this run's

    def add(self, conv: Conversation, server: ServerSpec) -> None:
        """Write ``conv``'s task when it is a live store conversation; a failed one goes to rejected.jsonl."""
        seed = store_seed(server.connection)
        if seed is None:
            return
        self._stores = self._stores or SeedStores()
        try:
            task = build_task(conv, server, seed, self._stores)
        except Dropped as drop:
            self.dropped[drop.reason] = self.dropped.get(drop.reason, 0) + 1
            self.reject(StageFailure(stage="tasks", item_id=conv.id, reason=drop.reason, detail=drop.detail[:500],
                                     raw={"server": server.id}).to_json())
            return
        write_task(self.out / TASKS, task)
        self.written += 1
        self.categories[task.meta["category_id"]] = self.categories.get(task.meta["category_id"], 0) + 1
        suite = task.folder.parts[1]
        self.difficulty[suite] = self.difficulty.get(suite, 0) + 1

    def close(self) -> dict[str, Any]:
        if self._stores is not None:
            self._stores.close()
            self._stores = None
        return {"written": self.written, "folder": TASKS, "dropped": dict(sorted(self.dropped.items())),
                "categories": dict(sorted(self.categories.items())), "difficulty": dict(sorted(self.difficulty.items())),
                "sha256": tasks_digest(self.out / TASKS)}


def tasks_digest(root: Path) -> str:
    """One sha256 over every task file (path and bytes, sorted), so two runs' tasks compare in the manifest."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")) if root.is_dir() else []:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def write_task(root: Path, task: Task) -> None:
    folder = root / task.folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "description.md").write_text(task.description, encoding="utf-8")
    (folder / "meta.json").write_text(json.dumps(task.meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (folder / "verify.py").write_text(task.verify, encoding="utf-8")


# --- synth tasks check --------------------------------------------------------------------------

def task_folders(run: Path) -> Iterator[Path]:
    """Every task folder under ``run/tasks`` (MCPMark's rule: it has description.md and verify.py), sorted."""
    for verify in sorted((run / TASKS).rglob("verify.py")):
        if (verify.parent / "description.md").is_file():
            yield verify.parent


def run_verify(folder: Path, db: Path) -> subprocess.CompletedProcess[str]:
    """verify.py as MCPMark runs it: this Python, a subprocess, the database in the environment, a timeout."""
    env = {**os.environ, "STORE_DB_PATH": str(db)}
    return subprocess.run([sys.executable, str(folder / "verify.py")], env=env, capture_output=True, text=True,
                          timeout=VERIFY_TIMEOUT)


@dataclass
class CheckReport:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "task: what went wrong"

    @property
    def ok(self) -> bool:
        return not self.failed


def check_task(folder: Path, stores: SeedStores) -> str | None:
    """None when the task holds (verify passes after its gold calls, and fails on a seed store if it writes)."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    synth = meta["synth"]
    db = stores.fresh(int(synth["seed"]), "check")
    replay(db, synth["gold_calls"])
    after = run_verify(folder, db)
    if after.returncode != 0:
        return f"verify.py fails after the gold calls (rc {after.returncode}): {_failures(after)}"
    untouched = run_verify(folder, stores.fresh(int(synth["seed"]), "untouched"))
    if synth["changes_state"] and untouched.returncode == 0:
        return "verify.py passes on an untouched store, though the task changes the state"
    if not synth["changes_state"] and untouched.returncode != 0:
        return f"verify.py fails on an untouched store, though the task changes nothing: {_failures(untouched)}"
    return None


def _failures(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stdout.splitlines() if line.startswith("❌")]
    return "; ".join(lines[:3]) or (done.stderr.strip().splitlines() or ["no output"])[-1]


def check_tasks(run: Path, progress: Callable[[str, str | None], None] | None = None) -> CheckReport:
    """Replay and verify every task of ``run``; ``progress(task, problem)`` hears each one."""
    report = CheckReport()
    stores = SeedStores()
    try:
        for folder in task_folders(run):
            name = folder.relative_to(run / TASKS).as_posix()
            try:
                problem = check_task(folder, stores)
            except (OSError, ValueError, KeyError, subprocess.TimeoutExpired) as exc:
                problem = f"could not be checked: {type(exc).__name__}: {exc}"
            (report.failed.append(f"{name}: {problem}") if problem else report.passed.append(name))
            if progress:
                progress(name, problem)
    finally:
        stores.close()
    return report
