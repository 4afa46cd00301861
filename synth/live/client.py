"""The one place synth speaks MCP as a client: connect, list tools, call a tool.

Everything the SDK hands back is turned into plain wire dicts (camelCase, as servers send them),
so the rest of synth never sees an SDK object. Every request has a timeout: a server that never
answers, exits at start, prints junk to stdout or refuses the connection costs at most its timeout
and becomes one ``LiveError`` that says which server, what happened and what to try.

A stdio child gets only the variables its entry names plus the SDK's minimal set (HOME, LOGNAME,
PATH, SHELL, TERM, USER): never our API keys. ``$NAME`` in an env value, an argument, an http header or
the URL is read from the environment when connecting, so a token never sits in a registry file (which
variables an entry may read: synth.live.secrets).
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
import httpx2
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client._memory import InMemoryTransport
from mcp.client.streamable_http import streamable_http_client
from mcp.types import PaginatedRequestParams

from synth.errors import LiveError
from synth.live.secrets import ENV_REF as _ENV_REF
from synth.records import Connection

CONNECT_TIMEOUT = 20.0
CALL_TIMEOUT = 30.0


@dataclass(frozen=True)
class Limits:
    """Seconds to wait: for the connection and ``initialize``, and for each later request; how long a result's
    text may be (``max_result`` characters), and what a longer one becomes (``overflow``: cut or error)."""

    connect: float = CONNECT_TIMEOUT
    call: float = CALL_TIMEOUT
    max_result: int = 20_000
    overflow: str = "cut"


class Session:
    """One connected server. ``info`` is its ``initialize`` answer as a wire dict."""

    def __init__(self, name: str, session: ClientSession, info: dict[str, Any], limits: Limits):
        self.name, self._session, self.info, self.limits = name, session, info, limits

    async def tools(self) -> list[dict[str, Any]]:
        """``tools/list``, every page, as served."""
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            page = await self._request(
                "tools/list", self._session.list_tools(params=PaginatedRequestParams(cursor=cursor))
            )
            tools += [_wire(t) for t in page.tools]
            cursor = page.next_cursor
            if cursor is None or cursor in seen:  # a server that repeats a cursor must not loop us forever
                return tools
            seen.add(cursor)

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """``tools/call``; an ``isError`` result is a result (the assistant deals with it), not an exception."""
        result = await self._request(
            f"tools/call {tool}", self._session.call_tool(tool, arguments, read_timeout_seconds=self.limits.call)
        )
        return _wire(result)

    async def _request(self, what: str, request: Any) -> Any:
        try:
            return await request
        except Exception as exc:  # noqa: BLE001 - every failure becomes one line with its reason
            raise explain(self.name, exc, self.limits, what) from None


@asynccontextmanager
async def connect(
    connection: Connection,
    name: str,
    limits: Limits = Limits(),
    cwd: str | None = None,
    errlog: TextIO | None = None,
    local: Any = None,
) -> AsyncIterator[Session]:
    """An initialized session with the server ``connection`` describes; closed (and the process ended) on exit.

    ``cwd`` overrides the entry's working folder (a fresh folder for a stateful server). ``local`` is
    an SDK server object of synth's own (the store) to talk to in this process, through the SDK's
    in-memory transport: the same protocol and the same result text as over stdio, without a process.
    ``errlog`` receives a stdio server's stderr; by default a temporary file, whose last line is
    quoted when the server fails to start (it usually says why).
    """
    setup_failed = False
    log = errlog or tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
    try:
        async with AsyncExitStack() as stack:
            try:
                with _junk_lines() as junk:
                    session, info = await _open(stack, connection, name, limits, cwd, log, local)
            except BaseException:
                setup_failed = True
                raise  # through the transports, which add what really happened (refused, closed) to the group
            yield Session(name, session, info, limits)
    except BaseException as exc:  # noqa: BLE001 - ExceptionGroups from the transports included
        if isinstance(exc, (KeyboardInterrupt, SystemExit)) or not setup_failed:
            raise _innermost(exc) from None  # an error of the caller's own, unwrapped from the transports' groups
        error = explain(name, exc, limits, "connect", junk)
        last = _last_line(log) if errlog is None else ""
        if last and error.reason in ("live_closed", "live_timeout"):
            error = LiveError(name, f"{error.what}; its last words: {last[:160]!r}", error.hint, error.reason)
        raise error from None
    finally:
        if errlog is None:
            log.close()


def _last_line(log: TextIO) -> str:
    try:
        log.seek(0)
        lines = [line.strip() for line in log.read()[-4000:].splitlines() if line.strip()]
    except (OSError, ValueError):  # closed already
        return ""
    return lines[-1] if lines else ""


async def _open(
    stack: AsyncExitStack,
    connection: Connection,
    name: str,
    limits: Limits,
    cwd: str | None,
    errlog: TextIO,
    local: Any = None,
) -> tuple[ClientSession, dict[str, Any]]:
    if local is not None:
        read, write = await stack.enter_async_context(InMemoryTransport(local))
    elif connection.type == "stdio":
        if not connection.command:
            raise LiveError(
                name, "the stdio connection has no command", 'add "command" to the entry\'s connection', "live_config"
            )
        params = StdioServerParameters(
            command=connection.command,
            args=list(resolve(dict(enumerate(connection.args)), name, "argument").values()),
            env=resolve(connection.env, name, "env"),
            cwd=cwd or connection.cwd,
        )
        read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
    else:
        http = httpx2.AsyncClient(
            headers=resolve(connection.headers, name, "header"),
            follow_redirects=True,
            timeout=httpx2.Timeout(limits.connect, read=max(limits.call, limits.connect)),
        )
        await stack.enter_async_context(http)
        url = resolve({"url": connection.url or ""}, name, "the")["url"]
        read, write = await stack.enter_async_context(streamable_http_client(url, http_client=http))
    session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=limits.connect))
    with anyio.fail_after(limits.connect):
        init = await session.initialize()
    return session, _wire(init)


def resolve(values: dict[Any, str], name: str, what: str) -> dict[Any, str]:
    """Values with ``$NAME`` or ``${NAME}`` in them take that part from the environment (a token stays out of
    the registry file); a variable that is not set is an error naming it."""
    out = {}
    for key, value in values.items():

        def env(match: re.Match[str], key: str = key) -> str:
            var = match.group(1) or match.group(2)
            if var not in os.environ:
                raise LiveError(
                    name,
                    f"{what} {key} uses the environment variable {var}, which is not set",
                    f"export {var}=... before the run",
                    "live_config",
                )
            return os.environ[var]

        out[key] = _ENV_REF.sub(env, value)
    return out


def result_text(result: dict[str, Any]) -> str:
    """What a tool message carries: the result's text content as served, joined by newlines.

    Content with no text (an image, a resource) is named, not dropped; a result with structured
    content and no text gives that content as JSON.
    """
    parts = []
    for block in result.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "resource" and isinstance(block.get("resource"), dict) and "text" in block["resource"]:
            parts.append(block["resource"]["text"])
        else:
            parts.append(f"[{kind} content: {block.get('mimeType') or block.get('uri') or 'not text'}]")
    if not parts and result.get("structuredContent") is not None:
        return json.dumps(result["structuredContent"], ensure_ascii=False)
    return "\n".join(parts)


# How a server says "error" in text when it does not set isError: a leading "Error" (or "Database error:"), an
# HTTP status, and, in a short result, a phrase that only an error uses ("Task not found", "no such table").
_LEADING = re.compile(r"^\W*(?:error\b|[\w ]{0,30}\berror:)", re.I)
_REASONS = "Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Gone|Too Many Requests|"
_REASONS += "Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout"
_HTTP = re.compile(
    rf"^\W*(?:HTTP(?:/[\d.]+)?\s*)?[45]\d\d:? (?:{_REASONS})\b|\b(?:HTTP|status(?: code)?)[\s:]*[45]\d\d\b"
)
_PHRASE = re.compile(
    r"\b(?:not found|no such|does not exist|doesn't exist|denied|invalid|not allowed|unauthori[sz]ed|forbidden)\b",
    re.I,
)
SHORT = 300  # longer text is content (a file, a page) that may use these words; an error message is short


def said_error(result: dict[str, Any]) -> bool:
    """Whether a ``tools/call`` result is an error, however the server says it: ``isError``, a JSON object with
    an ``error`` key that holds something, or text that reads as one (a leading "Error", an HTTP status, a
    short result saying "not found", "no such", "denied", "invalid"). Many servers return their failures as
    plain text ("Error: SELECT queries are not allowed", "Task not found") with ``isError`` unset."""
    if result.get("isError"):
        return True
    text = result_text(result).strip()
    try:
        data = json.loads(text) if text[:1] in ("{", "[") else None
    except ValueError:
        data = None
    if data is not None:
        return isinstance(data, dict) and bool(data.get("error"))
    first = text.splitlines()[0] if text else ""
    if _LEADING.search(first) or _HTTP.search(first[:80]):
        return True
    return len(text) <= SHORT and bool(_PHRASE.search(first))


def explain(name: str, exc: BaseException, limits: Limits, what: str, junk: list[str] | None = None) -> LiveError:
    """One line for what went wrong, found inside the ExceptionGroups the transports raise."""
    error = _innermost(exc)
    if isinstance(error, LiveError):
        return error
    if junk:
        return LiveError(
            name,
            f"the server wrote text that is not JSON-RPC to stdout ({junk[0][:80]!r}) and never answered",
            "a stdio MCP server must write only JSON-RPC to stdout; make it log to stderr",
            "live_junk",
        )
    if isinstance(error, MCPError):
        return _mcp_error(name, error, limits, what)
    return _transport_error(name, error, limits, what)


# the flags that set the timeouts, by command (registry import has one for both)
TIMEOUT_FLAGS = "generate: --connect-timeout / --call-timeout; registry import: --timeout"


def _mcp_error(name: str, error: MCPError, limits: Limits, what: str) -> LiveError:
    """An MCP error response: a timeout, a closed connection, a URL that is no MCP endpoint, or the server's own."""
    code, message = error.error.code, error.error.message
    if code == -32001 or "timed out" in message.lower():
        seconds = limits.connect if what == "connect" else limits.call
        return LiveError(
            name,
            f"no answer to {what} within {seconds:g} s",
            f"check that the server is up and speaks MCP on this transport, or raise the timeout ({TIMEOUT_FLAGS})",
            "live_timeout",
        )
    if "connection closed" in message.lower():
        return LiveError(
            name,
            f"the server closed the connection during {what}",
            "run its command by hand to see why it exits (a missing dependency or setting?)",
            "live_closed",
        )
    if code == -32601 and what == "connect":
        return LiveError(
            name,
            "the URL answered but not as an MCP endpoint (404 / method not found)",
            "check the URL's path (often /mcp)",
            "live_not_mcp",
        )
    return LiveError(name, f"{what} failed: MCP error {code}: {message}"[:300], "see the server's log", "live_protocol")


