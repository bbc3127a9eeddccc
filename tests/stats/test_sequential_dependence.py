"""The dependence step's sequential form: its block statistic is unbiased for each group's
excess, its sequence covers the excess under optional stopping, and it settles a large
co-occurring failure as "yes" and independent components as "no" (never a false "yes")."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.stats.confseq import signed_cs
from paraudit.stats.dependence import MIN_EXCESS, dependence_test
from paraudit.stats.sequential import ALPHA, ALPHA_RELIABLE, MARGIN
from paraudit.stats.sequential_dependence import (
    block_excess,
    block_scores,
    decide,
    reported_excess,
)
from paraudit.stats.states import GROUPS, STATES, independent_masses

ITEMS = 189


def _items(rng: np.random.Generator, n: int, q: float, fail: float) -> list[np.ndarray]:
    """n items of two units each: with probability `fail` every answer of the item is wrong
    (co-occurring failure), else P, O and J each right with probability q, independently."""
    out = []
    for _ in range(n):
        if rng.random() < fail:
            out.append(np.zeros((2, 3)))
        else:
            out.append((rng.random((2, 3)) < q).astype(float))
    return out


def _excess(q: float, fail: float) -> np.ndarray:
    """Each group's true excess for `_items`' judge (GROUPS order)."""
    joint = {s: (1 - fail) * independent_masses(q, q, q)[s] for s in STATES}
    joint["000"] += fail
    m = (1 - fail) * q
    ind = independent_masses(m, m, m)
    return np.array([sum(joint[s] - ind[s] for s in members) for members in GROUPS.values()])


def _replay(items: list[np.ndarray]) -> tuple[list[str | None], np.ndarray, np.ndarray]:
    """Each look's decision (after every block), and the bounds at the end."""
    order = [f"i{k}" for k in range(len(items))]
    scores = block_scores(dict(zip(order, items, strict=True)), order)
    xs = [list(scores[f"dep|{g}"].values()) for g in GROUPS]
    cs = [signed_cs(x, ALPHA) for x in xs]
    cs95 = [signed_cs(x, ALPHA_RELIABLE) for x in xs]
    read = reported_excess(dict(zip(order, items, strict=True)), order)
    out = []
    for t in range(1, len(xs[0]) + 1):
        lo = [c.at(t)[0] for c in cs]
        hi = [c.at(t)[1] for c in cs95]
        last = order[3 * t - 1]  # the t-th block's last item
        out.append(decide(lo, hi, [read[f"depx|{g}"][last] for g in GROUPS], MARGIN))
    return out, np.array([c.at(len(xs[0]))[0] for c in cs]), np.array([x for x in xs])


def test_the_reported_excess_is_the_permutation_tests_own() -> None:
    """ "No" waits while the report's test, reading the items so far, sees MIN_EXCESS or more:
    the running excess the rule reads is that test's observed minus expected units over units,
    at every prefix (items of unequal unit counts included)."""
    rng = np.random.default_rng(6)
    items = _items(rng, 40, 0.8, 0.1) + [np.ones((3, 3)), np.zeros((1, 3))]
    order = [f"i{k}" for k in range(len(items))]
    read = reported_excess(dict(zip(order, items, strict=True)), order)
    for t in (5, 17, len(items)):
        units = [(order[k], *map(int, u)) for k in range(t) for u in items[k]]
        test = dependence_test(units, permutations=10)
        for g in GROUPS:
            want = (test["groups"][g]["units"] - test["groups"][g]["expected"]) / test["units"]
            assert abs(read[f"depx|{g}"][order[t - 1]] - want) < 1e-9


def test_the_block_statistic_is_unbiased_for_the_excess() -> None:
    rng = np.random.default_rng(0)
    want = _excess(0.85, 0.2)
    got = np.mean([block_excess(_items(rng, 3, 0.85, 0.2)) for _ in range(4000)], axis=0)
    assert np.abs(got - want).max() < 0.015, (got, want)
    assert want.max() > 0.15  # the co-occurring judge's excess is large


@pytest.mark.parametrize(("q", "fail"), [(0.8, 0.0), (0.9, 0.15)])
def test_the_sequence_covers_the_excess_under_optional_stopping(q: float, fail: float) -> None:
    """The adversary stops the moment any group's 99 % sequence misses its excess: the five
    together must still cover in at least 94 % of runs (the union bound gives 95 %)."""
    rng = np.random.default_rng(1)
    want = _excess(q, fail)
    runs, missed = 150, 0
    for _ in range(runs):
        items = _items(rng, ITEMS, q, fail)
        order = [f"i{k}" for k in range(ITEMS)]
        scores = block_scores(dict(zip(order, items, strict=True)), order)
        cs = [signed_cs(list(scores[f"dep|{g}"].values()), ALPHA) for g in GROUPS]
        n = len(cs[0].low)
        missed += any(
            not (c.at(t)[0] <= w <= c.at(t)[1]) for t in range(1, n + 1)
            for c, w in zip(cs, want, strict=True)
        )  # fmt: skip
    assert 1 - missed / runs >= 0.94


def test_independent_components_are_never_called_systematic() -> None:
    rng = np.random.default_rng(2)
    runs = 100
    said = [_replay(_items(rng, ITEMS, 0.8, 0.0))[0] for _ in range(runs)]
    assert sum("yes" in s for s in said) / runs <= 0.05
    # "no" needs every group's bound below MARGIN: reached before the end in most runs
    settled = [next((i for i, d in enumerate(s) if d == "no"), None) for s in said]
    assert sum(i is not None for i in settled) / runs >= 0.5


def test_a_failure_mode_at_the_margin_is_rarely_called_no() -> None:
    """ "No" reads each group's 95 % sequence without a union bound: only a group whose excess
    is MARGIN or more makes it wrong, and then only when that group's own sequence misses. A
    judge with one group just above MARGIN is called "no" in at most 5 % of runs."""
    q, fail = 0.88, 0.14  # the largest group's excess 0.153
    assert MARGIN <= _excess(q, fail).max() < MARGIN + 0.01
    rng = np.random.default_rng(5)
    runs = 120
    said = [_replay(_items(rng, ITEMS, q, fail))[0] for _ in range(runs)]
    assert sum("no" in s for s in said) / runs <= 0.05


def test_a_large_co_occurring_failure_is_called_systematic_and_never_no() -> None:
    rng = np.random.default_rng(3)
    said = [_replay(_items(rng, ITEMS, 0.95, 0.25))[0] for _ in range(40)]
    assert all("no" not in s for s in said)
    assert sum("yes" in s for s in said) >= 30
    assert MIN_EXCESS < MARGIN
