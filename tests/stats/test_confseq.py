"""The betting confidence sequence: valid under optional stopping, and tight enough to stop."""

from __future__ import annotations

import numpy as np

from paraudit.stats.confseq import betting_cs, coverage, signed_cs


def _items(p: float, questions: int = 4):  # type: ignore[no-untyped-def]
    return lambda rng, n: rng.binomial(questions, p, n) / questions


def test_coverage_under_optional_stopping_holds_the_level() -> None:
    # The adversary's rule: stop the moment the interval misses the truth. A fixed-sample
    # interval looked at after every item fails this often; the sequence keeps ≥ 94 % at 95 %.
    for p in (0.5, 0.8, 0.95):
        got = coverage(_items(p), p, alpha=0.05, n=150, runs=150, seed=int(p * 100))
        assert got >= 0.94, (p, got)


def test_a_fixed_sample_interval_fails_under_the_same_stopping() -> None:
    # The control: a 95 % normal interval re-read after every item misses far more often, so
    # the coverage test above can tell a valid sequence from an invalid one.
    rng = np.random.default_rng(3)
    misses = 0
    for _ in range(200):
        x = rng.binomial(4, 0.5, 150) / 4
        t = np.arange(1, 151)
        mean = np.cumsum(x) / t
        sd = np.sqrt(np.maximum(np.cumsum(x**2) / t - mean**2, 1e-12))
        half = 1.96 * sd / np.sqrt(t)
        misses += bool(np.any((np.abs(mean - 0.5) > half)[9:]))
    assert misses / 200 > 0.2


def test_bounds_shrink_and_stay_nested() -> None:
    x = np.full(120, 0.5)  # always the first option: ½ on every item
    cs = betting_cs(x, 0.05)
    assert np.all(np.diff(cs.low) >= 0) and np.all(np.diff(cs.high) <= 0)
    lo, hi = cs.at(40)
    assert 0.4 < lo <= 0.5 <= hi < 0.6
    assert cs.at(0) == (0.0, 1.0)


def test_a_perfect_judge_clears_the_reliable_bar_within_a_few_dozen_items() -> None:
    cs = betting_cs(np.ones(60), 0.05)
    assert cs.at(30)[0] >= 0.8
    assert cs.at(10)[0] < 0.8  # not at once: ten items are not evidence of 80 %


def test_signed_sequence_for_differences() -> None:
    rng = np.random.default_rng(0)
    d = rng.choice([-0.5, 0.0, 0.5, 1.0], 200)
    lo, hi = signed_cs(d, 0.05).at(200)
    assert lo <= d.mean() <= hi and -1 <= lo < hi <= 1
    assert lo > 0  # a clear positive gain is found
