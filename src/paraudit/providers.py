"""What every caller of a hosted provider shares: the API key lookup, the mapping of SDK errors
to "retry" or "stop" with a one-line reason, and the back-off between tries.

Judges (`judges/`), generators (`compose/llm.py`) and hosted TTS (`render/hosted_tts.py`) each
raise their own error types, but they read keys, classify failures and wait the same way, so
a fix here (a new SDK error, a header) reaches all three. Low in the layers: it imports no SDK
(callers hand in the module they imported) and nothing of paraudit above `errors`.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paraudit.errors import ParauditError
from paraudit.waits import retry_after_seconds

NO_KEY = "EMPTY"
"""What a local OpenAI-compatible server is sent when no key is set (the SDK needs one)."""


def find_key(
    key_env: str | None,
    defaults: tuple[str, ...],
    who: str,
    *,
    optional: bool = False,
    hint: str = "",
) -> str:
    """The API key from `key_env` (when the spec names one) or the provider's usual variables;
    never stored anywhere. `optional`: a local server that needs none gets NO_KEY. `who` names
    the caller in the message ("openai judge", "the gemini generator", "openai TTS")."""
    names = (key_env,) if key_env else defaults
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    if optional and not key_env:
        return NO_KEY
    raise ParauditError(
        f"{who} needs an API key: set {' or '.join(names)}" + ("" if key_env else hint)
    )


def first_line(e: BaseException) -> str:
    """The first line of an SDK error, short enough for a one-line message."""
    return str(e).splitlines()[0][:200] if str(e) else type(e).__name__


def retry_after(e: Any) -> float | None:
    """Seconds from an HTTP error's Retry-After header, if the SDK exposes the response;
    negative or unparsable values count as absent (the caller caps the rest)."""
    try:
        value = e.response.headers.get("retry-after")
    except AttributeError:
        return None
    return retry_after_seconds(value)


@dataclass(frozen=True)
class Failure:
    """A provider call's failure, classified."""

    fatal: bool
    """True: retrying cannot help (authentication, a rejected request)."""
    message: str
    retry_after: float | None = None


def openai_failure(o: Any, e: Exception, who: str = "openai") -> Failure | None:
    """An `openai` SDK exception (module `o`) as retry-or-stop, or None when it is not one of
    the SDK's. Fatal messages start with `who`; retryable ones name the cause only (the
    caller's retry loop adds the context)."""
    if isinstance(e, o.RateLimitError):
        return Failure(False, f"429 rate limited: {first_line(e)}", retry_after(e))
    if isinstance(e, o.AuthenticationError | o.PermissionDeniedError):
        return Failure(True, f"{who}: authentication failed ({first_line(e)})")
    if isinstance(e, o.BadRequestError | o.NotFoundError | o.UnprocessableEntityError):
        return Failure(True, f"{who}: request rejected ({first_line(e)})")
    if isinstance(e, o.APIStatusError):
        return Failure(False, f"HTTP {e.status_code}: {first_line(e)}", retry_after(e))
    if isinstance(e, o.APIConnectionError | o.APITimeoutError):
        return Failure(False, f"connection: {first_line(e)}")
    return None


def gemini_failure(errors: Any, e: Exception, who: str = "gemini") -> Failure | None:
    """A `google.genai.errors` exception (module `errors`) as retry-or-stop, or None when it is
    not one of the SDK's API errors (connection trouble: the caller decides)."""
    if not isinstance(e, errors.APIError):
        return None
    code = e.code
    if isinstance(e, errors.ClientError):
        if code == 429:
            return Failure(False, f"429 rate limited: {first_line(e)}", retry_after(e))
        if code in (401, 403):
            return Failure(True, f"{who}: authentication failed ({first_line(e)})")
        if code != 408:  # a request timeout is worth another try; other 4xx are not
            return Failure(True, f"{who}: request rejected ({first_line(e)})")
    return Failure(False, f"HTTP {code}: {first_line(e)}", retry_after(e))


def backoff_s(
    attempt: int,
    base_s: float,
    max_s: float = float("inf"),
    retry_after: float | None = None,
    *,
    jitter: float = 0.0,
    rand: Callable[[], float] | None = None,
) -> float:
    """How long to wait after failed try number `attempt` (1-based): the server's Retry-After
    when it gave one, else exponential back-off from `base_s`, capped at `max_s`, spread
    uniformly over ±`jitter` of itself (`rand` draws from [0, 1); random.random, looked up at
    each call, by default). Jitter is for callers with many calls in flight: a judge's
    concurrent calls that hit one 429 together must not all come back at the same instant."""
    if retry_after is not None:
        return retry_after
    wait = min(max_s, base_s * 2.0 ** (attempt - 1))
    if not jitter:
        return wait
    draw = (rand or random.random)()
    return wait * (1.0 + jitter * (2.0 * draw - 1.0))
