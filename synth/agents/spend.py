"""Spend moved to synth.llm.spend (the backends count it); this name stays for the agents that import it."""

from synth.llm.spend import Spend

__all__ = ["Spend"]
