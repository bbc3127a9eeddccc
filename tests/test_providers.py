"""The provider helpers judges, generators and hosted TTS share (paraudit.providers)."""

from __future__ import annotations

import pytest

from paraudit.errors import ParauditError
from paraudit.providers import NO_KEY, backoff_s, find_key, gemini_failure, openai_failure

openai = pytest.importorskip("openai", reason="the 'openai' extra is not installed")
httpx = pytest.importorskip("httpx")


def test_key_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A_KEY", raising=False)
    monkeypatch.setenv("B_KEY", "b")
    assert find_key(None, ("A_KEY", "B_KEY"), "x judge") == "b"
    monkeypatch.setenv("MINE", "m")
    assert find_key("MINE", ("B_KEY",), "x judge") == "m"  # key_env replaces the defaults
    assert find_key(None, ("A_KEY",), "x judge", optional=True) == NO_KEY
    with pytest.raises(ParauditError, match="x judge needs an API key: set A_KEY; or so"):
        find_key(None, ("A_KEY",), "x judge", hint="; or so")
    # A variable the user named must be set, even for a local server.
    with pytest.raises(ParauditError, match="set NOPE$"):
        find_key("NOPE", ("B_KEY",), "x judge", optional=True, hint="; or so")


def _status(cls: type, code: int, headers: dict[str, str] | None = None) -> Exception:
    req = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    resp = httpx.Response(code, headers=headers or {}, request=req)
    e: Exception = cls("the server said no", response=resp, body=None)
    return e


def test_openai_errors_are_classified_once_for_every_caller() -> None:
    o = openai
    rate = openai_failure(o, _status(o.RateLimitError, 429, {"retry-after": "3"}))
    assert rate is not None and not rate.fatal and rate.retry_after == 3.0
    assert rate.message == "429 rate limited: the server said no"
    auth = openai_failure(o, _status(o.AuthenticationError, 401), "openai TTS")
    assert auth is not None and auth.fatal
    assert auth.message == "openai TTS: authentication failed (the server said no)"
    bad = openai_failure(o, _status(o.BadRequestError, 400))
    assert bad is not None and bad.fatal and "request rejected" in bad.message
    server = openai_failure(o, _status(o.InternalServerError, 503))
    assert server is not None and not server.fatal and server.message.startswith("HTTP 503")
    req = httpx.Request("POST", "http://127.0.0.1/v1")
    conn = openai_failure(o, o.APIConnectionError(request=req))
    assert conn is not None and not conn.fatal and conn.message.startswith("connection:")
    assert openai_failure(o, ValueError("not the SDK's")) is None


def test_backoff_honours_retry_after_and_caps_the_exponential() -> None:
    assert [backoff_s(a, 0.5) for a in (1, 2, 3)] == [0.5, 1.0, 2.0]
    assert backoff_s(10, 0.5, max_s=30.0) == 30.0
    assert backoff_s(1, 0.5, retry_after=7.0) == 7.0


def test_gemini_errors_are_classified_once_for_every_caller() -> None:
    errors = pytest.importorskip("google.genai.errors", reason="the 'gemini' extra is absent")

    def err(cls: type, code: int) -> Exception:
        e: Exception = cls(code, {"error": {"code": code, "message": "no", "status": "X"}})
        return e

    rate = gemini_failure(errors, err(errors.ClientError, 429))
    assert rate is not None and not rate.fatal and rate.message.startswith("429 rate limited")
    auth = gemini_failure(errors, err(errors.ClientError, 403), "gemini TTS")
    assert auth is not None and auth.fatal
    assert auth.message.startswith("gemini TTS: authentication failed")
    timeout = gemini_failure(errors, err(errors.ClientError, 408))
    assert timeout is not None and not timeout.fatal and timeout.message.startswith("HTTP 408")
    bad = gemini_failure(errors, err(errors.ClientError, 400))
    assert bad is not None and bad.fatal and "request rejected" in bad.message
    server = gemini_failure(errors, err(errors.ServerError, 503))
    assert server is not None and not server.fatal and server.message.startswith("HTTP 503")
    assert gemini_failure(errors, OSError("connection reset")) is None


def test_jitter_spreads_the_exponential_over_its_bounds() -> None:
    for k in (1, 2, 5, 12):
        plain = backoff_s(k, 0.5, max_s=30.0)
        low = backoff_s(k, 0.5, max_s=30.0, jitter=0.5, rand=lambda: 0.0)
        mid = backoff_s(k, 0.5, max_s=30.0, jitter=0.5, rand=lambda: 0.5)
        high = backoff_s(k, 0.5, max_s=30.0, jitter=0.5, rand=lambda: 1.0 - 1e-12)
        assert (low, mid) == (0.5 * plain, plain) and 1.49 * plain < high < 1.5 * plain
    # Retry-After is the server's word: never jittered.
    assert backoff_s(3, 0.5, retry_after=7.0, jitter=0.5, rand=lambda: 0.0) == 7.0
