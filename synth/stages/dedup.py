"""Exact and near-duplicate requests across a whole run, in memory that holds no text.

Exact: the same request once case, punctuation and spacing are folded, kept as a 64-bit hash.
Near: a request whose word set overlaps an earlier kept one by Jaccard >= ``threshold``, across
all servers. Candidates come from MinHash signatures (``datasketch``) banded into an LSH index,
so each request is compared with a few candidates instead of every earlier one; a candidate is
then measured exactly, on the two requests' sets of 64-bit word hashes. The bands are narrow
(6 rows) so that a pair at the threshold is missed about once in 2,000 and one at 0.95 almost
never. Requests under ``min_words`` words are checked for exact duplicates only: a ratio over
so few words means little. Memory per kept request: one hash, its id, its word hashes (8 bytes
a word) and one LSH bucket key per band, whatever the length of the text.

Dedup runs before the split is decided, over the whole run, so a near-duplicate pair can never
end up on both sides of train/valid/test: the later request of a pair is never written.
"""

from __future__ import annotations

import hashlib
import re
from array import array
from typing import Any

_WORD = re.compile(r"\w+")
SEED = 1  # the MinHash permutations: fixed, so a run's dedup decisions follow from its inputs alone
BANDS, ROWS = 10, 6  # P(candidate) = 1 - (1 - J**6)**10: 0.9995 at J=0.9, 0.71 at 0.7, 0.15 at 0.5
BUCKET = 256  # candidates checked per bucket (the newest): bounds the time a family of alike requests costs


def _hash64(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class Dedup:
    def __init__(self, threshold: float = 0.9, min_words: int = 8, bands: int = BANDS, rows: int = ROWS):
        from datasketch import MinHash  # numpy (and scipy, through datasketch) load only when a run starts
        import numpy as np

        self.threshold = threshold
        self.min_words = min_words
        self.bands, self.rows = bands, rows
        self.num_perm = bands * rows
        self.exact: dict[int, str] = {}  # hash of the folded request -> the id of its item
        self.counts = {"checked": 0, "exact_duplicate": 0, "near_duplicate": 0, "indexed": 0, "compared": 0}
        self._np = np
        self._minhash = MinHash
        self._permutations = MinHash(num_perm=self.num_perm, seed=SEED).permutations
        self._mix = np.random.RandomState(SEED).randint(1, 2**63, size=rows, dtype=np.uint64) | np.uint64(1)
        # one dict per band from the band's hash to the kept request(s) in that bucket: an int, or a
        # list on a collision. datasketch's MinHashLSH keeps a set per bucket and a key table (about
        # 2 kB per request, measured); this keeps about 100 bytes a band
        self.buckets: list[dict[int, int | list[int]]] = [{} for _ in range(bands)]
        self.words: list[bytes] = []  # per kept request: its sorted 64-bit word hashes, packed
        self.ids: list[str] = []  # per kept request: its item's id, for "same request as ..."

    def _keys(self, words: list[bytes]) -> list[int]:
        sig = self._minhash(num_perm=self.num_perm, seed=SEED, permutations=self._permutations, scheme="affine32")
        sig.update_batch(words)
        rows = sig.hashvalues.reshape(self.bands, self.rows).astype(self._np.uint64)
        return [int(k) for k in (rows * self._mix).sum(axis=1, dtype=self._np.uint64)]  # wraps mod 2**64

    def _jaccard(self, mine: set[int], other: int) -> float:
        theirs = array("Q", self.words[other])
        inter = sum(1 for h in theirs if h in mine)
        return inter / (len(mine) + len(theirs) - inter)

    def check(self, scope: str, text: str, item_id: str) -> tuple[str, str] | None:
        """None when new (and remember it); else (reason, id of the earlier item).

        Requests are compared within one ``scope``: "" for a whole run, a server or tool set when
        only those should count (``synth audit``)."""
        self.counts["checked"] += 1
        tokens = _WORD.findall(text.casefold())
        key = _hash64(f"{scope}\x00{' '.join(tokens)}".encode())
        salt = _hash64(scope.encode()) if scope else 0
        if key in self.exact:
            self.counts["exact_duplicate"] += 1
            return "exact_duplicate", self.exact[key]
        if len(tokens) >= self.min_words:
            words = sorted({w.encode() for w in tokens})
            mine = {_hash64(w) for w in words}
            keys = [k ^ salt for k in self._keys(words)]
            seen: set[int] = set()
            for band, k in zip(self.buckets, keys):
                found = band.get(k)
                for other in (() if found is None else (found,) if isinstance(found, int) else found[-BUCKET:]):
                    if other in seen:
                        continue
                    seen.add(other)
                    self.counts["compared"] += 1
                    similar = self._jaccard(mine, other)
                    if similar >= self.threshold:
                        self.counts["near_duplicate"] += 1
                        return "near_duplicate", self.ids[other]
            index = len(self.words)
            self.words.append(array("Q", sorted(mine)).tobytes())
            self.ids.append(item_id)
            for band, k in zip(self.buckets, keys):
                found = band.get(k)
                if found is None:
                    band[k] = index
                elif isinstance(found, int):
                    band[k] = [found, index]
                else:
                    found.append(index)
            self.counts["indexed"] += 1
        self.exact[key] = item_id
        return None

    def report(self) -> dict[str, Any]:
        """What the manifest and the card say about dedup: the method, its parameters and the counts."""
        return {
            "method": "exact: hash of the folded request; near: MinHash LSH candidates (datasketch), "
                      "measured exactly on hashed word sets",
            "threshold": self.threshold,
            "num_perm": self.num_perm,
            "bands": self.bands,
            "rows": self.rows,
            "bucket_limit": BUCKET,
            "min_words": self.min_words,
            "scope": "whole run, before the split",
            **self.counts,
        }