def _transport_error(name: str, error: BaseException, limits: Limits, what: str) -> LiveError:
    """A failure below MCP: starting the command, reaching the URL, waiting, or a result that breaks its schema."""
    if isinstance(error, TimeoutError):
        return LiveError(
            name,
            f"no answer to {what} within {limits.connect if what == 'connect' else limits.call:g} s",
            f"check that the server is up, or raise the timeout ({TIMEOUT_FLAGS})",
            "live_timeout",
        )
    if isinstance(error, FileNotFoundError):
        return LiveError(
            name,
            f"cannot start the server: command not found ({error.filename or error})",
            'install it or fix "command" in the entry\'s connection',
            "live_start",
        )
    if isinstance(error, PermissionError):
        return LiveError(
            name,
            f"cannot start the server: permission denied ({error.filename or error})",
            "make the command executable",
            "live_start",
        )
    if isinstance(error, httpx2.ConnectError):
        return LiveError(
            name,
            "connection refused or host unreachable",
            "check that the server is running and the URL is right",
            "live_refused",
        )
    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
        hint = "check the token header" if status in (401, 403) else "check the URL"
        return LiveError(name, f"the server answered HTTP {status}", hint, "live_http")
    if isinstance(error, httpx2.TimeoutException):
        return LiveError(
            name,
            f"no answer to {what} within {limits.connect:g} s",
            f"check the URL, or raise the timeout ({TIMEOUT_FLAGS})",
            "live_timeout",
        )
    if isinstance(error, RuntimeError) and "output schema" in str(error):
        return LiveError(
            name,
            f"{what}: the result does not match the tool's outputSchema: {error}"[:300],
            "the server breaks its own schema; report it to its authors",
            "live_bad_result",
        )
    text = str(error) or type(error).__name__
    return LiveError(name, f"{what} failed: {type(error).__name__}: {text}"[:300], "see the server's log", "live_error")


