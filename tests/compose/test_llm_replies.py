"""The builders' LLM client on hostile replies (issue 19 items 2 and 3): a non-JSON 200, an
empty `choices`, a negative or day-long Retry-After are retried, capped or given up on in one
line — never a traceback, never a day's silent wait."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from paraudit import waits
from paraudit.compose.llm import CompletionCache, ComposerLLM, LLMSpec
from paraudit.errors import ParauditError
from paraudit.waits import on_long_wait
from tests.conftest import needs
from tests.judges.loopback import Loopback, Scripted

pytestmark = needs("openai", "openai")


def _llm(url: str, tmp: Path, options: str = "") -> ComposerLLM:
    spec = LLMSpec.parse(f"openai:test-model@{url}/v1?retries=2{options}")
    return ComposerLLM(spec, CompletionCache(tmp / "c.sqlite"), backoff_s=0.01)


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (Scripted(body=b"<html>proxy login</html>", content_type="text/html"), "malformed"),
        (Scripted(body=b"{not json"), "malformed response body"),
        (Scripted(body={"id": "x", "object": "chat.completion", "choices": []}), "no choices"),
    ],
)
def test_a_reply_that_is_no_completion_is_given_up_in_one_line(
    reply: Scripted, why: str, tmp_path: Path
) -> None:
    with Loopback() as srv:
        srv.script.extend([reply] * 2)
        with pytest.raises(ParauditError, match=f"gave up after 2 tries .*{why}"):
            _llm(srv.url, tmp_path).ask("hi")


def test_negative_and_huge_retry_after_are_absent_and_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []
    on_long_wait(told.append)
    monkeypatch.setattr(waits, "LONG_WAIT_S", 1.0)  # told from 1 s on: the capped wait is 1.5 s
    with Loopback() as srv:
        slow = {"error": {"message": "slow down"}}
        srv.script.append(Scripted(status=429, body=slow, headers={"Retry-After": "-3"}))
        assert _llm(srv.url, tmp_path).ask("a")  # was: ValueError: sleep length
        srv.script.append(Scripted(status=429, body=slow, headers={"Retry-After": "86400"}))
        t0 = time.monotonic()
        assert _llm(srv.url, tmp_path, "&max_wait=1.5").ask("b")
        assert 1.5 <= time.monotonic() - t0 < 30
    assert len(told) == 1 and "asked for 86400 s; capped" in told[0], told
