"""A client of the Smithery registry HTTP API (or anything that speaks it), for ``synth registry pull``.

    GET {base}/servers?q=&page=&pageSize=   -> {"servers": [{qualifiedName, ...}], "pagination": {...}}
    GET {base}/servers/{qualifiedName}      -> the server's detail (tools, connections, ...)

The key goes in ``Authorization: Bearer`` and nowhere else: every reason this module produces
passes through ``scrub`` so that a server echoing the header back cannot put it in a message.
429, 5xx, timeouts, dropped connections and cut-off bodies are retried with the project's one
policy (``synth.retry``, Retry-After honoured); a 401 stops the whole pull (``KeyRefused``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import quote

import httpx2

from synth.errors import RegistryError
from synth.retry import RETRYABLE, RetryPolicy, status_kind

DEFAULT_BASE_URL = "https://api.smithery.ai"
KEY_ENV = "SMITHERY_API_KEY"
MAX_PAGE_SIZE = 100  # the API's ceiling
TIMEOUT = 30.0  # seconds for each of connect, read, write and pool wait, on every request
_SNIPPET = 160  # characters of an error body worth quoting


class KeyRefused(RegistryError):
    """The registry said 401 (or the key cannot even be sent): no server can be pulled, so the pull stops."""


class InvalidBody(Exception):
    """A 2xx whose body is not the JSON object the API promises (cut off, HTML, a list, ...)."""


@dataclass(frozen=True)
class ApiFailure(Exception):
    """A request that failed for good: ``short`` groups failures in the closing line, ``reason`` says
    what happened and what to try."""

    short: str
    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class Fetched:
    """One 2xx answer: the URL asked (no key in it), the body as served, and its parsed object."""

    url: str
    body: bytes
    data: dict[str, Any]


def scrub(text: str, key: str) -> str:
    """``text`` with the key (and its Bearer header form) replaced, for any line a person may see."""
    return text.replace(key, "***") if key else text


def detail_path(name: str) -> str:
    """``/servers/{name}`` with the name's slash sent as %2F, as the API asks (``@`` stays readable)."""
    return "/servers/" + quote(name, safe="@")


def _kind(exc: BaseException) -> str:
    if isinstance(exc, httpx2.HTTPStatusError):
        return status_kind(exc.response.status_code)
    if isinstance(exc, httpx2.TimeoutException):
        return "timeout"
    if isinstance(exc, httpx2.TransportError):
        return "connection"
    if isinstance(exc, InvalidBody):
        return "invalid_response"
    return "other"


def _retryable(exc: BaseException) -> bool:
    return _kind(exc) in RETRYABLE


_ADVICE = {
    "not_found": "the registry does not know this name (renamed or removed?); check the name with --query",
    "auth": "the key may not be allowed to read this server; check its permissions on smithery.ai",
    "rate_limit": "the registry kept rate-limiting; wait a minute and pull again (lower --concurrency)",
    "server_error": "the registry kept failing; try again later",
    "timeout": "the registry did not answer in time; try again later or check the network",
    "connection": "could not reach the registry; check --base-url and the network",
    "invalid_response": "the registry's answer is not a JSON object; try again later",
    "bad_request": "the registry rejected the request; check --base-url and --query",
}


class SmitheryClient:
    """Async client of one registry; use as ``async with SmitheryClient(base, key) as api``."""

    def __init__(
        self,
        base_url: str,
        key: str,
        *,
        concurrency: int = 8,
        max_attempts: int = 5,
        max_wait: float = 120.0,
        backoff: float = 0.5,
        timeout: float = TIMEOUT,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise RegistryError(
                f"--base-url {base_url!r} is not an http(s) URL; use e.g. {DEFAULT_BASE_URL} or http://127.0.0.1:8080"
            )
        if key and not (key.isascii() and key.isprintable() and " " not in key):
            raise KeyRefused(
                f"{KEY_ENV} holds characters an HTTP header cannot carry (spaces, line breaks or "
                "non-ASCII); copy the key again, `export SMITHERY_API_KEY=<key>` and run again"
            )
        self.base_url = base_url.rstrip("/")
        self.retries = 0
        self._key = key
        headers = {"Accept": "application/json", "User-Agent": "synth-registry-pull"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        self._client = httpx2.AsyncClient(
            headers=headers, timeout=httpx2.Timeout(timeout), limits=limits, follow_redirects=True
        )
        self._policy = RetryPolicy(
            retryable=_retryable,
            max_attempts=max_attempts,
            max_wait=max_wait,
            backoff=backoff,
            on_retry=self._count_retry,
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._client.aclose()

    def _count_retry(self, exc: BaseException) -> None:
        self.retries += 1

    async def list_page(self, page: int, page_size: int, query: str | None) -> Fetched:
        """One page of the server list."""
        params: dict[str, Any] = {"page": page, "pageSize": page_size}
        if query:
            params["q"] = query
        return await self._get(f"{self.base_url}/servers", params)

    async def detail(self, name: str) -> Fetched:
        """The detail of one server, by its qualifiedName."""
        return await self._get(self.base_url + detail_path(name), None)

    async def _get(self, url: str, params: dict[str, Any] | None) -> Fetched:
        attempts = 0

        async def attempt() -> Fetched:
            nonlocal attempts
            attempts += 1
            response = await self._client.get(url, params=params)
            response.raise_for_status()
            try:
                data = json.loads(response.content.decode("utf-8-sig"))
            except UnicodeDecodeError:
                raise InvalidBody("not UTF-8 text") from None
            except ValueError as exc:
                raise InvalidBody(f"not JSON ({exc})") from None
            if not isinstance(data, dict):
                raise InvalidBody(f"a JSON {type(data).__name__}, not an object")
            return Fetched(str(response.url), response.content, data)

        try:
            return await self._policy.call(attempt)
        except (httpx2.HTTPError, InvalidBody) as exc:
            raise self._failure(exc, url, attempts) from None

    def _failure(self, exc: BaseException, url: str, attempts: int) -> Exception:
        """The exception to raise for a request that failed for good (the key scrubbed out)."""
        kind = _kind(exc)
        tries = f" ({attempts} attempts)" if attempts > 1 else ""
        if isinstance(exc, httpx2.HTTPStatusError):
            status = exc.response.status_code
            if status == 401:
                return KeyRefused(self._refused_line(url))
            what = f"HTTP {status} {exc.response.reason_phrase}".strip()
            short = f"HTTP {status}"
            body = " ".join(exc.response.text.split())[:_SNIPPET]
            said = f" ({body})" if body else ""
        else:
            short = {"timeout": "timeout", "connection": "connection failed", "invalid_response": "invalid body"}.get(
                kind, type(exc).__name__
            )
            what, said = f"{short}: {exc}" if str(exc) else short, ""
        reason = f"{what}{said} from {url}{tries}; {_ADVICE.get(kind, 'see the message above')}"
        return ApiFailure(short, scrub(reason, self._key))

    def _refused_line(self, url: str) -> str:
        if not self._key:
            return (
                f"{self.base_url} wants an API key (HTTP 401 from {url}) and {KEY_ENV} is not set: "
                f"create a key at https://smithery.ai/account/api-keys, then `export {KEY_ENV}=<key>` "
                "and run again"
            )
        return (
            f"{self.base_url} refused the key in {KEY_ENV} (HTTP 401 from {url}): check that the key is "
            f"current (https://smithery.ai/account/api-keys), `export {KEY_ENV}=<key>` and run again"
        )
