"""Which registry entries run synth's own store from its seed: the command line alone decides, so
this module needs nothing of the MCP SDK (an offline run asks it for every conversation of a store
entry, and loading the SDK for that took 30 MB)."""

from __future__ import annotations

from pathlib import Path

from synth.records import Connection


def store_seed(connection: Connection) -> int | None:
    """The seed when ``connection`` runs synth's own store from its seed (``synth serve store [--seed N]``,
    also ``python -m synth.cli.app serve store``), else None.

    That server is served in this process: same code, same protocol, same result text, no process to
    start per scenario. A store on an absolute ``--db`` is a file someone chose, and a relative one
    persists in the working folder unless each scenario gets a fresh folder (stateful): both run as given.
    """
    if connection.type != "stdio":
        return None
    words = [Path(connection.command or "").name, *connection.args]
    start = next(
        (
            i
            for i in range(1, len(words) - 1)
            if words[i : i + 2] == ["serve", "store"] and any("synth" in w for w in words[:i])
        ),
        None,
    )
    if start is None:
        return None
    options = _options(words[start + 2 :])
    if "--http" in options or ("--db" in options and (Path(options["--db"]).is_absolute() or not connection.stateful)):
        return None
    try:
        return int(options.get("--seed", "0"))
    except ValueError:
        return None


def _options(words: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, word in enumerate(words):
        if word.startswith("--"):
            name, _, value = word.partition("=")
            out[name] = value or (words[i + 1] if i + 1 < len(words) else "")
    return out
