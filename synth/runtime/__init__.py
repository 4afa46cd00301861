"""Tool runtimes: what answers the executor's calls. The executor calls ``runtime.call`` and never knows which.

- ``pack``: a server pack's result templates (offline), falling back to the schema simulator for tools without an entry;
- ``live``: the real server, over MCP;
- the offline schema simulator (synth.runtime.simulated: results shaped by what the tool does),
- the LLM tool simulator (synth.agents) plugs in behind the same protocol.
"""
