"""Re-ask noise as the baseline of flip statistics (stats/reask.py, stats/invariance.py), by
simulation over a judge family: fresh draws at 80 % (two asks of one question differ 32 %),
a fixed-error judge (wrong on the same 20 % every time), a coin, and judges that truly flip
on loudness changes, with and without noise."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from paraudit.items.twins import twin_id
from paraudit.runfolder.rows import ResultRow
from paraudit.stats.analysis import GroupContext
from paraudit.stats.compare import item_test
from paraudit.stats.invariance import invariance_sections
from paraudit.stats.reask import REASK
from paraudit.stats.statrow import StatRow, draw_accuracy, reask_pairs, stat_row

VARIANTS = ("loudness-up", "loudness-down")
# (item, variant or None, branch, order, draw, rng) → right?
Draw = Callable[[int, str | None, int, str, int, random.Random], bool]


def gold(branch: int, order: str) -> str:
    return "R1" if (branch == 0) == (order == "ab") else "R2"


def other(label: str) -> str:
    return "R2" if label == "R1" else "R1"


def rows_of(judge: Draw, items: int, draws: int, seed: int) -> list[StatRow]:
    """J pointwise rows of originals and loudness twins, each question drawn `draws` times;
    the row's answer is the majority (ties: the first draw), as runner/samples.py keeps it."""
    rng = random.Random(seed)
    out = []
    for i in range(items):
        for v in (None, *VARIANTS):
            item = f"it-{i:03d}" if v is None else twin_id(f"it-{i:03d}", v)
            for b in (0, 1):
                for o in ("ab", "ba"):
                    g = gold(b, o)
                    preds = [g if judge(i, v, b, o, d, rng) else other(g) for d in range(draws)]
                    top = max(preds, key=lambda p: (preds.count(p), -preds.index(p)))
                    k = preds.count(g)
                    agree = preds.count(preds[0])
                    pairs = draws * (draws - 1) // 2
                    disagree = pairs - agree * (agree - 1) // 2 - (draws - agree) * (
                        draws - agree - 1) // 2  # fmt: skip
                    out.append(StatRow("sim", "t", item, b, "J", "pointwise", "none", o, top, g,
                                       "ok", top == g, None, None, None, None, None, (k, draws),
                                       (disagree, pairs) if draws > 1 else None))  # fmt: skip
    return out


def fresh(accuracy: float) -> Draw:
    return lambda i, v, b, o, d, rng: rng.random() < accuracy


def fixed(accuracy: float) -> Draw:
    # Wrong on the same questions every draw: a deterministic judge with 20 % errors.
    def judge(i: int, v: str | None, b: int, o: str, d: int, rng: random.Random) -> bool:
        return random.Random(f"{i}{b}{o}").random() < accuracy

    return judge


def loud_flipper(share: float, accuracy: float = 1.0) -> Draw:
    # Flips its (otherwise `accuracy`-noisy) answer on a share of loudness twins, every draw.
    def judge(i: int, v: str | None, b: int, o: str, d: int, rng: random.Random) -> bool:
        flips = v is not None and random.Random(f"{i}{v}{b}{o}").random() < share
        return (rng.random() < accuracy) != flips

    return judge


def flags(judge: Draw, draws: int, seed: int, items: int = 40) -> dict[str, Any]:
    out = invariance_sections([("sim", "t", rows_of(judge, items, draws, seed))], replicates=500)
    return next(r for r in out["invariance"] if r["change"] == "loudness")


def rate(judge: Draw, draws: int, key: str = "flips", seeds: int = 30) -> float:
    return sum(bool(flags(judge, draws, s)[key]) for s in range(seeds)) / seeds


def test_draw_fields_of_a_sampled_row() -> None:
    draws: list[dict[str, Any]] = [
        {"status": "ok", "pred": p, "correct": p == "R1"} for p in ("R1", "R2", "R1")
    ]
    draws.append({"status": "error", "pred": None, "correct": False})
    assert reask_pairs(draws) == (2, 3)  # R1-R2 twice out of three pairs
    assert draw_accuracy(draws) == (2, 3)  # the failed call is no reply
    assert reask_pairs(draws[:1]) is None and draw_accuracy(None) is None
    row = ResultRow.model_validate({
        "judge": "j", "task": "t", "item_id": "i", "branch": 0, "probe": "J",
        "protocol": "pointwise", "cue": "none", "order": "ab", "pred": "R1", "gold": "R1",
        "status": "ok", "correct": True, "raw": "", "key": "k", "samples": draws,
    })  # fmt: skip
    s = stat_row(row)
    assert s.reask == (2, 3) and s.draw_hits == (2, 3) and s.agreement == (2, 3)


