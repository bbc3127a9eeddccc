"""Word–tone conflict: no-skill judges score a gap of 0, and the "follows the words against the
voice" rule holds over a judge family (audio skill × pull of the words × noise)."""

from __future__ import annotations

import numpy as np
import pytest

from paraudit.stats.analysis import GroupContext
from paraudit.stats.conflict import ConflictTally, conflict_behaviours
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


def test_fewer_than_five_items_name_nothing() -> None:
    rec = _record(words_rows(WordsJudge(0.0, 1.0), 4, np.random.default_rng(6)), 4)
    assert rec["gap"]["rate"] == -1.0 and not rec["follows_words"]
