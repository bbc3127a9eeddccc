"""The Ray engine's bulk pass (Ray Data): what it asks, what it stores, faults survived."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paraudit.engines.ray_data import BulkCaller, answer_with_ray_data, pending_calls
from paraudit.engines.ray_engine import RayEngine, RayJudge, RayOptions
from paraudit.errors import MissingExtraError, ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.judges import registry
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.registry import load_judge
from paraudit.protocols.parts import Prompt
from paraudit.runfolder import CallRecord, CallStore
from paraudit.runner.asking import BulkSettings, Progress
from paraudit.runner.calls import RetryPolicy, call_key
from paraudit.runner.plan import PlanSpec, iter_instances
from paraudit.runner.run import RunConfig, Runner
from tests.engines.audits import rows_without_latency as _rows
from tests.engines.audits import run_audit as _run

PLAN = PlanSpec(probes=("J", "O"), protocols=("pointwise", "pairwise"), cues=("none", "hard"))
SETTINGS = BulkSettings(concurrency=4, retry=RetryPolicy(), parse_retries=2)


def _keys(out: Path) -> list[str]:
    db = sqlite3.connect(out / "calls.sqlite")
    return [k for (k,) in db.execute("SELECT key FROM calls")]


class Junk(Judge):
    """Replies junk to samples 0 and 1, a valid answer from sample 2 on."""

    reads_question = False

    async def generate(self, prompt: Prompt, *, sample: int = 0) -> Reply:
        return Reply("no idea" if sample < 2 else '{"reasoning": "x", "pred": "R1"}')


class _EP:
    def load(self) -> type[Judge]:
        return Junk


@pytest.fixture
def junk(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(registry, "_third_party", lambda: {"junk": _EP()})
    return "junk:v1"


def test_pending_calls_skip_stored_answers_and_repeated_prompts(
    starter_small: Path, tmp_path: Path
) -> None:
    ds = load_dataset(starter_small)
    judge = load_judge("builtin:first")
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=3)
    instances = list(iter_instances(ds, plan))
    keys = [call_key(judge, i.prompt, 0) for i in instances]
    store = CallStore(tmp_path / "calls.sqlite")
    raw = '{"reasoning": "", "pred": "R1"}'
    store.put(CallRecord(keys[0], judge.label, "ok", raw, "", 0.1, 1, {}, [], None))
    pending = list(pending_calls(judge, instances + instances[1:2], store, 0))
    assert [(k, s) for k, _, s in pending] == [(k, 0) for k in keys[1:]]


def test_pending_calls_resume_unparsable_answers_at_the_missing_sample(
    starter_small: Path, tmp_path: Path, junk: str
) -> None:
    ds = load_dataset(starter_small)
    judge = load_judge(junk)
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    inst = next(iter_instances(ds, plan))
    store = CallStore(tmp_path / "calls.sqlite")
    key = call_key(judge, inst.prompt, 0)
    store.put(CallRecord(key, judge.label, "ok", "no idea", "", 0.1, 1, {}, [], None))
    assert list(pending_calls(judge, [inst], store, 0)) == []  # no retries asked for
    [(key, _, sample)] = pending_calls(judge, [inst], store, 2)
    assert (key, sample) == (call_key(judge, inst.prompt, 1), 1)


def test_worker_reasks_unparsable_replies_like_the_local_runner(
    starter_small: Path, tmp_path: Path, junk: str
) -> None:
    ds = load_dataset(starter_small)
    judge = load_judge(junk)
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=1)
    inst = next(iter_instances(ds, plan))
    worker = BulkCaller(junk, starter_small, SETTINGS)
    try:
        texts = worker.loop.run_until_complete(
            worker._answer([(call_key(judge, inst.prompt, 0), inst, 0)])
        )
    finally:
        worker.loop.close()
    made = [json.loads(t) for t in texts]
    assert [r["key"] for r in made] == [call_key(judge, inst.prompt, s) for s in (0, 1, 2)]
    assert [r["raw"] for r in made][-1].endswith('"R1"}')
    # The same three calls and rows as the local runner makes.
    cfg = RunConfig(starter_small, [junk], tmp_path / "local", plan, parse_retries=2)
    local = _run(cfg)
    assert local.progress.calls_made == 3 * local.progress.total
    assert {r["key"] for r in made} <= set(_keys(tmp_path / "local"))


def test_worker_that_cannot_start_stops_the_run_with_its_reason(
    starter_small: Path, tmp_path: Path
) -> None:
    worker = BulkCaller("builtin:random", tmp_path / "elsewhere", SETTINGS)
    try:
        [text] = worker.loop.run_until_complete(worker._answer([]))
    finally:
        worker.loop.close()
    assert "cannot read the dataset" in json.loads(text)["fatal"]


@pytest.fixture
def pool_starts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Specs of the judges whose actor pool (the call-by-call path) was started."""
    started: list[str] = []
    start = RayJudge.start

    def spy(self: RayJudge, dataset: Any) -> None:
        started.append(self.spec)
        start(self, dataset)

    monkeypatch.setattr(RayJudge, "start", spy)
    return started


