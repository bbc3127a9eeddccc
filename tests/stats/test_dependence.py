"""The permutation test of dependence between P, O and J."""

from __future__ import annotations

import numpy as np

from paraudit.stats.dependence import (
    PACKED,
    _null_counts,
    _orders,
    _shuffled_codes,
    dependence_test,
)
from paraudit.stats.states import GROUPS


def _units(n_items: int, rng: np.random.Generator, dependent: bool, acc: float = 0.8) -> list:
    out = []
    for i in range(n_items):
        for _ in range(2):
            p, o = rng.random() < acc, rng.random() < acc
            j = (p and o) if dependent else rng.random() < acc
            out.append((f"i{i}", int(p), int(o), int(j)))
    return out


def test_independent_failures_name_a_group_at_most_about_alpha_of_the_time() -> None:
    rng = np.random.default_rng(1)
    named = sum(
        bool(dependence_test(_units(60, rng, False), permutations=400, seed=s)["over_represented"])
        for s in range(120)
    )
    assert named / 120 <= 0.1  # α = 5 % family-wise; 120 audits leave room for noise


def test_failures_that_co_occur_are_named() -> None:
    rng = np.random.default_rng(2)
    d = dependence_test(_units(80, rng, True), permutations=400)
    # J right exactly when P and O are: no shortcut can exist, the 110/010/100 states fill up.
    assert d["over_represented"] and d["groups"][d["over_represented"][0]]["p_value"] <= 0.05


def test_a_degenerate_marginal_has_nothing_to_shuffle() -> None:
    units = [(f"i{i}", 1, 1, 0) for i in range(40)]  # a pure Potemkin judge
    d = dependence_test(units, permutations=200)
    assert d["over_represented"] == [] and all(g["p_value"] == 1.0 for g in d["groups"].values())
    assert dependence_test([])["units"] == 0


def test_the_per_item_pattern_count_equals_coding_every_unit() -> None:
    # The null's counts per shuffle from item patterns (items of up to PACKED units) must be
    # the counts of coding every unit of every shuffle; larger items take the unit path.
    rng = np.random.default_rng(3)
    for size in range(1, PACKED + 3):
        block = (rng.random((40, size, 3)) < 0.6).astype(float)
        orders = _orders(5, 50, (40,))
        codes = _shuffled_codes(block, orders)
        by_unit = np.stack([np.bincount(c, minlength=8) for c in codes])
        assert np.array_equal(_null_counts(block, orders), by_unit), size


def test_a_test_is_the_same_whether_its_shuffles_are_drawn_or_reused() -> None:
    rng = np.random.default_rng(4)
    units = [(f"i{i}", *(int(x) for x in rng.random(3) < 0.7)) for i in range(30) for _ in range(6)]
    out = dependence_test(units, permutations=200, seed=1)
    assert out["units"] == 180 and out["permutations"] == 200
    assert set(out["groups"]) == set(GROUPS)
    _orders.cache_clear()
    assert dependence_test(units, permutations=200, seed=1) == out  # drawn afresh
    assert dependence_test(units, permutations=200, seed=1) == out  # reused
    assert dependence_test(units, permutations=200, seed=2) != out  # another seed's shuffles
