"""An OpenAI-compatible server named by URL (`openai:<model>@<base_url>`), spoken to over httpx2
(the SDK's own transport); the openai SDK is imported only to name a failure.

Importing the SDK builds the typed models of its whole API (about 0.3 s, more than any other
import of `paraudit run`), and each call through it walks its request options, auth hooks and
response processing; against a server named by URL a judge needs none of that: one POST of a
body serialised once (payloads.chat_body), a Bearer key, the reply's text. Failures (a status
of 400 or more, a timeout, a dropped connection) are rare: on one the SDK is imported and
builds its own exception (its class, message and response), so what providers.openai_failure
reads, and so every retry, stop and message, is exactly what the SDK's own transport gave.

The hosted OpenAI API (no base URL) keeps the SDK's client: its URL comes from the SDK's
environment (OPENAI_BASE_URL), so does its authentication, and a hosted call's latency dwarfs
the start-up.

httpx2, not httpx: it is the HTTP client the SDK itself uses, so requests go out as they did,
and httpx's connection pool (httpcore 1.x) scans and polls every pooled connection whenever a
request starts or ends, which at --concurrency 32 cost more CPU than the SDK saved.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from paraudit.versions import package_version

if TYPE_CHECKING:
    import httpx2

ENV_HEADERS = (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project"))
"""Headers the SDK adds from the environment to every request, kept so that a gateway which
reads them sees what it saw through the SDK."""


def sdk() -> Any:
    """The openai SDK, imported on first need (a failure to name, the hosted API)."""
    import openai

    return openai


class OpenAIHTTP:
    """GET and POST under one base URL, with the SDK client's connection limits, redirects,
    timeout (one value for every phase) and headers."""

    def __init__(self, base_url: str, key: str, timeout: float) -> None:
        import httpx2  # the openai extra's (the judge checked it is installed)

        self._httpx = httpx2
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout = timeout
        self.headers = {
            "Authorization": f"Bearer {key}",
            "Accept": "application/json",
            "User-Agent": f"paraudit/{package_version('paraudit')}",
            **{h: os.environ[v] for v, h in ENV_HEADERS if os.environ.get(v)},
        }
        # The SDK's limits: --concurrency may exceed httpx2's default of 100 connections.
        self.client = httpx2.AsyncClient(
            timeout=timeout,
            follow_redirects=True,
            limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=100),
        )
        self._sdk_client: Any = None

    async def post(self, path: str, body: bytes) -> str:
        """POST a JSON body (bytes as given, never re-serialised); the response as text."""
        headers = {**self.headers, "Content-Type": "application/json"}
        return (await self._send("POST", path, headers, body)).text

    async def get_json(self, path: str) -> Any:
        """GET `path` as parsed JSON (ValueError when the body is not JSON)."""
        return (await self._send("GET", path, self.headers, None)).json()

    async def _send(
        self, method: str, path: str, headers: dict[str, str], body: bytes | None
    ) -> httpx2.Response:
        request = self.client.build_request(
            method, self.base_url + path, headers=headers, content=body
        )
        try:
            response = await self.client.send(request)
        except self._httpx.TimeoutException:
            raise sdk().APITimeoutError(request=request) from None
        except Exception as e:  # the SDK's rule: any transport failure is a connection error
            raise sdk().APIConnectionError(request=request) from e
        if response.status_code >= 400:
            raise self.status_error(response)
        return response

    def status_error(self, response: httpx2.Response) -> Exception:
        """The SDK's exception for an error response, built by the SDK itself."""
        if self._sdk_client is None:
            o = sdk()
            self._sdk_client = o.AsyncOpenAI(
                api_key=self.key, base_url=self.base_url, max_retries=0, timeout=self.timeout
            )
        error: Exception = self._sdk_client._make_status_error_from_response(response)
        return error
