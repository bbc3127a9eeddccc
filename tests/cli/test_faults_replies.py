"""Fault injection, provider replies (issue 19 items 2 and 3): every reply shape a server can
send is an outcome — error rows and exit 1, or one line — never a traceback, a wrong
"refused", an exit 0 on failure or a silent day-long wait.

Each row runs the real CLI against a loopback server (127.0.0.1) scripted to misbehave:
  run   empty `choices: []` (a failed call) · a non-JSON 200 (an HTML page) · an HTML
        /v1/models listing in the start-up check · a negative Retry-After (ignored: the run
        finishes) · Retry-After: 86400 (capped by --max-wait, the wait printed once)
  size  a 2 MB reply stored cut to the cap, its size recorded
Only the run folder (the intended, resumable output) may be written; nothing else changes.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from paraudit import waits
from paraudit.judges.hosted import MAX_REPLY_CHARS
from paraudit.runner.calls import RetryPolicy
from paraudit.waits import LONG_WAIT_S, on_long_wait, retry_after_seconds
from tests.cli.test_faults import _invoke, _snapshot
from tests.conftest import needs
from tests.judges.loopback import Loopback, Scripted

pytestmark = needs("openai", "openai")

HTML = b"<!doctype html><html><body>Sign in to continue</body></html>"


def _chat(content: str) -> dict[str, object]:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                                                                       "content": content}}],
    }  # fmt: skip


@dataclass(frozen=True)
class ReplyCase:
    id: str
    reply: Scripted | None
    """What every chat request gets (None: the loopback's valid answer)."""
    expect: str
    """In the one error line (code 1) or in the output (code 0)."""
    code: int = 1
    listing: Scripted | None = None
    options: tuple[str, ...] = ()


REPLY_CASES = [
    ReplyCase(
        "empty-choices",
        Scripted(body={"id": "x", "object": "chat.completion", "choices": []}),
        "empty response (the server returned no choices)",
    ),
    ReplyCase("html-200", Scripted(body=HTML, content_type="text/html"), "malformed response body"),
    ReplyCase(
        "html-listing",
        None,
        "is not a model listing (not OpenAI JSON); check the base URL",
        listing=Scripted(body=HTML, content_type="text/html"),
    ),
    ReplyCase(
        "negative-retry-after",
        Scripted(status=429, body={"error": {"message": "slow"}}, headers={"Retry-After": "-5"}),
        "results",
        code=0,
    ),
]


@pytest.fixture
def server() -> Iterator[Loopback]:
    with Loopback() as srv:
        yield srv


def _run_args(ds: Path, out: Path, srv: Loopback, *extra: str) -> list[str]:
    return [
        "run", str(ds), "--judge", f"openai:test-model@{srv.url}/v1", "--out", str(out),
        "--probes", "J", "--protocols", "pointwise", "--cues", "none", "--max-attempts", "2",
        *extra,
    ]  # fmt: skip


@pytest.mark.parametrize("case", REPLY_CASES, ids=[c.id for c in REPLY_CASES])
def test_reply_fault(case: ReplyCase, tiny_dataset: Path, tmp_path: Path) -> None:
    with Loopback(listing=case.listing) as srv:
        if case.reply is not None:
            # The bad reply to the first attempt of every call (a negative Retry-After then
            # meets a valid retry); for failures, to every attempt.
            n = 1 if case.code == 0 else 1000
            srv.script.extend([case.reply] * n)
        before = _snapshot(tmp_path)
        code, out = _invoke(*_run_args(tiny_dataset, tmp_path / "run", srv, *case.options))
    assert "Traceback" not in out, out
    assert code == case.code, out
    changed = {k for k, v in _snapshot(tmp_path).items() if before.get(k) != v}
    assert all(k == "run" or k.startswith("run/") for k in changed), changed
    if code == 1:
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and case.expect in errors[0], out
    else:
        assert case.expect in out, out


def test_retry_after_of_a_day_is_capped_and_told(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    told: list[str] = []
    # A wait is told from LONG_WAIT_S (5 s) on; lowered here so the real, capped wait takes
    # 1.5 s of the suite instead of 6.
    monkeypatch.setattr(waits, "LONG_WAIT_S", 1.0)
    with Loopback() as srv:
        srv.script.append(
            Scripted(
                status=429, body={"error": {"message": "quota"}}, headers={"Retry-After": "86400"}
            )
        )
        t0 = time.monotonic()
        code, out = _invoke(*_run_args(tiny_dataset, tmp_path / "run", srv, "--max-wait", "1.5"))
        took = time.monotonic() - t0
    monkeypatch.undo()
    assert code == 0, out
    assert 1.5 <= took < 60, took
    lines = [line for line in out.splitlines() if "waiting 1.5 s before retrying" in line]
    assert len(lines) == 1 and "asked for 86400 s; capped, see --max-wait" in lines[0], out
    # The policy alone: its default cap is 3 × --timeout; short waits are not told.
    on_long_wait(told.append)
    policy = RetryPolicy(timeout_s=2.0)
    assert policy.wait_for(86400, 1, "429") == 6.0 and len(told) == 1
    assert policy.wait_for(LONG_WAIT_S - 1, 1, "429") == LONG_WAIT_S - 1 and len(told) == 1


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "Wed, 21 Oct 2015 07:28:00 GMT", None])
def test_unusable_retry_after_counts_as_absent(value: str | None) -> None:
    assert retry_after_seconds(value) is None
    assert retry_after_seconds("2.5") == 2.5


def test_a_huge_reply_is_stored_cut_with_its_size(tiny_dataset: Path, tmp_path: Path) -> None:
    with Loopback() as srv:
        srv.script.extend([Scripted(body=_chat("R1 " + "x" * 2_000_000))] * 1000)
        code, out = _invoke(*_run_args(tiny_dataset, tmp_path / "run", srv))
    assert "Traceback" not in out and code in (0, 1), out
    with sqlite3.connect(tmp_path / "run" / "calls.sqlite") as db:
        rows = db.execute("SELECT raw, usage FROM calls").fetchall()
    assert rows
    for raw, usage in rows:
        assert len(raw) == MAX_REPLY_CHARS
        assert json.loads(usage)["reply_chars"] == 2_000_003
    assert (tmp_path / "run" / "results.jsonl").stat().st_size < 20 * MAX_REPLY_CHARS


def test_a_long_rate_limit_wait_is_told_once() -> None:
    import asyncio

    from paraudit.runner.calls import RateLimiter

    told: list[str] = []
    on_long_wait(told.append)
    limiter = RateLimiter(rpm=6)  # one call every 10 s: every call after the first waits

    async def three_calls() -> None:
        tasks = [asyncio.create_task(limiter.wait()) for _ in range(3)]
        await asyncio.sleep(0.1)  # all three have planned their wait
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(three_calls())
    assert len(told) == 1 and "for the rate limit (rpm=6)" in told[0], told
