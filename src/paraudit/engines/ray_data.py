"""`--engine ray`'s bulk pass: a judge's unanswered planned calls as a Ray Dataset.

Before the runner asks a judge one phase of its plan (every question but Staging, then
Staging), the driver streams that phase's plan, keeps the calls `calls.sqlite` has not answered
(identical prompts once: DEDUPE_WINDOW), packs them into chunks, one Dataset block each, in
Ray's object store. `map_batches` sends the blocks to a pool of actors (`BulkCaller`, one judge
instance each, loaded and calibrated once per pass), which answer each chunk's calls
concurrently (a batching judge batches them), re-ask unparsable replies up to --parse-retries
and return the call records. The driver stays the single writer: it stores each record as it
streams back and skips one the store already holds. The runner then asks the phase as on the
local engine and finds every answer in the store, so rows, keys, resume and `--extend` are
those of a local run.

Faults: a dead actor is restarted and its chunk run again, up to RayOptions.max_restarts times
per actor (then the pass fails in one line); a chunk's records reach the driver only from the
run that finished, so a call lost with a killed worker is made again and stored once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import pickle
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.errors import ParauditError
from paraudit.judges.base import FatalJudgeError, Judge
from paraudit.judges.spec import JudgeSpec
from paraudit.protocols.instances import Instance
from paraudit.runfolder import CallRecord, CallStore
from paraudit.runner.asking import (
    LOOKUP,
    BulkSettings,
    Progress,
    call_record,
    chunks,
    unparsed,
)
from paraudit.runner.calls import RateLimiter, call_key, call_with_retries

Pending = tuple[str, Instance, int]
"""(key, instance, sample): a call to make, and the first sample it is for."""


DEDUPE_WINDOW = 8 * LOOKUP
"""Planned keys remembered for deduplication. Identical prompts (a transcript-only control
asked for both branches) sit within one item, a few hundred questions apart at most, so the
driver's memory stays flat; two copies farther apart would both be asked, and the second
answer is not stored (the rows are the same either way)."""


def pending_calls(
    judge: Judge, instances: Iterable[Instance], store: CallStore, parse_retries: int
) -> Iterator[Pending]:
    """The calls a phase still needs, in plan order, each key once (DEDUPE_WINDOW). A question
    whose stored answer is unparsable continues at the first sample the store lacks (a resume
    with --parse-retries)."""
    recent: deque[str] = deque()
    seen: set[str] = set()
    for part in chunks(instances, LOOKUP):
        keys = [call_key(judge, i.prompt, 0) for i in part]
        stored = store.finished_among(keys)
        for inst, key in zip(part, keys, strict=True):
            if key in seen:
                continue  # an identical prompt already planned: paid for once
            seen.add(key)
            recent.append(key)
            if len(recent) > DEDUPE_WINDOW:
                seen.discard(recent.popleft())
            rec = stored.get(key)
            if rec is None:
                yield key, inst, 0
                continue
            for sample in range(1, parse_retries + 1):
                if not unparsed(inst, rec):
                    break
                k = call_key(judge, inst.prompt, sample)
                found = store.finished_among([k]).get(k)
                if found is None:
                    yield k, inst, sample
                    break
                rec = found


class BulkCaller:
    """The Ray Data actor: one judge (through `JudgeWorker`: loaded once, calibrated on the
    dataset folder), answering the chunks whose numbers it is given."""

    def __init__(
        self,
        spec: JudgeSpec | str,
        dataset_root: Path | None,
        settings: BulkSettings,
        chunks: list[Any] | None = None,
    ) -> None:
        from paraudit.engines.ray_worker import JudgeWorker

        self.worker = JudgeWorker(spec, dataset_root)
        self.settings = settings
        self.chunks = chunks or []
        """ObjectRefs of the pass's chunks (pickled by this run's driver), by number."""
        self.loop = asyncio.new_event_loop()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        import ray

        out: list[str] = []
        for number in batch["chunk"]:
            pending: list[Pending] = pickle.loads(ray.get(self.chunks[int(number)]))
            out += self.loop.run_until_complete(self._answer(pending))
        return {"record": np.array(out, dtype=object)}

    async def _answer(self, pending: list[Pending]) -> list[str]:
        fatal: list[str] = []
        try:
            await self.worker.ready()
            judge = self.worker.judge
            assert judge is not None
            sem = asyncio.Semaphore(self.settings.concurrency)
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._ask(judge, sem, *p)) for p in pending]
        except* ParauditError as failed:  # FatalJudgeError included: the run must stop
            fatal.append(str(failed.exceptions[0]))
        if fatal:
            return [json.dumps({"fatal": fatal[0]})]
        return [json.dumps(asdict(r)) for t in tasks for r in t.result()]

    async def _ask(
        self, judge: Judge, sem: asyncio.Semaphore, key: str, inst: Instance, first: int
    ) -> list[CallRecord]:
        """The call for `key`, and the next samples while the reply stays unparsable, as the
        local runner asks them (runner.asking.Asker._ask)."""
        made: list[CallRecord] = []
        limiter = RateLimiter(None, None)  # judges with limits are not asked in bulk
        for sample in range(first, self.settings.parse_retries + 1):
            if sample != first:
                key = call_key(judge, inst.prompt, sample)
            async with sem:
                out = await call_with_retries(
                    judge, inst.prompt, sample, limiter, self.settings.retry, 0.0, inst.question
                )
            made.append(call_record(judge.label, key, inst, out))
            if not unparsed(inst, made[-1]):
                break
        return made


def answer_with_ray_data(
    ray: Any,
    judge: Judge,
    dataset_root: Path | None,
    instances: Iterable[Instance],
    store: CallStore,
    settings: BulkSettings,
    pool: dict[str, float],
    progress: Progress,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
) -> dict[str, CallRecord]:
    """Make a phase's unanswered calls on Ray Data and store them; the failed calls' records
    (the store's lookups return only finished ones), for the runner to use as they are.

    `pool`: "workers" (actors), "max_restarts" (per actor) and each actor's num_cpus or
    num_gpus. `stop`: set from another thread (Ctrl-C) to end the pass at the next chunk
    planned or batch received; what was stored by then is kept.
    """
    stopped = stop.is_set if stop is not None else lambda: False
    size = {k: v for k, v in pool.items() if k in ("num_cpus", "num_gpus")}
    workers = int(pool.get("workers", 1))
    # Each chunk is put in Ray's object store as soon as it is full: the driver holds one
    # chunk at a time (the object store holds the phase's pending calls; Ray spills them to
    # disk when it fills). The Dataset's rows are the chunks' numbers, one block each, and the
    # actors fetch the chunks themselves: a Dataset made with from_items needs no Ray task to
    # read its blocks' metadata (from_arrow_refs does, and those tasks were seen to hang on the
    # 2-CPU test cluster after other work).
    blocks: list[Any] = []
    pending = pending_calls(judge, instances, store, settings.parse_retries)
    for chunk in chunks(pending, split(settings, workers).chunk_size):
        if stopped():
            return {}
        blocks.append(ray.put(pickle.dumps(chunk)))
    if not blocks:
        return {}
    # No more workers than chunks: a worker with nothing to do would still load the model.
    workers = min(workers, len(blocks))
    restarts = int(pool.get("max_restarts", 3))
    with warnings.catch_warnings():
        # Ray 2.60 names no parameter for an actor's restarts but takes them as remote args,
        # with a deprecation warning (removal planned for Ray 2.64: pyproject pins below it).
        warnings.filterwarnings("ignore", "`ray_remote_args` is deprecated", DeprecationWarning)
        numbers = [{"chunk": i} for i in range(len(blocks))]
        calls = ray.data.from_items(numbers, override_num_blocks=len(blocks)).map_batches(
            BulkCaller,
            fn_constructor_kwargs={
                "spec": judge.judge_spec,
                "dataset_root": dataset_root,
                "settings": split(settings, workers),
                "chunks": blocks,
            },
            batch_size=1,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=workers),
            # A worker that keeps dying (out of memory while loading, a crashing decoder) ends
            # the pass instead of being restarted for ever (Ray Data's default).
            max_restarts=restarts,
            max_task_retries=restarts,
            **size,
        )
    quiet_ray_data(ray)  # after the Dataset exists: Ray Data sets up its logging with it
    failed: dict[str, CallRecord] = {}
    answered = 0
    if progress.first_call_at is None:  # the workers' start-up counts as call time here
        progress.first_call_at = time.perf_counter()
    batches = iter(calls.iter_batches(batch_size=None, batch_format="numpy"))
    try:
        while not stopped():
            try:
                batch = next(batches)
            except StopIteration:
                break
            except ParauditError:
                raise
            except Exception as e:  # Ray's own failure (workers out of restarts): one line
                first = (str(e).strip().splitlines() or [""])[0]
                raise FatalJudgeError(
                    f"{judge.label}: the Ray Data pass failed ({type(e).__name__}: "
                    f"{first[:300]}); see the Ray logs. Answers stored so far are kept: rerun "
                    "to resume"
                ) from e
            new = _store(batch, store, failed)
            answered += new
            progress.calls_made += new
            progress.last_call_at = time.perf_counter()
            progress.note = f"{judge.label}: {answered} calls answered on Ray Data"
            if on_progress:
                on_progress(progress)
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()  # ends the pass's execution when it stops early
        progress.note = ""
    return failed


def split(settings: BulkSettings, workers: int) -> BulkSettings:
    """A worker's share of the run's --concurrency (as on the local engine and the pool, the
    run's concurrency is the number of calls in flight in all)."""
    return replace(settings, concurrency=max(1, -(-settings.concurrency // workers)))


def _store(batch: dict[str, np.ndarray], store: CallStore, failed: dict[str, CallRecord]) -> int:
    """Store one batch of a pass's records, each key once; how many were stored."""
    records = [json.loads(text) for text in batch["record"]]
    for r in records:
        if "fatal" in r:
            raise FatalJudgeError(r["fatal"])
    made = [CallRecord(**r) for r in records]
    already = set(store.finished_among([r.key for r in made]))
    new = 0
    for rec in made:
        if rec.key in already:
            continue  # stored by an earlier chunk, run or twin in this batch: written once
        store.put(rec)
        already.add(rec.key)
        new += 1
        if rec.status == "error":
            failed[rec.key] = rec
    return new


def quiet_ray_data(ray: Any) -> None:
    """No Ray Data progress bars over the runner's own."""
    # Ray Data's console handler prints "Dataset … execution finished in …" per pass; its
    # log file (under the Ray session's logs) keeps everything.
    # Its errors too: a failed pass is one paraudit line (with the resume command), and Ray
    # Data's own error lines (a "Full stack trace" of its internals) stay in that log file.
    for handler in logging.getLogger("ray.data").handlers:
        if type(handler).__name__ != "SessionFileHandler":
            handler.setLevel(logging.CRITICAL)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    if hasattr(ctx, "print_on_execution_start"):
        ctx.print_on_execution_start = False
