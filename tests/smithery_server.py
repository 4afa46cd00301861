"""A loopback imitation of the Smithery registry API, for tests and benchmarks.

    with SmitheryServer(details, key="sk-test", faults={"@a/b": [429, 500]}) as server:
        ...pull from server.base_url...
        assert server.count("/servers/@a/b") == 3

    GET /servers?q=&page=&pageSize=   the summaries of ``details``, in order, paged like the real API
    GET /servers/{qualifiedName}      the detail, as served bytes; the name's slash may be raw or %2F

A missing or wrong ``Authorization: Bearer <key>`` gets 401; an unknown name 404. ``faults`` maps a
name (or ``"page:N"``) to the statuses its first requests get before it succeeds: 429 carries
``Retry-After: 0``; ``"echo"`` is a 500 whose body repeats the Authorization header, as a careless
server might; ``"slow"`` answers only after a second. Runs stdlib ``http.server`` in a background thread.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlsplit

SUMMARY_KEYS = ("qualifiedName", "displayName", "description", "useCount", "homepage", "createdAt")


class SmitheryServer:
    """``details``: server detail objects (dicts) or ``(qualifiedName, raw body bytes)`` pairs."""

    def __init__(
        self,
        details: Iterable[dict[str, Any] | tuple[str, bytes]],
        *,
        key: str | None = "sk-test",
        faults: dict[str, list[int | str]] | None = None,
        max_page_size: int = 100,
    ) -> None:
        self.bodies: dict[str, bytes] = {}
        self.summaries: list[dict[str, Any]] = []
        for item in details:
            name, body = item if isinstance(item, tuple) else (item["qualifiedName"], _compact(item))
            self.bodies[name] = body
            obj = json.loads(body)
            self.summaries.append({k: obj[k] for k in SUMMARY_KEYS if k in obj} | {"qualifiedName": name})
        self.key = key
        self.faults = {k: list(v) for k, v in (faults or {}).items()}
        self.max_page_size = max_page_size
        self.requests: list[tuple[str, str]] = []  # (decoded path, Authorization header)
        self.raw_paths: list[str] = []  # as sent, before percent-decoding
        self._lock = threading.Lock()
        self._httpd = _Quiet(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def count(self, path: str) -> int:
        return sum(p == path for p, _ in self.requests)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _next_fault(self, key: str) -> int | str | None:
        with self._lock:
            queue = self.faults.get(key)
            return queue.pop(0) if queue else None

    def answer(self, path: str, query: dict[str, list[str]], auth: str) -> tuple[int, dict[str, str], bytes]:
        """(status, headers, body) for one GET; the HTTP plumbing is in ``_handler``."""
        with self._lock:
            self.requests.append((path, auth))
        if self.key is not None and auth != f"Bearer {self.key}":
            return 401, {}, b'{"error": "Unauthorized: missing or invalid API key"}'
        if path == "/servers":
            page = int(query.get("page", ["1"])[0])
            fault = self._next_fault(f"page:{page}")
            return _fault(fault, auth) if fault is not None else (200, {}, self._page(query, page))
        if not path.startswith("/servers/"):
            return 404, {}, b'{"error": "Not found"}'
        name = path[len("/servers/") :]
        fault = self._next_fault(name)
        if fault is not None:
            return _fault(fault, auth)
        if name not in self.bodies:
            return 404, {}, json.dumps({"error": f"Server {name} not found"}).encode()
        return 200, {}, self.bodies[name]

    def _page(self, query: dict[str, list[str]], page: int) -> bytes:
        size = min(self.max_page_size, int(query.get("pageSize", ["10"])[0]))
        text = query.get("q", [""])[0].lower()
        found = [s for s in self.summaries if text in json.dumps(s).lower()]
        total_pages = max(1, math.ceil(len(found) / size))
        servers = found[(page - 1) * size : page * size]
        return _compact(
            {
                "servers": servers,
                "pagination": {
                    "currentPage": page,
                    "pageSize": size,
                    "totalPages": total_pages,
                    "totalCount": len(found),
                },
            }
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        registry = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # the stdlib's name
                parts = urlsplit(self.path)
                with registry._lock:
                    registry.raw_paths.append(parts.path)
                status, headers, body = registry.answer(
                    unquote(parts.path), parse_qs(parts.query), self.headers.get("Authorization", "")
                )
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        return Handler


class _Quiet(ThreadingHTTPServer):
    """A client that gave up (a timeout test) is not the server's error: no traceback for it."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _compact(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _fault(fault: int | str, auth: str) -> tuple[int, dict[str, str], bytes]:
    if fault == "slow":
        time.sleep(1.0)
        return 200, {}, b"{}"
    if fault == "echo":
        return 500, {}, json.dumps({"error": "internal error", "request_authorization": auth}).encode()
    if fault == 429:
        return 429, {"Retry-After": "0"}, b'{"error": "Too many requests"}'
    return int(fault), {}, json.dumps({"error": f"status {fault}"}).encode()
