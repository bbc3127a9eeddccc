"""Runner throughput and resume cost.

Run: .venv/bin/python benchmarks/runner.py [CALLS]
Audits a small starter set with `builtin:random?delay=0.05` (a judge with a fixed 50 ms
latency) at concurrency 32 until about CALLS calls are planned, and prints
  - wall time against the ideal CALLS × 0.05 / 32 s (target ratio ≤ 1.2),
  - the same ratio for a bare asyncio baseline (CALLS sleeps of 50 ms under a semaphore of
    32) measured in this run, so machine noise shows in both,
  - a rerun of the finished audit: judge calls made (target 0) and its time (target < 3 s).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from paraudit.compose.starter import build_starter
from paraudit.items.dataset import load_dataset
from paraudit.runner.plan import PlanSpec, plan_instances
from paraudit.runner.run import RunConfig, Runner

LATENCY, CONCURRENCY = 0.05, 32


async def _bare(n: int) -> None:
    sem = asyncio.Semaphore(CONCURRENCY)

    async def one() -> None:
        async with sem:
            await asyncio.sleep(LATENCY)

    await asyncio.gather(*(one() for _ in range(n)))


def _limited(p: PlanSpec, limit: int) -> PlanSpec:
    return PlanSpec(p.probes, p.protocols, p.cues, limit=limit)


def main(target: int = 2000) -> None:
    tmp = Path(tempfile.mkdtemp())
    ds_dir = tmp / "starter"
    build_starter(ds_dir)
    ds = load_dataset(ds_dir)
    full = PlanSpec(
        probes=("J", "P", "O", "T"),
        protocols=("pointwise", "pairwise"),
        cues=("none", "soft", "hard", "transition"),
    )
    limit = 1
    while limit < len(ds.items) and len(plan_instances(ds, _limited(full, limit))) < target:
        limit += 1
    plan = _limited(full, limit)
    cfg = RunConfig(
        ds_dir, [f"builtin:random?delay={LATENCY}"], tmp / "run", plan, concurrency=CONCURRENCY
    )
    t0 = time.perf_counter()
    first = Runner(cfg)
    asyncio.run(first.run())
    wall = time.perf_counter() - t0
    calls = first.progress.calls_made
    ideal = calls * LATENCY / CONCURRENCY
    t0 = time.perf_counter()
    asyncio.run(_bare(calls))
    bare = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = Runner(cfg)
    asyncio.run(again.run())
    rerun = time.perf_counter() - t0
    print(f"calls: {calls} at {LATENCY * 1000:.0f} ms, concurrency {CONCURRENCY}")
    print(f"runner: {wall:.2f} s · ideal {ideal:.2f} s · ratio {wall / ideal:.2f} (target ≤ 1.2)")
    p = first.progress
    assert p.first_call_at is not None and p.last_call_at is not None
    phase = p.last_call_at - p.first_call_at
    print(
        f"  of which the call phase: {phase:.2f} s · ratio {phase / ideal:.2f} (the rest is "
        "validating the dataset's audio, planning and writing results)"
    )
    print(f"bare asyncio baseline: {bare:.2f} s · ratio {bare / ideal:.2f}")
    print(f"runner / bare: {wall / bare:.2f}")
    print(f"rerun: {again.progress.calls_made} judge calls, {rerun:.2f} s (target 0 calls, < 3 s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
