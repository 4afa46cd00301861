"""synth: MCP server definitions in, tool-use datasets out."""

__version__ = "0.1.0"
