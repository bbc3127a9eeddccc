from __future__ import annotations

import random

import pytest

from paraudit.stats.dataset_compare import compare_renderings
from tests.stats.synthetic import Row, row


def rows(judge: str, states: dict[str, str], task: str = "single-turn-emotions") -> list[Row]:
    """Pointwise P, O and J rows giving each (item, branch 0) the state `states[item]`."""
    out = []
    for item, state in states.items():
        for probe, bit in zip("POJ", state, strict=True):
            out.append(
                row(
                    judge=judge,
                    task=task,
                    item=item,
                    branch=0,
                    probe=probe,
                    protocol="pointwise",
                    cue="none",
                    order="ab",
                    status="ok",
                    correct=bit == "1",
                )
            )
    return out


def profile(seed: int, weights: list[float], n: int = 200) -> dict[str, str]:
    rng = random.Random(seed)
    states = ["111", "110", "101", "100", "011", "010", "001", "000"]
    return {f"it{i}": rng.choices(states, weights)[0] for i in range(n)}


def test_same_profile_in_both_renderings_agrees_and_a_different_one_does_not() -> None:
    w = [40, 20, 2, 5, 3, 15, 1, 14]
    a = rows("j", profile(1, w))
    b = rows("j", profile(2, w))
    res = compare_renderings(a, b)
    (j,) = res["judges"]
    assert res["shared_items"] == 200 and j["instances_a"] == 200
    assert j["spearman"] > 0.8 and 0.7 < j["slope"] < 1.3 and j["tv_distance"] < 0.1
    c = rows("j", profile(3, list(reversed(w))))
    (k,) = compare_renderings(a, c)["judges"]
    assert k["spearman"] < 0.2 and k["tv_distance"] > 0.3


def test_only_shared_items_and_judges_count() -> None:
    a = rows("j", {"x": "111", "y": "000"}) + rows("only-a", {"x": "111"})
    b = rows("j", {"x": "111", "z": "110"})
    res = compare_renderings(a, b)
    assert res["items_a"] == 2 and res["items_b"] == 2 and res["shared_items"] == 1
    (j,) = res["judges"]
    assert j["judge"] == "j" and j["instances_a"] == 1
    assert j["spearman"] == pytest.approx(1.0) and j["tv_distance"] == pytest.approx(0.0)
