"""Tokens and dollars, by role and model, for the manifest and the budget."""

from __future__ import annotations

import threading

from synth.llm.base import ChatResponse


class Spend:
    """Tokens by role and model, as responses arrive (cached answers count: they made the data)."""

    def __init__(self, prices: dict[str, tuple[float, float]]):
        self.prices = prices
        self.by: dict[str, dict[str, int]] = {}
        self.lock = threading.Lock()

    def add(self, responses: list[ChatResponse]) -> None:
        with self.lock:
            for r in responses:
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
