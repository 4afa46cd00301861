"""Exact and near-duplicate requests across a whole run, in memory that holds no text.

Exact: the same request once case, punctuation and spacing are folded, kept as a 64-bit hash.
Near: a request whose word set overlaps an earlier kept one by Jaccard >= ``threshold``, across
all servers, found with MinHash signatures (``datasketch``) banded into an LSH index, so each request is
compared with a few candidates instead of every earlier one. A candidate counts only when the
two signatures agree on at least ``threshold`` of their slots (the MinHash estimate of Jaccard).
Requests under ``min_words`` words are checked for exact duplicates only: a ratio over so few
words means little. Memory per kept request: one hash, one signature of ``num_perm`` 32-bit
values and its LSH bucket keys, whatever the length of the text.

Dedup runs before the split is decided, over the whole run, so a near-duplicate pair can never
end up on both sides of train/valid/test: the second request of a pair is never written.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

_WORD = re.compile(r"\w+")
BLOCK = 4096
SEED = 1  # the MinHash permutations: fixed, so a run's dedup decisions follow from its inputs alone


class Dedup:
    def __init__(self, threshold: float = 0.9, num_perm: int = 64, min_words: int = 8):
        from datasketch import MinHash  # numpy and scipy load only when a run starts
        from datasketch.lsh import _optimal_param
        import numpy as np

        self.threshold = threshold
        self.num_perm = num_perm
        self.min_words = min_words
        self.exact: set[int] = set()
        self.counts = {"checked": 0, "exact_duplicate": 0, "near_duplicate": 0, "indexed": 0}
        self._np = np
        self._minhash = MinHash
        self._permutations = MinHash(num_perm=num_perm, seed=SEED).permutations
        # bands x rows from datasketch's optimiser; a missed pair is a leak between splits while a
        # spurious candidate costs one signature comparison, so misses weigh more
        self.bands, self.rows = _optimal_param(threshold, num_perm, 0.3, 0.7)
        self._mix = np.random.RandomState(SEED).randint(1, 2**63, size=self.rows, dtype=np.uint64) | np.uint64(1)
        # one dict per band from the band's hash to the kept request(s) in that bucket. datasketch's
        # MinHashLSH keeps a set per bucket plus a key table (about 2 kB per request, measured);
        # an int, or a list on the rare collision, keeps the index near 100 bytes a band
        self.buckets: list[dict[int, int | list[int]]] = [{} for _ in range(self.bands)]
        self.signatures: list[Any] = []  # blocks of BLOCK signatures: growing never copies what is kept

    def _signature(self, words: list[str]) -> Any:
        sig = self._minhash(num_perm=self.num_perm, seed=SEED, permutations=self._permutations, scheme="affine32")
        sig.update_batch([w.encode() for w in words])
        return sig.hashvalues  # the affine32 scheme: uint32

    def _keys(self, values: Any) -> list[int]:
        rows = values[: self.bands * self.rows].reshape(self.bands, self.rows).astype(self._np.uint64)
        return [int(k) for k in (rows * self._mix).sum(axis=1, dtype=self._np.uint64)]  # wraps mod 2**64

    def check(self, text: str, item_id: str = "") -> tuple[str, str] | None:
        """None when new (and remember it); else (reason, what it repeats)."""
        self.counts["checked"] += 1
        tokens = _WORD.findall(text.casefold())
        key = int.from_bytes(hashlib.blake2b(" ".join(tokens).encode(), digest_size=8).digest(), "big")
        if key in self.exact:
            self.counts["exact_duplicate"] += 1
            return "exact_duplicate", "an earlier request"
        if len(tokens) >= self.min_words:
            values = self._signature(sorted(set(tokens)))
            keys = self._keys(values)
            seen: set[int] = set()
            for band, k in zip(self.buckets, keys):
                found = band.get(k)
                for other in (() if found is None else [found] if isinstance(found, int) else found):
                    if other in seen:
                        continue
                    seen.add(other)
                    kept = self.signatures[other // BLOCK][other % BLOCK]
                    similar = float((kept == values).mean())
                    if similar >= self.threshold:
                        self.counts["near_duplicate"] += 1
                        return "near_duplicate", f"an earlier request (estimated Jaccard {similar:.2f})"
            index = self.counts["indexed"]
            if index % BLOCK == 0:
                self.signatures.append(self._np.zeros((BLOCK, self.num_perm), dtype=self._np.uint32))
            self.signatures[-1][index % BLOCK] = values
            for band, k in zip(self.buckets, keys):
                found = band.get(k)
                band[k] = index if found is None else [found, index] if isinstance(found, int) else [*found, index]
            self.counts["indexed"] += 1
        self.exact.add(key)
        return None

    def report(self) -> dict[str, Any]:
        """What the manifest and the card say about dedup: the method, its parameters and the counts."""
        return {
            "method": "exact hash + MinHash LSH (datasketch) over the words of each request",
            "threshold": self.threshold,
            "num_perm": self.num_perm,
            "bands": self.bands,
            "rows": self.rows,
            "min_words": self.min_words,
            "scope": "whole run, before the split",
            **self.counts,
        }
