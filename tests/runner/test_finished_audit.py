"""Rerunning a finished audit is a check of the store, not a replay of the plan — and only
when nothing could differ: no call error, results.jsonl as written, the same judges, plan and
paraudit version."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import paraudit.runner.run as run_module
from paraudit.runfolder import CALLS, CallStore
from paraudit.runfolder.calls import VERSION
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner, RunOutcome

PLAN = PlanSpec(probes=("J", "P", "S"), protocols=("pointwise", "pairwise"), cues=("none",))
# Without Staging, which asks more once the failed perception calls are answered.
J_ONLY = PlanSpec(probes=("J",), protocols=("pointwise", "pairwise"), cues=("none",))


def execute(
    ds: Path, out: Path, judges: list[str], plan: PlanSpec = PLAN, **kw: object
) -> tuple[Runner, RunOutcome]:
    runner = Runner(RunConfig(ds, judges, out, plan, **kw))  # type: ignore[arg-type]
    return runner, asyncio.run(runner.execute())


def test_rerun_of_a_finished_audit_asks_nothing_and_rewrites_nothing(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    _, first = execute(tiny_dataset, out, ["builtin:random", "builtin:first"])
    assert not first.already_complete and first.calls_made > 0
    results = out / "results.jsonl"
    before, stamp = results.read_bytes(), results.stat().st_mtime_ns
    runner, again = execute(tiny_dataset, out, ["builtin:random", "builtin:first"])
    assert again.already_complete and again.calls_made == 0
    assert results.read_bytes() == before and results.stat().st_mtime_ns == stamp
    # What it prints is what the first run printed: the same counts and table.
    assert again.table == first.table and again.statuses == first.statuses
    assert again.rows == len(before.splitlines())
    assert any("already complete" in n for n in runner.notes)


@pytest.mark.parametrize("damage", ["edit", "truncate", "delete"])
def test_a_changed_results_file_is_rebuilt_from_the_store(
    tiny_dataset: Path, tmp_path: Path, damage: str
) -> None:
    out = tmp_path / "run"
    execute(tiny_dataset, out, ["builtin:random"])
    results = out / "results.jsonl"
    good = results.read_bytes()
    if damage == "edit":  # same size, one answer changed
        results.write_bytes(good.replace(b'"pred": "R1"', b'"pred": "R2"', 1))
        assert len(results.read_bytes()) == len(good) and results.read_bytes() != good
    elif damage == "truncate":
        results.write_bytes(good[: len(good) // 2])
    else:
        results.unlink()
    _, again = execute(tiny_dataset, out, ["builtin:random"])
    assert not again.already_complete and again.calls_made == 0  # replayed from calls.sqlite

    def answers(data: bytes) -> list[tuple[str, object]]:
        return [(r["key"], r["pred"]) for r in map(json.loads, data.splitlines())]

    assert answers(results.read_bytes()) == answers(good)


def test_an_audit_with_call_errors_is_not_finished(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    flaky = "builtin:random?fail_rate=0.5&fail_times=1"
    once = run_module.RetryPolicy(max_attempts=1)
    _, first = execute(tiny_dataset, out, [flaky], J_ONLY, retry=once)
    assert first.statuses["error"] > 0 and first.last_error is not None
    # A second attempt per call succeeds (the judge fails each prompt once).
    twice = run_module.RetryPolicy(max_attempts=2)
    _, again = execute(tiny_dataset, out, [flaky], J_ONLY, retry=twice)
    assert not again.already_complete
    assert again.calls_made == first.statuses["error"]  # only the failed ones, asked again
    assert again.statuses["error"] == 0 and again.rows == first.rows
    _, third = execute(tiny_dataset, out, [flaky], J_ONLY)
    assert third.already_complete and third.calls_made == 0


def test_a_new_paraudit_version_replays_the_plan(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    execute(tiny_dataset, out, ["builtin:random"])
    monkeypatch.setattr(run_module, "__version__", "99.0.0")
    _, again = execute(tiny_dataset, out, ["builtin:random"])
    assert not again.already_complete and again.calls_made == 0
    _, third = execute(tiny_dataset, out, ["builtin:random"])
    assert third.already_complete


def test_extend_is_not_a_finished_audit(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    execute(tiny_dataset, out, ["builtin:random"])
    _, grown = execute(tiny_dataset, out, ["builtin:first"], extend=True)
    assert not grown.already_complete and grown.calls_made > 0
    judges = {json.loads(x)["judge"] for x in (out / "results.jsonl").read_text().splitlines()}
    assert judges == {"builtin:random", "builtin:first"}
    store = CallStore(out / CALLS)
    try:
        assert store.version == VERSION
    finally:
        store.close()


def test_dry_run_counts_answers_already_in_the_store_without_touching_it(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    from paraudit.items.dataset import load_dataset
    from paraudit.runner.plan import plan_instances
    from paraudit.runner.run import dry_run

    out = tmp_path / "run"
    fresh = dry_run(RunConfig(tiny_dataset, ["builtin:random"], out, J_ONLY))
    assert "already_answered" not in fresh and not out.exists()
    size = len(plan_instances(load_dataset(tiny_dataset), J_ONLY))
    assert fresh["instances_per_judge"] == size
    execute(tiny_dataset, out, ["builtin:random"], J_ONLY)
    store = out / CALLS
    before = store.read_bytes()
    cfg = RunConfig(tiny_dataset, ["builtin:random", "builtin:first"], out, PLAN)
    again = dry_run(cfg)
    done = again["already_answered"]
    # J_ONLY's questions are all in PLAN; builtin:first has answered nothing yet.
    assert done["builtin:random"].startswith(f"{size} of {again['instances_per_judge']} ")
    assert done["builtin:first"].startswith("0 of ")
    assert store.read_bytes() == before


def test_rerun_of_a_finished_audit_needs_no_start_up_check(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model to load or a server to reach is not needed when nothing will be asked."""
    out = tmp_path / "run"
    execute(tiny_dataset, out, ["builtin:random"])
    checked: list[str] = []

    async def refuse(self: Runner, judge: object) -> None:
        checked.append(str(judge))
        raise AssertionError("start-up check on a finished audit")

    monkeypatch.setattr(Runner, "_preflight", refuse)
    _, again = execute(tiny_dataset, out, ["builtin:random"])
    assert again.already_complete and checked == []


