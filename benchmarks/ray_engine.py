"""The Ray engine against the local engine on this machine.

Run: PYTHONPATH=src .venv/bin/python benchmarks/ray_engine.py [BURN_S]
Builds a small starter set (Piper, four items per task) and audits it with
  1. a CPU-bound judge, `builtin:random?burn=BURN_S` (BURN_S seconds of busy CPU per call,
     default 0.01), on the local engine and on a local Ray cluster with 1 and 2 workers, both
     Ray paths (Ray Data, the default; the actor pool, --no-ray-data): throughput of the call
     phase (calls per second) and its ratio to the local engine;
  2. a zero-latency judge, `builtin:random`, local and on Ray with 1 worker (both paths): the
     Ray path's overhead per call (seconds of call phase per call, Ray minus local).
The call phase runs from the first call's start to the last call's end; on the Ray Data path it
includes starting the pass's actors (the pool path starts its actors before the first call).
Every Ray audit is also checked to give the local engine's rows (latency aside). The Ray
cluster is started once with as many CPUs as the machine has.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paraudit.compose.starter import build_starter
from paraudit.engines.ray_engine import RayEngine, RayOptions
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

PLAN = PlanSpec(
    probes=("J", "P", "O", "T"),
    protocols=("pointwise", "pairwise"),
    cues=("none", "soft", "hard", "transition"),
)
CONCURRENCY = 16


def audit(ds: Path, out: Path, judge: str, engine: RayEngine | None) -> tuple[float, int]:
    """Seconds of the call phase (first call start → last call end) and calls made."""
    cfg = RunConfig(ds, [judge], out, PLAN, concurrency=CONCURRENCY)
    if engine is not None:
        cfg.engine = engine
    runner = Runner(cfg)
    asyncio.run(runner.run())
    p = runner.progress
    assert p.first_call_at is not None and p.last_call_at is not None
    return p.last_call_at - p.first_call_at, p.calls_made


def rows(out: Path) -> list[dict[str, Any]]:
    found = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    for r in found:
        r.pop("latency_s")
    return found


def main(burn: float = 0.01) -> None:
    import ray

    tmp = Path(tempfile.mkdtemp())
    ds = tmp / "starter"
    build_starter(ds, limit=4)
    cores = os.cpu_count() or 1
    ray.init(address="local", num_cpus=cores, include_dashboard=False, log_to_driver=False)
    try:
        busy = f"builtin:random?burn={burn}"
        local_s, n = audit(ds, tmp / "local-busy", busy, None)
        local_tp = n / local_s
        print(f"CPU-bound judge ({burn * 1000:g} ms of CPU per call), {n} calls, {cores} cores")
        print(f"  local engine: {local_tp:7.1f} calls/s ({local_s:.2f} s)")
        for workers in (1, 2):
            for path, data in (("Ray Data", True), ("actor pool", False)):
                out = tmp / f"ray{workers}-{data}-busy"
                with RayEngine(RayOptions(num_workers=workers, ray_data=data)) as engine:
                    ray_s, m = audit(ds, out, busy, engine)
                assert m == n and rows(out) == rows(tmp / "local-busy")
                tp = m / ray_s
                print(
                    f"  ray, {workers} worker(s), {path}: {tp:7.1f} calls/s ({ray_s:.2f} s) "
                    f"→ {tp / local_tp:.2f}× the local engine"
                )
        local_s, n = audit(ds, tmp / "local-zero", "builtin:random", None)
        print(f"zero-latency judge, {n} calls at concurrency {CONCURRENCY}")
        print(f"  local engine: {local_s / n * 1000:.3f} ms per call")
        for path, data in (("Ray Data", True), ("actor pool", False)):
            out = tmp / f"ray-zero-{data}"
            with RayEngine(RayOptions(num_workers=1, ray_data=data)) as engine:
                ray_s, m = audit(ds, out, "builtin:random", engine)
            assert m == n and rows(out) == rows(tmp / "local-zero")
            print(
                f"  ray, 1 worker, {path}: {ray_s / n * 1000:.3f} ms per call; overhead "
                f"{(ray_s - local_s) / n * 1000:.3f} ms per call"
            )
    finally:
        ray.shutdown()


if __name__ == "__main__":
    t0 = time.perf_counter()
    main(*(float(a) for a in sys.argv[1:2]))
    print(f"benchmark took {time.perf_counter() - t0:.0f} s")
