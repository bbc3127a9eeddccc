"""The permutation test of dependence between P, O and J."""

from __future__ import annotations

import numpy as np

from paraudit.stats.dependence import dependence_test


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
