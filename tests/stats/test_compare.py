from __future__ import annotations

from typing import Any

import pytest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from paraudit.stats.compare import compare_runs, mcnemar


def _rows(judge: str, correct: list[bool]) -> list[dict[str, Any]]:
    return [
        {
            "judge": judge,
            "task": "t",
            "item_id": f"i{i}",
            "probe": "J",
            "protocol": "pointwise",
            "cue": "none",
            "order": "ab",
            "branch": 0,
            "correct": c,
        }
        for i, c in enumerate(correct)
    ]


def test_mcnemar_exact_matches_statsmodels() -> None:
    a = [True] * 30 + [False] * 10 + [True] * 2 + [False] * 8
    b = [True] * 30 + [True] * 10 + [False] * 2 + [False] * 8
    m = mcnemar(_rows("j", a), _rows("j", b), "j", "j")
    assert (m["a_right_b_wrong"], m["b_right_a_wrong"], m["shared"]) == (2, 10, 50)
    ref = sm_mcnemar([[30, 2], [10, 8]], exact=True).pvalue
    assert m["p_value"] == pytest.approx(ref)


def test_single_judges_are_paired_across_names() -> None:
    r = compare_runs(_rows("v1", [True, False]), _rows("v2", [True, True]))
    assert r["mcnemar"][0]["judge_a"] == "v1" and r["mcnemar"][0]["judge_b"] == "v2"
