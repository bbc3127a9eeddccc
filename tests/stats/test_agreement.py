"""Agreement statistics equal reference implementations, and guessers do not pass."""

from __future__ import annotations

import math
import random

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from paraudit.stats.agreement import (
    Judgment,
    accuracy_range,
    agreement_summary,
    annotator_accuracy,
    catch_results,
    cohen_kappa,
    fleiss_kappa,
    intra_rater,
    item_accuracy,
    krippendorff_alpha_nominal,
    overlap_agreement,
)

# Fleiss (1971) as reproduced on Wikipedia: 10 subjects, 14 raters, 5 categories, κ = 0.210.
FLEISS_TABLE = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)
# Krippendorff's own example (4 observers, 12 units, missing values): nominal α = 0.743.
NAN = np.nan
KRIPP = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


def test_fleiss_kappa_known_table() -> None:
    assert fleiss_kappa(FLEISS_TABLE) == pytest.approx(0.2099, abs=1e-4)
    assert fleiss_kappa(FLEISS_TABLE) == pytest.approx(sm_fleiss(FLEISS_TABLE), abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_fleiss_kappa_equals_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    raters = 5
    table = np.array([rng.multinomial(raters, rng.dirichlet([1, 1])) for _ in range(30)])
    assert fleiss_kappa(table) == pytest.approx(sm_fleiss(table), abs=1e-12)


def test_fleiss_refuses_uneven_rows_and_is_nan_without_variation() -> None:
    with pytest.raises(ValueError):
        fleiss_kappa(np.array([[2, 1], [1, 1]]))
    assert math.isnan(fleiss_kappa(np.array([[3, 0], [3, 0]])))


def test_krippendorff_alpha_known_example() -> None:
    ours = krippendorff_alpha_nominal(KRIPP)
    assert ours == pytest.approx(0.743, abs=5e-4)
    ref = krippendorff.alpha(reliability_data=KRIPP, level_of_measurement="nominal")
    assert ours == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_krippendorff_alpha_equals_package_with_missing_values(seed: int) -> None:
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 3, size=(6, 40)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert krippendorff_alpha_nominal(data) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_equals_statsmodels(seed: int) -> None:
    rng = random.Random(seed)
    a = [rng.choice("01") for _ in range(60)]
    b = [x if rng.random() < 0.7 else rng.choice("01") for x in a]
    table = np.zeros((2, 2))
    for x, y in zip(a, b, strict=True):
        table[int(x), int(y)] += 1
    assert cohen_kappa(a, b) == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)


def _j(ann: str, item: str, branch: int, cat: str, kind: str = "overlap") -> Judgment:
    return Judgment(ann, item, "t", f"{item}|{branch}", cat, cat == str(branch), kind)


def test_guessing_annotators_score_chance_and_do_not_agree() -> None:
    """Independent guessers: κ and α near 0, accuracy intervals cover 50 %."""
    rng = random.Random(7)
    js = [
        _j(a, f"i{u}", u % 2, rng.choice("01"))
        for a in ("g1", "g2", "g3", "g4")
        for u in range(400)
    ]
    ov = overlap_agreement(js)
    assert ov is not None and ov.complete_units == 400
    assert abs(ov.fleiss_kappa) < 0.06 and abs(ov.krippendorff_alpha) < 0.06
    assert all(abs(k) < 0.12 for _, _, k, _ in ov.pairwise_cohen)
    for rate in annotator_accuracy(js).values():
        lo, hi = rate.interval
        assert lo < 0.5 < hi


def test_perfect_annotators_agree_fully() -> None:
    js = [_j(a, f"i{u}", u % 2, str(u % 2)) for a in ("p1", "p2", "p3") for u in range(20)]
    ov = overlap_agreement(js)
    assert ov is not None
    assert ov.fleiss_kappa == pytest.approx(1.0) and ov.krippendorff_alpha == pytest.approx(1.0)
    assert accuracy_range(annotator_accuracy(js)) == (1.0, 1.0)


def test_catch_and_repeats_stay_out_of_accuracy() -> None:
    js = [
        _j("a", "i1", 0, "0", "own"),
        _j("a", "i2", 1, "1", "own"),
        _j("a", "i1", 0, "1", "repeat"),  # changed its mind on the repeat
        Judgment("a", "i3", "t", "i3|0", "foil", False, "catch"),
        Judgment("a", "i4", "t", "i4|1", "own", True, "catch"),
    ]
    acc = annotator_accuracy(js)["a"]
    assert (acc.k, acc.n) == (2, 2)
    assert (catch_results(js)["a"].k, catch_results(js)["a"].n) == (1, 2)
    assert (intra_rater(js)["a"].k, intra_rater(js)["a"].n) == (0, 1)


def test_item_accuracy_flags_items_most_listeners_miss() -> None:
    js = [_j(a, "hard", 0, "1", "own") for a in ("a", "b", "c")]
    js += [_j(a, "easy", 1, "1", "own") for a in ("a", "b", "c")]
    js += [_j("a", "once", 0, "1", "own")]  # one wrong answer is not enough to flag
    scores = {s.item_id: s for s in item_accuracy(js, threshold=0.5)}
    assert scores["hard"].flagged and scores["hard"].accuracy == 0
    assert not scores["easy"].flagged
    assert not scores["once"].flagged
    summary = agreement_summary(js)
    assert [i["item_id"] for i in summary["items"] if i["flagged"]] == ["hard"]
