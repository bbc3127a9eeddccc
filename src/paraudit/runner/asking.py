"""Put a stream of planned questions to one judge: cached answers from the store, the rest
called concurrently, rows yielded in plan order.

Memory stays flat however long the plan is: questions are taken from the plan a window at a
time, the store is asked only about the keys of that window, and a row leaves as soon as every
row before it has.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TypeVar

from paraudit.judges.base import Judge
from paraudit.protocols.instances import Instance
from paraudit.protocols.no_audio import says_no_audio
from paraudit.protocols.parsing import parse_answer
from paraudit.runfolder import CallRecord, CallStore, ResultRow
from paraudit.runner.calls import RateLimiter, RetryPolicy, call_key, call_with_retries
from paraudit.runner.checks import estimated_tokens
from paraudit.runner.reask import REASK_SAMPLE, reask_row, reasked
from paraudit.runner.samples import majority_row, sample_index

T = TypeVar("T")

# Questions whose stored answers are looked up in one query.
LOOKUP = 512
# Questions scheduled ahead of the oldest unwritten row, per call allowed in flight: enough to
# keep every slot busy while a slow call holds up the rows behind it.
AHEAD_PER_SLOT = 8


CALLS_PER_SLOT = 4
"""A bulk pass's calls per chunk, per call a worker may have in flight: a chunk keeps a worker
busy while the next is sent, and a killed worker loses little work."""
MIN_CHUNK = 16


@dataclass(frozen=True)
class BulkSettings:
    """What an engine's bulk pass (engines.ray_data) needs of the run's settings."""

    concurrency: int
    retry: RetryPolicy
    parse_retries: int

    @property
    def chunk_size(self) -> int:
        return max(MIN_CHUNK, CALLS_PER_SLOT * self.concurrency)


@dataclass
class Progress:
    total: int = 0
    done: int = 0
    unparsed: int = 0
    errors: int = 0
    refused: int = 0
    calls_made: int = 0
    first_call_at: float | None = None
    """perf_counter() when the first judge call started (None: no call made)."""
    last_call_at: float | None = None
    """perf_counter() when the last judge call finished."""
    note: str = ""
    """What the run is doing besides answering rows (an engine's bulk pass), for a progress bar."""


async def _oldest(
    window: deque[tuple[Instance, asyncio.Future[ResultRow]]], stop: asyncio.Future[None]
) -> tuple[Instance, ResultRow]:
    """The oldest question's row, or the failure of any question in the window (a fatal judge
    error surfaces at once, not when its row reaches the front).

    asyncio.wait does not cancel what it waits for: when the run is cancelled (Ctrl-C),
    cancelling the awaited task alone would free its slot for a queued call that starts before
    the rest of the window is cancelled; instead the caller cancels the whole window at once."""
    inst, done = window[0]
    if not done.done():
        await asyncio.wait((done, stop), return_when=asyncio.FIRST_COMPLETED)
    if stop.done() and not done.done():
        stop.result()  # raises the failure
    row = done.result()
    window.popleft()
    return inst, row


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


class Asker:
    """One judge's questions: cache lookups, calls (each identical prompt paid for once),
    parse retries, rows."""

    def __init__(
        self,
        judge: Judge,
        store: CallStore,
        limiter: RateLimiter,
        *,
        concurrency: int,
        retry: RetryPolicy,
        parse_retries: int,
        progress: Progress,
        parse: str = "strict",
        on_progress: Callable[[Progress], None] | None = None,
        reask: float | None = None,
        seed: int = 0,
    ) -> None:
        self.judge, self.store, self.limiter = judge, store, limiter
        self.concurrency = concurrency
        self.sem = asyncio.Semaphore(concurrency)
        self.retry, self.parse_retries = retry, parse_retries
        self.parse = parse
        self.reask, self.seed = reask, seed
        """--reask SHARE and the run's seed (runner.reask): which questions are asked twice."""
        self.progress, self.on_progress = progress, on_progress
        self._inflight: dict[str, asyncio.Future[CallRecord]] = {}
        self.failed_earlier: dict[str, CallRecord] = {}
        """Calls that failed earlier in this run (an engine's bulk pass), by key: the store's
        lookups return only finished calls, so these are used as they are, like a failed
        call this Asker made itself, instead of being asked again."""
        self._stop: asyncio.Future[None] | None = None
        """Set with the first failure in the window: no call starts after it."""

    async def rows(
        self, instances: Iterable[Instance]
    ) -> AsyncIterator[tuple[Instance, ResultRow]]:
        """(instance, row) for every instance, in the order given."""
        window: deque[tuple[Instance, asyncio.Future[ResultRow]]] = deque()
        ahead = max(LOOKUP, AHEAD_PER_SLOT * self.concurrency)
        stop = self._stop = asyncio.get_running_loop().create_future()

        def failed(task: asyncio.Future[ResultRow]) -> None:
            if task.cancelled() or stop.done():
                return
            error = task.exception()
            if error is not None:
                stop.set_exception(error)
                stop.exception()  # retrieved here: the caller re-raises it (or the task's)

        try:
            for chunk in chunks(instances, LOOKUP):
                keys = [call_key(self.judge, i.prompt, 0) for i in chunk]
                stored = self.store.finished_among(keys)
                for inst, key in zip(chunk, keys, strict=True):
                    task = asyncio.ensure_future(self._ask(inst, key, stored.get(key)))
                    task.add_done_callback(failed)
                    window.append((inst, task))
                    while len(window) > ahead:
                        yield await _oldest(window, stop)
            while window:
                yield await _oldest(window, stop)
        finally:
            for _, pending in window:  # a failure (or a fatal judge error) stops the rest
                pending.cancel()
            if window:
                await asyncio.gather(*(t for _, t in window), return_exceptions=True)

    async def _ask(self, inst: Instance, key: str, stored: CallRecord | None) -> ResultRow:
        # ?samples=N (runner.samples): N draws, each with its own parse retries.
        n = self.judge.judge_spec.whole("samples") or 1
        draws: list[ResultRow] = []
        for draw in range(n):
            tries = [sample_index(draw, retry, n) for retry in range(self.parse_retries + 1)]
            draws.append(await self._draw(inst, tries, key, stored))
            stored = None
        row = draws[0] if n == 1 else majority_row(draws)
        if n == 1 and reasked(inst, self.reask, self.seed):
            # --reask (runner.reask): the same prompt once more under its own sample indices.
            tries = [REASK_SAMPLE + retry for retry in range(self.parse_retries + 1)]
            row = reask_row(row, await self._draw(inst, tries, key, None))
        p = self.progress
        p.done += 1
        p.unparsed += row.status == "unparsed"
        p.errors += row.status == "error"
        p.refused += row.status == "refused"
        if self.on_progress:
            self.on_progress(p)
        return row

    async def _draw(
        self, inst: Instance, samples: list[int], key: str, stored: CallRecord | None
    ) -> ResultRow:
        """One answer: the call at each sample index in turn while the reply stays unparsed
        (--parse-retries). Sample 0 is the plan's `key`, whose stored record may be given."""
        row: ResultRow | None = None
        for sample in samples:
            if sample:
                key = call_key(self.judge, inst.prompt, sample)
                stored = self.store.finished_among([key]).get(key)
            if stored is None:
                stored = await self._call_once(inst, key, sample)
            row = result_row(self.judge, inst, key, stored, sample, self.parse)
            if row.status != "unparsed":
                break
            stored = None
        assert row is not None
        return row

    async def _call_once(self, inst: Instance, key: str, sample: int) -> CallRecord:
        """Make the call for `key`, or wait for the same call already in flight, or take the
        answer an identical prompt got earlier in this run: identical prompts (e.g. the
        transcript-only control for both branches) are paid for once."""
        if key in self._inflight:
            return await self._inflight[key]
        if key in self.failed_earlier:
            return self.failed_earlier[key]
        done = self.store.finished_among([key]).get(key)
        if done is not None:
            return done
        future: asyncio.Future[CallRecord] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            async with self.sem:
                if self._stop is not None and self._stop.done():
                    raise asyncio.CancelledError  # another question failed: the stream ends
                if self.progress.first_call_at is None:
                    self.progress.first_call_at = time.perf_counter()
                tokens = estimated_tokens(inst) if self.limiter.tpm else 0.0
                record = await call_with_retries(
                    self.judge,
                    inst.prompt,
                    sample,
                    self.limiter,
                    self.retry,
                    tokens,
                    inst.question,
                    key=key,
                )
            self.progress.calls_made += 1
            self.progress.last_call_at = time.perf_counter()
            self.store.put(record)
            future.set_result(record)
            return record
        except BaseException as e:
            future.set_exception(e)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._inflight[key]


def unparsed(inst: Instance, stored: CallRecord) -> bool:
    """An answered call whose reply the parser cannot read (--parse-retries asks again)."""
    return stored.status == "ok" and parse_answer(inst.question, stored.raw or "").pred is None


def result_row(
    judge: Judge, inst: Instance, key: str, stored: CallRecord, sample: int, parse: str = "strict"
) -> ResultRow:
    """The results.jsonl row of one answered (or failed) question, checked against the
    contract as it is made."""
    status, pred, reason = stored.status, None, stored.reason
    if status == "ok":
        parsed = parse_answer(inst.question, stored.raw or "", parse)
        pred, reason = parsed.pred, parsed.reason
        status = "ok" if pred is not None else "unparsed"
        # Only probe N: on real audio the same words stay unparsed (a wrong answer), as before.
        if (
            status == "unparsed"
            and inst.probe == "N"
            and says_no_audio(raw := stored.raw or "", inst.options)
        ):
            status, reason = "no-audio", f"the reply says it heard no audio: {raw[:80]!r}"
    return ResultRow(
        judge=judge.label,
        task=inst.task,
        item_id=inst.item_id,
        branch=inst.branch,
        probe=inst.probe,
        protocol=inst.protocol,
        cue=inst.cue,
        order=inst.order,
        context_order=inst.context_order,
        pred=pred,
        gold=inst.gold,
        status=status,
        correct=bool(pred == inst.gold) if status == "ok" else False,
        raw=stored.raw,
        reason=reason,
        latency_s=stored.latency_s,
        attempts=stored.attempts,
        usage=stored.usage,
        audio_sent_sha256=stored.audio_sent,
        sample=sample,
        key=key,
        options=inst.options,
        asks=inst.asks,
        null=inst.null,
        served=stored.served,
        finished_at=stored.finished_at or None,
    )
