"""The store's MCPMark-style tasks: gold calls replayed, the task text, ``verify.py``."""