def test_run_answers_on_ray_data_and_gives_the_local_rows(
    ray_cluster: Any, starter_small: Path, tmp_path: Path, pool_starts: list[str]
) -> None:
    judges = ["builtin:random", "builtin:prosody"]
    plan = PlanSpec(probes=("J", "P", "S"), protocols=("pointwise",), cues=("none",), limit=4)
    notes: list[str] = []
    with RayEngine(RayOptions(num_workers=2)) as engine:
        ray = _run(
            RunConfig(starter_small, judges, tmp_path / "ray", plan),
            engine,
            lambda p: notes.append(p.note),
        )
    assert pool_starts == []  # every call was made on Ray Data
    assert any("answered on Ray Data" in n for n in notes)
    local = _run(RunConfig(starter_small, judges, tmp_path / "local", plan))
    assert ray.progress.calls_made == local.progress.calls_made > 0
    assert _rows(tmp_path / "ray") == _rows(tmp_path / "local")
    assert any(r["probe"] == "S" for r in _rows(tmp_path / "ray"))  # Staging had its own pass
    # A rerun asks nothing: every call is in the store.
    with RayEngine(RayOptions(num_workers=2)) as engine:
        again = _run(RunConfig(starter_small, judges, tmp_path / "ray", plan), engine)
    assert again.progress.calls_made == 0


def test_failed_calls_are_stored_and_not_asked_again_like_a_local_run(
    ray_cluster: Any, starter_small: Path, tmp_path: Path, pool_starts: list[str]
) -> None:
    # Every call of a third of the prompts fails (one attempt allowed): error rows.
    judge = "builtin:first?fail_rate=0.33&fail_times=9"
    plan = PlanSpec(probes=("J",), protocols=("pointwise", "pairwise"), cues=("none",), limit=3)
    once = RetryPolicy(max_attempts=1)
    with RayEngine(RayOptions(num_workers=2)) as engine:
        ray = _run(RunConfig(starter_small, [judge], tmp_path / "ray", plan, retry=once), engine)
    local = _run(RunConfig(starter_small, [judge], tmp_path / "local", plan, retry=once))
    rows = _rows(tmp_path / "ray")
    assert {r["status"] for r in rows} == {"ok", "error"}
    assert rows == _rows(tmp_path / "local")
    # The error rows came from the pass's records: no pool was started to ask them again.
    assert pool_starts == []
    assert set(_keys(tmp_path / "ray")) == set(_keys(tmp_path / "local"))
    assert ray.progress.calls_made == len(_keys(tmp_path / "ray"))
    assert local.progress.calls_made >= ray.progress.calls_made  # local re-asks a failed twin


