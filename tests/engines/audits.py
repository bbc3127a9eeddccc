"""What the engine tests share: run an audit (optionally on an engine) and read its rows."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from paraudit.engines.ray_engine import RayEngine
from paraudit.runner.run import RunConfig, Runner


def rows_without_latency(out: Path) -> list[dict[str, Any]]:
    """results.jsonl's rows minus latency and call time, the fields two equal runs may
    differ in."""
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    for r in rows:
        r.pop("latency_s")
        r.pop("finished_at", None)
    return rows


def run_audit(cfg: RunConfig, engine: RayEngine | None = None, on_progress: Any = None) -> Runner:
    if engine is not None:
        cfg.engine = engine
    runner = Runner(cfg, on_progress)
    asyncio.run(runner.run())
    return runner
