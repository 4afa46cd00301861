#!/usr/bin/env bash
# Installs the five reference MCP servers that examples/servers/*.json run: the npm ones into a project-local
# prefix (.mcp-servers/, nothing global), the PyPI ones into the active Python environment. Then put the npm
# prefix on PATH:  export PATH="$PWD/.mcp-servers/node_modules/.bin:$PATH"
set -euo pipefail
cd "$(dirname "$0")/../.."
if command -v npm >/dev/null; then
  npm install --prefix .mcp-servers --no-audit --no-fund --loglevel=error \
    @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/server-memory@2026.8.31 \
    @modelcontextprotocol/server-everything@2026.8.31 \
    || echo "npm install failed: the filesystem, memory and everything servers are not installed (their tests skip)" >&2
else
  echo "npm not found: the filesystem, memory and everything servers are not installed (their tests skip)" >&2
fi
python -m pip install -q "mcp-server-git==2026.10.19" "mcp-server-time==2026.10.19" \
  || echo "pip install failed: the git and time servers are not installed (their tests skip)" >&2
