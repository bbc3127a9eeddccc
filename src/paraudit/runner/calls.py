"""One judge call with a cache key, retries (exponential back-off with jitter, Retry-After),
a timeout and a per-judge rate limit; its CallRecord, as calls.sqlite keeps it."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from paraudit.judges.base import FatalJudgeError, Judge, JudgeError
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question
from paraudit.providers import backoff_s
from paraudit.runfolder import CallRecord
from paraudit.runner.keys import key_basis
from paraudit.specs import redact
from paraudit.waits import LONG_WAIT_S, capped_wait, tell_wait


def call_key(judge: Judge, prompt: Prompt, sample: int) -> str:
    """sha256 of canonical JSON: the judge's identity (runner.keys: or, in a folder written
    before it, the older formula), prompt text, audio content hashes, sample index."""
    blob = json.dumps(
        {
            **key_basis(judge),
            "prompt": prompt_record(prompt),
            "sample": sample,
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def prompt_record(prompt: Prompt) -> list[dict[str, str]]:
    """The prompt as stored with each call: its parts in order, audio by content hash."""
    return [{"audio": p.sha256} if isinstance(p, AudioPart) else {"text": p.text} for p in prompt]


class RateLimiter:
    """At most `rpm` call starts per minute (evenly spaced) and at most `tpm` estimated input
    tokens in any 60-second window."""

    def __init__(self, rpm: float | None, tpm: float | None = None) -> None:
        if (rpm is not None and rpm <= 0) or (tpm is not None and tpm <= 0):
            raise ValueError("rate limits must be positive (a zero budget never lets a call go)")
        self.interval = 60.0 / rpm if rpm else 0.0
        self.tpm = tpm
        self._next = 0.0
        self._lock = asyncio.Lock()
        self._spent: deque[tuple[float, float]] = deque()
        self._told = False
        """A long wait for the budget is told once per limiter (it recurs on every call)."""

    async def wait(self, tokens: float = 0.0) -> None:
        if not self.interval and not self.tpm:
            return
        if self.tpm and tokens > self.tpm:
            # It would wait for a window that never comes; the runner checks this up front.
            raise ValueError(f"a call of {tokens:.0f} tokens can never fit tpm={self.tpm:g}")
        async with self._lock:
            now = time.monotonic()
            delay = max(0.0, self._next - now)
            if self.interval:
                self._next = max(now, self._next) + self.interval
            if self.tpm:
                delay = max(delay, self._tokens_delay(now + delay, tokens))
                self._spent.append((now + delay, tokens))
        if delay > LONG_WAIT_S and not self._told:
            self._told = True
            budget = f"tpm={self.tpm:g}" if self.tpm else f"rpm={60 / self.interval:g}"
            tell_wait(f"waiting {delay:.0f} s for the rate limit ({budget}); calls go at its pace")
        if delay > 0:
            await asyncio.sleep(delay)

    def _tokens_delay(self, start: float, tokens: float) -> float:
        """How long after `start` a call of `tokens` fits under the per-minute token budget."""
        assert self.tpm is not None
        while self._spent and self._spent[0][0] <= start - 60:
            self._spent.popleft()
        used = sum(t for _, t in self._spent)
        wait_until = start
        for at, t in list(self._spent):
            if used + tokens <= self.tpm:
                break
            used -= t
            wait_until = at + 60
        return max(0.0, wait_until - start)


BACKOFF_JITTER = 0.5
"""The runner's back-off lies in [0.5, 1.5) × providers.backoff_s: spread enough that calls
which failed together come back apart, and never under half the base delay."""


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    timeout_s: float = 120.0
    max_wait_s: float | None = None
    """Longest wait a server's Retry-After may impose (default: 3 × timeout_s); a server asking
    for a day must not stall the run for a day."""

    def wait_for(self, asked: float | None, attempt: int, reason: str) -> float:
        """Seconds to wait before the next attempt: Retry-After (capped) or the providers'
        back-off (one rule for judges, generators and hosted TTS), jittered by ±50 % since a
        judge has --concurrency calls in flight that fail together."""
        if asked is None:
            return backoff_s(attempt, self.base_delay_s, self.max_delay_s, jitter=BACKOFF_JITTER)
        cap = self.max_wait_s if self.max_wait_s is not None else 3 * self.timeout_s
        return capped_wait(asked, cap, reason, "--max-wait")


async def call_with_retries(
    judge: Judge,
    prompt: Prompt,
    sample: int,
    limiter: RateLimiter,
    policy: RetryPolicy,
    tokens: float = 0.0,
    question: Question | None = None,
    *,
    key: str | None = None,
) -> CallRecord:
    """The call's record (made here, or by an engine's worker): what calls.sqlite keeps and
    what the row is made from. `key` is the call's cache key when the caller has it already.
    `question` reaches only judges that declare `reads_question` (older third-party judges
    keep their `generate(prompt, *, sample)` signature)."""

    def record(
        status: str,
        raw: str | None,
        reason: str,
        attempts: int,
        usage: dict[str, Any],
        sent: tuple[str, ...] | None,
        served: dict[str, str] | None = None,
    ) -> CallRecord:
        return CallRecord(
            key=key if key is not None else call_key(judge, prompt, sample),
            judge=judge.label,
            status=status,
            # A reply or an error that echoes the key is stored without it.
            raw=None if raw is None else redact(raw, secrets),
            reason=redact(reason, secrets),
            latency_s=time.perf_counter() - start,
            attempts=attempts,
            usage=usage,
            # A backend that sends audio names the bytes it sent; others sent the prompt's.
            audio_sent=list(sent)
            if sent is not None
            else [p.sha256 for p in prompt if isinstance(p, AudioPart)],
            prompt=prompt_record(prompt),
            finished_at=time.time(),
            served=served,
        )

    # A third-party judge that skips Judge.__init__ declares no secrets (its own key is still
    # caught by redact's key shapes).
    secrets: tuple[str, ...] = getattr(judge, "secrets", ())
    reason = ""
    start = time.perf_counter()
    for attempt in range(1, policy.max_attempts + 1):
        await limiter.wait(tokens)
        try:
            # asyncio.timeout, unlike wait_for, does not wrap the call in an extra task.
            async with asyncio.timeout(policy.timeout_s):
                if judge.reads_question:
                    reply = await judge.generate(prompt, sample=sample, question=question)
                else:
                    reply = await judge.generate(prompt, sample=sample)
        except FatalJudgeError as e:
            shown = redact(str(e), secrets)
            if shown != str(e):
                raise FatalJudgeError(shown) from None
            raise
        except JudgeError as e:
            reason, wait = str(e), e.retry_after
        except TimeoutError:
            reason, wait = f"timed out after {policy.timeout_s:g} s", None
        except Exception as e:  # an unexpected backend failure is an error row, not a crash
            reason, wait = f"{type(e).__name__}: {e}", None
        else:
            status, reason = ("refused", reply.refused) if reply.refused is not None else ("ok", "")
            served = reply.served if reply.served is not None else judge.served()
            return record(
                status, reply.text, reason, attempt, reply.usage, reply.sent_audio_sha256, served
            )
        if attempt < policy.max_attempts:
            await asyncio.sleep(policy.wait_for(wait, attempt, redact(reason, secrets)))
    return record("error", None, reason, policy.max_attempts, {}, None)
