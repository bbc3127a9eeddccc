"""Word–tone conflict: no-skill judges score a gap of 0, and the "follows the words against the
voice" rule holds over a judge family (audio skill × pull of the words × noise)."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.stats.analysis import GroupContext
from paraudit.stats.conflict import ConflictTally, conflict_behaviours, sign_test_p
from paraudit.stats.pressure_sim import WordsJudge, words_flag_rate, words_rows
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata_items import WORDS, ItemAttributes

SIDES = ({WORDS: "congruent"}, {WORDS: "conflict"})


def _record(rows: list[StatRow], items: int = 30) -> dict:  # type: ignore[type-arg]
    attrs = {f"it-{i}": ItemAttributes({}, SIDES[::-1] if i % 2 else SIDES) for i in range(items)}
    tally = ConflictTally("sim", "single-turn-emotions")
    for r in rows:
        tally.add(r)
    ctx = GroupContext("sim", "single-turn-emotions", items, 500, 0, attributes=attrs)
    (rec,) = tally.records(ctx)
    return rec


def test_a_text_follower_is_right_only_where_words_and_voice_agree() -> None:
    rec = _record(words_rows(WordsJudge(0.0, 1.0), 30, np.random.default_rng(1)))
    assert rec["congruent"]["rate"] == 1.0 and rec["conflict"]["rate"] == 0.0
    assert rec["gap"]["rate"] == -1.0 and rec["follows_words"] and rec["items"] == 30
    (b,) = conflict_behaviours([rec], GroupContext("sim", "t", 30, 500, 0))
    assert b.kind == "follows the words against the voice" and "0% of answers" in b.text


def test_a_coin_a_first_and_a_deaf_judge_show_no_gap() -> None:
    coin = _record(words_rows(WordsJudge(0.0, 0.0), 60, np.random.default_rng(2)), 60)
    assert coin["gap"]["ci_low"] < 0 < coin["gap"]["ci_high"] and not coin["follows_words"]
    first = [r._replace(pred="R1", correct=r.gold == "R1")
             for r in words_rows(WordsJudge(0.0, 0.0), 30, np.random.default_rng(3))]  # fmt: skip
    rec = _record(first)
    # Orders are counterbalanced: R1 is right in exactly half of each branch's questions.
    assert rec["congruent"]["rate"] == rec["conflict"]["rate"] == 0.5
    deaf = _record(words_rows(WordsJudge(0.0, 0.0, deaf=True), 30, np.random.default_rng(4)))
    assert not deaf["follows_words"]


def test_questions_other_than_native_pointwise_j_and_other_items_are_not_read() -> None:
    rows = words_rows(WordsJudge(0.0, 1.0), 6, np.random.default_rng(5))
    cued = [r._replace(cue="hard") for r in rows]
    tally = ConflictTally("sim", "single-turn-emotions")
    for r in cued:
        tally.add(r)
    attrs = {f"it-{i}": ItemAttributes({}, SIDES) for i in range(6)}
    assert tally.records(GroupContext("sim", "t", 6, 200, 0, attributes=attrs)) == []
    tally = ConflictTally("sim", "single-turn-emotions")
    for r in rows:
        tally.add(r)
    plain = {f"it-{i}": ItemAttributes({}, ({}, {})) for i in range(6)}  # no conflict item
    assert tally.records(GroupContext("sim", "t", 6, 200, 0, attributes=plain)) == []


@pytest.mark.parametrize("judge", [WordsJudge(1.0, 0.0), WordsJudge(0.6, 0.0),
                                   WordsJudge(0.0, 0.0), WordsJudge(0.0, 0.0, deaf=True),
                                   WordsJudge(0.6, 0.0, 0.3), WordsJudge(1.0, 0.05)])  # fmt: skip
def test_judges_the_words_do_not_pull_are_not_named(judge: WordsJudge) -> None:
    assert words_flag_rate(judge, 16, 40, seed=31) <= 0.05


@pytest.mark.parametrize(("judge", "items", "least"), [
    (WordsJudge(0.0, 1.0), 16, 0.99),
    (WordsJudge(1.0, 0.4), 30, 0.95),
    (WordsJudge(0.6, 0.4), 30, 0.85),
])  # fmt: skip
def test_judges_the_words_pull_are_named(judge: WordsJudge, items: int, least: float) -> None:
    assert words_flag_rate(judge, items, 40, seed=32) >= least


def test_fewer_than_seven_items_name_nothing_and_seven_can() -> None:
    """The exact sign test: 6 of 6 items below 0 happen by chance in 1/64 > 1 %, 7 of 7 in
    1/128 (the bootstrap interval is zero-width at −1 on both, and read as certain)."""
    rec = _record(words_rows(WordsJudge(0.0, 1.0), 6, np.random.default_rng(6)), 6)
    assert rec["gap"]["rate"] == -1.0 and rec["sign_p"] == 1 / 64 and not rec["follows_words"]
    rec = _record(words_rows(WordsJudge(0.0, 1.0), 7, np.random.default_rng(6)), 7)
    assert rec["sign_p"] == 1 / 128 and rec["follows_words"]


def test_the_sign_test_counts_only_items_off_zero() -> None:
    assert sign_test_p(np.array([-1.0] * 7 + [0.0] * 20)) == 1 / 128
    assert sign_test_p(np.array([-0.5] * 9 + [1.0])) == 11 / 1024
    assert sign_test_p(np.zeros(5)) == 1.0


@pytest.mark.parametrize("items", [7, 10])
@pytest.mark.parametrize("judge", [WordsJudge(0.0, 0.0, deaf=True), WordsJudge(0.0, 0.0)])
def test_false_alarms_stay_within_one_percent_on_few_items(judge: WordsJudge, items: int) -> None:
    """The bar (issue 32): a judge the words do not pull named in ≤ 1 % of audits at every item
    count. The interval-only rule named the deaf judge in 1.4–2.4 % at 5–10 items (1,000
    audits, seed 1); docs/concepts/pressure-and-ties.md has the full table
    (benchmarks/conflict_rule.py). Seeded: the same 1,000 audits every run."""
    assert words_flag_rate(judge, items, 1000, replicates=200, seed=7) <= 0.01


def test_a_words_follower_is_named_at_seven_items() -> None:
    assert words_flag_rate(WordsJudge(0.0, 1.0), 7, 200, replicates=200, seed=8) == 1.0
