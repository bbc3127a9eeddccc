from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

from paraudit.judges.base import FatalJudgeError, Judge, JudgeError, Reply
from paraudit.judges.spec import parse_judge_spec
from paraudit.protocols.parts import AudioPart, Prompt, TextPart
from paraudit.providers import backoff_s
from paraudit.runfolder import CallRecord
from paraudit.runner import calls as calls_module
from paraudit.runner.calls import RateLimiter, RetryPolicy, call_key, call_with_retries

PROMPT: Prompt = (TextPart("hello"),)


class Flaky(Judge):
    def __init__(self, errors: list[BaseException]) -> None:
        super().__init__("flaky:x", {})
        self.errors = errors
        self.times: list[float] = []

    async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
        self.times.append(time.monotonic())
        if self.errors:
            raise self.errors.pop(0)
        return Reply('{"pred": "R1"}')


def test_retry_after_is_honoured() -> None:
    j = Flaky([JudgeError("429", retry_after=0.3)])
    out = asyncio.run(
        call_with_retries(j, PROMPT, 0, RateLimiter(None), RetryPolicy(base_delay_s=0))
    )
    assert out.status == "ok" and out.attempts == 2
    assert j.times[1] - j.times[0] >= 0.29


def test_timeouts_and_unexpected_errors_are_retried_then_recorded() -> None:
    class Slow(Flaky):
        async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
            await asyncio.sleep(1)
            return Reply("late")

    out = asyncio.run(
        call_with_retries(
            Slow([]),
            PROMPT,
            0,
            RateLimiter(None),
            RetryPolicy(max_attempts=2, base_delay_s=0, timeout_s=0.05),
        )
    )
    assert out.status == "error" and "timed out" in out.reason and out.attempts == 2
    j = Flaky([RuntimeError("boom")])
    out = asyncio.run(
        call_with_retries(j, PROMPT, 0, RateLimiter(None), RetryPolicy(base_delay_s=0))
    )
    assert out.status == "ok" and out.attempts == 2


def test_the_runner_backs_off_by_the_providers_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """One back-off rule for judges, generators and hosted TTS: the runner's wait after try k
    is providers.backoff_s(k) jittered within [0.5, 1.5) of it, and it is that very function
    (a copy of the formula here would drift from the generators' and TTS's)."""
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=30.0)
    for draw, factor in ((0.0, 0.5), (0.5, 1.0), (0.75, 1.25)):
        monkeypatch.setattr(random, "random", lambda d=draw: d)
        for k in range(1, 10):
            want = factor * backoff_s(k, 0.5, max_s=30.0)
            assert policy.wait_for(None, k, "429") == pytest.approx(want)
    monkeypatch.undo()
    seen = [policy.wait_for(None, 3, "429") for _ in range(200)]
    assert 0.5 * 2.0 <= min(seen) < 2.0 < max(seen) < 1.5 * 2.0  # try 3: 2 s, jittered
    monkeypatch.setattr(calls_module, "backoff_s", lambda *a, **kw: 42.0)
    assert policy.wait_for(None, 1, "429") == 42.0
    # A server's Retry-After is honoured as asked (capped), not replaced by the back-off.
    assert policy.wait_for(0.25, 4, "429") == 0.25


def test_fatal_errors_stop_at_once() -> None:
    j = Flaky([FatalJudgeError("401 bad key")])
    with pytest.raises(FatalJudgeError):
        asyncio.run(call_with_retries(j, PROMPT, 0, RateLimiter(None), RetryPolicy()))
    assert len(j.times) == 1


def test_rate_limiter_spaces_calls() -> None:
    async def go() -> list[float]:
        lim = RateLimiter(600)  # one start per 0.1 s
        stamps: list[float] = []

        async def one() -> None:
            await lim.wait()
            stamps.append(time.monotonic())

        await asyncio.gather(*(one() for _ in range(5)))
        return stamps

    stamps = sorted(asyncio.run(go()))
    assert stamps[-1] - stamps[0] >= 0.39


def test_cache_key_depends_on_what_changes_output() -> None:
    j = Flaky([])
    base = call_key(j, PROMPT, 0)
    assert call_key(j, PROMPT, 1) != base
    assert call_key(j, (TextPart("hello!"),), 0) != base
    j.judge_spec = parse_judge_spec("flaky:x?rpm=5&timeout=3&key_env=K")
    assert call_key(j, PROMPT, 0) == base  # harness options change no answer
    j.judge_spec = parse_judge_spec("flaky:x?temperature=0.7")
    assert call_key(j, PROMPT, 0) != base


def test_a_call_bigger_than_the_token_budget_fails_instead_of_waiting() -> None:
    with pytest.raises(ValueError, match="never fit"):
        asyncio.run(RateLimiter(None, tpm=10).wait(11))
    with pytest.raises(ValueError, match="positive"):
        RateLimiter(0)


def test_token_budget_delays_calls_past_the_window() -> None:
    lim = RateLimiter(None, tpm=100)

    async def go() -> None:
        await lim.wait(60)
        await lim.wait(30)  # still fits: 90 ≤ 100

    t0 = time.monotonic()
    asyncio.run(go())
    # No wait: a limiter that waited here would wait the window out (59 s and more); the bound
    # leaves room for a loaded machine (this pass runs at a lower priority beside Ray's).
    assert time.monotonic() - t0 < 5
    # Another 30 would make 120 in the window: it must wait until the first call leaves it.
    assert lim._tokens_delay(time.monotonic(), 30) > 59
    assert lim._tokens_delay(time.monotonic() + 61, 30) == 0


def test_a_call_returns_the_record_the_store_keeps(tmp_path: Path) -> None:
    clip = tmp_path / "c.wav"
    clip.write_bytes(b"RIFF")
    prompt: Prompt = (TextPart("which?"), AudioPart(clip, "c" * 64))
    j = Flaky([JudgeError("503")])
    rec = asyncio.run(
        call_with_retries(j, prompt, 1, RateLimiter(None), RetryPolicy(base_delay_s=0))
    )
    assert isinstance(rec, CallRecord)
    assert (rec.key, rec.judge, rec.status, rec.raw) == (
        call_key(j, prompt, 1),
        "flaky:x",
        "ok",
        '{"pred": "R1"}',
    )
    assert rec.attempts == 2 and rec.latency_s > 0 and rec.finished_at > 0
    assert rec.prompt == [{"text": "which?"}, {"audio": "c" * 64}]
    assert rec.audio_sent == ["c" * 64]  # a judge that names no bytes sent the prompt's clips
    given = asyncio.run(call_with_retries(j, prompt, 0, RateLimiter(None), RetryPolicy(), key="k0"))
    assert given.key == "k0"
    failed = asyncio.run(
        call_with_retries(
            Flaky([JudgeError("503")] * 2),
            prompt,
            0,
            RateLimiter(None),
            RetryPolicy(max_attempts=2, base_delay_s=0),
        )
    )
    assert (failed.status, failed.raw, failed.reason, failed.attempts) == ("error", None, "503", 2)
