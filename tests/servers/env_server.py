"""A server that tells which environment variables it was started with (names only, and DEMO's value)."""

import os

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("env")


@mcp.tool()
def environment() -> dict:
    """Names of the variables this process sees."""
    return {"names": sorted(os.environ), "DEMO": os.environ.get("DEMO")}


if __name__ == "__main__":
    mcp.run()
