"""The card's numbers and plots: conversation stats read in one pass, and five PNG plots.

PNGs are written without the Software/date metadata, so the same run always gives the same bytes.
"""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from synth.rundir import CONVERSATIONS, LOG, QUEUE, read_jsonl

PLOTS = (
    "turns_per_conversation",
    "tool_calls_per_conversation",
    "tool_frequency",
    "label_distribution",
    "tool_results",
)
SOURCES = ("live", "pack", "simulated", "llm")  # where a tool message's result came from (its "source")
LABEL_COLOURS = {
    "correct": "#2b8a3e",
    "incorrect_tool": "#c92a2a",
    "incorrect_parameter_names": "#e67700",
    "incorrect_parameter_values": "#1864ab",
}


class Stats:
    """What the card says about the conversations, read in one pass."""

    def __init__(self, run: Path):
        self.turns: Counter[int] = Counter()
        self.calls: Counter[int] = Counter()
        self.tools: Counter[str] = Counter()
        self.servers: Counter[str] = Counter()
        self.results: Counter[tuple[str, bool]] = Counter()  # tool messages by (source, is an error)
        self.conversations = 0
        for conv in read_jsonl(run / CONVERSATIONS):
            self.conversations += 1
            messages = conv["messages"]
            self.turns[sum(m["role"] != "system" for m in messages)] += 1
            calls = [c["name"] for m in messages for c in m.get("tool_calls", [])]
            self.calls[len(calls)] += 1
            server = conv["scenario"]["server"]
            self.servers[server] += 1
            self.tools.update(f"{c} ({server})" for c in calls)
            self.results.update(
                (m.get("source") or "unknown", bool(m.get("is_error"))) for m in messages if m["role"] == "tool"
            )
        self.log = list(read_jsonl(run / LOG))  # a person's decisions: small next to the queue
        # the queue holds whole conversations: only what the card says about it is kept
        self.queued = 0
        self.why: Counter[str] = Counter()
        self.held: list[str] = []
        for item in read_jsonl(run / QUEUE):
            self.queued += 1
            self.why.update(item["why"])
            if item["held"]:
                self.held.append(item["id"])


def _figure(height: float = 3.2):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.0, height), dpi=100, layout="constrained")
    return fig, fig.add_subplot()


