"""Live MCP servers: the client (the only module that imports the SDK's client side) and the pool."""
