"""The Ray engine on a real local Ray cluster: same rows as a local run, faults survived."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from paraudit.engines.ray_engine import RayEngine, RayOptions
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import Progress, RunConfig
from tests.engines.audits import rows_without_latency as _rows
from tests.engines.audits import run_audit as _run

PLAN = PlanSpec(
    probes=("J", "P", "O", "S", "T"),
    protocols=("pointwise", "pairwise"),
    cues=("none", "hard"),
    limit=2,
)
BUILTINS = ["builtin:random", "builtin:first", "builtin:transcript", "builtin:prosody"]


def _calls(out: Path) -> dict[str, tuple[Any, ...]]:
    db = sqlite3.connect(out / "calls.sqlite")
    rows = db.execute("SELECT key, judge, status, raw, reason, attempts, usage FROM calls")
    return {r[0]: r[1:] for r in rows}


def _wait_for_free_cpus(ray: Any, cpus: float) -> None:
    deadline = time.monotonic() + 20
    while ray.available_resources().get("CPU", 0) < cpus:
        assert time.monotonic() < deadline, ray.available_resources()
        time.sleep(0.1)


def test_builtin_judges_give_the_local_rows(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    local = _run(RunConfig(starter_small, BUILTINS, tmp_path / "local", PLAN))
    with RayEngine(RayOptions(num_workers=2)) as engine:
        remote = _run(RunConfig(starter_small, BUILTINS, tmp_path / "ray", PLAN), engine)
        assert not engine.started_here  # joined the test's cluster
    assert remote.progress.calls_made == local.progress.calls_made > 0
    assert _rows(tmp_path / "ray") == _rows(tmp_path / "local")
    assert _calls(tmp_path / "ray") == _calls(tmp_path / "local")
    spec = json.loads((tmp_path / "ray" / "run.json").read_text())
    assert spec["judge_details"][0]["engine"]["num_workers"] == 2
    _wait_for_free_cpus(ray_cluster, 2.0)  # every pool was released


def test_hf_model_batches_inside_workers_and_gives_the_local_rows(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    pytest.importorskip("transformers", reason="the 'hf' extra is not installed")
    from tests.judges.tiny_hf import build_qwen2_audio

    model = build_qwen2_audio(tmp_path / "model")
    spec = [f"hf:{model}?batch_size=4&max_tokens=8"]
    plan = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",), limit=1)
    _run(RunConfig(starter_small, spec, tmp_path / "local", plan))
    with RayEngine(RayOptions(num_workers=2)) as engine:
        _run(RunConfig(starter_small, spec, tmp_path / "ray", plan), engine)
    ray_rows = _rows(tmp_path / "ray")
    assert ray_rows and max(r["usage"]["batch"] for r in ray_rows) > 1  # batched in the actor
    for r in ray_rows:
        r["usage"].pop("batch")
    local_rows = _rows(tmp_path / "local")
    for r in local_rows:
        r["usage"].pop("batch")
    assert ray_rows == local_rows


def test_killed_worker_calls_are_retried_and_stored_once(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    judge = "builtin:random?delay=0.1"
    plan = PlanSpec(probes=("J", "O"), protocols=("pointwise", "pairwise"), cues=("none", "hard"))
    # The actor-pool path (the Ray Data path has its own fault test in test_ray_data.py).
    with RayEngine(RayOptions(num_workers=2, ray_data=False)) as engine:
        killed: list[int] = []

        def kill_one(p: Progress) -> None:
            if p.done == 4 and not killed:
                pid = engine.judges[-1].pids[0]
                assert pid is not None
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        cfg = RunConfig(starter_small, [judge], tmp_path / "ray", plan, concurrency=6)
        runner = _run(cfg, engine, kill_one)
        assert killed
        proxy = engine.judges[-1]
    rows = _rows(tmp_path / "ray")
    calls = _calls(tmp_path / "ray")
    assert {r["status"] for r in rows} == {"ok"}
    assert len({r["key"] for r in rows}) == len(calls) == runner.progress.calls_made
    assert set(calls) == {r["key"] for r in rows}
    retried = [r for r in rows if r["attempts"] > 1]
    assert retried  # the killed worker had calls in flight; each was asked again, once
    assert proxy.pids == []  # released after the judge finished
    # The answers are the ones a local run gives: a retry on another worker changes nothing.
    local = _run(RunConfig(starter_small, [judge], tmp_path / "local", plan))
    assert local.progress.calls_made == len(calls)
    assert [r["pred"] for r in rows] == [r["pred"] for r in _rows(tmp_path / "local")]


def test_killed_driver_resumes_from_the_store(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J", "O"), protocols=("pointwise",), cues=("none", "hard"))
    log = tmp_path / "calls.log"
    judge = f"builtin:random?calllog={log}"

    class DriverDied(Exception):
        pass

    def die(p: Progress) -> None:
        if p.done == 5:
            raise DriverDied

    out = tmp_path / "ray"
    # The actor-pool path (a driver stopped mid Ray Data pass: test_ray_data.py).
    pool = RayOptions(num_workers=2, ray_data=False)
    with RayEngine(pool) as engine, pytest.raises(DriverDied):
        _run(RunConfig(starter_small, [judge], out, plan, concurrency=1), engine, die)
    stored = len(_calls(out))
    assert stored >= 5
    with RayEngine(pool) as engine:
        again = _run(RunConfig(starter_small, [judge], out, plan), engine)
    total = len(_calls(out))
    assert again.progress.calls_made == total - stored
    # Only the call in flight when the driver died can have been made twice (its answer was
    # never stored); every stored call was reused.
    assert total <= len(log.read_text().splitlines()) <= total + 1
    local = _run(RunConfig(starter_small, [judge.split("?")[0]], tmp_path / "local", plan))
    assert [r["pred"] for r in _rows(out)] == [r["pred"] for r in _rows(tmp_path / "local")]
    assert local.progress.calls_made == total
