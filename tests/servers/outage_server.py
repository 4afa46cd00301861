"""A real MCP server whose upstream is down: every tool call returns an error result (``isError``), as a
live server does when its API key expired or its backend is unreachable. Run: ``python outage_server.py``."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

mcp = MCPServer("forecast", version="0.3.0", instructions="Weather forecasts from the Open Skies API.")


@mcp.tool()
def get_forecast(
    city: Annotated[str, Field(description="City name, e.g. Porto")],
    days: Annotated[int, Field(description="How many days ahead, 1 to 7", ge=1, le=7)] = 3,
) -> dict:
    """The daily forecast for a city."""
    raise ToolError("Open Skies API: 503 Service Unavailable (upstream timeout); try again later")


@mcp.tool()
def get_alerts(region: Annotated[str, Field(description="Region or city name, e.g. Lisbon")]) -> dict:
    """Active weather alerts for a region."""
    raise ToolError("Open Skies API: 503 Service Unavailable (upstream timeout); try again later")


if __name__ == "__main__":
    mcp.run()
