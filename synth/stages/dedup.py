"""Exact and near-duplicate requests across a whole run.

Exact: the same request once case, punctuation and spacing are folded. Near: within one
server, a request whose word set overlaps an earlier one by Jaccard >= 0.9 (requests of
eight words or more; shorter ones differ in too few words for the ratio to mean much).
Memory grows with the number of kept requests by one small set each, not with the data.
"""

from __future__ import annotations

import re
from collections import defaultdict

_WORD = re.compile(r"\w+")


class Dedup:
    def __init__(self, threshold: float = 0.9):
        self.threshold = threshold
        self.exact: dict[str, str] = {}
        self.by_server: dict[str, list[tuple[frozenset[str], str]]] = defaultdict(list)

    def check(self, server: str, text: str, item_id: str) -> tuple[str, str] | None:
        """None when new (and remember it); else (reason, id of the earlier item)."""
        tokens = _WORD.findall(text.casefold())
        key = " ".join(tokens)
        if key in self.exact:
            return "exact_duplicate", self.exact[key]
        bag = frozenset(tokens)
        if len(tokens) >= 8:
            for other, other_id in self.by_server[server]:
                inter = len(bag & other)
                if inter and inter / len(bag | other) >= self.threshold:
                    return "near_duplicate", other_id
            self.by_server[server].append((bag, item_id))
        self.exact[key] = item_id
        return None
