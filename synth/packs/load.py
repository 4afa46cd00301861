"""Finding and reading packs: ``*.pack.yaml``/``*.pack.json`` anywhere under a folder."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from synth.packs.model import Pack
from synth.records import Problem, Registry, ServerSpec
from synth.registry.files import PACK_SUFFIXES as SUFFIXES
from synth.registry.files import read_yaml


def is_pack(path: Path) -> bool:
    return path.name.endswith(SUFFIXES)


@dataclass
class Packs:
    """The packs of a run, by server id, and what was wrong with the files that did not load."""

    by_server: dict[str, Pack] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # server id -> file
    problems: list[Problem] = field(default_factory=list)
    # servers the run leaves out of its data (no pack on an offline run: synth.scenarios.runplan.left_out)
    left_out: list[str] = field(default_factory=list)

    def get(self, server_id: str) -> Pack | None:
        return self.by_server.get(server_id)

    def summary(self, registry: Registry) -> dict[str, object]:
        """What the manifest and card say about packs: which servers had one, and what was wrong."""
        with_pack = sorted(s.id for s in registry.servers if s.id in self.by_server)
        return {
            "servers_with_pack": with_pack,
            "servers_without_pack": sorted(s.id for s in registry.servers if s.id not in self.by_server),
            "servers_left_out": list(self.left_out),
            "tools_served_by_fallback": self.unpacked(registry),
            "files": {k: self.files[k] for k in with_pack},
            "problems": [p.line() for p in self.problems if p.severity == "error"],
        }

    def unpacked(self, registry: Registry) -> dict[str, list[str]]:
        """Server id -> its tools that a pack has no usable entry for (none written, or one with errors):
        the plain fallback writes their conversations. Servers without any pack are not listed."""
        out = {}
        for server in registry.servers:
            pack = self.by_server.get(server.id)
            missing = sorted(t.name for t in server.tools if pack is not None and t.name not in pack.tools)
            if missing:
                out[server.id] = missing
        return out


def read_pack(path: Path, rel: str) -> tuple[Pack | None, list[Problem]]:
    """One pack file, validated; a bad file is a Problem naming the file, the place and the fix."""
    try:
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text) if path.suffix == ".json" else read_yaml(text)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        return None, [
            Problem(
                severity="error",
                file=rel,
                what=f"cannot read the pack: {str(exc).splitlines()[0][:200]}",
                fix="fix the YAML/JSON syntax (synth pack check shows every problem)",
            )
        ]
    if doc is None:
        return None, [
            Problem(severity="error", file=rel, what="empty pack file", fix="write a pack or delete the file")
        ]
    try:
        return Pack.model_validate(doc), []
    except ValidationError as exc:
        out = []
        for err in exc.errors()[:20]:
            pointer = "/" + "/".join(str(x) for x in err["loc"])
            out.append(
                Problem(
                    severity="error",
                    file=rel,
                    server=doc.get("server") if isinstance(doc, dict) else None,
                    pointer=pointer,
                    what=err["msg"],
                    fix="see registry/packs/README.md for the pack format",
                )
            )
        return None, out


# what a process already read and checked (generate opens its run twice: the note on packs, then the run), by the
# file's bytes and the server's spec; a pack is frozen, so one object serves every reader
_READ: dict[tuple[str, str, str], tuple[Pack | None, list[Problem]]] = {}
_CHECKED: dict[tuple[int, str, str], tuple[Pack, list[Problem]]] = {}


def _read_once(path: Path, rel: str) -> tuple[Pack | None, list[Problem]]:
    """``read_pack``, parsed and validated once per process for the same bytes."""
    try:
        key = (path.suffix, rel, hashlib.sha256(path.read_bytes()).hexdigest())
    except OSError:
        return read_pack(path, rel)
    if key not in _READ:
        _READ[key] = read_pack(path, rel)
    pack, problems = _READ[key]
    return pack, list(problems)


def _checked_once(pack: Pack, server: ServerSpec, file: str, check: Any) -> list[Problem]:
    """``check(pack, server, file)``, once per process for the same pack object and server spec."""
    key = (id(pack), file, server.model_dump_json())
    held = _CHECKED.get(key)
    if held is None or held[0] is not pack:
        held = _CHECKED[key] = (pack, check(pack, server, file))
    return list(held[1])


def load_packs(*folders: Path) -> Packs:
    """Every pack under the folders, in sorted order; the first pack for a server wins, later ones are problems."""
    packs = Packs()
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and is_pack(p)):
            if any(part.startswith(".") for part in path.relative_to(folder).parts):
                continue
            rel = path.relative_to(folder).as_posix()
            pack, problems = _read_once(path, rel)
            packs.problems.extend(problems)
            if pack is None:
                continue
            if pack.server in packs.by_server:
                packs.problems.append(
                    Problem(
                        severity="error",
                        file=rel,
                        server=pack.server,
                        what=f"a second pack for {pack.server} (the first is {packs.files[pack.server]})",
                        fix="keep one pack per server",
                    )
                )
                continue
            packs.by_server[pack.server] = pack
            packs.files[pack.server] = rel
    return packs


def usable_packs(registry: Registry, *folders: Path) -> Packs:
    """The packs for a run: loaded, checked against their servers, tools with errors left to the fallback."""
    from synth.packs.check import check_pack

    found = load_packs(*folders)
    servers = {s.id: s for s in registry.servers}
    for server_id in list(found.by_server):
        pack, file = found.by_server[server_id], found.files[server_id]
        server = servers.get(server_id)
        if server is None:
            found.problems.append(
                Problem(
                    severity="error",
                    file=file,
                    server=server_id,
                    what=f"no server {server_id!r} in the registry",
                    fix="set 'server' to the qualifiedName of a server in the folder",
                )
            )
            del found.by_server[server_id]
            continue
        problems = _checked_once(pack, server, file, check_pack)
        found.problems.extend(problems)
        broken = {p.tool for p in problems if p.severity == "error" and p.tool}
        if broken:
            found.by_server[server_id] = pack.model_copy(
                update={"tools": {k: v for k, v in pack.tools.items() if k not in broken}}
            )
    return found


def with_worlds(registry: Registry, packs: Packs) -> Registry:
    """``registry`` with each pack's ``sandbox`` on its server's connection: a pack that declares the world its
    server starts from replaces the entry's own and makes the server fresh per scenario (the pack's values and
    feeds name what is in that world), so a user's own server gets a world without an edit of its entry."""
    servers = []
    for server in registry.servers:
        pack = packs.by_server.get(server.id)
        if pack is not None and pack.sandbox is not None and server.connection is not None:
            connection = server.connection.model_copy(update={"sandbox": pack.sandbox, "stateful": True})
            server = server.model_copy(update={"connection": connection})
        servers.append(server)
    return registry.model_copy(update={"servers": tuple(servers)})


PACK_MODEL = "gpt-4.1-mini"  # the model the fix line prices (synth pack build's default)


def fix_line(servers: Path, without: list[str]) -> str:
    """The command that gives ``without`` their packs, with its cost, and the road through generate."""
    return (
        f"Fix: synth pack build --servers {servers} --model {PACK_MODEL} ({pack_cost(servers, without)}), "
        "read the packs, then run again; or let generate build them: add --model M --build-packs."
    )


def pack_cost(servers: Path, without: list[str]) -> str:
    """The requests and dollars of building the missing packs with PACK_MODEL, said in a few words."""
    from synth.config import PRICES
    from synth.errors import SynthError
    from synth.packs.build import estimate
    from synth.registry import load_registry

    try:
        registry = load_registry(servers)
    except SynthError:
        return "cost unknown: the registry no longer loads"
    todo = [s for s in registry.servers if s.id in set(without)]
    e = estimate(todo, PACK_MODEL, PRICES[PACK_MODEL])
    return f"about {e['requests']} requests, about ${e['usd']:.2f}"
