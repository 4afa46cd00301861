"""The dataset card: the run's README.md, with the Hub YAML header ``datasets`` reads, stats and plots.

Everything in it comes from the run folder (manifest.json and the JSONL files), so the same run
always gives the same card, plots included (PNG written without the Software/date metadata).
License and pretty name set with ``synth card --license/--pretty-name`` are kept when the card is
made again.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import DatasetCard, DatasetCardData

from synth.errors import ConfigError
from synth.export import hf
from synth.export.card import sections
from synth.export.card.plots import Stats, write_plots
from synth.export.hf_features import features_yaml
from synth.ingest.audit import audit, card_lines
from synth.records import Manifest
from synth.rundir import (
    CARD,
    TRAIN,
    RunDir,
    stored,
    write_atomic,
)

TAGS = ["synthetic", "tool-use", "function-calling", "mcp", "synth"]
TEMPLATE = Path(__file__).with_name("templates") / "card.md.j2"  # package data (pyproject: synth.export.card)
HEADER_ORDER = [
    "license",
    "pretty_name",
    "language",
    "task_categories",
    "tags",
    "size_categories",
    "configs",
    "dataset_info",
]


def read_header(readme: Path) -> dict[str, Any]:
    """The YAML header of an existing card, or {}."""
    if not readme.exists():
        return {}
    m = re.match(r"---\n(.*?)\n---\n", readme.read_text(encoding="utf-8"), re.S)
    try:
        data = yaml.safe_load(m.group(1)) if m else None
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def size_category(rows: int) -> str:
    for limit, name in (
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
        (100_000_000, "10M<n<100M"),
    ):
        if rows < limit:
            return name
    return "100M<n<1B"


# --- the card ----------------------------------------------------------------------------------


def _manifest(run: Path) -> Manifest:
    manifest = RunDir(run).read_manifest()
    if not isinstance(manifest, Manifest):
        raise ConfigError(f"{run} holds an unfinished run; finish it (synth generate ... --resume) before its card")
    return manifest


def render(
    run: Path, *, license: str | None = None, pretty_name: str | None = None, plots: list[str] | None = None
) -> str:
    """The card's text for ``run``; ``plots`` are image paths relative to the card."""
    previous = read_header(run / CARD)
    return _render(
        run,
        _manifest(run),
        Stats(run),
        license or previous.get("license"),
        pretty_name or previous.get("pretty_name"),
        plots or [],
    )


def _header(
    sizes: dict[str, dict[str, int]], specs: dict[str, hf.Config], license: str, pretty_name: str
) -> DatasetCardData:
    """The YAML header ``datasets`` and the Hub read, as huggingface_hub's card data (keys in this order)."""
    data = DatasetCardData(
        license=license,
        pretty_name=pretty_name,
        language=["en"],
        task_categories=["text-generation", "text-classification"],
        tags=TAGS,
        size_categories=[size_category(max((sum(s.values()) for s in sizes.values()), default=0))],
        configs=hf.data_files(sizes),
        dataset_info=[{"config_name": name, "features": features_yaml(specs[name].features)} for name in sizes],
    )
    data.to_yaml(original_order=HEADER_ORDER)  # fixes the order from_template dumps the keys in
    return data


PLOT_TITLES = {
    "turns_per_conversation": "Messages per conversation",
    "tool_calls_per_conversation": "Tool calls per conversation",
    "tool_frequency": "Tool frequency",
    "label_distribution": "Label distribution",
    "tool_results": "Tool results by source and error",
}


