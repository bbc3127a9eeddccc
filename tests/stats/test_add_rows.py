"""A tally's `add_rows` (stats/analysis.py): fed a step of rows at once, it must leave the tally
exactly as feeding the same rows one at a time, whatever the steps; the summary's pass hands rows
over in steps of `summary.tally.CHUNK`, and its output must not depend on that size."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest

from paraudit.stats.analyses import ANALYSES
from paraudit.stats.analysis import GroupContext, TakesRows
from paraudit.stats.statrow import StatRow
from paraudit.stats.summary import summarize
from paraudit.stats.summary import tally as tally_module
from tests.stats.registry_rows import golden_delivery, golden_rows


def _groups() -> dict[tuple[str, str], list[StatRow]]:
    out: dict[tuple[str, str], list[StatRow]] = defaultdict(list)
    for r in golden_rows(items=30, seed=11):
        out[(r.judge, r.task)].append(r)
    return out


def _records(t: Any, judge: str, task: str) -> str:
    ctx = GroupContext(judge=judge, task=task, items=30, replicates=100, seed=0)
    return json.dumps(t.records(ctx), sort_keys=True, default=str)


BATCHED = [a for a in ANALYSES if not a.across and isinstance(a.start("j", "t"), TakesRows)]


def test_the_tallies_that_count_the_most_rows_take_them_in_steps() -> None:
    assert {a.name for a in BATCHED} >= {"served", "accounting", "strata"}


@pytest.mark.parametrize("analysis", BATCHED, ids=lambda a: a.name)
@pytest.mark.parametrize("step", [1, 7, 1000])
def test_steps_of_rows_count_as_rows_one_at_a_time(analysis: Any, step: int) -> None:
    for (judge, task), rows in _groups().items():
        one, steps = analysis.start(judge, task), analysis.start(judge, task)
        for r in rows:
            one.add(r)
        for at in range(0, len(rows), step):
            steps.add_rows(rows[at : at + step])
        assert vars(one) == vars(steps)
        assert _records(one, judge, task) == _records(steps, judge, task)


def test_the_summary_does_not_depend_on_the_pass_step(monkeypatch: pytest.MonkeyPatch) -> None:
    def summary() -> str:
        raw = summarize(golden_rows(items=30, seed=11), replicates=100, permutations=100,
                        delivery=golden_delivery())  # fmt: skip
        return json.dumps(raw, sort_keys=True, default=str)

    before = summary()
    monkeypatch.setattr(tally_module, "CHUNK", 5)
    assert summary() == before
