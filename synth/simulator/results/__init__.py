"""Plausible tool results, consistent with the call, for tools without a pack."""
