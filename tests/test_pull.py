"""``synth registry pull`` against a loopback imitation of the Smithery API (tests/smithery_server.py).

The served definitions are the project's own ``registry/*.json``, with the real service's quirks
added: several pages, ``tools`` null or missing, ``useCount`` as a string, a 429 and a 500 before
success, a listed name the detail endpoint does not know, 401 without the right key.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from smithery_server import SmitheryServer
from typer.testing import CliRunner

from synth.cli.app import app
from synth.errors import RegistryError
from synth.registry import load_registry
from synth.registry.pull import PullReport, assign_files, file_stem, pull, with_pulled
from synth.registry.smithery import KeyRefused
from synth.rundir import read_jsonl

REGISTRY = Path(__file__).parents[1] / "registry"
KEY = "sk-smithery-test-5f3a9c"
FILES = [
    "exa.json",
    "smithery-ai__national-weather-service.json",
    "kazuph__mcp-fetch.json",
    "devabdultech__hn-mcp.json",
    "mikechao__metmuseum-mcp.json",
    "anirbanbasu__frankfurtermcp.json",
    "geobio__wikipedia-mcp.json",
    "alan5543__flight-search-mcp.json",
    "fisher1006__time-mcp-4.json",
    "Ryan0204__github-repo-mcp.json",
    "MaheshtheDev__gcal-mcp.json",
    "nickclyde__duckduckgo-mcp-server.json",
]
FAST = {"backoff": 0.01}  # retry waits of a few milliseconds (429s say Retry-After: 0)
runner = CliRunner()


def _detail(file: str) -> dict[str, Any]:
    return json.loads((REGISTRY / file).read_text(encoding="utf-8"))


def _served() -> list[dict[str, Any] | tuple[str, bytes]]:
    """Twelve real servers with the real service's quirks; exa is served as its file's exact bytes."""
    details: list[dict[str, Any] | tuple[str, bytes]] = [("exa", (REGISTRY / "exa.json").read_bytes())]
    for file in FILES[1:]:
        details.append(_detail(file))
    nws, fetch, hn, met, frank = (d for d in details[1:6] if isinstance(d, dict))
    nws["connections"] = [{"type": "http", "deploymentUrl": "https://server.example/nws/mcp", "configSchema": {}}]
    frank["connections"] = [{"type": "http", "url": "https://server.example/frank/mcp", "configSchema": {}}]
    fetch["tools"] = None
    del hn["tools"]
    met["useCount"] = "12345"
    return details


def _faults() -> dict[str, list[int | str]]:
    return {"@smithery-ai/national-weather-service": [429], "@anirbanbasu/frankfurtermcp": [500]}


@pytest.fixture
def registry() -> SmitheryServer:
    server = SmitheryServer(_served(), key=KEY, faults=_faults(), max_page_size=5)
    server.summaries.insert(7, {"qualifiedName": "@ghost/gone", "displayName": "Gone", "useCount": 3})
    with server:
        yield server


def _run(out: Path, server: SmitheryServer, key: str = KEY, **options: Any) -> PullReport:
    return asyncio.run(pull(out, base_url=server.base_url, key=key, **{**FAST, **options}))


def _without_pulled(text: str) -> str:
    """The file as served: the inserted ``"pulled": {...},`` (and the spacing copied before it) taken out."""
    return re.sub(r'^\{\s*"pulled": \{"from": "[^"]*", "at": "[^"]*"\},', "{", text, count=1)


def test_pull_writes_each_server_as_served(registry: SmitheryServer, tmp_path: Path) -> None:
    report = _run(tmp_path, registry)

    assert (report.count("pulled"), report.count("skipped"), report.count("failed")) == (10, 2, 1)
    assert report.closing_line().startswith(
        f"pulled 10 of 13 servers into {tmp_path}, skipped 2 (no tools listed: 2), failed 1 (HTTP 404: 1)"
    )
    skipped = {o.name: o.reason for o in report.outcomes if o.status == "skipped"}
    assert "tools is null" in skipped["@kazuph/mcp-fetch"] and "no tools key" in skipped["@devabdultech/hn-mcp"]
    (failed,) = [o for o in report.outcomes if o.status == "failed"]
    assert failed.name == "@ghost/gone" and "HTTP 404" in failed.reason and "/servers/@ghost%2Fgone" in failed.reason
    # the 429 (Retry-After: 0) and the 500 were retried once each, then succeeded
    assert registry.count("/servers/@smithery-ai/national-weather-service") == 2
    assert registry.count("/servers/@anirbanbasu/frankfurtermcp") == 2
    assert report.retries == 2
    assert registry.count("/servers") == 3  # three pages of five

    written = sorted(p.name for p in tmp_path.iterdir())
    expected = sorted(f for f in FILES if f not in ("kazuph__mcp-fetch.json", "devabdultech__hn-mcp.json"))
    assert written == expected  # the shipped registry's own names, and no temporary file left
    for file in written:
        text = (tmp_path / file).read_text(encoding="utf-8")
        served = registry.bodies[json.loads(text)["qualifiedName"]].decode("utf-8")
        assert _without_pulled(text).rstrip("\n") == served.rstrip("\n")  # every served byte kept
        assert json.loads(text)["tools"] == json.loads(served)["tools"]
        assert KEY not in text
    exa = json.loads((tmp_path / "exa.json").read_text(encoding="utf-8"))
    assert exa["pulled"]["from"] == f"{registry.base_url}/servers/exa"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", exa["pulled"]["at"])
    met = json.loads((tmp_path / "mikechao__metmuseum-mcp.json").read_text(encoding="utf-8"))
    assert met["useCount"] == "12345"
    assert met["pulled"]["from"] == f"{registry.base_url}/servers/@mikechao%2Fmetmuseum-mcp"


def test_names_are_sent_with_the_slash_encoded(registry: SmitheryServer, tmp_path: Path) -> None:
    _run(tmp_path, registry, limit=3)
    assert "/servers/@smithery-ai%2Fnational-weather-service" in registry.raw_paths
    # the imitation, like the real API, also answers a raw slash
    with httpx2.Client(headers={"Authorization": f"Bearer {KEY}"}) as client:
        assert client.get(f"{registry.base_url}/servers/@kazuph/mcp-fetch").status_code == 200


def test_pulled_folder_loads_with_connections_and_generates(
    registry: SmitheryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMITHERY_API_KEY", KEY)
    folder = tmp_path / "pulled"
    result = runner.invoke(app, ["registry", "pull", "--base-url", registry.base_url, "--out", str(folder)])
    assert result.exit_code == 0, result.output
    assert "pulled 10 of 13 servers" in result.output and "skipped 2 (no tools listed: 2)" in result.output
    assert "failed 1 (HTTP 404: 1)" in result.output and "failed @ghost/gone: HTTP 404" in result.output
    assert KEY not in result.output

    loaded = load_registry(folder)
    assert len(loaded.servers) == 10 and not loaded.skipped_servers
    by_id = {s.id: s for s in loaded.servers}
    assert by_id["@smithery-ai/national-weather-service"].connection.url == "https://server.example/nws/mcp"
    assert by_id["@anirbanbasu/frankfurtermcp"].connection.url == "https://server.example/frank/mcp"

    run = tmp_path / "run"
    # pulled servers have no packs: --allow-fallback lets the fallback write them (issue 39)
    result = runner.invoke(
        app, ["generate", "--servers", str(folder), "-n", "20", "--out", str(run), "--allow-fallback"]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["registry"]["servers"] == 10
    assert len(list(read_jsonl(run / "conversations.jsonl"))) >= 15


def test_a_refused_key_stops_the_pull_with_one_line(
    registry: SmitheryServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMITHERY_API_KEY", "sk-wrong-key-77")
    result = runner.invoke(app, ["registry", "pull", "--base-url", registry.base_url, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "refused the key in SMITHERY_API_KEY" in result.output and "export SMITHERY_API_KEY=" in result.output
    assert "sk-wrong-key-77" not in result.output
    assert len(result.output.strip().splitlines()) <= 3  # one (wrapped) line, no traceback

    with pytest.raises(KeyRefused, match="SMITHERY_API_KEY is not set"):
        _run(tmp_path / "o", registry, key="")


@pytest.mark.parametrize("key", ["sk-é-key-1234", "sk-key\n-1234", "sk key 1234"])
def test_a_key_a_header_cannot_carry_is_refused_without_showing_it(key: str, tmp_path: Path) -> None:
    with pytest.raises(KeyRefused, match="cannot carry") as caught:
        asyncio.run(pull(tmp_path / "o", base_url="http://127.0.0.1:9", key=key))
    assert key not in str(caught.value) and not (tmp_path / "o").exists()


def test_a_401_on_a_detail_stops_everything(tmp_path: Path) -> None:
    details = [_detail(f) for f in FILES[:4]]
    with (
        SmitheryServer(details, key=KEY, faults={"@kazuph/mcp-fetch": [401]}) as server,
        pytest.raises(KeyRefused, match="HTTP 401 from .*/servers/@kazuph%2Fmcp-fetch"),
    ):
        _run(tmp_path, server, concurrency=1)
    assert not list(tmp_path.glob(".*.part"))


def test_the_key_never_reaches_a_message_even_when_echoed(tmp_path: Path) -> None:
    details = [_detail(f) for f in FILES[:3]]
    with SmitheryServer(details, key=KEY, faults={"exa": ["echo"] * 3}) as server:
        report = _run(tmp_path, server, max_attempts=2)
    (failed,) = [o for o in report.outcomes if o.status == "failed"]
    assert failed.name == "exa" and "HTTP 500" in failed.reason and "(2 attempts)" in failed.reason
    assert "Bearer ***" in failed.reason  # the echoed header, scrubbed
    everything = json.dumps([o.__dict__ for o in report.outcomes]) + " ".join(report.notes) + report.closing_line()
    assert KEY not in everything
    assert all(KEY not in p.read_text(encoding="utf-8") for p in tmp_path.iterdir())


def test_every_request_has_a_timeout(tmp_path: Path) -> None:
    details = [_detail(f) for f in FILES[:2]]
    with SmitheryServer(details, key=KEY, faults={"exa": ["slow"]}) as server:
        started = time.monotonic()
        report = _run(tmp_path, server, timeout=0.2, max_attempts=1)
    assert time.monotonic() - started < 1.0
    (failed,) = [o for o in report.outcomes if o.status == "failed"]
    assert failed.name == "exa" and failed.short == "timeout" and "did not answer in time" in failed.reason
    assert report.count("pulled") == 1


def test_out_must_be_a_folder(registry: SmitheryServer, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(RegistryError, match="is a file; give a folder"):
        _run(tmp_path / "file", registry)


def test_limit_spans_pages_and_counts_in_listing_order(registry: SmitheryServer, tmp_path: Path) -> None:
    report = _run(tmp_path, registry, limit=7)
    assert [o.name for o in report.outcomes] == [s["qualifiedName"] for s in registry.summaries[:7]]
    assert registry.count("/servers") == 2  # asked for 7 a page, the server gives at most 5


def test_query_is_sent_and_filters(registry: SmitheryServer, tmp_path: Path) -> None:
    report = _run(tmp_path, registry, query="duckduckgo")
    assert [o.name for o in report.outcomes] == ["@nickclyde/duckduckgo-mcp-server"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nickclyde__duckduckgo-mcp-server.json"]


def test_listing_trouble(tmp_path: Path) -> None:
    details = [_detail(f) for f in FILES[:6]]
    with SmitheryServer(details, key=KEY, faults={"page:2": [503] * 5}, max_page_size=3) as server:
        report = _run(tmp_path / "a", server, max_attempts=2)
    assert [o.name for o in report.outcomes] == [d["qualifiedName"] for d in details[:3]]  # page 1 only
    assert report.count("pulled") == 3
    assert any(n.startswith("listing stopped at page 2: HTTP 503") for n in report.notes)
    with (
        SmitheryServer(details, key=KEY, faults={"page:1": [503] * 5}) as server,
        pytest.raises(RegistryError, match="cannot list the servers of .*HTTP 503"),
    ):
        _run(tmp_path / "b", server, max_attempts=2)
    with SmitheryServer(details, key=KEY) as server:
        server.answer = lambda path, query, auth: (200, {}, b'{"items": []}')  # type: ignore[method-assign]
        with pytest.raises(RegistryError, match='has no "servers" list .*Smithery-compatible'):
            _run(tmp_path / "d", server)
    with SmitheryServer([], key=KEY) as server:
        result = runner.invoke(
            app,
            ["registry", "pull", "--base-url", server.base_url, "--out", str(tmp_path / "c")],
            env={"SMITHERY_API_KEY": KEY},
        )
    assert result.exit_code == 1 and "listed no servers" in result.output


@pytest.mark.parametrize(
    "name",
    [
        "../../etc/passwd",
        "@a/..",
        "..",
        "/abs/path",
        "a\\b",
        "C:evil",
        ".hidden",
        "@x/y.pack",
        "@ü/名前",
        "",
        "@" + "a" * 300,
        "@o/r\x00x",
        "@o/ r e p o ",
    ],
)
def test_no_name_leaves_the_folder(name: str, tmp_path: Path) -> None:
    stem = file_stem(name)
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*|_[A-Za-z0-9._-]*", stem), stem
    assert not stem.lower().endswith(".pack") and len(stem) <= 120
    assert (tmp_path / f"{stem}.json").resolve().parent == tmp_path.resolve()


def test_names_that_clash_are_never_overwritten(tmp_path: Path) -> None:
    assert file_stem("@owner/repo") == "owner__repo" and file_stem("exa") == "exa"
    (tmp_path / "old__server.json").write_text('{"qualifiedName": "@someone/else", "tools": []}', encoding="utf-8")
    (tmp_path / "same__server.json").write_text('{"qualifiedName": "@same/server", "tools": []}', encoding="utf-8")
    files, notes = assign_files(["@a/b c", "@a/b_c", "@A/B_C", "@old/server", "@same/server"], tmp_path)
    assert files["@a/b c"] == "a__b_c.json" and files["@same/server"] == "same__server.json"
    assert len(set(map(str.lower, files.values()))) == 5
    assert re.fullmatch(r"a__b_c-[0-9a-f]{8}\.json", files["@a/b_c"])
    assert re.fullmatch(r"old__server-[0-9a-f]{8}\.json", files["@old/server"])
    assert len(notes) == 3 and "@a/b_c and @a/b c both map to a__b_c.json" in notes[0]


def test_clashing_servers_both_written_by_pull(tmp_path: Path) -> None:
    one, two = _detail(FILES[1]), _detail(FILES[4])
    one["qualifiedName"], two["qualifiedName"] = "@same/name", "@Same/Name"  # one file on macOS
    with SmitheryServer([one, two], key=KEY) as server:
        report = _run(tmp_path, server)
    assert report.count("pulled") == 2 and len(list(tmp_path.glob("[sS]ame__[nN]ame*.json"))) == 2
    assert report.notes and "both map to same__name.json" in report.notes[0]


def test_with_pulled_keeps_every_served_byte() -> None:
    body = b'{"tools":[{"name":"t","inputSchema":{"maximum":1e400,"x":1.10,"s":"\\u00e9"}}]}'
    out = with_pulled(body, "http://r/servers/t", "2026-01-01T00:00:00Z").decode("utf-8")
    assert out == '{"pulled": {"from": "http://r/servers/t", "at": "2026-01-01T00:00:00Z"},' + body.decode()[1:] + "\n"
    pretty = b'{\n  "tools": []\n}\n'
    assert with_pulled(pretty, "u", "t") == b'{\n  "pulled": {"from": "u", "at": "t"},\n  "tools": []\n}\n'
    assert json.loads(with_pulled(b"{}", "u", "t")) == {"pulled": {"from": "u", "at": "t"}}
