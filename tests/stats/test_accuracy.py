from __future__ import annotations

import pytest

from paraudit.stats.accuracy import wilson_interval

CASES = [
    (k, n)
    for n in (1, 2, 5, 10, 37, 100, 378, 1000)
    for k in sorted({0, 1, n // 3, n // 2, n - 1, n})
]


@pytest.mark.parametrize(("k", "n"), CASES)
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_equals_statsmodels(k: int, n: int, confidence: float) -> None:
    # Imported here: at the module's top it brought pandas into every worker's collection.
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = wilson_interval(k, n, confidence)
    ref_lo, ref_hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert lo == pytest.approx(ref_lo, abs=1e-9)
    assert hi == pytest.approx(ref_hi, abs=1e-9)


def test_empty_sample_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_is_public_at_the_package() -> None:
    import paraudit.stats

    assert paraudit.stats.wilson_interval is wilson_interval