def _render(
    run: Path, manifest: Manifest, stats: Stats, license: str | None, pretty_name: str | None, plots: list[str]
) -> str:
    """The card from ``templates/card.md.j2``: the header checked by ``DatasetCardData``, the body from the
    manifest and the run's files, parsed back by ``DatasetCard`` (a header that does not load is an error)."""
    reg, counts = manifest.registry, manifest.counts
    license = license or "other"
    pretty_name = pretty_name or f"MCP tool use ({reg['servers']} servers, synth)"
    configs = hf.configs(run)
    sizes = hf.sizes(run, configs)
    specs = {c.name: c for c in configs}
    card = DatasetCard.from_template(
        _header(sizes, specs, license, pretty_name),
        template_path=str(TEMPLATE),
        pretty_name=pretty_name,
        registry=reg,
        counts=counts,
        coverage=manifest.coverage,
        funnel=manifest.funnel,
        scored_total=sum(counts["scored"].values()),
        **_tables(manifest, stats, sizes, specs),
        made="\n".join(sections.made(manifest, run)),
        results=sections.block(sections.results(manifest)),
        dedup=sections.block(sections.dedup(manifest)),
        reader_gates=sections.block(sections.reader_gates(manifest)),
        servers_called=len(stats.servers),
        unused=_unused(manifest.coverage.get("unused", [])),
        realism=sections.block(sections.realism(run, manifest)),
        audit="\n".join(card_lines(audit(run / TRAIN), TRAIN)) if stored(run / TRAIN).is_file() else "",
        tasks=sections.block(sections.tasks(manifest)),
        plots=[(PLOT_TITLES.get(Path(p).stem, Path(p).stem), p) for p in plots],
        review="\n".join(sections.review(stats, manifest)),
        examples="\n".join(sections.examples(run)).rstrip("\n"),
        limits=sections.limits(run, manifest),
    )
    text = str(card).rstrip("\n") + "\n"
    DatasetCard(text)  # parses the header back as the Hub does: a card whose YAML does not load is never written
    return text


def _tables(
    manifest: Manifest, stats: Stats, sizes: dict[str, dict[str, int]], specs: dict[str, hf.Config]
) -> dict[str, str]:
    """The card's tables, by the template's names for them."""
    counts = manifest.counts
    configs = [
        [name, ", ".join(f"{s} {n}" for s, n in splits.items()), sum(splits.values()), specs[name].description]
        for name, splits in sizes.items()
    ]
    return {
        "configs_table": sections.table(["config", "splits", "rows", "what"], configs),
        "funnel_table": sections.funnel(manifest),
        "labels_table": sections.table(["label", "scored calls", "subtypes"], _label_rows(counts)),
        "top_table": sections.table(
            ["tool (server)", "gold calls"], [[name, n] for name, n in stats.tools.most_common(10)]
        ),
        "splits_table": sections.table(
            ["split", "conversations"], [[s, counts["splits"].get(s, 0)] for s in ("train", "valid", "test")]
        ),
        "decisions_table": _decisions_table(counts),
    }


_MOVES = {
    "call": "calls a tool",
    "ask": "asks for a value the user left out (a call with a guessed value is the wrong move)",
    "decline": "declines a request no tool serves, and says what it can do (any call is wrong)",
    "answer": "answers a follow-up from an earlier result (calling again is wrong)",
}


def _decisions_table(counts: dict[str, Any]) -> str:
    """How many conversations hold each of the four decisions (a conversation may hold several)."""
    held, total = counts.get("decisions"), counts.get("conversations") or 0
    if not held or not total:
        return ""
    rows = [[move, n, f"{n / total:.1%}", _MOVES.get(move, "")] for move, n in held.items()]
    return sections.table(["decision", "conversations", "share", "the assistant's turn"], rows)


def _label_rows(counts: dict[str, Any]) -> list[list[Any]]:
    """Each label's scored calls and its subtypes, most common first."""
    rows = []
    for label, n in counts["scored"].items():
        subs = {
            k.split("/", 1)[1]: v for k, v in counts.get("scored_subtypes", {}).items() if k.startswith(label + "/")
        }
        rows.append([label, n, ", ".join(f"{s} {v}" for s, v in sorted(subs.items(), key=lambda kv: (-kv[1], kv[0])))])
    return rows


def _unused(unused: list[str]) -> str:
    """The tools no conversation called, the first 15 named."""
    if not unused:
        return ""
    return (
        f"Never called ({len(unused)}): "
        + ", ".join(f"`{u}`" for u in unused[:15])
        + (f" and {len(unused) - 15} more (`coverage.unused` in manifest.json)" if len(unused) > 15 else "")
    )


def write_card(
    run: Path, out: Path | None = None, *, license: str | None = None, pretty_name: str | None = None
) -> Path:
    """Write ``README.md`` and ``plots/*.png`` into ``out`` (default: the run). Returns the card's path."""
    out = out or run
    manifest = _manifest(run)
    stats = Stats(run)
    previous = read_header(out / CARD) or read_header(run / CARD)  # keep what was set before
    license = license or previous.get("license")
    pretty_name = pretty_name or previous.get("pretty_name")
    plots = write_plots(stats, manifest.to_json(), out / "plots")
    text = _render(run, manifest, stats, license, pretty_name, plots)
    path = out / CARD
    write_atomic(path, [text])
    return path
