"""Exact and near-duplicate requests across a whole run, in memory that holds no text.

Exact: the same request once case, punctuation and spacing are folded, kept as a 64-bit hash.
Near: a request whose word set overlaps an earlier kept one by Jaccard >= ``threshold``, across
all servers. Candidates come from MinHash signatures (``datasketch``) banded into an LSH index,
so each request is compared with a few candidates instead of every earlier one; a candidate is
then measured exactly, on the two requests' sets of 64-bit word hashes. The bands are narrow
(6 rows) so that a pair at the threshold is missed about once in 2,000 and one at 0.95 almost
never. Requests under ``min_words`` words are checked for exact duplicates only: a ratio over
so few words means little. Memory per kept request: one hash, its id, its word hashes (8 bytes
a word) and one LSH bucket key per band, whatever the length of the text, all in flat arrays
(``_Table``, ``_Packed``), not Python objects: about 0.4 kB a request, where dicts of ints and a
list of bytes took 1.5 kB (a 100k run kept 150 MB for it).

Dedup runs before the split is decided, over the whole run, so a near-duplicate pair can never
end up on both sides of train/valid/test: the later request of a pair is never written.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import re
import sys
from array import array
from collections.abc import Iterator
from typing import Any

_WORD = re.compile(r"\w+")
SEED = 1  # the MinHash permutations: fixed, so a run's dedup decisions follow from its inputs alone
BANDS, ROWS = 10, 6  # P(candidate) = 1 - (1 - J**6)**10: 0.9995 at J=0.9, 0.71 at 0.7, 0.15 at 0.5
BUCKET = 256  # candidates checked per bucket (the newest): bounds the time a family of alike requests costs


def _hash64(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _minhash_class() -> Any:
    """datasketch's ``MinHash``, without running ``datasketch/__init__``: that imports every sketch
    of the library and, through its LSH module, scipy (half a second and 50 MB) that MinHash does
    not use. The package is entered as a bare namespace for the import of ``datasketch.minhash``,
    then forgotten, so a later ``import datasketch`` runs the real ``__init__`` as usual."""
    if "datasketch.minhash" not in sys.modules and "datasketch" not in sys.modules:
        spec = importlib.util.find_spec("datasketch")
        if spec is not None and spec.submodule_search_locations:
            bare = importlib.util.module_from_spec(importlib.machinery.ModuleSpec("datasketch", None, is_package=True))
            bare.__path__ = list(spec.submodule_search_locations)
            sys.modules["datasketch"] = bare
            try:
                importlib.import_module("datasketch.minhash")
            finally:
                del sys.modules["datasketch"]
    return importlib.import_module("datasketch.minhash").MinHash


class _Table:
    """A multimap from 64-bit keys to ints under 2**31 (newest first), in flat arrays: open addressing
    over the distinct keys, and a chain per key through the entries. About 26 bytes an entry where a
    dict of Python ints takes over 100."""

    def __init__(self) -> None:
        self.keys = array("Q", bytes(8 * 1024))
        self.heads = array("i", [-1]) * 1024  # slot -> its newest entry, -1 for an empty slot
        self.older = array("i")  # entry -> the entry before it under the same key, -1 at the first
        self.values = array("i")  # entry -> its value
        self.distinct = 0

    def _slot(self, key: int) -> int:
        mask = len(self.keys) - 1
        i = (key ^ (key >> 29)) & mask
        keys, heads = self.keys, self.heads
        while heads[i] != -1 and keys[i] != key:
            i = (i + 1) & mask
        return i

    def get(self, key: int, limit: int) -> list[int]:
        """The newest ``limit`` values under ``key``, oldest first (the order they were added in)."""
        out: list[int] = []
        entry = self.heads[self._slot(key)]
        while entry != -1 and len(out) < limit:
            out.append(self.values[entry])
            entry = self.older[entry]
        out.reverse()
        return out

    def first(self, key: int) -> int | None:
        entry = self.heads[self._slot(key)]
        return None if entry == -1 else self.values[entry]

    def add(self, key: int, value: int) -> None:
        i = self._slot(key)
        if self.heads[i] == -1:
            if 3 * (self.distinct + 1) > 2 * len(self.keys):  # kept under 2/3 full
                self._grow()
                i = self._slot(key)
            self.keys[i] = key
            self.distinct += 1
        self.older.append(self.heads[i])
        self.values.append(value)
        self.heads[i] = len(self.values) - 1

    def _grow(self) -> None:
        keys, heads = self.keys, self.heads
        self.keys = array("Q", bytes(16 * len(keys)))
        self.heads = array("i", [-1]) * (2 * len(heads))
        for key, head in zip(keys, heads):
            if head != -1:
                j = self._slot(key)
                self.keys[j], self.heads[j] = key, head

    def __iter__(self) -> Iterator[int]:
        return (k for k, h in zip(self.keys, self.heads) if h != -1)

    def __contains__(self, key: int) -> bool:
        return self.heads[self._slot(key)] != -1


class _Packed:
    """A list of byte strings kept as one buffer and offsets (no object per item)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.ends = array("Q")

    def append(self, item: bytes) -> None:
        self.data += item
        self.ends.append(len(self.data))

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, i: int) -> bytes:
        return bytes(self.data[self.ends[i - 1] if i else 0 : self.ends[i]])

    def __iter__(self) -> Iterator[bytes]:
        return (self[i] for i in range(len(self)))


