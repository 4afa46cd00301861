"""Shared fixtures, and a guard that keeps every test off the network (loopback is allowed)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
TINY = FIXTURES / "tiny_registry"

# the npm reference servers examples/servers/install.sh puts in the project (skipped by their tests when absent)
_NPM_BIN = Path(__file__).parent.parent / ".mcp-servers" / "node_modules" / ".bin"
if _NPM_BIN.is_dir():
    os.environ["PATH"] = f"{_NPM_BIN}{os.pathsep}{os.environ.get('PATH', '')}"

_real_connect = socket.socket.connect


def _guarded_connect(self, address):  # type: ignore[no-untyped-def]
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and not (host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")):
        raise RuntimeError(f"tests must not touch the network (tried {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


def content(path: Path) -> bytes:
    """A file's bytes, uncompressed when it is a gzip run file, so a check for a secret reads what it holds."""
    import gzip

    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


@pytest.fixture(scope="session")
def tiny_registry() -> Path:
    """Five real servers, two with packs. Runs on it pass allow_fallback (--allow-fallback): the three without a
    pack are written by the plain fallback on purpose, the pipeline these tests check (a default run leaves
    them out of the data: issue 39)."""
    return TINY


@pytest.fixture(scope="session")
def store_registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry of synth's store alone: its shipped entry and pack."""
    import shutil

    shipped = Path(__file__).parents[1] / "registry"
    reg = tmp_path_factory.mktemp("store-registry")
    shutil.copy(shipped / "synth__store.json", reg)
    (reg / "packs").mkdir()
    shutil.copy(shipped / "packs" / "synth__store.pack.yaml", reg / "packs")
    return reg
