"""Count what a trainer would flag in the offline fallback's data (servers without a pack), as JSON.

    python benchmarks/fallback.py outputs/my-run [--registry DIR]

Automatic checks of the defects found by reading fallback conversations (issue 10, point 4):
- stock_phrase_args: string arguments that are one of the author's stock phrases (a search phrase,
  a document title, a reasoning sentence) for a parameter that asks for no such thing ("Quarterly
  planning" as an edition name, "renewable energy storage" as a k8s annotation);
- out_of_range_args: numbers outside a range the parameter's description states ("Juz number (1-30)"),
  read from the tool description's ``Args:`` section when the schema has no description;
- ignored_examples: string arguments of a parameter whose description offers examples, where the
  value is none of them and not of their shape (a Wikipedia URL where Instagram post URLs are asked);
- optional_args / optional_equal_default: optional arguments set in gold calls, and those set to
  their own default (a request that says what would happen anyway);
- generic_records: results holding the catch-all ``{name, owner, created_at, updated_at}`` record;
- borrowed_period_stats: results holding the May-2026 usage statistics record for a tool that says
  nothing of periods or usage;
- pool_urls: results with a URL from the author's stock pages that no argument gave;
- wrong_math: results of a counting formula (permutations, combinations, factorial, gcd, lcm) that
  differ from the formula's value;
- request_quirks: first requests that say "look up" before a phrase that is no thing to look up, or
  carry words of a non-English description line.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

from synth.registry import load_registry
from synth.rundir import CONVERSATIONS, RunDir, read_jsonl
from synth.simulator import vocab
from synth.simulator.values.params import documented
from synth.simulator.values.strings import examples

STOCK = (
    {p.lower() for pool in vocab.QUERIES.values() for p in pool}
    | {t.lower() for t in vocab.TITLES}
    | {p.lower() for pool in vocab.REASONING.values() for p in pool}
)
_ASKS_TEXT = re.compile(
    r"query|search|keyword|term|topic|prompt|question|title|subject|thought|reason|text|message|"
    r"content|description|note|summary|context|idea|problem|goal|task|plan|step|analysis"
)
_STOCK_PAGES = {u for u in vocab.URLS} | {
    "https://en.wikipedia.org/wiki/Porto",
    "https://github.com/login",
    "https://example-shop.com/products/trail-runner-2",
}
_FORMULAS = {
    "permutations": lambda n, k: math.perm(n, k),
    "combinations": lambda n, k: math.comb(n, k),
    "gcd": math.gcd,
    "lcm": math.lcm,
}
_LOOKUP = re.compile(r"\blook up (?:-|[^\x00-\x7f]|\w+ (?:tool|command|description)\b|belirtilen)", re.I)


def _walk(value: Any):
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def check(run: Path, registry: Path | None) -> dict[str, Any]:
    manifest = RunDir(run).manifest()
    reg = load_registry(registry or Path(manifest["config"]["servers"]))
    tools = {(t.server, t.name): t for t in reg.tools}
    packed = set(manifest.get("packs", {}).get("servers_with_pack", []))
    out = {
        k: 0
        for k in (
            "conversations",
            "calls",
            "string_args",
            "stock_phrase_args",
            "numbers_with_range",
            "out_of_range_args",
            "args_with_examples",
            "ignored_examples",
            "optional_args",
            "optional_equal_default",
            "results",
            "generic_records",
            "borrowed_period_stats",
            "pool_urls",
            "formula_results",
            "wrong_math",
            "request_quirks",
        )
    }
    examples_seen: list[str] = []
    for conv in read_jsonl(run / CONVERSATIONS):
        server = conv["scenario"]["server"]
        if server in packed:
            continue
        out["conversations"] += 1
        first = next(m["content"] for m in conv["messages"] if m["role"] == "user")
        out["request_quirks"] += bool(_LOOKUP.search(first))
        results = {m["tool_call_id"]: m["content"] for m in conv["messages"] if m["role"] == "tool"}
        for m in conv["messages"]:
            for call in m.get("tool_calls") or ():
                tool = tools[(server, call["name"])]
                props = documented(tool)
                out["calls"] += 1
                args = call["arguments"]
                for param, value in args.items():
                    schema = props.get(param) if isinstance(props.get(param), dict) else {}
                    desc = str(schema.get("description") or "")
                    if param not in tool.required:
                        out["optional_args"] += 1
                        out["optional_equal_default"] += "default" in schema and schema["default"] == value
                    if isinstance(value, str):
                        out["string_args"] += 1
                        if value.lower() in STOCK and not _ASKS_TEXT.search(param.lower()):
                            out["stock_phrase_args"] += 1
                        offered = examples(desc)
                        if offered and "enum" not in schema:
                            out["args_with_examples"] += 1
                            if value not in offered and not any(_shape(value) == _shape(o) for o in offered):
                                out["ignored_examples"] += 1
                                examples_seen.append(f"{call['name']}.{param}={value!r} (offered {offered[:3]})")
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        m_range = re.search(r"\((-?\d+)\s*-\s*(-?\d+)\)", desc)
                        if m_range and "minimum" not in schema and "maximum" not in schema:
                            out["numbers_with_range"] += 1
                            out["out_of_range_args"] += not int(m_range.group(1)) <= value <= int(m_range.group(2))
                content = results.get(call["id"], "")
                out["results"] += 1
                try:
                    data = json.loads(content)
                except ValueError:
                    data = content
                dicts = [d for d in _walk(data) if isinstance(d, dict)]
                out["generic_records"] += any({"name", "owner", "created_at", "updated_at"} <= set(d) for d in dicts)
                about = f"{tool.name} {tool.description}".lower()
                out["borrowed_period_stats"] += any("period_start" in d for d in dicts) and not re.search(
                    r"period|daily|usage|monthly|month|week|analytics|traffic", about
                )
                urls = {v for v in _walk(data) if isinstance(v, str) and v in _STOCK_PAGES}
                out["pool_urls"] += bool(urls - {v for v in args.values() if isinstance(v, str)})
                formula = next((f for f in _FORMULAS if f in tool.name.lower()), None)
                nums = [v for v in args.values() if isinstance(v, int) and not isinstance(v, bool)]
                if formula and len(nums) >= 2 and isinstance(data, dict) and "result" in data:
                    out["formula_results"] += 1
                    out["wrong_math"] += data["result"] != _FORMULAS[formula](*nums[:2])
    out["ignored_example_cases"] = examples_seen[:12]
    return out


def _shape(value: str) -> str:
    """What a value looks like: ``https://www.instagram.com/p/x`` -> its host; ``/Users/x`` -> an absolute path."""
    if value.startswith("http"):
        return re.sub(r"^https?://([^/]+).*", r"\1", value)
    if value.startswith(("/", "~")):
        return "abs-path"
    return re.sub(r"[a-z]+", "a", re.sub(r"[A-Z]+", "A", re.sub(r"\d+", "9", value)))


def main() -> None:
    parser = argparse.ArgumentParser(description="Defects of the offline fallback's data.")
    parser.add_argument("run", type=Path)
    parser.add_argument("--registry", type=Path, default=None)
    args = parser.parse_args()
    print(json.dumps({"run": str(args.run), **check(args.run, args.registry)}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
