"""The judge-vs-scaffold statistics by hand: pairing, the 110 → 111 share, its item interval."""

from __future__ import annotations

from typing import Any

import pytest

from paraudit.stats.scaffold import movement, scaffold_pairs, side_by_side
from tests.stats.synthetic import Row, row


def _unit(item: str, branch: int, state: str, cue: str = "none") -> dict[str, Any]:
    return {"item_id": item, "branch": branch, "cue": cue, "state": state}


def test_pairs_need_both_judges() -> None:
    names = ["a", "scaffold:a", "scaffold:b", "c"]
    assert scaffold_pairs(names) == [("a", "scaffold:a")]


def test_movement_counts_only_units_that_start_in_110_and_pairs_them_exactly() -> None:
    base = [_unit("i", 0, "110"), _unit("i", 1, "110"), _unit("j", 0, "110"),
            _unit("j", 1, "010"), _unit("k", 0, "110", cue="hard")]  # fmt: skip
    after = [_unit("i", 0, "111"), _unit("i", 1, "110"), _unit("j", 0, "111"),
             _unit("j", 1, "111"), _unit("k", 0, "111", cue="hard"),
             _unit("k", 0, "110", cue="none")]  # fmt: skip
    m = movement(base, after, replicates=400)
    assert (m["units"], m["items"]) == (4, 3)
    # j's 010 unit is not counted; k is paired with its own cue's unit, not the other cue's.
    assert m["rate"] == pytest.approx(3 / 4)
    assert m["low"] < m["rate"] <= m["high"] == 1.0
    assert movement(base, [], replicates=10)["rate"] is None  # nothing paired


def _rows(judge: str, j_right: bool) -> list[Row]:
    out = []
    for item in ("x", "y"):
        for probe, right in (("P", True), ("O", True), ("J", j_right)):
            for order in ("ab", "ba"):
                out.append(row(judge=judge, task="t", item=item, branch=0, probe=probe,
                               protocol="pointwise", cue="none", order=order, status="ok",
                               correct=right))  # fmt: skip
    return out


def test_side_by_side_of_a_potemkin_judge_and_its_repair() -> None:
    rows = _rows("m", False) + _rows("scaffold:m", True)
    [r] = side_by_side(rows, calls={"scaffold:m": 1.5}, replicates=200)
    assert (r["judge"], r["scaffold"], r["task"]) == ("m", "scaffold:m", "t")
    assert r["states"][0]["110"] == 1.0 and r["states"][1]["111"] == 1.0
    assert r["j_accuracy"] == [{"none": 0.0}, {"none": 1.0}]
    assert r["movement"]["rate"] == 1.0 and r["calls_per_answer"] == [1.0, 1.5]
