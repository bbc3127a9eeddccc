"""Self-consistency of sampled rows: agreement with the majority, unanimity, item intervals."""

from __future__ import annotations

from typing import Any

import pytest

from paraudit.stats.samples import agreement, self_consistency


def _row(item: str, preds: list[str | None]) -> dict[str, Any]:
    draws = [{"pred": p, "status": "ok" if p else "unparsed"} for p in preds]
    return {"judge": "j", "task": "t", "probe": "J", "item_id": item, "samples": draws}


def test_agreement_counts_answered_draws_only() -> None:
    assert agreement(_row("a", ["R1", "R1", "R2", None])) == (2, 3)
    assert agreement(_row("a", [None, None])) is None
    assert agreement({"judge": "j", "task": "t", "probe": "J", "item_id": "a"}) is None


def test_self_consistency_by_hand() -> None:
    rows = [
        _row("a", ["R1"] * 5),
        _row("a", ["R1", "R1", "R1", "R2", "R2"]),
        _row("b", ["R2", "R1", "R2", "R2", "R2"]),
    ]
    [s] = self_consistency(rows, replicates=500)
    assert s["agreement"] == pytest.approx((1 + 0.6 + 0.8) / 3)
    assert s["unanimous"] == pytest.approx(1 / 3) and (s["questions"], s["items"]) == (3, 2)
    # Both items agree 0.8 on average (a: 1.0 and 0.6; b: 0.8), so every resample of whole
    # items gives 0.8: the interval is that point.
    assert s["low"] == pytest.approx(0.8) and s["high"] == pytest.approx(0.8)
    rows.append(_row("c", ["R1", "R2"]))
    [s] = self_consistency(rows, replicates=500)
    assert s["low"] < s["agreement"] < s["high"]
