"""The dataset card's body, section by section: tables, the funnel, how the run was made, its limits.

Each function reads the manifest (and, where it must, the run's files) and gives the Markdown lines
or text the card's template (``templates/card.md.j2``) puts in place; synth.export.card.build assembles them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from synth.export import hf
from synth.export.card.plots import Stats, short
from synth.records import Manifest, content_hash
from synth.rundir import SCORED, TRAIN, VALID, read_jsonl, read_requests


def cut(value: Any, limit: int = 240) -> Any:
    """A record shortened for reading: long strings cut, long lists trimmed."""
    if isinstance(value, str):
        return short(value, limit)
    if isinstance(value, list):
        return [cut(v, limit) for v in value[:6]] + ([f"... {len(value) - 6} more"] if len(value) > 6 else [])
    if isinstance(value, dict):
        return {k: cut(v, limit) for k, v in value.items()}
    return value


def realism(run: Path, manifest: Manifest) -> list[str]:
    """Which servers had packs, and the realism figures of benchmarks/realism.py."""
    from synth.export.card.realism import report

    packs = manifest.packs or {}
    out = ["## Server packs and realism", ""]
    if packs:
        with_pack = packs.get("servers_with_pack", [])
        out += [
            f"{len(with_pack)} of {len(with_pack) + len(packs.get('servers_without_pack', []))} servers had a "
            "server pack (goals, values, results and answers reviewed by a person); "
            + (
                "the others were left out of the data (without a pack or a model synth writes none; `synth pack "
                "build` writes their packs)."
                if packs.get("servers_left_out")
                else 'the others used the plain fallback (`--allow-fallback`, marked "author": "fallback").'
            )
            + (
                f" With a pack: {', '.join(f'`{s}`' for s in with_pack[:30])}"
                + (" and more." if len(with_pack) > 30 else ".")
                if with_pack
                else ""
            ),
            "",
        ]
        unpacked = packs.get("tools_served_by_fallback") or {}
        if unpacked:
            out += [
                "Tools of those servers with no usable pack entry (the model's entry never passed `synth pack "
                "check`, or none was written) are served by the fallback: "
                + "; ".join(f"`{s}`: {', '.join(tools)}" for s, tools in sorted(unpacked.items())),
                "",
            ]
    r = report(run)
    rows = [
        ["conversations from packs", f"{r['from_packs']:.0%}"],
        ["first requests naming a tool or quoting its description", f"{r['requests_naming_tool']:.1%}"],
        ["first requests spelling values as slots", f"{r['requests_with_slots']:.1%}"],
        ["most common first sentence", f"{(r['top_first_sentence'] or {}).get('share', 0):.1%}"],
        ["most common 3-word answer opening", f"{(r['top_answer_opening'] or {}).get('share', 0):.1%}"],
        [
            "tool calls / user turns per conversation",
            f"{r['calls_per_conversation']} / {r['user_turns_per_conversation']}",
        ],
        ["assistant turns with parallel calls", f"{r['parallel_call_turns']:.1%}"],
        ["string values filling more than 3 parameter names", str(r["phrases_over_3_params"]["count"])],
        ["wrong-value negatives with a value absent from the conversation", f"{r['wrong_values_absent']:.1%}"],
        ["distinct names added by unexpected_extra negatives", str(r["unexpected_extra_names"]["distinct"])],
        ["score of an answer making every parallel call, per eval item", str(r["both_calls_score"])],
        ["conversations where the user announces a value to come", f"{r['announced_withholds']:.1%}"],
        ["most common short phrase of user turns", f"{(r['top_stock_phrase'] or {}).get('share', 0):.1%}"],
        ["search items holding none of the query's words", f"{r['worlds']['search_filler']['share']:.1%}"],
        ["creates reporting a value the call did not send", f"{r['worlds']['invented_echoes']['share']:.1%}"],
        ["created entities missing from a later list", f"{r['worlds']['created_missing']['share']:.1%}"],
    ]
    if r.get("review_items"):
        rows.append(
            [
                "T-Eval review labels used; accuracy of 'is error JSON' and of text-only regex cues as predictors"
                " (fitted on the labels; on items the rule was not fitted on)",
                f"{r['review_labels_used']}; {r['review_error_json_accuracy']:.0%}; {r['review_regex_accuracy']:.0%}; "
                f"{r.get('review_regex_heldout', 0):.0%}",
            ]
        )
    out += [table(["measure (benchmarks/realism.py)", "value"], rows), ""]
    return out + _by_author(r.get("by_author") or {})


def _by_author(groups: dict[str, dict[str, Any]]) -> list[str]:
    """The main figures for pack and fallback conversations apart: fallback conversations (no pack entry
    for their tools) read plainer, and carry ``"author": "fallback"`` in conversations, eval and scored rows."""
    if len(groups) < 2 and "fallback" not in groups:
        return []
    rows = [
        [
            author,
            str(g["conversations"]),
            f"{g['requests_naming_tool']:.1%}",
            f"{g['requests_with_slots']:.1%}",
            f"{g['calls_per_conversation']} / {g['user_turns_per_conversation']}",
            f"{g['parallel_call_turns']:.1%}",
        ]
        for author, g in groups.items()
    ]
    head = ["written by", "conversations", "naming a tool", "values as slots", "calls / user turns", "parallel"]
    return ["By who wrote them:", "", table(head, rows), ""]


HEAVY_TOOL = 16_000  # characters of one tool definition above which the card says what repeating it costs


def heavy_tools(run: Path, sample: int = 400) -> str | None:
    """Why big tool definitions (a 5,000-value enum) are repeated on every line that offers them, and
    what share of scored.jsonl they take (from its first ``sample`` lines), or None when none is big."""
    largest: dict[str, int] = {}
    tool_chars = line_chars = 0
    for number, row in enumerate(read_jsonl(run / SCORED), 1):
        if number > sample:
            break
        line_chars += len(json.dumps(row, ensure_ascii=False))
        for tool in row.get("available_tools") or []:
            size = len(json.dumps(tool, ensure_ascii=False))
            tool_chars += size
            name = str(tool.get("name", "?"))
            largest[name] = max(largest.get(name, 0), size)
    big = sorted(((n, c) for n, c in largest.items() if c > HEAVY_TOOL), key=lambda nc: -nc[1])
    if not big:
        return None
    named = ", ".join(f"`{n}` ({c / 1000:.0f} kB)" for n, c in big[:3])
    return (
        f"Some tool definitions are large ({named}) and are repeated on every line that offers them: tool "
        f"definitions are {tool_chars / max(line_chars, 1):.0%} of scored.jsonl. Each line carries its tools "
        "because the formats it follows (limbic scored calls, OpenAI fine-tuning, Foundry eval items) have no "
        "shared tool table (the run folder stores each list once, in tools.jsonl.gz; the published rows carry "
        "them); shrink the schema in the registry (a long enum) or lower --max-tools to cut it."
    )


def table(header: list[str], rows: list[list[Any]]) -> str:
    def cell(x: Any) -> str:
        return str(x).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


def examples(run: Path) -> list[str]:
    out = []
    chat = next(read_jsonl(run / TRAIN), None) or next(read_jsonl(run / VALID), None)
    if chat:
        row = hf.chat_row(chat)
        messages = [
            json.dumps(cut({k: v for k, v in m.items() if v is not None}, 160), ensure_ascii=False)
            for m in row["messages"]
        ]
        tools = [json.dumps(cut(t, 100), ensure_ascii=False) for t in row["tools"][:2]]
        more = f"  // ... and {len(row['tools']) - 2} more tools" if len(row["tools"]) > 2 else ""
        out += [
            "A `chat` row (long strings cut, empty fields left out):",
            "",
            "```json",
            '{"messages": [',
            *[f"  {m}," for m in messages],
            " ],",
            ' "tools": [',
            *[f"  {t}," for t in tools],
            *([more] if more else []),
            " ]}",
            "```",
            "",
        ]
    negatives: dict[str, dict[str, Any]] = {}
    for line in read_jsonl(run / SCORED):
        if line["score"] != "correct" and line["score"] not in negatives:
            negatives[line["score"]] = line
        if len(negatives) == 3:
            break
    if negatives:
        out += ["One `scored` negative per label (the call, the gold call it was made from, and why it is wrong):", ""]
        rows = []
        for label, line in sorted(negatives.items()):
            call, gold = hf.scored_row(line)["tool_call"]["function"], hf.scored_row(line)["gold_call"]["function"]
            rows.append(
                [
                    label,
                    line["subtype"],
                    f"`{short(json.dumps(call, ensure_ascii=False), 160)}`",
                    f"`{short(json.dumps(gold, ensure_ascii=False), 160)}`",
                    short(line["failure_reason"], 200),
                ]
            )
        out += [table(["label", "subtype", "call", "gold call", "failure_reason"], rows), ""]
    return out


def dedup(manifest: Manifest) -> list[str]:
    """One paragraph on dedup: its threshold and counts (runs made before near-dedup had no report)."""
    d = manifest.dedup
    if not d:
        return []
    return [
        f"Dedup over the whole run, before the split: {d['exact_duplicate']} exact duplicate and "
        f"{d['near_duplicate']} near-duplicate requests removed of {d['checked']} checked (near: word-set "
        f"Jaccard >= {d['threshold']} on requests of {d['min_words']} words or more, candidates from MinHash LSH "
        f"with {d['bands']} bands of {d['rows']}, each measured exactly). No near-duplicate pair "
        "is split between train, valid and test: the later request of a pair is never written.",
        "",
    ]


def reader_gates(manifest: Manifest) -> list[str]:
    """What each reader gate found (synth.stages.reader), its share of the conversations checked, and what
    was done with them (runs made before these gates have no such section)."""
    section = manifest.reader_gates
    if not section or not section.get("gates"):
        return []
    rows = [
        [f"`{gate}`", g["found"], f"{g['rate']:.1%}", "rejected" if g["decision"] == "reject" else "kept, queued"]
        for gate, g in section["gates"].items()
    ]
    return [
        "## Reader gates",
        "",
        f"Checks a careful reader makes of a whole conversation, run on all {section['checked']} written "
        "conversations after the per-call gates; a rejected one is in `rejected.jsonl` with the gate as its "
        "reason, a queued one is first in `review_queue.jsonl` with what was found.",
        "",
        table(["gate", "conversations", "share of checked", "decision"], rows),
        "",
    ]


def funnel(manifest: Manifest) -> str:
    funnel = manifest.funnel
    rows = []
    for stage, entered in funnel["entered"].items():
        dropped = funnel["dropped"].get(stage, {})
        why = ", ".join(f"{reason} {n}" for reason, n in sorted(dropped.items(), key=lambda kv: (-kv[1], kv[0])))
        left = funnel["left"].get(stage, 0)
        waiting = entered - left - sum(dropped.values())
        if stage == "human_review" and waiting > 0:
            why = ", ".join(x for x in (why, f"{waiting} still waiting for a person") if x)
        rows.append([stage, entered, left, sum(dropped.values()), why or "-"])
    for stage, dropped in funnel["dropped"].items():
        if stage not in funnel["entered"]:
            rows.append(
                [stage, "-", "-", sum(dropped.values()), ", ".join(f"{r} {n}" for r, n in sorted(dropped.items()))]
            )
    return table(["stage", "entered", "passed", "dropped", "why dropped"], rows)


def made(manifest: Manifest, run: Path | None = None) -> list[str]:
    cfg, reg = manifest.config, manifest.registry
    snapshot = content_hash(reg.get("snapshot", []))
    model = manifest.model
    models = ", ".join(f"{role}: {m}" for role, m in model.items()) if isinstance(model, dict) else (model or "none")
    versions = ", ".join(f"{k} {v}" for k, v in manifest.versions.items())
    split = cfg.get("split", {})
    lines = [
        f"- **Generator**: synth {manifest.synth_version}, backend `{manifest.backend}`"
        + (
            " (deterministic, no model: requests, values, results and answers from server packs where a server "
            "has one, else written from the tool schemas)"
            if manifest.backend == "offline"
            else ""
        ),
        f"- **Models**: {models}",
        f"- **Registry snapshot**: {reg['servers']} servers, {reg['usable_tools']} usable tools "
        f"({reg['skipped_servers']} servers and {reg['skipped_tools']} tools skipped, {len(reg['errors'])} errors); "
        f"snapshot hash `{snapshot}` (server, tool and schema hash of every tool are in manifest.json)",
        f"- **Seed** {cfg['seed']}, **conversations asked for** {cfg['n']}, **split shares** "
        f"{', '.join(f'{k} {v}' for k, v in split.items())} (by each conversation's place in the run), "
        f"**tools offered per conversation** up to {cfg.get('max_tools')}",
        f"- **Versions**: {versions}",
    ]
    if manifest.tokens:
        used = manifest.tokens.values()
        lines.append(
            f"- **Model calls**: {sum(r['calls'] for r in used)}, tokens {sum(r['prompt_tokens'] for r in used):,} in / "  # noqa: E501
            f"{sum(r['completion_tokens'] for r in used):,} out, about ${manifest.cost_usd:.2f}"
        )
    if run is not None and read_requests(run):  # its numbers differ between a clean and a resumed run: not here
        lines.append(
            "- **Requests and spend**: what getting the answers took (requests, retries by cause, re-asks, time "
            "spent waiting) and what every process spent, the discarded work included, are in `requests.json`"
        )
    lines += ["", promise(manifest), "", "```bash", reproduce(manifest), "```"]
    return lines


def reproduce(manifest: Manifest) -> str:
    """The ``synth generate`` command that made the run, every flag that shaped its data included."""
    cfg = manifest.config
    split = cfg.get("split", {})
    words = [
        f"synth generate --servers {cfg['servers']} --n {cfg['n']} --seed {cfg['seed']}",
        f"--split {','.join(str(split[k]) for k in ('train', 'valid', 'test') if k in split)}",
        f"--max-tools {cfg.get('max_tools')}",
    ]
    if cfg.get("execute") == "live":
        words.append("--execute live --allow-exec")
    if manifest.backend != "offline":
        words.append(f"--backend {manifest.backend}")
        model = manifest.model
        if isinstance(model, dict) and len(set(model.values())) == 1:
            words.append(f"--model {next(iter(model.values()))}")
        elif isinstance(model, dict):
            words.append("--config synth.toml  # per-role models: " + ", ".join(f"{r} {m}" for r, m in model.items()))
    review = cfg.get("review") or {}
    if review.get("audit", 0.02) != 0.02:
        words.append(f"--audit {review['audit']}")
    if review.get("below", 0.7) != 0.7:
        words.append(f"--review-below {review['below']}")
    outputs = cfg.get("outputs") or []
    if outputs and set(outputs) != {"train", "valid", "eval", "scored", "teval", "tasks"}:
        words.append(f"--outputs {','.join(outputs)}")
    if cfg.get("storage", "ready") != "ready":
        words.append(f"--storage {cfg['storage']}")
    return " ".join(words)


def promise(manifest: Manifest) -> str:
    """What running the command again gives: the same bytes only where nothing outside synth answered."""
    if manifest.config.get("execute") == "live":
        return (
            "Made against live MCP servers: running this again calls them again, and their answers (and which "
            "of them are up) decide the data, so the files can differ from these:"
        )
    if manifest.backend != "offline":
        return (
            "Made with a model: running this again in the same folder answers every request from cache.sqlite and "
            "gives these files byte for byte; in a new folder the model is asked again and the files can differ:"
        )
    return "Same registry, seed and version give byte-identical files:"


def results(manifest: Manifest) -> list[str]:
    """Where the tool messages came from, per server: the real server, a server pack, the simulator, a model."""
    execute = manifest.execute
    if not execute or not execute.get("results"):
        return []
    kinds = ("live", "pack", "simulated", "llm")
    errors = execute.get("errors") or {}
    rows = [
        [server, *(by.get(k, 0) for k in kinds), sum(errors.get(server, {}).values())]
        for server, by in execute["results"].items()
    ]
    lines = [
        "### Tool results",
        "",
        f"Execution mode `{execute['mode']}`. Each tool message records where its result came from: `live` is "
        "the server's real answer to `tools/call` (its text content as served, errors included), `pack` a server "
        "pack's result template, `simulated` the schema simulator, `llm` a model playing the tool. `errors` counts "
        "the results marked as errors (`is_error` on the tool message; the call's step label says which kind).",
        "",
        table(["server", *kinds, "errors"], rows),
        "",
    ]
    live = sum(by.get("live", 0) for by in execute["results"].values())
    failed = sum(by.get("live", 0) for by in errors.values())
    if live and failed * 2 > live:
        lines += [
            f"**Most live results are errors ({failed} of {live}).** The servers answered, but mostly to say that a "
            "call could not be served: this run made little that is worth training on (`synth generate` exited 1).",
            "",
        ]
    for line in execute.get("unreachable", {}).values():
        lines.append(f"- Not reachable, its scenarios rejected: {line}")
    if execute.get("unreachable"):
        lines.append("")
    return lines


def tasks(manifest: Manifest) -> list[str]:
    """The MCPMark-style tasks of a store run: counts by category and difficulty, and how to check them."""
    tasks = manifest.tasks or {}
    if not tasks.get("written") and not tasks.get("dropped"):
        return []
    folder = tasks.get("folder", "tasks")
    dropped = tasks.get("dropped") or {}
    lines = [
        "## Tasks with verify.py",
        "",
        f"{tasks.get('written', 0)} conversations on the stateful store are also MCPMark-style tasks in `{folder}/` "
        "(`<server>/<easy|standard>/<category>/<task_id>/` with `description.md`, `meta.json` and a standard-library "
        "`verify.py` that checks the store's final state: the fields the task changes and the canonical state hash). "
        "Each was replayed on a fresh seed store and its results matched the conversation's.",
        "",
        table(["category", "tasks"], [[c, n] for c, n in (tasks.get("categories") or {}).items()]),
        "",
        table(
            ["suite", "difficulty", "tasks"],
            [[s, {"easy": "L1", "standard": "L3"}.get(s, s), n] for s, n in (tasks.get("difficulty") or {}).items()],
        ),
        "",
    ]
    if dropped:
        lines += [
            "Not made into tasks (in `rejected.jsonl`, stage `tasks`): "
            + ", ".join(f"{reason} {n}" for reason, n in dropped.items()),
            "",
        ]
    lines += [
        "```bash",
        f"STORE_DB_PATH=store.db python {folder}/<server>/<suite>/<category>/<task_id>/verify.py",
        "synth tasks check RUN   # replays every task and runs its verify.py",
        "```",
        "",
    ]
    return lines


def review(stats: Stats, manifest: Manifest) -> list[str]:
    rules = manifest.config.get("review", {})
    why = stats.why
    applied = {entry["queue_id"] for entry in stats.log}
    held = sum(1 for item in stats.held if item not in applied)
    decided = Counter(entry["decision"] for entry in stats.log)
    looked_at = {e["conversation_id"] for e in stats.log if e["kind"] == "conversation"}
    lines = [
        f"`review_queue.jsonl` holds {stats.queued} items a person should look at"
        + (": " + ", ".join(f"{w} {n}" for w, n in sorted(why.items())) if why else "")
        + "."
    ]
    if rules:
        lines.append(
            f"Rules: reviewer verdict `human` (held out of the data until accepted), reviewer confidence below "
            f"{rules.get('below')}, the gates and the reviewer disagreeing, and a random audit of "
            f"{rules.get('audit', 0):.0%} of accepted conversations and negatives (active: "
            f"{', '.join(rules.get('rules', []))})."
        )
    if held:
        lines.append(f"{held} conversations the reviewer sent to a person are held out of every split until accepted.")
    if stats.log:
        lines.append(
            f"Decisions applied (`review_log.jsonl`): {len(stats.log)} "
            f"({', '.join(f'{d} {n}' for d, n in sorted(decided.items()))}), by "
            f"{len({e.get('reviewer') for e in stats.log})} reviewer(s); a person looked at {len(looked_at)} of "
            f"the {stats.conversations} conversations."
        )
    else:
        lines.append("No decision has been applied yet: no item of this dataset has been checked by a person.")
    return [" ".join(lines)]


def block(lines: list[str]) -> str:
    """Lines that end with an empty one, as one block for the template ("" when there are none)."""
    return "\n".join(lines) + "\n" if lines else ""


def limits(run: Path, manifest: Manifest) -> list[str]:
    results = (manifest.execute or {}).get("results") or {}
    live = sum(by.get("live", 0) for by in results.values())
    everything = sum(sum(by.values()) for by in results.values())
    limits = [
        "Tool results are simulated, not returned by the real servers: they are consistent with the call and with "
        "later steps, but their values are invented."
        if not live
        else f"{live} of {everything} tool results came from the real servers (`live`); "
        + (
            "the others are simulated: consistent with the call, but their values are invented."
            if live < everything
            else "the data is only as good as those servers' answers at the time of the run."
        ),
        "The grounding gate is lexical: a value counts as grounded when the user said it or an earlier result holds "
        "it, so a paraphrased value can be rejected and a coincidental match accepted.",
        "Negatives are rule-based mutations of gold calls (a sibling or invented tool, renamed or missing "
        "parameters, wrong types or values); real model errors are more varied.",
        "English only; requests follow the tools, so the mix of tasks mirrors the registry, not real traffic.",
        "The tool definitions come from the servers' registry entries and keep their own licences.",
    ]
    heavy = heavy_tools(run)
    if heavy:
        limits.append(heavy)
    if manifest.backend == "offline":
        limits.insert(
            0,
            "Made by the offline backend: with a server pack, requests, results and answers are expanded "
            "from a person-reviewed set of goals, values and templates, so their variety is bounded by the "
            "pack; servers without a pack get plainer, more repetitive text written from the tool schemas.",
        )
    return limits
