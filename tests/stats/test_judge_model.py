"""The simulated judge model writes rows the statistics read, and its types get their verdicts
(a small version of `benchmarks/verdicts.py`, which runs 200 audits per type and size)."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.stats.judge_model import (
    TYPES,
    JudgeModel,
    audit_attributes,
    audit_rows,
    judged_right,
    verdict_marks,
)
from paraudit.stats.summary import summarize


def test_rows_have_the_shape_of_a_default_audit() -> None:
    rows = audit_rows(JudgeModel("perfect"), 3, np.random.default_rng(0))
    # Per item and cue: J, O, P pointwise × 2 branches × 2 orders, J pairwise × 4; T once.
    assert len(rows) == 3 * (2 * (12 + 4) + 4)
    assert all(r.correct for r in rows if r.probe != "T")
    pos = audit_rows(JudgeModel("x"), 1, np.random.default_rng(0), task="positional-emotion")
    p = [r for r in pos if r.probe == "P"]
    assert {tuple(r.gold) for r in p} == {("C1", "C3", "C5")}


@pytest.mark.parametrize("name", list(TYPES))
def test_each_type_gets_its_verdict_in_most_audits(name: str) -> None:
    # Diagnosis, what it must name and no other detector of issue 27, through summarize with
    # the items' attributes (the subgroup scan runs), as benchmarks/verdicts.py counts it.
    jt = TYPES[name]
    rng = np.random.default_rng(7)
    attrs = audit_attributes(100, jt.task)
    got = []
    for a in range(5):
        rows = audit_rows(jt.model, 100, rng, task=jt.task)
        v = summarize(rows, replicates=400, seed=a, permutations=200,
                      attributes=attrs)["verdicts"][0]  # fmt: skip
        got.append((v["diagnosis"], sorted(verdict_marks(v)), judged_right(jt, v)))
    assert sum(all(r) for *_, r in got) >= 4, got
