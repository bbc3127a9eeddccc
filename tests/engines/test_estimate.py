"""Estimated wall times per judge from a short calibration batch on the Ray engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paraudit.engines.estimate import estimate_wall_times
from paraudit.engines.ray_engine import RayEngine, RayOptions
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig


def test_hosted_judges_are_bounded_by_rpm_not_called(
    ray_cluster: Any, tiny_dataset: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    cfg = RunConfig(tiny_dataset, ["openai:gpt-4o?rpm=30", "gemini:x"], tmp_path, plan)
    with RayEngine(RayOptions()) as engine:
        bounded, unknown = estimate_wall_times(engine, cfg)
        assert not engine.judges  # nothing was started for them
    assert bounded.wall_s == bounded.calls * 2.0 and bounded.sampled == 0
    assert unknown.wall_s is None and "set --rpm" in unknown.note


def test_a_cpu_bound_judge_is_estimated_from_real_calls(
    ray_cluster: Any, tiny_dataset: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J", "O"), protocols=("pointwise",), cues=("none",))
    cfg = RunConfig(tiny_dataset, ["builtin:random?burn=0.05"], tmp_path, plan, concurrency=4)
    with RayEngine(RayOptions(num_workers=1)) as engine:
        (e,) = estimate_wall_times(engine, cfg)
        assert engine.judges == []  # the pool was released
    # One worker computes one call at a time: at least 50 ms each, whatever the concurrency.
    assert e.sampled == 8 and e.per_call_s is not None and e.per_call_s >= 0.045
    assert e.load_s is not None and e.wall_s == e.load_s + e.calls * e.per_call_s
    assert not (tmp_path / "calls.sqlite").exists()