def test_other_code_replays_the_plan(
    tiny_dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version number is not bumped for every change that may change rows (a prompt, a
    parser): a finished audit is trusted only by the code that finished it."""
    out = tmp_path / "run"
    execute(tiny_dataset, out, ["builtin:random"])
    monkeypatch.setattr(run_module, "code_digest", lambda: "other code")
    _, again = execute(tiny_dataset, out, ["builtin:random"])
    assert not again.already_complete and again.calls_made == 0


def test_a_killed_runs_temporary_rows_are_removed(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    execute(tiny_dataset, out, ["builtin:random"])
    for name in (".results.jsonl.abc123.tmp", ".results.jsonl.def456.tmp"):
        (out / name).write_text('{"half": ')
    _, again = execute(tiny_dataset, out, ["builtin:random"])
    assert again.already_complete
    assert sorted(p.name for p in out.iterdir() if p.name.endswith(".tmp")) == []


@pytest.mark.parametrize("name", ["run#2", "a?b", "p%41q"])
def test_dry_run_reads_stores_whose_path_looks_like_uri_syntax(
    tiny_dataset: Path, tmp_path: Path, name: str
) -> None:
    from paraudit.runner.run import dry_run

    out = tmp_path / name
    execute(tiny_dataset, out, ["builtin:random"], J_ONLY)
    before = sorted(p.name for p in tmp_path.iterdir())
    plan = dry_run(RunConfig(tiny_dataset, ["builtin:random"], out, J_ONLY))
    size = plan["instances_per_judge"]
    assert plan["already_answered"]["builtin:random"].startswith(f"{size} of {size} ")
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no stray file made