def test_cancelled_run_stops_the_pass_and_a_rerun_resumes(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    """Ctrl-C during a pass (the runner's task cancelled) ends it within a batch, keeps the
    answers stored so far, and a rerun asks only the rest."""
    log = tmp_path / "calls.log"
    judge = f"builtin:random?delay=0.05&calllog={log}"
    out = tmp_path / "ray"

    async def cancel_mid_pass(engine: RayEngine) -> Runner:
        seen = asyncio.Event()
        loop = asyncio.get_running_loop()

        def progress(p: Progress) -> None:  # called from the pass's thread
            if p.calls_made >= 16:
                loop.call_soon_threadsafe(seen.set)

        cfg = RunConfig(starter_small, [judge], out, PLAN, concurrency=2)
        cfg.engine = engine
        runner = Runner(cfg, progress)
        task = asyncio.ensure_future(runner.execute())
        await asyncio.wait_for(seen.wait(), 60)
        task.cancel()
        t0 = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - t0 < 10  # within a batch, not at the end of the pass
        return runner

    with RayEngine(RayOptions(num_workers=2)) as engine:
        first = asyncio.run(cancel_mid_pass(engine))
    stored = len(_keys(out))
    assert 16 <= stored == first.progress.calls_made
    assert not (out / "results.jsonl").exists()
    with RayEngine(RayOptions(num_workers=2)) as engine:
        again = _run(RunConfig(starter_small, [judge], out, PLAN), engine)
    total = len(_keys(out))
    assert stored < total and again.progress.calls_made == total - stored
    local = _run(RunConfig(starter_small, [judge.split("&")[0]], tmp_path / "local", PLAN))
    assert local.progress.calls_made == total
    assert [r["pred"] for r in _rows(out)] == [r["pred"] for r in _rows(tmp_path / "local")]


def test_missing_ray_data_is_named_before_ray_starts(
    ray_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray.data", None)  # import ray.data → ImportError
    engine = RayEngine(RayOptions())
    with pytest.raises(MissingExtraError, match=r"paraudit\[ray\]"):
        engine.__enter__()
    assert not engine.started_here
    with RayEngine(RayOptions(ray_data=False)) as plain:  # the pool path needs no Ray Data
        assert plain.ray is not None


def test_rate_limited_judge_is_asked_through_the_actor_pool(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J",), protocols=("pointwise",), cues=("none",), limit=2)
    notes: list[str] = []
    pids: list[int | None] = []
    with RayEngine(RayOptions(num_workers=1)) as engine:

        def seen(p: Progress) -> None:
            notes.append(p.note)
            pids.extend(engine.judges[-1].pids)

        _run(
            RunConfig(starter_small, ["builtin:first?rpm=6000"], tmp_path / "r", plan), engine, seen
        )
    assert not any(notes)  # no Ray Data pass: the driver's limiter holds for every worker
    assert pids and all(p is not None for p in pids)


def test_fatal_error_in_a_worker_stops_the_run(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    ds = load_dataset(starter_small)
    judge = load_judge("builtin:random")
    store = CallStore(tmp_path / "calls.sqlite")
    with RayEngine(RayOptions(num_workers=1)) as engine, pytest.raises(ParauditError) as e:
        answer_with_ray_data(
            engine.ray,
            judge,
            tmp_path / "elsewhere",
            iter_instances(ds, PLAN),
            store,
            SETTINGS,
            {"workers": 1, "num_cpus": 1},
            Progress(),
        )
    assert isinstance(e.value, FatalJudgeError)
    assert "cannot read the dataset" in str(e.value)
    assert (
        store.finished_among([call_key(judge, i.prompt, 0) for i in iter_instances(ds, PLAN)]) == {}
    )


def _bulk_worker_pids() -> list[int]:
    """Processes of Ray Data actors running BulkCaller (Ray names them after the UDF)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if b"BulkCaller" in cmd:
            pids.append(int(entry.name))
    return pids


def test_killed_ray_data_worker_chunk_is_redone_and_stored_once(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    judge = f"builtin:random?delay=0.05&calllog={log}"
    killed: list[int] = []

    def kill_one(p: Progress) -> None:
        if p.calls_made >= 16 and not killed:
            pids = _bulk_worker_pids()  # both workers: the busy one's chunk is lost
            for pid in pids:  # none seen yet: tried again at the next report
                os.kill(pid, signal.SIGKILL)
            killed.extend(pids)

    out = tmp_path / "ray"
    with RayEngine(RayOptions(num_workers=2)) as engine:
        runner = _run(RunConfig(starter_small, [judge], out, PLAN, concurrency=2), engine, kill_one)
    assert killed
    rows = _rows(out)
    keys = _keys(out)
    assert {r["status"] for r in rows} == {"ok"}
    assert len(keys) == len(set(keys)) == len({r["key"] for r in rows})  # each stored once
    made = log.read_text().splitlines()
    assert len(made) > len(keys)  # the killed worker's chunk was asked again elsewhere
    assert runner.progress.calls_made == len(keys)
    local = _run(RunConfig(starter_small, [judge.split("&")[0]], tmp_path / "local", PLAN))
    assert [r["pred"] for r in rows] == [r["pred"] for r in _rows(tmp_path / "local")]
    assert local.progress.calls_made == len(keys)


def test_worker_out_of_restarts_stops_the_run_in_one_line(
    ray_cluster: Any, starter_small: Path, tmp_path: Path
) -> None:
    killed: list[int] = []

    def kill(p: Progress) -> None:
        # Retried at each progress report until the actor's process is seen: Ray renames it
        # after the UDF a moment after it starts, later still on a busy machine (the other
        # test worker), and the first answer can come back before that.
        if p.calls_made and not killed:
            killed.extend(_bulk_worker_pids())
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    # Slow calls keep the one actor busy long after the first answer is back, so the kill
    # lands while it still holds work (with 50 ms calls a busy machine saw it finish first).
    judge = "builtin:random?delay=0.2"
    cfg = RunConfig(starter_small, [judge], tmp_path / "ray", PLAN, concurrency=2)
    with RayEngine(RayOptions(num_workers=1, max_restarts=0)) as engine:
        with pytest.raises(FatalJudgeError, match="the Ray Data pass failed") as e:
            _run(cfg, engine, kill)
    assert killed
    assert "\n" not in str(e.value) and "rerun to resume" in str(e.value)
    assert 0 < len(_keys(tmp_path / "ray"))  # what was answered before is kept
