"""Scenarios: which server, which tools in which order, how they chain; used by every author."""
