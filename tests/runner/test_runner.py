"""The runner end to end on a real (small) starter set with the built-in judges."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner

ALL = PlanSpec(
    probes=("J", "P", "O", "S", "T"),
    protocols=("pointwise", "pairwise"),
    cues=("none", "soft", "hard", "transition"),
)


def _run(
    ds: Path, out: Path, judge: str, plan: PlanSpec = ALL
) -> tuple[list[dict[str, object]], Runner]:
    r = Runner(RunConfig(ds, [judge], out, plan, concurrency=8))
    return asyncio.run(r.run()), r


def test_rerun_makes_no_calls_and_gives_equal_results(starter_small: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    rows, r1 = _run(starter_small, tmp_path / "run", f"builtin:random?calllog={log}")
    assert r1.progress.calls_made == len(log.read_text().splitlines()) > 0
    again, r2 = _run(starter_small, tmp_path / "run", f"builtin:random?calllog={log}")
    assert r2.progress.calls_made == 0
    assert [x["pred"] for x in again] == [x["pred"] for x in rows]
    assert {x["status"] for x in rows} == {"ok"}
    assert {x["probe"] for x in rows} == {"J", "P", "O", "S", "T"}


def test_first_judge_always_picks_r1(starter_small: Path, tmp_path: Path) -> None:
    rows, _ = _run(starter_small, tmp_path / "run", "builtin:first")
    picks = [x["pred"] for x in rows if isinstance(x["pred"], str)]
    assert picks and set(picks) == {"R1"}
    assert any(x["order"] == "ba" for x in rows)


def test_failures_are_retried_and_leftovers_are_error_rows(
    starter_small: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",))
    rows, _ = _run(starter_small, tmp_path / "a", "builtin:random?fail_rate=0.5&fail_times=1", plan)
    assert {x["status"] for x in rows} == {"ok"}
    assert any(x["attempts"] == 2 for x in rows)
    cfg = RunConfig(
        starter_small, ["builtin:random?fail_rate=0.5&fail_times=99"], tmp_path / "b", plan
    )
    cfg.retry = type(cfg.retry)(max_attempts=2, base_delay_s=0.0)
    rows = asyncio.run(Runner(cfg).run())
    assert {x["status"] for x in rows} == {"ok", "error"}
    # The next run retries the error rows (and only them).
    log = tmp_path / "log"
    cfg.judges = [f"builtin:random?calllog={log}"]
    rows = asyncio.run(Runner(cfg).run())
    assert {x["status"] for x in rows} == {"ok"}
    assert 0 < len(log.read_text().splitlines()) < len(rows)


def test_invalid_dataset_is_refused_before_any_call(starter_small: Path, tmp_path: Path) -> None:
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(starter_small, bad)
    with (bad / "items.jsonl").open("a") as f:
        f.write("{oops\n")
    log = tmp_path / "log"
    with pytest.raises(ParauditError, match="does not validate"):
        _run(bad, tmp_path / "run", f"builtin:random?calllog={log}")
    assert not log.exists()


def _slow_run_cmd(ds: Path, out: Path, log: Path) -> list[str]:
    """`paraudit run` in a subprocess with a judge slow enough to be interrupted mid-run."""
    judge = f"builtin:random?delay=0.02&calllog={log}"
    return [
        sys.executable,
        "-m",
        "paraudit.cli.main",
        "run",
        str(ds),
        "--out",
        str(out),
        "--judge",
        judge,
        "--concurrency",
        "4",
    ]


def _wait_for_calls(log: Path, n: int) -> None:
    deadline = time.time() + 60
    while time.time() < deadline and (not log.exists() or len(log.read_text().splitlines()) < n):
        time.sleep(0.05)


def test_sigkill_mid_run_then_resume(starter_small: Path, tmp_path: Path) -> None:
    log, out = tmp_path / "calls.log", tmp_path / "run"
    cmd = _slow_run_cmd(starter_small, out, log)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200"},
    )
    _wait_for_calls(log, 40)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (out / "results.jsonl").exists()
    before = len(log.read_text().splitlines())
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    ref_log = tmp_path / "ref.log"
    ref, _ = _run(starter_small, tmp_path / "ref", f"builtin:random?calllog={ref_log}")
    ref_calls = ref_log.read_text().splitlines()
    # An uninterrupted run asks each distinct prompt once; after a kill only the calls that
    # were in flight (at most `concurrency`) may be asked again.
    assert len(ref_calls) == len(set(ref_calls))
    assert len(calls) - len(set(calls)) <= 4
    assert set(calls) == set(ref_calls)
    assert [x["pred"] for x in rows] == [x["pred"] for x in ref]
    assert before < len(calls)


def test_ctrl_c_stops_cleanly_and_resumes(starter_small: Path, tmp_path: Path) -> None:
    log, out = tmp_path / "calls.log", tmp_path / "run"
    cmd = _slow_run_cmd(starter_small, out, log)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_calls(log, 40)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert len(calls) - len(set(calls)) <= 4
