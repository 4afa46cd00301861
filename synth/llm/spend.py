"""Tokens and dollars, by role and model, for the manifest and the budget."""

from __future__ import annotations

import threading

from synth.llm.base import ChatResponse


class Spend:
    """Tokens by role and model, as responses arrive. Cached answers count (they made the data), each
    distinct answer once (its ``key``): two scenarios that sent the same request used one answer, sent
    once. So the manifest's tokens are what making the data from an empty cache sends, whatever the
    cache held, the order or the concurrency (a set of keys: about 100 bytes per answer)."""

    def __init__(self, prices: dict[str, tuple[float, float]]):
        self.prices = prices
        self.by: dict[str, dict[str, int]] = {}
        self.seen: set[str] = set()  # keys of the answers counted
        self.lock = threading.Lock()

    def add(self, responses: list[ChatResponse]) -> None:
        with self.lock:
            for r in responses:
                if r.key:
                    if r.key in self.seen:
                        continue
                    self.seen.add(r.key)
                row = self.by.setdefault(r.model or "unknown", {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
                row["calls"] += 1
                row["prompt_tokens"] += r.usage.prompt_tokens
                row["completion_tokens"] += r.usage.completion_tokens

    def usd(self) -> float:
        with self.lock:
            total = 0.0
            for key, row in self.by.items():
                model = key.split(":", 1)[-1]
                price_in, price_out = self.prices.get(model, (0.0, 0.0))
                total += (row["prompt_tokens"] * price_in + row["completion_tokens"] * price_out) / 1e6
            return total
