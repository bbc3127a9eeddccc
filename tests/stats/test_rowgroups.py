"""Compact row groups give the statistics exactly what the full rows give."""

from __future__ import annotations

import asyncio
from pathlib import Path

from paraudit.report.build import load_groups, load_runs
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.accuracy import read_results
from paraudit.stats.rowgroups import FIELDS, read_groups
from paraudit.stats.summary import summarize, summarize_groups

PLAN = PlanSpec(
    probes=("J", "P", "O", "S", "T"), protocols=("pointwise", "pairwise"), cues=("none", "hard")
)


def _run(ds: Path, out: Path, judges: list[str]) -> Path:
    asyncio.run(Runner(RunConfig(ds, judges, out, PLAN)).execute())
    return out


def test_summary_from_groups_equals_summary_from_rows(tiny_dataset: Path, tmp_path: Path) -> None:
    out = _run(tiny_dataset, tmp_path / "r", ["builtin:random", "builtin:first"])
    full = read_results(out)
    groups = read_groups(out)
    assert len(groups) == len(full)
    by_groups = summarize_groups(
        ((g.judge, g.task, g) for g in groups), replicates=200, delivery=groups.delivery.cells()
    )
    assert by_groups == summarize(full, replicates=200)
    # The rows a group yields are the full rows' statistical fields.
    keep = sorted((*FIELDS, "judge", "task"))
    assert sorted(repr([(k, r[k]) for k in keep]) for r in groups.rows()) == sorted(
        repr([(k, r[k]) for k in keep]) for r in full
    )


def test_repeated_values_are_shared(tiny_dataset: Path, tmp_path: Path) -> None:
    out = _run(tiny_dataset, tmp_path / "r", ["builtin:random"])
    rows = list(read_groups(out).rows())
    ids = {}
    for r in rows:
        ids.setdefault(r["item_id"], r["item_id"])
        assert r["item_id"] is ids[r["item_id"]]
    golds = [r["gold"] for r in rows if isinstance(r["gold"], dict)]
    assert golds and len({id(g) for g in golds}) < len(golds)


def test_a_judge_in_two_runs_is_told_apart_by_run_label(tiny_dataset: Path, tmp_path: Path) -> None:
    a = _run(tiny_dataset, tmp_path / "a", ["builtin:random", "builtin:first"])
    b = _run(tiny_dataset, tmp_path / "b", ["builtin:random"])
    groups = load_groups([a, b], ["one", "two"])
    assert groups.judges == ["builtin:first", "builtin:random [one]", "builtin:random [two]"]
    rows = load_runs([a, b], ["one", "two"])
    assert {r["judge"] for r in rows} == set(groups.judges)
    assert len(rows) == len(read_results(a)) + len(read_results(b))