class _Ids(_Packed):
    """Item ids, as text."""

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return super().__getitem__(i).decode("utf-8")

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        return (self[i] for i in range(len(self)))


class _Words(_Packed):
    """Per kept request, its sorted word hashes packed (none for a request too short to be indexed);
    iterating gives the indexed requests' only."""

    def __iter__(self) -> Iterator[bytes]:
        return (w for w in super().__iter__() if w)


class Dedup:
    def __init__(self, threshold: float = 0.9, min_words: int = 8, bands: int = BANDS, rows: int = ROWS):
        MinHash = _minhash_class()  # numpy loads only when a run starts
        import numpy as np

        self.threshold = threshold
        self.min_words = min_words
        self.bands, self.rows = bands, rows
        self.num_perm = bands * rows
        self.exact = _Table()  # hash of the folded request -> the kept request it is
        self.counts = {"checked": 0, "exact_duplicate": 0, "near_duplicate": 0, "indexed": 0, "compared": 0}
        self._np = np
        self._minhash = MinHash
        self._permutations = MinHash(num_perm=self.num_perm, seed=SEED).permutations
        self._mix = np.random.RandomState(SEED).randint(1, 2**63, size=rows, dtype=np.uint64) | np.uint64(1)
        # one table per band from the band's hash to the kept requests in that bucket. datasketch's
        # MinHashLSH keeps a set per bucket and a key table (about 2 kB per request, measured); this
        # keeps about 26 bytes a band
        self.buckets = [_Table() for _ in range(bands)]
        self.words = _Words()  # per kept request: its sorted 64-bit word hashes, packed
        self.ids = _Ids()  # per kept request: its item's id, for "same request as ..."

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
        earlier = self.exact.first(key)
        if earlier is not None:
            self.counts["exact_duplicate"] += 1
            return "exact_duplicate", self.ids[earlier]
        index = len(self.ids)
        words = b""
        if len(tokens) >= self.min_words:
            words = sorted({w.encode() for w in tokens})  # type: ignore[assignment]
            mine = {_hash64(w) for w in words}  # type: ignore[arg-type]
            keys = [k ^ salt for k in self._keys(words)]  # type: ignore[arg-type]
            seen: set[int] = set()
            for band, k in zip(self.buckets, keys):
                for other in band.get(k, BUCKET):
                    if other in seen:
                        continue
                    seen.add(other)
                    self.counts["compared"] += 1
                    similar = self._jaccard(mine, other)
                    if similar >= self.threshold:
                        self.counts["near_duplicate"] += 1
                        return "near_duplicate", self.ids[other]
            words = array("Q", sorted(mine)).tobytes()
            for band, k in zip(self.buckets, keys):
                band.add(k, index)
            self.counts["indexed"] += 1
        self.words.append(words)
        self.ids.append(item_id.encode("utf-8"))
        self.exact.add(key, index)
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
