"""Compact row groups give the statistics exactly what the full rows give."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from paraudit.report.build import load_groups, load_runs
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.accuracy import read_results
from paraudit.stats.rowgroups import FIELDS, read_groups
from paraudit.stats.summary import summarize, summarize_groups
from tests.stats.synthetic import stat_rows

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
    assert by_groups == summarize(stat_rows(full), replicates=200, delivery=groups.delivery.cells())
    # The rows a group yields are the full rows' statistical fields.
    # (`agreement`, `draw_hits`, `reask` are derived from a sampled row's draws, `shape` from an
    # unparsed row's reply, `served_call` from the row's `served` and `finished_at`: no such keys.)
    derived = ("agreement", "shape", "draw_hits", "reask", "served_call")
    keep = sorted((*(f for f in FIELDS if f not in derived), "judge", "task"))
    assert sorted(repr([(k, getattr(r, k)) for k in keep]) for r in groups.rows()) == sorted(
        repr([(k, r[k]) for k in keep]) for r in full
    )
    assert sorted(map(repr, groups.rows())) == sorted(map(repr, stat_rows(full)))


def test_repeated_values_are_shared(tiny_dataset: Path, tmp_path: Path) -> None:
    out = _run(tiny_dataset, tmp_path / "r", ["builtin:random"])
    rows = list(read_groups(out).rows())
    ids = {}
    for r in rows:
        ids.setdefault(r.item_id, r.item_id)
        assert r.item_id is ids[r.item_id]
    golds = [r.gold for r in rows if isinstance(r.gold, dict)]
    assert golds and len({id(g) for g in golds}) < len(golds)


def test_a_judge_in_two_runs_is_told_apart_by_run_label(tiny_dataset: Path, tmp_path: Path) -> None:
    a = _run(tiny_dataset, tmp_path / "a", ["builtin:random", "builtin:first"])
    b = _run(tiny_dataset, tmp_path / "b", ["builtin:random"])
    groups = load_groups([a, b], ["one", "two"])
    assert groups.judges == ["builtin:first", "builtin:random [one]", "builtin:random [two]"]
    rows = load_runs([a, b], ["one", "two"])
    assert {r.judge for r in rows} == set(groups.judges)
    assert len(rows) == len(read_results(a)) + len(read_results(b))


def test_trailing_none_fields_are_not_stored(tiny_dataset: Path, tmp_path: Path) -> None:
    """A row's optional fields at the end (context_order of a pointwise row, agreement of an
    unsampled one) cost no memory; the rows handed out still have them (compared with the
    full rows above)."""
    out = _run(tiny_dataset, tmp_path / "r", ["builtin:random"])
    # A row of this run ends at `served_call` (who answered, when): every field is stored.
    assert {len(v) for g in read_groups(out) for v in g._rows} == {len(FIELDS)}
    # As an older run wrote them (no `served`, no `finished_at`), the optional tail is dropped.
    lines = (out / "results.jsonl").read_text().splitlines()
    old = [{k: v for k, v in json.loads(x).items() if k not in ("served", "finished_at")}
           for x in lines]  # fmt: skip
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in old))
    stored = [values for group in read_groups(out) for values in group._rows]
    assert stored and all(values[-1] is not None for values in stored)
    # pointwise rows end at `correct`, pairwise ones at `context_order` (no N row: no asks/null)
    tail = len(FIELDS) - FIELDS.index("context_order")
    assert {len(values) for values in stored} == {len(FIELDS) - tail, len(FIELDS) - tail + 1}
    assert {r.agreement for r in read_groups(out).rows()} == {None}
