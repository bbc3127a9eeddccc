"""summarize() on hand-written rows: every number checked against a count by hand."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paraudit.report import tables as T
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary
from tests.stats.synthetic import orders, row

B = 400


def _acc(s: dict[str, Any], probe: str, protocol: str, cue: str = "all") -> dict[str, Any]:
    (a,) = [
        a for a in s["accuracy"] if (a["probe"], a["protocol"], a["cue"]) == (probe, protocol, cue)
    ]
    return a


def test_pairwise_orders_with_context_order_are_one_unit() -> None:
    """Four presentations of one pairwise question: 3 right → 75 % per instance, but the unit
    is not order-consistent."""
    rows = []
    for i in range(4):
        for k, (o, c) in enumerate(orders("pairwise")):
            rows.append(row(item=f"i{i}", protocol="pairwise", order=o, context_order=c,
                            correct=not (i == 0 and k == 3)))  # fmt: skip
    a = _acc(summarize(rows, replicates=B), "J", "pairwise")
    assert a["orders"] == 4 and a["n"] == 16 and a["accuracy"] == pytest.approx(15 / 16)
    assert a["consistent"]["units"] == 4 and a["consistent"]["rate"] == pytest.approx(3 / 4)
    assert a["items"] == 4


def test_rows_without_context_order_still_work() -> None:
    rows = [
        row(item=f"i{i}", protocol="pairwise", order=o, correct=o == "ab", with_context_order=False)
        for i in range(3) for o in ("ab", "ba")
    ]  # fmt: skip
    a = _acc(summarize(rows, replicates=B), "J", "pairwise")
    assert a["orders"] == 2 and a["accuracy"] == 0.5 and a["consistent"]["rate"] == 0.0


def test_errors_are_no_answers_and_refusals_are_wrong_answers() -> None:
    rows = [
        row(item=f"i{i}", probe="O", order=o, status="error")
        for i in range(3)
        for o in ("ab", "ba")
    ]
    rows += [row(item=f"i{i}", order=o, correct=True) for i in range(3) for o in ("ab", "ba")]
    rows[-1] = row(item="i2", order="ba", status="refused")
    s = summarize(rows, replicates=B)
    o = _acc(s, "O", "pointwise")
    assert o["accuracy"] is None and o["n"] == 0 and o["errors"] == 6 and o["ci_low"] is None
    j = _acc(s, "J", "pointwise")
    assert j["accuracy"] == pytest.approx(5 / 6) and j["refused"] == 1 and j["errors"] == 0
    cols, table = T.probes(Summary.of(s))
    cells = {r[2]: dict(zip(cols, r, strict=True)) for r in table}
    assert cells["O"]["accuracy (item CI)"] == "no answers (6 errors)"
    assert cells["J"]["refused"] == 1
    assert "no answers" in T.markdown(T.probes(Summary.of(s)))


def test_staging_minus_oracle_is_paired_on_shared_items() -> None:
    rows = [row(item=f"i{i}", probe="O", correct=i != 1) for i in range(4)]
    rows += [row(item=f"i{i}", probe="S", correct=False) for i in range(2)]
    (d,) = summarize(rows, replicates=B)["staging_minus_oracle"]
    # Shared items i0, i1: O right on i0 only → 0/2 − 1/2.
    assert d["items"] == 2 and d["delta"] == pytest.approx(-0.5) and d["protocol"] == "pointwise"


def test_positional_perception_per_turn_and_whole_trajectory() -> None:
    gold = {"C1": "E1", "C3": "E2", "C5": "E2"}
    rows = [
        row(task="positional-emotion", item="p0", probe="P", gold=gold, pred=gold),
        row(task="positional-emotion", item="p1", probe="P", gold=gold,
            pred={"C1": "E1", "C3": "E1", "C5": "E2"}),
        row(task="positional-emotion", item="p2", probe="P", gold=gold, status="unparsed"),
    ]  # fmt: skip
    s = summarize(rows, replicates=B)
    turns = {t["cue"]: t for t in s["perception_turns"]}
    assert turns["all"]["rate"] == pytest.approx((3 + 2 + 0) / 9) and turns["all"]["items"] == 3
    p = _acc(s, "P", "pointwise")
    # Chance is what the best deaf guesser scores: one fixed trajectory for both branches is
    # right on one of them, ½ — not ½ per human turn (issue 17: a deaf judge that follows the
    # prompt's "X first, Y after" structure scores about ½).
    assert p["accuracy"] == pytest.approx(1 / 3) and p["chance"] == pytest.approx(1 / 2)
    pos = {(t["cue"], t["position"]): t for t in s["perception_positions"]}
    assert [pos[("none", x)]["rate"] for x in ("first", "middle", "last")] == [
        pytest.approx(2 / 3),
        pytest.approx(1 / 3),
        pytest.approx(2 / 3),
    ]
    assert [pos[("none", f"human turn {k}")]["rate"] for k in (1, 2, 3)] == [
        pytest.approx(2 / 3),
        pytest.approx(1 / 3),
        pytest.approx(2 / 3),
    ]
    # Only branch 0 ran here: a deaf guesser's per-turn chance is taken as ½ (unknown).
    assert pos[("none", "first")]["chance"] == pytest.approx(0.5)


def test_transcript_control_preference_and_agreement() -> None:
    rows = []
    for i in range(6):
        # T picks branch 0's response in both orders on i0..i3, and R1 (position) on i4, i5.
        for b in (0, 1):
            for o in ("ab", "ba"):
                pick = ("R1" if o == "ab" else "R2") if i < 4 else "R1"
                rows.append(row(item=f"i{i}", probe="T", branch=b, order=o, pred=pick))
                # J follows the audio: always right.
                rows.append(row(item=f"i{i}", branch=b, order=o, correct=True))
    s = summarize(rows, replicates=B)
    assert not [a for a in s["accuracy"] if a["probe"] == "T"]  # no right answer, no accuracy
    t = s["transcript_control"][0]
    assert (t["answers"], t["errors"]) == (24, 0)
    assert t["order_consistency"]["rate"] == pytest.approx(8 / 12)
    assert t["prefers_branch_0"]["rate"] == pytest.approx((16 + 4) / 24)
    assert t["j_t_agreement"]["rate"] == pytest.approx(0.5)


def test_position_share_per_probe_protocol_and_cue() -> None:
    rows = [
        row(item=f"i{i}", branch=b, order=o, pred="R2", cue=c)
        for i in range(40) for b in (0, 1) for o in ("ab", "ba") for c in ("none", "hard")
    ]  # fmt: skip
    habit = {"CA": "R1", "CB": "R2"}
    rows += [
        row(item=f"i{i}", protocol="pairwise", order=o, context_order=c, pred=habit)
        for i in range(40) for o, c in orders("pairwise")
    ]  # fmt: skip
    s = summarize(rows, replicates=B)
    got = {(p["probe"], p["protocol"], p["cue"]): p for p in s["position_bias"]}
    assert got[("J", "pointwise", "none")]["rate"] == 0.0
    assert got[("J", "pointwise", "hard")]["direction"] == "second"
    assert got[("J", "pairwise", "none")]["direction"] == "first"
    (v,) = s["verdicts"]
    # At the native cue (none) both habits show: second option pointwise, first pairwise.
    texts = [b["text"] for b in v["behaviours"] if b["kind"] == "position-biased"]
    assert v["kind"] == "at chance" and len(texts) == 2 and v["diagnosis"] == "position-biased"
    assert "second option (J pointwise" in texts[1] and "first option (J pairwise" in texts[0]


def _count_intervals(x: Any) -> int:
    if isinstance(x, dict):
        own = 1 if x.get("ci_low") is not None and "wilson_low" not in x else 0
        own += 1 if "wilson_low" in x and x.get("ci_low") is not None else 0
        return own + sum(_count_intervals(v) for k, v in x.items() if k != "verdicts")
    if isinstance(x, list):
        return sum(_count_intervals(v) for v in x)
    return 0


def test_every_proportion_has_items_and_the_intervals_are_counted() -> None:
    rows = [
        row(item=f"i{i}", probe=p, branch=b, order=o, cue=c, correct=(i + b) % 3 != 0)
        for i in range(12) for p in "POJ" for b in (0, 1) for o in ("ab", "ba")
        for c in ("none", "hard")
    ]  # fmt: skip
    s = summarize(rows, replicates=B)
    assert s["intervals"] == _count_intervals({k: v for k, v in s.items() if k != "verdicts"})
    for st in s["states"]:
        assert st["items"] == 12 and all(m["items"] == 12 for m in st["masses"].values())
    for a in s["accuracy"]:
        assert a["items"] == 12 and a["ci_low"] <= a["accuracy"] <= a["ci_high"]


def test_excess_is_mass_minus_the_product_of_the_marginals() -> None:
    """Hand-built units: the expected group mass is the product of P, O, J marginals."""
    spec = [(1, 1, 1)] * 5 + [(1, 1, 0)] * 3 + [(0, 1, 0)] * 2 + [(0, 0, 0)] * 2
    rows = [
        row(item=f"i{u}", probe=p, order=o, correct=bool(v))
        for u, pojs in enumerate(spec) for p, v in zip("POJ", pojs, strict=True)
        for o in ("ab", "ba")
    ]  # fmt: skip
    (st,) = [s for s in summarize(rows, replicates=B)["states"] if s["cue"] == "all"]
    p, o, j = 8 / 12, 10 / 12, 5 / 12
    assert st["marginals"]["J"]["rate"] == pytest.approx(j)
    assert st["expected"]["Potemkin"]["rate"] == pytest.approx(p * o * (1 - j))
    assert st["excess"]["Potemkin"]["rate"] == pytest.approx(3 / 12 - p * o * (1 - j))
    assert st["potemkin"]["rate"] == pytest.approx(3 / 8)
    assert st["potemkin_baseline"]["rate"] == pytest.approx(1 - j)
    bottleneck = (1 - p) * o * (1 - j) + p * (1 - o) * (1 - j)
    assert st["expected"]["component bottleneck"]["rate"] == pytest.approx(bottleneck)


def test_a_unit_with_a_failed_call_is_left_out_of_order_consistent_figures() -> None:
    """An always-R1 judge whose "ba" presentations failed: judged on the surviving order alone
    it would look 100 % right and reliable. The failed units are left out instead, and the
    verdict says how many questions failed."""
    rows = []
    for i in range(6):
        for b in (0, 1):
            for o, _ in orders("pointwise"):
                failed = o == "ba"
                for probe in "POJ":
                    gold = "R1" if (o == "ab") == (b == 0) else "R2"
                    rows.append(row(item=f"i{i}", probe=probe, branch=b, order=o, gold=gold,
                                    pred="R1", status="error" if failed else "ok"))  # fmt: skip
    s = summarize(rows, replicates=B)
    j = _acc(s, "J", "pointwise")
    assert j["errors"] == 12 and j["consistent"]["units"] == 0
    assert all(st["n"] == 0 for st in s["states"]) or not s["states"]
    (v,) = s["verdicts"]
    assert v["failed_calls"] == 36 and "36 of 72 questions ended in call errors" in v["text"]


def test_order_gaps_and_turn_positions_carry_the_decision_interval() -> None:
    """The habits a verdict names from these (order-dependent, hears only some turns) are
    decided at 99 % like the cascade's steps; the decision interval holds the 95 % one."""
    from paraudit.stats.judge_model import JudgeModel, audit_rows

    rows = audit_rows(JudgeModel("coin", p=0.5, o=0.5, j=0.5), 12, np.random.default_rng(3),
                      task="positional-emotion")  # fmt: skip
    s = summarize(rows, replicates=400, seed=0, permutations=50)
    positions = [p for p in s["perception_positions"] if p["position"] in ("first", "last")]
    assert s["order_dependence"] and positions
    for rec in [*s["order_dependence"], *positions]:
        assert rec["decision_low"] <= rec["ci_low"] and rec["ci_high"] <= rec["decision_high"]
    # Each of first / middle / last is compared with the others, paired by dialogue: one
    # interval per pair, read from either side with the sign turned.
    at = {p["position"]: p for p in s["perception_positions"] if p["cue"] == "none"}
    first, last = at["first"]["versus"]["last"], at["last"]["versus"]["first"]
    assert (first["low"], first["high"]) == (-last["high"], -last["low"])
    assert first["low"] < first["high"]
    assert set(at["middle"]["versus"]) == {"first", "last"}
    assert all("versus" not in p for p in s["perception_positions"] if "turn" in p["position"])