def _bars(ax, counts: Counter[int], colour: str, xlabel: str) -> None:
    xs = list(range(min(counts), max(counts) + 1)) if counts else []
    bars = ax.bar(xs, [counts.get(x, 0) for x in xs], color=colour, width=0.8)
    ax.bar_label(bars, labels=[str(counts[x]) if counts.get(x) else "" for x in xs], padding=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("conversations")
    if len(xs) <= 30:
        ax.set_xticks(xs)
    _whole(ax.xaxis, ax.yaxis)
    ax.spines[["top", "right"]].set_visible(False)


def _whole(*axes: Any) -> None:
    """Counts have whole-number ticks (matplotlib would mark 0.5 conversations on a small run)."""
    from matplotlib.ticker import MaxNLocator

    for axis in axes:
        axis.set_major_locator(MaxNLocator(integer=True))


def write_plots(stats: Stats, manifest: dict[str, Any], folder: Path) -> list[str]:
    """The four PNG plots, byte-identical for the same run. Returns their paths relative to the card."""
    import matplotlib

    folder.mkdir(parents=True, exist_ok=True)
    style: dict[str, Any] = {
        "svg.hashsalt": "synth",
        "font.family": "DejaVu Sans",
        "font.size": 9,
        "axes.titlesize": 10,
        "figure.facecolor": "white",
        "savefig.facecolor": "white",
    }
    out = []
    with matplotlib.rc_context(style), warnings.catch_warnings():  # type: ignore[arg-type]
        warnings.simplefilter("ignore")  # glyphs a tool name has and DejaVu lacks (CJK) become boxes, not warnings
        figures = {}
        fig, ax = _figure()
        _bars(ax, stats.turns, "#1864ab", "messages per conversation (system prompt not counted)")
        ax.set_title(f"Messages per conversation ({stats.conversations} conversations)")
        figures["turns_per_conversation"] = fig

        fig, ax = _figure()
        _bars(ax, stats.calls, "#5f3dc4", "gold tool calls per conversation")
        ax.set_title("Tool calls per conversation")
        figures["tool_calls_per_conversation"] = fig

        figures["tool_frequency"] = _tool_frequency(stats, manifest.get("coverage", {}))
        figures["label_distribution"] = _label_distribution(manifest.get("counts", {}).get("scored_subtypes", {}))
        figures["tool_results"] = _tool_results(stats.results)

        for name in PLOTS:
            path = folder / f"{name}.png"
            figures[name].savefig(path, format="png", metadata={"Software": None})
            out.append(f"{folder.name}/{name}.png")
    return out


def _tool_frequency(stats: Stats, cov: dict[str, Any]) -> Any:
    """How many tools got how many gold calls (the unused ones included), and the most called tools."""
    top = stats.tools.most_common(20)
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(9.0, max(3.2, 0.26 * len(top) + 1.4)), dpi=100, layout="constrained")
    spread, ax = fig.subplots(1, 2, width_ratios=[1, 2.2])
    per_tool = Counter(stats.tools.values())
    per_tool[0] = cov.get("usable_tools", 0) - cov.get("used_tools", 0)
    xs = list(range(0, max(per_tool) + 1))
    bars = spread.bar(xs, [per_tool.get(x, 0) for x in xs], color=["#adb5bd"] + ["#2b8a3e"] * (len(xs) - 1))
    spread.bar_label(bars, labels=[str(per_tool[x]) if per_tool.get(x) else "" for x in xs], padding=2)
    spread.set_xticks(xs) if len(xs) <= 20 else None
    _whole(spread.xaxis, spread.yaxis)
    spread.set_xlabel("gold calls per tool")
    spread.set_ylabel("tools")
    spread.set_title(f"{cov.get('used_tools', 0)} of {cov.get('usable_tools', 0)} usable tools called")
    ax.barh(range(len(top)), [n for _, n in reversed(top)], color="#2b8a3e")
    ax.set_yticks(range(len(top)), [short(name, 58) for name, _ in reversed(top)])
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("gold calls")
    ax.set_title(f"Most called tools (top {len(top)})")
    for a in (spread, ax):
        a.spines[["top", "right"]].set_visible(False)
    return fig


def _label_distribution(subtypes: dict[str, int]) -> Any:
    """Scored calls by label and subtype, labels in their fixed order."""
    keys = sorted(
        subtypes,
        key=lambda k: (
            list(LABEL_COLOURS).index(k.split("/")[0]) if k.split("/")[0] in LABEL_COLOURS else 9,
            -subtypes[k],
            k,
        ),
    )
    fig, ax = _figure(max(2.5, 0.28 * len(keys) + 1.2))
    bars = ax.barh(
        range(len(keys)),
        [subtypes[k] for k in reversed(keys)],
        color=[LABEL_COLOURS.get(k.split("/")[0], "#868e96") for k in reversed(keys)],
    )
    ax.bar_label(bars, padding=2)
    ax.set_yticks(range(len(keys)), list(reversed(keys)))
    ax.set_xlabel("scored calls")
    _whole(ax.xaxis)
    ax.set_title("Scored calls by label and subtype")
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def _tool_results(results: Counter[tuple[str, bool]]) -> Any:
    """Tool messages by where their result came from (a live server, a pack, the simulator, a model),
    each bar split into results and errors (``is_error``, MCP's isError: a refusal or failure to explain)."""
    sources = [s for s in SOURCES if results[s, False] or results[s, True]] + sorted(
        {s for s, _ in results} - set(SOURCES)
    )
    fig, ax = _figure(max(2.2, 0.45 * len(sources) + 1.4))
    ys = list(range(len(sources)))[::-1]
    ok = [results[s, False] for s in sources]
    bad = [results[s, True] for s in sources]
    ax.barh(ys, ok, height=0.6, color="#2b8a3e", label="result")
    ax.barh(ys, bad, height=0.6, left=ok, color="#c92a2a", label="error (is_error)")
    ax.set_yticks(ys, [f"{s}\n{n:,} + {e:,} errors" for s, n, e in zip(sources, ok, bad)])
    ax.set_xlabel("tool messages")
    _whole(ax.xaxis)
    total, failed = sum(results.values()), sum(bad)
    ax.set_title(f"Tool results by source ({total} tool messages, {failed} errors)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
