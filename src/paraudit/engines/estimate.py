"""Estimated wall time per judge on the Ray engine, from a short calibration batch.

For `paraudit run --engine ray --dry-run`: each local-model or built-in judge starts its pool
(load and calibration timed), answers one warm-up call per worker, then a few planned calls at
the run's concurrency; the time per call is scaled to the whole plan. Hosted judges are not
called (a dry run spends no money): their bound is the plan at the requested rpm, if one is set.
Nothing is written to the run store.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from paraudit.engines.ray_engine import RayEngine
from paraudit.judges.base import Judge
from paraudit.judges.spec import HOSTED
from paraudit.protocols.instances import Instance
from paraudit.runner.plan import plan_instances
from paraudit.runner.run import RunConfig, load_checked

SAMPLE_CALLS = 8


@dataclass(frozen=True)
class Estimate:
    judge: str
    calls: int
    """Planned calls (Staging, asked after P, not counted)."""
    wall_s: float | None
    load_s: float | None
    per_call_s: float | None
    sampled: int
    note: str


def spread(instances: list[Instance], k: int) -> list[Instance]:
    """k instances spread over the plan (so every probe and protocol tends to be sampled)."""
    step = max(1, len(instances) // max(1, k))
    return instances[::step][:k]


async def _measure(
    judge: Judge, ds: object, sample: list[Instance], workers: int, cfg: RunConfig
) -> tuple[float, float]:
    t0 = time.perf_counter()
    await judge.preflight()
    judge.calibrate(ds)
    load = time.perf_counter() - t0
    # One untimed call per worker first: first-call costs (lazy imports, kernels) are paid
    # once per worker, not once per call.
    sem = asyncio.Semaphore(cfg.concurrency)

    async def one(inst: Instance) -> None:
        async with sem, asyncio.timeout(cfg.retry.timeout_s):
            if judge.reads_question:  # as the runner asks it (calls.call_with_retries)
                await judge.generate(inst.prompt, question=inst.question)
            else:
                await judge.generate(inst.prompt)

    await asyncio.gather(*(one(i) for i in sample[:workers]))

    t1 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in sample))
    return load, (time.perf_counter() - t1) / max(1, len(sample))


def estimate_wall_times(
    engine: RayEngine, cfg: RunConfig, sample_calls: int = SAMPLE_CALLS
) -> list[Estimate]:
    ds = load_checked(cfg.dataset)
    planned = plan_instances(ds, cfg.plan)
    n = len(planned)
    out: list[Estimate] = []
    for s in cfg.judge_specs:
        spec = s.text
        if s.backend in HOSTED:
            rpm = s.number("rpm") or cfg.rpm
            wall = n / rpm * 60 if rpm else None
            note = (
                f"hosted: not called in a dry run; at most {rpm:g} calls per minute"
                if rpm
                else "hosted: not called in a dry run; set --rpm for a bound"
            )
            out.append(Estimate(spec, n, wall, None, None, 0, note))
            continue
        judge = engine.load_judge(s)
        sample = spread(planned, sample_calls)
        try:
            load, per_call = asyncio.run(
                _measure(judge, ds, sample, engine.options.num_workers, cfg)
            )
        finally:
            engine.release(judge)
        out.append(
            Estimate(
                spec,
                n,
                load + n * per_call,
                load,
                per_call,
                len(sample),
                f"from {len(sample)} calls at concurrency {cfg.concurrency}",
            )
        )
    return out