_JUNK: ContextVar[list[str] | None] = ContextVar("synth_live_junk", default=None)


class _JunkFilter(logging.Filter):
    """The SDK logs each stdout line that is not JSON-RPC with a traceback: keep the line, drop the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        junk = _JUNK.get()
        if junk is None or not record.getMessage().startswith("Failed to parse JSONRPC"):
            return True
        error = record.exc_info[1] if record.exc_info else None
        errors = error.errors() if hasattr(error, "errors") else []  # type: ignore[union-attr] # a pydantic ValidationError
        junk.append(str(errors[0].get("input", "")) if errors else "?")
        return False


logging.getLogger("mcp.client.stdio").addFilter(_JunkFilter())


@contextmanager
def _junk_lines() -> Iterator[list[str]]:
    """Collects, for this connection's tasks only, the stdout lines that were not JSON-RPC."""
    junk: list[str] = []
    token = _JUNK.set(junk)
    try:
        yield junk
    finally:
        _JUNK.reset(token)


def _innermost(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) ExceptionGroups, skipping cancellations."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (inner or list(exc.exceptions))[0]
    return exc


def _wire(model: Any) -> dict[str, Any]:
    """An SDK model as the server sent it: camelCase keys, no unset fields, no SDK bookkeeping."""
    data: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
    data.pop("resultType", None)
    meta = data.get("_meta")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if not k.endswith("serverInfo")}
        if meta:
            data["_meta"] = meta
        else:
            data.pop("_meta")
    return data
