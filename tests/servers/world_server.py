"""A test server for live limits and sandboxes: results of any size, a call that sleeps, a look at where it
runs (its folder, a file the sandbox wrote, the environment it was given), a destructive write, a failure."""

import os
import sys
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

mcp = MCPServer("world")
READ = ToolAnnotations(readOnlyHint=True)


@mcp.tool(annotations=READ)
def big(size: int) -> str:
    """A text of ``size`` characters."""
    return ("lorem ipsum " * (size // 12 + 1))[:size]


@mcp.tool(annotations=READ)
def slow(seconds: float) -> str:
    """Answers after ``seconds``."""
    time.sleep(seconds)
    return "done"


@mcp.tool(annotations=READ)
def where(name: str) -> dict:
    """The folder the server runs in, the text of file ``name`` there, and some of its environment."""
    here = Path.cwd()
    text = (here / name).read_text() if (here / name).exists() else None
    env = {k: os.environ.get(k) for k in ("HOME", "PATH", "NOTES")}
    return {"cwd": str(here), "file": text, "env": env, "home_file": str(Path(os.environ.get("HOME", "/")) / "x")}


@mcp.tool(annotations=READ)
def stamp(name: str) -> dict:
    """The modification time (seconds since the epoch) and permission bits of ``name`` in the server's folder."""
    info = (Path.cwd() / name).stat()
    return {"mtime": info.st_mtime, "mode": oct(info.st_mode & 0o777)}


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def erase(path: str) -> str:
    """Deletes a file."""
    Path(path).unlink(missing_ok=True)
    return f"erased {path}"


@mcp.tool(annotations=READ)
def lookup(key: str) -> str:
    """Fails for every key: a server whose calls land on nothing."""
    raise ToolError(f"no entry with key {key!r}: not found")


if __name__ == "__main__":
    print("world server ready", file=sys.stderr)
    mcp.run()
