"""Exact and near-duplicate requests: caught across servers and splits, in memory that keeps no text."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from synth.config import Settings
from synth.export.card.build import write_card
from synth.pipeline import generate
from synth.rundir import read_jsonl
from synth.stages.dedup import Dedup

LONG = "please find every open invoice for the Lisbon office from March and send the total to finance"


def test_exact_duplicates_fold_case_punctuation_and_spacing():
    d = Dedup()
    assert d.check("", "Show my  orders, please!", "a") is None
    assert d.check("", "show my orders please", "b") == ("exact_duplicate", "a")
    assert d.check("", "show my order please", "c") is None  # short: only exact matches count
    assert d.counts["exact_duplicate"] == 1
    assert d.check("server-b", "show my orders please", "d") is None  # another scope compares apart
    assert d.check("server-b", LONG, "e") is None and d.check("", LONG + " today", "f") is None
    assert d.check("server-b", LONG + " today", "g") == ("near_duplicate", "e")


def test_near_duplicates_are_caught_and_different_requests_kept():
    d = Dedup(threshold=0.9)
    assert d.check("", LONG, "a") is None
    assert d.check("", LONG + " today", "b") == ("near_duplicate", "a")  # 17 of 18 words shared
    assert (
        d.check("", "please find every open invoice for the Porto office from June and send the count to sales", "c")
        is None
    )
    assert {k: d.counts[k] for k in ("checked", "exact_duplicate", "near_duplicate", "indexed")} == {
        "checked": 3,
        "exact_duplicate": 0,
        "near_duplicate": 1,
        "indexed": 2,
    }


def test_index_holds_signatures_not_texts():
    d = Dedup()
    for i in range(3000):
        d.check("", " ".join(f"w{i}x{j}" for j in range(12)), str(i))  # no two share a word
    assert d.counts["indexed"] == 3000
    assert all(isinstance(k, int) for k in d.exact) and d.ids[:2] == ["0", "1"]
    assert all(isinstance(w, bytes) and len(w) == 12 * 8 for w in d.words)  # 12 word hashes, no text
    assert d.counts["compared"] < 3000  # sub-quadratic: unrelated requests are rarely even candidates


def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", text.casefold()))


def test_a_pair_at_the_threshold_is_caught_almost_always():
    d = Dedup(threshold=0.9)
    caught = 0
    for i in range(200):  # 18 words shared of 20 in all: Jaccard 18/20 = 0.9 exactly
        base = [f"w{i}x{j}" for j in range(19)]
        assert d.check("", " ".join(base), "a") is None
        caught += d.check("", " ".join([*base[:18], f"other{i}"]), "b") is not None
    assert caught >= 198  # LSH misses a pair at the threshold about once in 2,000


def test_no_near_duplicate_pair_crosses_splits_and_counts_are_reported(tiny_registry, tmp_path: Path):
    out = tmp_path / "run"
    manifest = generate(Settings(servers=tiny_registry, allow_fallback=True, out=out, n=150, seed=5))
    report = manifest["dedup"]
    assert report["threshold"] == 0.9 and report["bands"] * report["rows"] <= report["num_perm"]
    dropped = manifest["funnel"]["dropped"].get("dedup", {})
    assert report["exact_duplicate"] == dropped.get("exact_duplicate", 0)
    assert report["near_duplicate"] == dropped.get("near_duplicate", 0)
    convs = list(read_jsonl(out / "conversations.jsonl"))
    assert report["checked"] >= len(convs)
    kept = [(_words(c["query"]["text"]), c["split"]) for c in convs]
    for (a, split_a), (b, split_b) in itertools.combinations(kept, 2):
        if split_a != split_b and min(len(a), len(b)) >= report["min_words"]:
            assert len(a & b) / len(a | b) < report["threshold"]
    write_card(out)
    assert f"{report['near_duplicate']} near-duplicate requests removed" in (out / "README.md").read_text()
