"""Asker streams a plan: rows leave in plan order whatever order calls finish in, and it never
takes more of the plan than its window (so memory does not grow with the plan)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

import paraudit.runner.asking as asking
from paraudit.items.dataset import load_dataset
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.registry import load_judge
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import Prompt
from paraudit.runfolder import CallRecord, CallStore, ResultRow
from paraudit.runner.asking import Asker, Progress, result_row
from paraudit.runner.calls import RateLimiter, RetryPolicy
from paraudit.runner.plan import PlanSpec, iter_instances, plan_instances

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none", "hard"))


class Jittery(Judge):
    """Answers R1/E1 after a random delay, so calls finish out of order; counts its calls."""

    calls = 0

    def __init__(self) -> None:
        super().__init__("jittery:x", {})
        self.rng = random.Random(3)

    async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
        Jittery.calls += 1
        await asyncio.sleep(self.rng.random() * 0.004)
        return Reply('{"reasoning": "x", "pred": "R1"}')


def _asker(judge: Judge, store: CallStore, progress: Progress, concurrency: int) -> Asker:
    return Asker(
        judge,
        store,
        RateLimiter(None),
        concurrency=concurrency,
        retry=RetryPolicy(max_attempts=1),
        parse_retries=0,
        progress=progress,
    )


def test_rows_leave_in_plan_order_and_the_window_stays_bounded(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asking, "LOOKUP", 4)
    monkeypatch.setattr(asking, "AHEAD_PER_SLOT", 1)
    plan = plan_instances(load_dataset(tiny_dataset), PLAN)
    assert len(plan) > 30
    taken = 0
    leads: list[int] = []

    def stream() -> Iterator[Instance]:
        nonlocal taken
        for inst in plan:
            taken += 1
            yield inst

    store = CallStore(tmp_path / "calls.sqlite")
    asker = _asker(Jittery(), store, Progress(), concurrency=3)

    async def collect() -> list[Instance]:
        seen = []
        async for inst, row in asker.rows(stream()):
            leads.append(taken - len(seen))
            assert row.item_id == inst.item_id and row.probe == inst.probe
            seen.append(inst)
        return seen

    try:
        assert asyncio.run(collect()) == plan
    finally:
        store.close()
    # The window: max(LOOKUP, AHEAD_PER_SLOT × concurrency) scheduled, plus one lookup batch.
    assert max(leads) <= 4 + 4


def test_stored_answers_are_used_and_identical_prompts_paid_once(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    plan = plan_instances(load_dataset(tiny_dataset), PLAN)
    store = CallStore(tmp_path / "calls.sqlite")
    try:
        Jittery.calls = 0
        progress = Progress()

        async def collect(instances: list[Instance]) -> list[str]:
            asker = _asker(Jittery(), store, progress, concurrency=8)
            return [row.key async for _, row in asker.rows(instances)]

        keys = asyncio.run(collect(plan + plan))  # every prompt twice in one stream
        assert Jittery.calls == len(set(keys)) == len(plan)
        asyncio.run(collect(plan))  # and again: everything is in the store
        assert Jittery.calls == len(plan)
        assert progress.done == 3 * len(plan)
    finally:
        store.close()


def test_a_failure_stops_the_stream_and_cancels_the_rest(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    plan = plan_instances(load_dataset(tiny_dataset), PLAN)

    class Breaks(Jittery):
        async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
            if Jittery.calls >= 5:
                raise FatalJudgeError("stop")  # not retried, not an error row: ends the run
            return await super().generate(prompt, sample=sample)

    store = CallStore(tmp_path / "calls.sqlite")
    Jittery.calls = 0

    async def collect() -> None:
        asker = _asker(Breaks(), store, Progress(), concurrency=2)
        with pytest.raises(FatalJudgeError):
            async for _ in asker.rows(plan):
                pass
        # Every task the stream started has ended (none left running in the loop).
        assert len(asyncio.all_tasks()) == 1

    try:
        asyncio.run(collect())
        assert 0 < len(store.records()) <= 5
    finally:
        store.close()


def test_a_fatal_error_surfaces_before_the_slow_rows_ahead_of_it(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    """An authentication or quota failure must stop the run at once: not after the oldest
    (slow) question finishes, and without sending the rest of the window meanwhile."""
    import time

    plan = plan_instances(load_dataset(tiny_dataset), PLAN)

    class SlowThenFatal(Jittery):
        async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
            Jittery.calls += 1
            n = Jittery.calls
            if n == 1:
                await asyncio.sleep(2.0)
            if n == 3:
                raise FatalJudgeError("key revoked")
            await asyncio.sleep(0.01)
            return Reply('{"reasoning": "x", "pred": "R1"}')

    store = CallStore(tmp_path / "calls.sqlite")
    Jittery.calls = 0

    async def collect() -> float:
        asker = _asker(SlowThenFatal(), store, Progress(), concurrency=4)
        start = time.perf_counter()
        with pytest.raises(FatalJudgeError, match="key revoked"):
            async for _ in asker.rows(plan):
                pass
        return time.perf_counter() - start

    try:
        assert asyncio.run(collect()) < 1.5
        assert Jittery.calls <= 4 + 1  # the calls in flight when it failed, no more
    finally:
        store.close()


def test_a_row_is_checked_against_the_contract_as_it_is_made(tiny_dataset: Path) -> None:
    ds = load_dataset(tiny_dataset)
    inst = next(iter_instances(ds, PlanSpec(("J",), ("pointwise",), ("none",))))
    judge = load_judge("builtin:first")
    ok = CallRecord("k", judge.label, "ok", '{"pred": "R1"}', "", 0.1, 1, {}, [])
    row = result_row(judge, inst, "k", ok, 0)
    assert isinstance(row, ResultRow) and row.pred == "R1" and row.key == "k"
    odd = CallRecord("k", judge.label, "lost", None, "?", 0.1, 1, {}, [])
    with pytest.raises(ValidationError, match="status"):
        result_row(judge, inst, "k", odd, 0)
