from __future__ import annotations

import numpy as np
import pytest

from paraudit.stats.bootstrap import (
    PairedCounts,
    bootstrap_diffs,
    bootstrap_diffs_loop,
    paired_interval,
)


def _counts(seed: int, n: int = 40) -> PairedCounts:
    rng = np.random.default_rng(seed)
    n_a = rng.integers(1, 5, n).astype(float)
    n_b = rng.integers(1, 5, n).astype(float)
    return PairedCounts(
        rng.binomial(n_a.astype(int), 0.8).astype(float),
        n_a,
        rng.binomial(n_b.astype(int), 0.5).astype(float),
        n_b,
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_equals_loop(seed: int) -> None:
    c = _counts(seed)
    assert np.allclose(
        bootstrap_diffs(c, 500, seed), bootstrap_diffs_loop(c, 500, seed), atol=1e-12
    )


def test_interval_contains_estimate_and_flips_with_the_protocols() -> None:
    c = _counts(3)
    iv = paired_interval(c, 2000, 0)
    assert iv.low <= iv.estimate <= iv.high and iv.low > 0
    swapped = PairedCounts(c.k_b, c.n_b, c.k_a, c.n_a)
    iv2 = paired_interval(swapped, 2000, 0)
    assert iv2.estimate == pytest.approx(-iv.estimate)
    assert iv2.low == pytest.approx(-iv.high) and iv2.high == pytest.approx(-iv.low)


def test_seeded() -> None:
    c = _counts(4)
    assert np.array_equal(bootstrap_diffs(c, 100, 7), bootstrap_diffs(c, 100, 7))
    assert not np.array_equal(bootstrap_diffs(c, 100, 7), bootstrap_diffs(c, 100, 8))
