"""The offline simulator: argument values (``values``) and tool results (``results``) from a tool's
schema and words, with no server and no model."""
