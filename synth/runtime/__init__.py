"""Tool runtimes: what answers the executor's calls. The executor calls ``runtime.call`` and never knows which.

- ``pack``: a server pack's result templates (offline), falling back to ``simulated`` for tools without an entry;
- ``simulated``: the offline schema simulator (results shaped by what the tool does);
- the LLM tool simulator (synth.agents) and live MCP servers plug in behind the same protocol.
"""
