"""Separate vs joined clips of one judge: the pairing of labels, and the rule that says joining
changes J, checked against simulated judges whose behaviour is known."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from paraudit.stats.joined import joined_pairs, separate_label, side_by_side, summary_lines
from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.statrow import StatRow

TASKS = ("single-turn-emotions", "positional-emotion")


def _audit(model: JudgeModel, name: str, seed: int, items: int = 48) -> list[StatRow]:
    rng = np.random.default_rng(seed)
    rows = []
    for task in TASKS:
        rows += audit_rows(replace(model, name=name), items, rng, task=task, cues=("none",))
    return rows


def _both(sep: JudgeModel, joined: JudgeModel, seed: int) -> list[dict[str, Any]]:
    return side_by_side(
        _audit(sep, "j", 2 * seed) + _audit(joined, "j?clips=joined", 2 * seed + 1),
        replicates=1000,
        seed=seed,
    )


def _flagged(records: list[dict[str, Any]]) -> bool:
    return any(t["changes"] for r in records for t in r["j"])


def test_labels_pair_a_joined_judge_with_its_separate_twin() -> None:
    assert separate_label("hf:m?clips=joined&temperature=0") == "hf:m?temperature=0"
    assert separate_label("builtin:prosody?clips=joined") == "builtin:prosody"
    assert separate_label("builtin:prosody") is None
    judges = ["a", "a?clips=joined", "b?clips=separate", "b?clips=joined", "c?clips=joined"]
    assert joined_pairs(judges) == [("a", "a?clips=joined"), ("b?clips=separate", "b?clips=joined")]


def test_the_same_answers_both_ways_are_no_change() -> None:
    rows = _audit(JudgeModel("x", p=0.9, o=0.9, j=0.8), "j", 0)
    twin = [r._replace(judge="j?clips=joined") for r in rows]
    records = side_by_side(rows + twin, replicates=1000)
    assert len(records) == 2 and not _flagged(records)
    assert all(t["delta"] == 0 and t["ci_low"] == 0 == t["ci_high"] for r in records
               for t in r["j"])  # fmt: skip
    assert summary_lines(records)[-1].startswith("  no change in J")
    assert "states unchanged" in summary_lines(records)[-1]


def test_a_guessing_judge_is_rarely_said_to_change_and_the_bare_interval_would_say_it_often() -> (
    None
):
    """A random judge's coins are re-drawn when joining changes its prompt: nothing about
    joining changed. The corrected sign test names a change in at most the family error; a
    95 % interval excluding 0 in any of the four cells would name one far more often."""
    coin = JudgeModel("coin", p=0.5, o=0.5, j=0.5)
    runs = [_both(coin, coin, seed) for seed in range(40)]
    flagged = sum(_flagged(r) for r in runs)
    bare = sum(any(t["ci_low"] > 0 or t["ci_high"] < 0 for x in r for t in x["j"]) for r in runs)
    assert flagged <= 4, flagged  # α = 5 % family-wise: 2 expected in 40
    assert bare > flagged, (bare, flagged)


def test_a_judge_that_joining_harms_is_said_to_change() -> None:
    """Right 90 % of the time on separate clips, 60 % joined: named in nearly every audit."""
    good = JudgeModel("good", p=0.9, o=0.9, j=0.9)
    harmed = JudgeModel("harmed", p=0.9, o=0.9, j=0.6)
    runs = [_both(good, harmed, seed) for seed in range(20)]
    assert sum(_flagged(r) for r in runs) >= 19
    line = summary_lines(runs[0])[-1]
    assert "joining changes J" in line and "largest state shift" in line, line
    # ... and a judge that joining leaves alone (independent noise both ways) is not.
    same = [_both(good, good, seed) for seed in range(20)]
    assert sum(_flagged(r) for r in same) <= 2
