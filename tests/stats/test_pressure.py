"""Text dominance: no-skill judges score what they should, and the verdict rule holds over a
judge family (audio skill × cue obedience × noise) at the item counts users run."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.stats.analysis import GroupContext
from paraudit.stats.pressure import PressureTally, pressure_behaviours
from paraudit.stats.pressure_sim import (
    FamilyJudge,
    TieJudge,
    flag_rate,
    judge_rows,
    tie_flag_rates,
    tie_rows,
)
from paraudit.stats.statrow import StatRow

CTX = GroupContext("sim", "single-turn-emotions", 30, 500, 0)


def _record(rows: list[StatRow]) -> dict:  # type: ignore[type-arg]
    tally = PressureTally("sim", "single-turn-emotions")
    for r in rows:
        tally.add(r)
    (rec,) = tally.records(CTX)
    return rec


def test_a_coin_and_an_always_first_judge_feel_no_pressure() -> None:
    coin = _record(judge_rows(FamilyJudge(0.0, 0.0, 0.0), 60, np.random.default_rng(1)))
    assert abs(coin["dominance"]["rate"] - 0.5) < 0.1 and not coin["follows_text"]
    assert coin["pressure"]["ci_low"] < 0 < coin["pressure"]["ci_high"]
    first = [r._replace(pred="R1", correct=r.gold == "R1") for r in judge_rows(
        FamilyJudge(0.0, 0.0, 0.0), 30, np.random.default_rng(2))]  # fmt: skip
    rec = _record(first)
    # Orders are counterbalanced: R1 is the cued response in exactly half the questions.
    assert rec["dominance"]["rate"] == 0.5 and rec["pressure"]["rate"] == 0.0
    assert not rec["follows_text"]


def test_unanswered_questions_are_no_evidence() -> None:
    rows = judge_rows(FamilyJudge(1.0, 1.0, 0.0), 30, np.random.default_rng(3))
    gone = [r._replace(status="unparsed", pred=None) if r.cue == "misleading" and r.item_id
            != "it-0" else r for r in rows]  # fmt: skip
    rec = _record(gone)
    assert rec["items"] == 1 and rec["answered"] == 4


def test_an_obedient_judge_gets_the_behaviour_with_its_figures() -> None:
    rec = _record(judge_rows(FamilyJudge(1.0, 1.0, 0.0), 30, np.random.default_rng(4)))
    assert rec["dominance"]["rate"] == 1.0 and rec["baseline"]["rate"] < 0.05
    (b,) = pressure_behaviours([rec], CTX)
    assert b.kind == "follows the text against the audio" and "100%" in b.text


@pytest.mark.parametrize("skill", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("noise", [0.0, 0.2])
def test_judges_that_obey_no_cue_are_not_named(skill: float, noise: float) -> None:
    """The rule's false-positive rate over the family's null judges, 30 items (the known-
    behaviour suite's size): at most 5 % of 40 simulated audits (measured: 0 for each)."""
    assert flag_rate(FamilyJudge(skill, 0.0, noise), 30, 40, seed=11) <= 0.05


@pytest.mark.parametrize(
    ("judge", "items", "least"),
    [
        (FamilyJudge(1.0, 0.5, 0.0), 30, 0.95),  # pressure 0.50
        (FamilyJudge(0.5, 0.5, 0.2), 30, 0.6),  # pressure 0.30: measured 0.78 at 30 items
        (FamilyJudge(0.0, 1.0, 0.0), 30, 0.95),  # deaf and obedient: pressure 0.50
        (FamilyJudge(1.0, 0.3, 0.0), 60, 0.9),  # pressure 0.30 needs more items
    ],
)
def test_judges_the_text_pushes_hard_are_named(
    judge: FamilyJudge, items: int, least: float
) -> None:
    assert flag_rate(judge, items, 40, seed=12) >= least


def test_a_small_pull_is_below_the_rule() -> None:
    """Pressure 0.05 (half the rule's margin) is named rarely even at 60 items."""
    assert flag_rate(FamilyJudge(1.0, 0.05, 0.0), 60, 40, seed=13) <= 0.1


@pytest.mark.parametrize(
    ("judge", "never_at_most", "never_at_least", "always_at_most", "always_at_least"),
    [
        (TieJudge(0.0, 0.0), 1.0, 1.0, 0.0, 0.0),  # never abstains
        (TieJudge(1.0, 1.0), 0.0, 0.0, 1.0, 1.0),  # always abstains
        (TieJudge(1.0, 0.0), 0.0, 0.0, 0.0, 0.0),  # abstains exactly where it should
        (TieJudge(0.4, 0.3), 0.05, 0.0, 0.05, 0.0),  # abstains sometimes, and not blindly
    ],
)
def test_the_abstain_rules_over_a_judge_family(
    judge: TieJudge,
    never_at_most: float,
    never_at_least: float,
    always_at_most: float,
    always_at_least: float,
) -> None:
    never, always = tie_flag_rates(judge, 30, 12, 30, seed=21)
    assert never_at_least <= never <= never_at_most
    assert always_at_least <= always <= always_at_most


def test_too_few_tie_items_name_nothing() -> None:
    never, _ = tie_flag_rates(TieJudge(0.0, 0.0), 30, 4, 5, seed=22)
    assert never == 0.0


def test_compare_leaves_misleading_and_tie_rows_out() -> None:
    from paraudit.stats.compare import consistent_units

    rows = judge_rows(FamilyJudge(1.0, 1.0, 0.0), 5, np.random.default_rng(5))
    rows += tie_rows(TieJudge(1.0, 0.0), 0, 2, np.random.default_rng(6))
    units = consistent_units(rows, "sim")[("J", "pointwise")]
    assert {u[2] for u in units} == {"none"} and len(units) == 10
    # Each unit is judged by its no-cue answers alone (the misleading ones would all be wrong).
    none = [r for r in rows if r.cue == "none" and r.gold != "tie"]
    for (_, item, _, branch), right in units.items():
        mine = [r.correct for r in none if r.item_id == item and r.branch == branch]
        assert right == all(mine)


def test_fewer_than_five_items_name_nothing() -> None:
    # On one or two items the item interval has (near) zero width: a coin was named in a third
    # of one-item audits. A perfect cue-follower on 2 items is not yet evidence.
    rows = judge_rows(FamilyJudge(1.0, 1.0, 0.0), 2, np.random.default_rng(7))
    rec = _record(rows)
    assert rec["pressure"]["rate"] == 1.0 and rec["items"] == 2 and not rec["follows_text"]
    assert flag_rate(FamilyJudge(0.0, 0.0, 0.0), 1, 60, replicates=200, seed=5) == 0.0
