from __future__ import annotations

import pytest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from paraudit.errors import ParauditError
from paraudit.stats.compare import compare_runs, item_test, per_probe, resolve_pair
from tests.stats.synthetic import Row, row


def _rows(judge: str, correct: list[bool], instances: int = 1) -> list[Row]:
    """One unit per item; `instances` cues per item (each its own unit)."""
    cues = ["none", "soft", "hard", "transition"][:instances]
    return [
        row(judge=judge, item=f"i{i}", cue=c, order=o, correct=ok)
        for i, ok in enumerate(correct) for c in cues for o in ("ab", "ba")
    ]  # fmt: skip


def test_one_unit_per_item_is_mcnemars_exact_test() -> None:
    a = [True] * 30 + [False] * 10 + [True] * 2 + [False] * 8
    b = [True] * 30 + [True] * 10 + [False] * 2 + [False] * 8
    (m,) = per_probe(_rows("j", a), _rows("j", b), "j", "j", replicates=500)
    assert (m["a_better"], m["b_better"], m["items"]) == (2, 10, 50)
    assert m["p_value"] == pytest.approx(sm_mcnemar([[30, 2], [10, 8]], exact=True).pvalue)
    assert m["delta"] == pytest.approx(8 / 50) and m["ci_low"] <= m["delta"] <= m["ci_high"]


def test_items_not_instances_are_the_trials() -> None:
    """The issue's example: 3 items flip, each with many instances → p = 0.25, not ≈ 1e-11."""
    a = [False] * 3 + [True] * 5
    b = [True] * 3 + [True] * 5
    (m,) = per_probe(_rows("j", a, 4), _rows("j", b, 4), "j", "j", replicates=500)
    assert m["units"] == 32 and m["items"] == 8 and m["b_better"] == 3
    assert m["p_value"] == pytest.approx(0.25)


def test_order_consistent_outcomes_are_compared() -> None:
    """Run B is right in one order only on every item: order-consistently it is always wrong."""
    a = _rows("j", [True] * 6)
    b = [
        row(judge="j", item=f"i{i}", order=o, correct=o == "ab")
        for i in range(6)
        for o in ("ab", "ba")
    ]
    (m,) = per_probe(a, b, "j", "j", replicates=500)
    assert m["accuracy_a"] == 1.0 and m["accuracy_b"] == 0.0 and m["a_better"] == 6


def test_single_judges_are_paired_across_names_and_nothing_shared_is_empty() -> None:
    r = compare_runs(_rows("v1", [True, False]), _rows("v2", [True, True]), replicates=200)
    assert r["probes"][0]["judge_a"] == "v1" and r["probes"][0]["judge_b"] == "v2"
    empty = item_test({}, {})
    assert empty["items"] == 0 and empty["p_value"] == 1.0 and empty["delta"] is None


def test_the_transcript_control_is_not_compared() -> None:
    t = [row(judge="j", item=f"i{i}", probe="T", order=o) for i in range(4) for o in ("ab", "ba")]
    assert per_probe(t + _rows("j", [True] * 4), t, "j", "j", replicates=200) == []


def test_explicit_pairs_replace_name_matching_and_labels_may_hold_equals() -> None:
    a = _rows("m?t=0", [True, False, True]) + _rows("x", [True] * 3)
    b = _rows("m?t=1", [True, True, True]) + _rows("y", [False] * 3)
    assert compare_runs(a, b, replicates=200)["probes"] == []  # no shared name, two judges each
    pair = resolve_pair("m?t=0=m?t=1", a, b)
    assert pair == ("m?t=0", "m?t=1")
    r = compare_runs(a, b, replicates=200, pairs=[pair, pair])  # a pair given twice counts once
    assert [(m["judge_a"], m["judge_b"]) for m in r["probes"]] == [pair]
    assert list(r["state_shift"]) == ["m?t=0 → m?t=1"]
    with pytest.raises(
        ParauditError, match=r"run B has no judge 'm\?t=0' \(its judges: m\?t=1, y\)"
    ):
        resolve_pair("m?t=0=m?t=0", a, b)
    with pytest.raises(ParauditError, match=r"run A has no judge 'z' \(its judges: m\?t=0, x\)"):
        resolve_pair("z=y", a, b)


def _state_rows(judge: str, states: list[str], start: int = 0) -> list[dict]:  # type: ignore[type-arg]
    """One item per state: P, O, J pointwise in both orders of branch 0."""
    return [
        row(judge=judge, item=f"i{start + i}", probe=probe, order=o, correct=s[k] == "1")
        for i, s in enumerate(states) for k, probe in enumerate("POJ") for o in ("ab", "ba")
    ]  # fmt: skip


def test_states_are_compared_on_shared_items_only() -> None:
    """Identical answers on the 10 shared items, and 10 more items in A alone: no shift."""
    shared = ["111", "110", "010", "100", "000", "111", "011", "110", "111", "000"]
    a = _state_rows("j", shared) + _state_rows("j", ["111"] * 10, start=10)
    b = _state_rows("j", shared)
    r = compare_runs(a, b, replicates=200)
    shift = r["state_shift"]["j → j"]
    assert shift["shared_items"] == 10 and set(shift["shift"].values()) == {0.0}
    c = r["state_correlation"]
    assert c["shared_items"] == 10 and c["spearman"] == pytest.approx(1.0)


def test_below_ten_shared_items_the_state_comparison_is_refused() -> None:
    a, b = _state_rows("j", ["111"] * 9), _state_rows("j", ["000"] * 9)
    r = compare_runs(a, b, replicates=200)
    shift = r["state_shift"]["j → j"]
    assert shift["shift"] == {} and "only 9 items" in shift["refused"]
    assert r["state_correlation"]["spearman"] is None
