"""The direct transport: chat completions posted on one aiohttp session, failures as the SDK's errors.

The OpenAI SDK's request building (URL, headers, options, its httpx-style wrapper over aiohttp) took
about half of the client's CPU per call (``benchmarks/llm_throughput.py``: 1.03 against 0.55 CPU s
per 1000 requests), and at C=64 against 200 ms the client's one core is what limits a run. This
posts the same JSON body with the same bearer header and leaves the SDK only the error mapping, so
retries, counting and messages do not depend on the transport.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import aiohttp
import httpx2
import openai


class Direct:
    """``await post(body) -> bytes`` of a 2xx answer; ``openai.APIStatusError`` (made by the SDK from
    the response), ``APITimeoutError`` or ``APIConnectionError`` otherwise."""

    def __init__(
        self,
        url: str,
        public: str,
        key: str,
        timeout: float,
        connections: int,
        status_error: Callable[[httpx2.Response], openai.APIStatusError],
    ):
        self.url, self.public, self.key, self.timeout = url, public, key, timeout
        self.connections, self.status_error = connections, status_error
        self._session: aiohttp.ClientSession | None = None  # made on the running loop, at the first request

    async def post(self, body: dict[str, Any]) -> bytes:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.connections),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.timeout, sock_read=self.timeout),
                headers={
                    "Authorization": f"Bearer {self.key}",
                    "Content-Type": "application/json",
                    "Accept": "application/json",
                    "User-Agent": "synth",
                },
            )
        try:
            async with self._session.post(self.url, data=json.dumps(body).encode()) as response:
                content = await response.read()
                status, headers = response.status, list(response.headers.items())
        except TimeoutError as exc:
            raise openai.APITimeoutError(request=httpx2.Request("POST", self.public)) from exc
        except (aiohttp.ClientError, OSError) as exc:
            raise openai.APIConnectionError(request=httpx2.Request("POST", self.public)) from exc
        if status >= 400:  # BadRequestError, RateLimitError, ... with the body and Retry-After headers
            raise self.status_error(
                httpx2.Response(status, headers=headers, content=content, request=httpx2.Request("POST", self.public))
            )
        return content

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