def test_fresh_draws_are_not_flips_but_real_flips_are() -> None:
    # Two draws a question (?samples=2, the row's answer is the first draw): fresh draws at
    # 80 % differ 32 % between an original and its twin and 32 % between two asks of one.
    assert rate(fresh(0.8), 2) <= 0.05
    assert rate(fresh(0.8), 2, "not_discriminating") <= 0.05
    assert rate(fixed(0.8), 2) == 0  # the same answer on every ask, twin or not
    assert rate(loud_flipper(0.4), 2) >= 0.95  # never noisy, flips 40 %: far beyond 0
    assert rate(loud_flipper(0.5, 0.9), 5) >= 0.9  # noisy and a real flipper
    r = flags(fresh(0.8), 2, 0)
    assert r["reask"]["rate"] == pytest.approx(0.32, abs=0.06)
    assert r["flip_minus_reask"]["ci_low"] < 0 < r["flip_minus_reask"]["ci_high"]


def test_without_draws_there_is_no_baseline() -> None:
    r = flags(fresh(0.8), 1, 0)
    assert r["reask"] is None and r["flip_minus_reask"] is None
    assert r["flips"]  # as before: without re-asks, noise cannot be told from flips


def _reask(judge: Draw, draws: int, seed: int = 0) -> tuple[list[dict[str, Any]], list[Any]]:
    tally = REASK.start("sim", "t")
    for row in rows_of(judge, 100, draws, seed):
        if "~" not in row.item_id and "@" not in row.item_id:
            tally.add(row)
    ctx = GroupContext("sim", "t", 100, 1000, 0)
    records = tally.records(ctx)
    return records, REASK.behaviours(records, ctx)


def test_one_draw_beside_the_majority() -> None:
    records, found = _reask(fresh(0.8), 5)
    r = records[0]
    assert r["single"]["rate"] == pytest.approx(0.8, abs=0.04)
    assert r["majority"]["rate"] == pytest.approx(0.94, abs=0.04)
    assert r["reask"]["rate"] == pytest.approx(0.32, abs=0.04)
    assert [b.kind for b in found] == ["one draw less accurate"]
    assert re.match(
        r"one draw is right (7[6-9]|8[0-4]) % \[\d+, \d+\] of the time \(majority "
        r"of 5: 9\d %; two draws of one question differ 3\d %\)",
        found[0].text,
    )
    # Fresh draws choose between branches about as often as two asks of one branch differ
    # plus what the audio explains: the sensitivity beyond noise stays above 0 here.
    assert r["sensitivity_minus_reask"]["ci_low"] > 0
    records, found = _reask(fixed(0.8), 5)
    assert not found and records[0]["reask"]["rate"] == 0.0
    assert records[0]["single"]["rate"] == records[0]["majority"]["rate"]
    # A coin: its majority is no better than a draw, and its choice moves between branches
    # as often as between two asks: deaf, though its plain audio sensitivity is 50 %.
    records, found = _reask(fresh(0.5), 5)
    assert records[0]["reask"]["rate"] == pytest.approx(0.5, abs=0.04)
    assert [b.kind for b in found] == ["ignores the audio"]
    assert found[0].text.startswith("ignores the audio beyond its own noise (its choice differs")


def test_deaf_beyond_noise_over_a_family() -> None:
    def kinds(judge: Draw, seed: int) -> list[str]:
        return [b.kind for b in _reask(judge, 5, seed)[1]]

    seeds = range(20)
    # 100 items: the coin is caught in 16 of these 20 audits (the interval must clear 10 pts)
    assert sum("ignores the audio" in kinds(fresh(0.5), s) for s in seeds) >= 15
    for judge in (fresh(0.8), fresh(0.7), fixed(0.8), fixed(0.5)):
        assert not any("ignores the audio" in kinds(judge, s) for s in seeds)


def test_the_joined_sign_test_keeps_its_level_under_reask_noise() -> None:
    # Separate vs joined of one judge whose answers are fresh draws at 80 % both ways: the
    # discordant units are re-draws, symmetric, so the sign test flags ≤ 5 % of comparisons.
    alarms = 0
    for seed in range(200):
        rng = random.Random(seed)
        units = [("t", f"i{i}", "none", b) for i in range(189) for b in (0, 1)]
        a = {u: rng.random() < 0.8 for u in units}
        b = {u: rng.random() < 0.8 for u in units}
        alarms += item_test(a, b, 200, seed)["p_value"] < 0.05
    assert alarms / 200 <= 0.06
