"""Result shapes for tools that drive a browser or run things: page state after a click or
a navigation, snapshots and screenshots; stdout of a command, rows of a SQL query, test runs.
Also ``evaluate`` (plain arithmetic, never executed) and ``arg`` (an argument by name word)."""

from __future__ import annotations

import ast
import math
import operator
import re
from typing import Any

from synth.offline import entities as E
from synth.offline import judgements, vocab
from synth.offline.texts import FILE_TEXT, URL_TITLES, page_text
from synth.offline.values import Context, seed_faker, words
from synth.records import ToolSpec


def arg(args: dict[str, Any], *keys: str, types: tuple[type, ...] = (str,)) -> Any:
    """The first argument whose name has one of ``keys`` as a word."""
    for key in keys:
        for k, v in args.items():
            if key in words(k) and isinstance(v, types) and not isinstance(v, bool):
                return v
    return None


# --- arithmetic ----------------------------------------------------------------------------------

_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
    ast.FloorDiv: operator.floordiv,
}
_FUNCS = {
    "sqrt": math.sqrt,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "log": math.log,
    "exp": math.exp,
    "abs": abs,
}


def evaluate(expr: str) -> float | None:
    """The value of a plain arithmetic expression, or None (never executes anything)."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise ValueError
            return _OPS[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCS
            and len(node.args) == 1
        ):
            return _FUNCS[node.func.id](ev(node.args[0]))  # type: ignore[operator]
        raise ValueError

    try:
        value = ev(ast.parse(expr.replace("^", "**").replace("×", "*"), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError, RecursionError):
        return None
    return round(value, 6) if isinstance(value, float) else value


# --- browser --------------------------------------------------------------------------------------

_PAGES = (
    ("https://github.com/login", "Sign in to GitHub · GitHub"),
    ("https://en.wikipedia.org/wiki/Porto", "Porto - Wikipedia"),
    ("https://www.booking.com/searchresults.html?ss=Lisbon", "Hotels in Lisbon | Booking.com"),
    ("https://news.ycombinator.com/", "Hacker News"),
    ("https://docs.python.org/3/library/asyncio.html", "asyncio — Asynchronous I/O"),
    ("https://example-shop.com/products/trail-runner-2", "Trail Runner 2 – Example Shop"),
)
_SNAPSHOT = (
    '- banner:\n  - link "Home" [ref=e2]\n  - searchbox "Search" [ref=e5]\n- main:\n  - heading "{title}" [level=1] [ref=e8]\n'
    '  - textbox "Email address" [ref=e11]\n  - button "Continue" [ref=e14]\n  - link "Forgot password?" [ref=e17]'
)


def page(args: dict[str, Any], ctx: Context) -> tuple[str, str]:
    url = arg(args, "url", "href", "link")
    if isinstance(url, str) and url.startswith("http"):
        title = dict(_PAGES).get(url) or URL_TITLES.get(url) or f"{E.url_topic(url).title()} | {E.host(url)}"
        return url, title
    return ctx.rng.choice(_PAGES)


def _browser(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any]:
    rng = ctx.rng
    w = words(tool.name)
    url, title = page(args, ctx)
    target = (
        arg(args, "element", "selector", "ref", "label", "target", "name", "locator", "xpath") or 'button "Continue"'
    )
    asked = str(arg(args, "action", "type", "operation") or "").lower()
    do = (
        next((x for x in w if x in _BROWSER_VERBS), None)
        or (asked if asked in _BROWSER_VERBS else None)
        or next((x for x in _BROWSER_VERBS if re.search(rf"\b{x}", text)), "act")
    )
    if do in ("navigate", "goto", "open", "new", "reload", "back", "forward"):
        return {"url": url, "title": title, "status": 200, "load_time_ms": rng.randint(180, 2400)}
    if do in ("screenshot", "capture"):
        return {
            "path": f"screenshots/page-2026-06-01T09-{rng.randint(10, 59)}-{rng.randint(10, 59)}.png",
            "width": 1280,
            "height": rng.choice((720, 800, 2400)),
            "url": url,
        }
    if do == "snapshot":
        return {"url": url, "title": title, "snapshot": _SNAPSHOT.format(title=title.split(" | ")[0])}
    if do in ("type", "fill"):
        typed = arg(args, "text", "value", "content", "input", "query") or ""
        return {
            "typed": typed,
            "into": target,
            "url": url,
            "message": f"Typed {len(str(typed))} characters into {target}",
        }
    if do == "press":
        key = arg(args, "key", "keys") or "Enter"
        return {"pressed": key, "url": url, "title": title}
    if do in ("extract", "content", "text", "html", "get"):
        return {"url": url, "title": title, "text": page_text(url, text, args, 0)[1], "links": rng.randint(8, 140)}
    if do == "evaluate":
        script = str(arg(args, "script", "expression", "function", "code", "js") or "document.title")
        if "title" in script:
            return {"result": title, "type": "string"}
        if (value := evaluate(script)) is not None:
            return {"result": value, "type": "number"}
        if "location" in script or "href" in script:
            return {"result": url, "type": "string"}
        name = re.match(r"\s*([A-Za-z_$][\w$]*)", script)
        if name and name.group(1) not in ("document", "window", "return", "await", "function", "async", "console"):
            return {"error": f"ReferenceError: {name.group(1)} is not defined"}
        return {"result": None, "type": "undefined"}
    if do in ("tab", "close"):
        return {
            "tabs": [
                {"index": i, "title": t, "url": u, "active": i == 0} for i, (u, t) in enumerate(rng.sample(_PAGES, 2))
            ]
        }
    if do == "act":
        action = arg(args, "action", "instruction", "command", "step") or f"Click {target}"
        if not re.match(
            r"\s*(click|type|fill|enter|select|choose|press|scroll|hover|check|uncheck|open|close|go|navigate|submit|tap|search)\b",
            action,
            re.I,
        ):
            return {
                "success": False,
                "action": action,
                "url": url,  # not one atomic step on the page
                "message": f"Could not perform '{action}': no single element on the page matches this action",
            }
        return {"success": True, "action": action, "message": f"Action performed: {action}", "url": url}
    if do in ("wait", "dialog", "resize", "scroll", "hover", "drag", "select", "upload"):
        done = {
            "wait": f"Waited {arg(args, 'time', 'seconds', 'timeout', types=(int, float)) or 2} seconds",
            "dialog": f'Dialog {"accepted" if rng.random() < 0.7 else "dismissed"}: "Leave site? Changes you made may not be saved."',
            "resize": f"Viewport resized to {arg(args, 'width', types=(int, float)) or 1280}x{arg(args, 'height', types=(int, float)) or 800}",
            "scroll": f"Scrolled down {rng.choice((400, 800, 1200))} px",
            "hover": f"Hovering over {target}",
            "drag": f"Dragged {target} onto {arg(args, 'end', 'destination', 'to') or 'the drop zone'}",
            "select": f"Selected option {arg(args, 'value', 'values', 'option') or 'United Kingdom'} in {target}",
            "upload": f"Uploaded {arg(args, 'path', 'file', 'paths') or 'invoices/INV-2026-0142.pdf'}",
        }[do]
        return {"success": True, "message": done, "url": url}
    return {"success": True, "message": f"Clicked {target}", "url": url, "title": title}


_BROWSER_VERBS = (
    "navigate",
    "goto",
    "open",
    "new",
    "reload",
    "back",
    "forward",
    "screenshot",
    "capture",
    "snapshot",
    "type",
    "fill",
    "press",
    "extract",
    "content",
    "html",
    "evaluate",
    "tab",
    "close",
    "act",
    "wait",
    "dialog",
    "resize",
    "scroll",
    "hover",
    "drag",
    "select",
    "upload",
    "click",
)


# --- run: commands, code, SQL, tests, jobs -------------------------------------------------------

_COMMANDS = (  # (pattern on the command, what it prints)
    (r"ls\b", "README.md\nconfig\ndocs\npyproject.toml\nsrc\ntests"),
    (
        r"dir\b",
        " Directory of C:\\Users\\dev\\project\n\n05/29/2026  10:12 AM    <DIR>          src\n05/29/2026  10:12 AM             1,204 README.md",
    ),
    (r"pwd\b", "/home/dev/project"),
    (r"whoami\b", "dev"),
    (r"date\b", "Mon Jun  1 09:14:03 UTC 2026"),
    (r"uname\b", "Linux build-agent-02 6.8.0-31-generic x86_64 GNU/Linux"),
    (r"hostname\b", "build-agent-02"),
    (
        r"git status",
        "On branch main\nYour branch is up to date with 'origin/main'.\n\nnothing to commit, working tree clean",
    ),
    (
        r"git log",
        "a1f9c2e Fix login redirect loop\n7be41d0 Add retry to payment webhook\n3c2d8aa Bump requests to 2.32.3",
    ),
    (r"git branch", "* main\n  develop\n  feature/login-page"),
    (r"git (pull|fetch)", "Already up to date."),
    (r"python3? (--version|-V)", "Python 3.12.3"),
    (r"node (-v|--version)", "v20.14.0"),
    (r"npm (-v|--version)", "10.7.0"),
    (
        r"(npm (run )?test|yarn test|pnpm test|npx jest)",
        "PASS  src/cart.test.ts\nPASS  src/auth.test.ts\n\nTests:       18 passed, 18 total\nTime:        2.41 s",
    ),
    (
        r"(pytest|python3? -m pytest)",
        "........................                                    [100%]\n24 passed in 3.41s",
    ),
    (r"docker ps", "CONTAINER ID   IMAGE      STATUS        NAMES\n3f2a9c1d7b4e   redis:7    Up 3 hours    cache"),
    (r"df\b", "Filesystem      Size  Used Avail Use% Mounted on\n/dev/nvme0n1p1   97G   41G   56G  43% /"),
    (r"free\b", "               total        used        free\nMem:            15Gi       6.1Gi       4.2Gi"),
    (r"uptime\b", " 09:14:03 up 12 days,  3:41,  1 user,  load average: 0.42, 0.37, 0.31"),
    (
        r"kubectl get pods",
        "NAME                          READY   STATUS    RESTARTS   AGE\napi-gateway-7d9f8c6b5-x2lkq   1/1     Running   0          3d",
    ),
    (r"systeminfo\b", "OS Name: Microsoft Windows 11 Pro\nOS Version: 10.0.22631 N/A Build 22631"),
    (
        r"ipconfig\b",
        "IPv4 Address. . . . . . . . . . . : 192.168.1.24\nSubnet Mask . . . . . . . . . . . : 255.255.255.0",
    ),
    (
        r"(ping|curl -I)\b",
        "64 bytes from 93.184.216.34: icmp_seq=1 ttl=56 time=11.8 ms\n64 bytes from 93.184.216.34: icmp_seq=2 ttl=56 time=12.1 ms",
    ),
)


def _run(tool: ToolSpec, args: dict[str, Any], ctx: Context, text: str) -> dict[str, Any] | None:
    rng = ctx.rng
    sql = next(
        (
            v
            for v in args.values()
            if isinstance(v, str) and re.match(r"\s*(select|with|insert|update|delete|show|describe)\b", v, re.I)
        ),
        None,
    )
    if sql or (re.search(r"\b(sql|database|query)\b", text) and arg(args, "query", "question")):
        return rows(sql or "", ctx)
    if re.search(r"\btests?\b", text) and not arg(args, "command", "code", "script"):
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
    command = arg(args, "command", "cmd", "code", "script", "source", "input", "snippet", "line", "program")
    if command is None and re.search(
        r"\b(workflow|flow|pipeline|job|build|action|task|agent|actor|deployment)\b", text
    ):
        return {
            "run_id": E.ident("run", ctx),
            "state": rng.choice(("QUEUED", "RUNNING", "COMPLETED")),
            "started_at": E.stamp(ctx, -0.02, 0),
            "url": f"https://ci.example.com/runs/{rng.randint(1000, 99999)}",
        }
    if command is None and re.search(r"lighthouse|pagespeed|audit", text):
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
    cat = re.match(r"\s*(?:cat|type|Get-Content)\s+(\S+)", command)
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
        return rng.choice(("pending", "paid", "shipped", "cancelled"))
    if w & {"total", "price", "amount", "salary", "revenue", "cost"}:
        return round(rng.uniform(9, 900), 2) if "salary" not in w else rng.randint(38000, 140000)
    if w & {"count", "stock", "quantity", "qty"}:
        return rng.randint(0, 400)
    if w & {"paid", "active", "enabled"}:
        return rng.random() < 0.6
    if w & {"date", "at", "created", "updated", "on", "time"}:
        return E.stamp(ctx, -60, 0)
    if w & {"category", "department", "type"}:
        return (
            rng.choice(("Engineering", "Sales", "Support", "Finance"))
            if "department" in w
            else rng.choice(vocab.CATEGORIES)
        )
    if w & {"product", "title"}:
        return rng.choice(vocab.PRODUCTS)
    return rng.randint(1, 500)


def rows(sql: str, ctx: Context) -> dict[str, Any]:
    rng = ctx.rng
    if re.match(r"\s*(insert|update|delete)\b", sql, re.I):
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
        values = (
            ("pending", "paid", "shipped", "cancelled")
            if "status" in group.group(1)
            else tuple(c for c, _ in vocab.CITIES[:4])
        )
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


SHAPES = {"browser": _browser, "run": _run}
