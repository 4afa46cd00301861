"""Result shapes for tools that run things: stdout of a command, rows of a SQL query, test runs;
browsers are driven in ``synth.simulator.results.browser``. Also ``evaluate`` (plain arithmetic, never
executed) and ``arg`` (an argument by name word)."""

from __future__ import annotations

import re
from typing import Any

from synth.records import ToolSpec
from synth.simulator import vocab
from synth.simulator.results import browser, judgements
from synth.simulator.results import entities as E
from synth.simulator.results.arithmetic import evaluate
from synth.simulator.results.entities import arg
from synth.simulator.results.texts import FILE_TEXT
from synth.simulator.tables import table
from synth.simulator.values.values import Context, seed_faker, words

# the words that say what a tool is about, a regex per rule, by the function that applies it
_KEYWORDS = table("results/devtools", "keywords", dict[str, re.Pattern[str]])

# --- run: commands, code, SQL, tests, jobs -------------------------------------------------------

# (pattern on the command, what it prints)
_COMMANDS = table("results/devtools", "commands", tuple[tuple[str, str], ...])
# words a record or a test draws from, by the function (and field) that uses them
_POOLS = table("results/devtools", "pools", dict[str, tuple[str, ...]])
# words a parameter's or a tool's name is tested for, by the function that tests
_SETS = table("results/devtools", "sets", dict[str, frozenset[str]])


def _run(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any] | None:
    rng = ctx.rng
    sql = next(
        (v for v in args.values() if isinstance(v, str) and _KEYWORDS["run.sql"].match(v)),
        None,
    )
    if sql or (_KEYWORDS["run.database"].search(text) and arg(args, "query", "question")):
        return rows(sql or "", ctx)
    if re.search(r"\btests?\b", text) and not arg(args, *_POOLS["run.command"]):
        failed = rng.choice((0, 0, 0, 1, 2))
        out: dict[str, Any] = {
            "passed": rng.randint(12, 240),
            "failed": failed,
            "skipped": rng.randint(0, 4),
            "duration_s": round(rng.uniform(1.2, 95), 2),
        }
        if failed:
            out["failures"] = ["tests/test_orders.py::test_refund_rounding - AssertionError: 19.99 != 20.0"][
                :failed
            ] + ["tests/test_auth.py::test_token_expiry - TimeoutError"][: failed - 1]
        return out
    command = arg(args, *_POOLS["run.command_2"])
    if command is None and _KEYWORDS["run.workflow"].search(text):
        return {
            "run_id": E.ident("run", ctx),
            "state": rng.choice(_POOLS["run.state"]),
            "started_at": E.stamp(ctx, -0.02, 0),
            "url": f"https://ci.example.com/runs/{rng.randint(1000, 99999)}",
        }
    if command is None and _KEYWORDS["run.audit"].search(text):
        return judgements.analyze(tool, args, ctx, text)
    if command is None:
        return None  # nothing to run was given ("approve_command"): let another shape answer
    command = str(command or "")
    m = re.match(r"\s*print\((.*)\)\s*$", command, re.S)
    ranges = (
        re.sub(
            r"sum\(range\((\d+)(?:,\s*(\d+))?\)\)",
            lambda r: str(sum(range(int(r.group(1)), int(r.group(2)))) if r.group(2) else sum(range(int(r.group(1))))),
            m.group(1),
        )
        if m
        else ""
    )
    cat = _KEYWORDS["run.cat"].match(command)
    if m and (value := evaluate(ranges)) is not None:
        stdout = str(value)
    elif command.strip().startswith("echo "):
        stdout = command.strip()[5:].strip().strip("'\"")
    elif cat:
        stdout = FILE_TEXT.get(cat.group(1), "")
    else:
        stdout = next((out for pattern, out in _COMMANDS if re.match(pattern, command.strip(), re.I)), "")
    return {"stdout": stdout, "stderr": "", "exit_code": 0, "duration_ms": rng.randint(8, 2400)}


def _column(col: str, ctx: Context, i: int) -> Any:
    rng = ctx.rng
    w = set(words(col))
    fake = seed_faker(rng)
    if col in ("id",) or w & {"id"}:
        return rng.randint(100, 99999) if col != "id" else 1000 + i * rng.randint(1, 40)
    if w & {"email"}:
        return fake.email()
    if w & {"name"} and not w & {"product", "table"}:
        return fake.name()
    if w & {"country"}:
        return rng.choice(vocab.CITIES)[1]
    if w & {"city"}:
        return rng.choice(vocab.CITIES)[0]
    if w & {"status"}:
        return rng.choice(_POOLS["column.pending"])
    if w & _SETS["column.total"]:
        return round(rng.uniform(9, 900), 2) if "salary" not in w else rng.randint(38000, 140000)
    if w & _SETS["column.count"]:
        return rng.randint(0, 400)
    if w & _SETS["column.paid"]:
        return rng.random() < 0.6
    if w & _SETS["column.date"]:
        return E.stamp(ctx, -60, 0)
    if w & _SETS["column.category"]:
        return rng.choice(_POOLS["column.Engineering"]) if "department" in w else rng.choice(vocab.CATEGORIES)
    if w & {"product", "title"}:
        return rng.choice(vocab.PRODUCTS)
    return rng.randint(1, 500)


def rows(sql: str, ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    if _KEYWORDS["rows.write"].match(sql):
        return {"rows_affected": rng.randint(1, 40)}
    table = (
        (re.search(r"\bfrom\s+([\w.\"`]+)", sql, re.I) or [None, rng.choice(vocab.TABLES)])[1]  # type: ignore[union-attr]
        .strip('"`')
        .split(".")[-1]
    )
    cols_text = (re.search(r"select\s+(.*?)\s+from\b", sql, re.I | re.S) or [None, "*"])[1]
    limit = int((re.search(r"\blimit\s+(\d+)", sql, re.I) or [None, "3"])[1])  # type: ignore[arg-type]
    group = re.search(r"group\s+by\s+(\w+)", sql, re.I)
    if group:
        values = _POOLS["rows.values"] if "status" in group.group(1) else tuple(c for c, _ in vocab.CITIES[:4])
        data = [{group.group(1): v, "count": rng.randint(3, 900)} for v in values[: min(limit, 4)]]
        return {"columns": list(data[0]), "rows": data, "row_count": len(data)}
    if cols_text.strip() == "*":  # type: ignore[union-attr]
        cols = [c for c, _ in E.COLUMNS.get(table, E.COLUMNS["orders"])]
    else:
        cols = [re.split(r"\s+as\s+|\.", c.strip(), flags=re.I)[-1].strip() for c in cols_text.split(",")]  # type: ignore[union-attr]
    if any(re.match(r"count\(", c, re.I) for c in cols):
        return {"columns": ["count"], "rows": [{"count": rng.randint(1, 5000)}], "row_count": 1}
    n = min(limit, rng.randint(2, 3))
    data = [{c: _column(c, ctx, i) for c in cols} for i in range(n)]
    return {"columns": cols, "rows": data, "row_count": n}


SHAPES = {"browser": browser.browse, "run": _run}
