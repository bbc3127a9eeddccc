"""stats/served.py: which model answered, and the drift test's error rates by simulation.

The drift rule (late − early half accuracy, permutation test over items, p < ALPHA) is run on
a parametrised family of judges whose accuracy does not depend on when they were asked —
random, skilled at several levels, position-biased, items of mixed difficulty — for its
false-alarm rate, and on drifting judges (a model swap halfway, a slow decline) for its power,
at the issue's 189 items.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from paraudit.stats.analysis import GroupContext
from paraudit.stats.served import (
    ALPHA,
    SERVED,
    ServedModels,
    drift_test,
    requested_model,
    same_model,
    served_behaviours,
)
from paraudit.stats.statrow import StatRow

ITEMS = 189
ROWS_PER_ITEM = 4  # pointwise J: two branches × two response orders
SIMS = 200
PERMS = 500

Judge = Callable[[np.random.Generator, np.ndarray], np.ndarray]
"""(rng, call position in [0, 1) per item) → right answers per item, of ROWS_PER_ITEM."""


def skilled(p: float) -> Judge:
    return lambda rng, t: rng.binomial(ROWS_PER_ITEM, p, size=t.size)


def position_biased(rng: np.random.Generator, t: np.ndarray) -> np.ndarray:
    # Picks R1 80 % of the time; R1 is right in half of each item's rows (orders swap it).
    return rng.binomial(2, 0.8, size=t.size) + rng.binomial(2, 0.2, size=t.size)


def mixed_difficulty(rng: np.random.Generator, t: np.ndarray) -> np.ndarray:
    # A subgroup specialist: a quarter of the items always right, the rest a coin; the items
    # come in no particular order.
    p = np.where(rng.random(t.size) < 0.25, 1.0, 0.5)
    return rng.binomial(ROWS_PER_ITEM, p)


def swapped(rng: np.random.Generator, t: np.ndarray) -> np.ndarray:
    # A provider swaps the model halfway: 92 % before, 60 % after.
    return rng.binomial(ROWS_PER_ITEM, np.where(t < 0.5, 0.92, 0.6))


def declining(rng: np.random.Generator, t: np.ndarray) -> np.ndarray:
    return rng.binomial(ROWS_PER_ITEM, 0.92 - 0.32 * t)


STATIONARY: dict[str, Judge] = {
    "random": skilled(0.5),
    "skilled 80 %": skilled(0.8),
    "skilled 92 %": skilled(0.92),
    "always right": skilled(1.0),
    "position-biased": position_biased,
    "mixed difficulty": mixed_difficulty,
}
DRIFTING: dict[str, Judge] = {"model swapped halfway": swapped, "declining 92→60 %": declining}


def alarm_rate(judge: Judge, seed: int, items: int = ITEMS) -> float:
    rng = np.random.default_rng(seed)
    alarms = 0
    t = np.arange(items) / items
    scored = np.full(items, ROWS_PER_ITEM)
    for sim in range(SIMS):
        _, p = drift_test(judge(rng, t).astype(float), scored, permutations=PERMS, seed=sim)
        alarms += p is not None and p < ALPHA
    return alarms / SIMS


@pytest.mark.parametrize("name", sorted(STATIONARY))
def test_drift_rule_rarely_fires_on_stationary_judges(name: str) -> None:
    # ALPHA = 1 %; 200 simulations: 7 or more alarms would happen by chance < 0.5 % of times.
    assert alarm_rate(STATIONARY[name], seed=7) <= 0.03


@pytest.mark.parametrize("name", sorted(DRIFTING))
def test_drift_rule_sees_drifting_judges(name: str) -> None:
    assert alarm_rate(DRIFTING[name], seed=11) >= 0.95


def test_drift_test_is_exact_about_a_constant_judge() -> None:
    diff, p = drift_test(np.full(40, 2.0), np.full(40, 4.0), permutations=100)
    assert diff == 0.0 and p == 1.0
    assert drift_test(np.zeros(1), np.ones(1)) == (None, None)


def test_requested_and_same_model() -> None:
    assert requested_model("openai:gpt-4o@http://127.0.0.1:8000/v1?temperature=0") == "gpt-4o"
    assert requested_model("builtin:random") == "random"
    assert same_model("gpt-4o", "gpt-4o-2024-08-06")  # a dated snapshot of the alias
    assert same_model("gemini-2.5-pro", "gemini-2.5-pro-preview-05-06")
    assert same_model("gemini-1.5-pro-latest", "gemini-1.5-pro-002")
    assert same_model("Qwen/Qwen2-Audio-7B-Instruct", "/models/Qwen2-Audio-7B-Instruct")
    assert same_model("random", "builtin:random", "builtin:random")
    assert same_model("random", "builtin:random", "builtin:random?seed=1&calllog=/x")
    assert not same_model("gpt-4o", "gpt-4o-mini")
    assert not same_model("gpt-4o", "gpt-4o-mini-2024-07-18")
    assert not same_model("gemini-2.5-pro", "gemini-2.5-flash")


def _row(
    item: int, correct: bool, model: str | None, minute: int | None, probe: str = "J"
) -> StatRow:
    served = None if model is None and minute is None else (model, "fp_1", minute)
    return StatRow(
        judge="openai:gpt-4o@http://x/v1",
        task="t",
        item_id=f"i{item}",
        branch=0,
        probe=probe,
        protocol="pointwise",
        cue="none",
        order="ab",
        pred="R1" if correct else "R2",
        gold="R1",
        status="ok",
        correct=correct,
        served_call=served,
    )


def _records(rows: list[StatRow], items: int) -> list[dict[str, object]]:
    tally = SERVED.start("openai:gpt-4o@http://x/v1", "t")
    for r in rows:
        tally.add(r)
    return tally.records(GroupContext("openai:gpt-4o@http://x/v1", "t", items, 100, 0))


def test_one_snapshot_of_the_requested_model_names_nothing() -> None:
    rows = [_row(i, i % 10 != 0, "gpt-4o-2024-08-06", i) for i in range(60)]
    records = _records(rows, 60)
    s = ServedModels.model_validate(records[0])
    assert [(m.model, m.answers, m.matches_requested, m.versions) for m in s.models] == [
        ("gpt-4o-2024-08-06", 60, True, ["fp_1"])
    ]
    assert not s.other_model and not s.changed
    assert s.stationarity is not None and not s.stationarity.drift
    assert s.stationarity.order == "call time"
    assert served_behaviours(records, GroupContext("j", "t", 60, 100, 0)) == []


def test_a_second_model_and_a_drop_are_both_named() -> None:
    early = [_row(i, True, "gpt-4o", i) for i in range(40)]
    late = [_row(i, i % 2 == 0, "gpt-4o-mini", i) for i in range(40, 80)]
    records = _records(early + late, 80)
    s = ServedModels.model_validate(records[0])
    assert s.other_model and s.changed
    assert [(m.model, m.accuracy) for m in s.models] == [("gpt-4o", 1.0), ("gpt-4o-mini", 0.5)]
    found = served_behaviours(records, GroupContext("j", "t", 80, 100, 0))
    assert [b.kind for b in found] == ["answered by another model", "drifts during the run"]
    assert "gpt-4o-mini on 40 of 80 answers, asked for gpt-4o" in found[0].text
    assert "accuracy by model: gpt-4o 100%, gpt-4o-mini 50%" in found[0].text
    assert "100% on the early half" in found[1].text and "50% on the late half" in found[1].text


def test_rows_of_older_runs_say_nothing_and_use_results_order() -> None:
    rows = [_row(i, True, None, None) for i in range(30)] + [
        _row(0, True, None, None, probe="T"),  # no right answer: counted, never scored
    ]
    s = ServedModels.model_validate(_records(rows, 30)[0])
    assert [(m.model, m.matches_requested) for m in s.models] == [(None, None)]
    assert not s.other_model and not s.changed
    assert s.stationarity is not None and s.stationarity.order == "results order"
    assert s.stationarity.items == 30


def test_failed_calls_and_few_items() -> None:
    failed = _row(0, False, None, None)._replace(status="error")
    assert _records([failed], 1) == []  # nothing answered: no section
    s = ServedModels.model_validate(_records([_row(i, True, "gpt-4o", 0) for i in range(5)], 5)[0])
    assert s.stationarity is None  # below MIN_ITEMS: no test


def test_a_judge_told_apart_by_its_run_label_asked_for_its_own_model() -> None:
    """A report of several runs names a judge in both '<spec> [<run>]' (stats/rowgroups.py):
    that label is not part of the model it asked for."""
    from paraudit.stats.served import requested_model, same_model

    judge = "builtin:first [run-emphasis]"
    assert requested_model(judge) == "first"
    assert same_model(requested_model(judge), "builtin:first", judge)
    assert requested_model("openai:gpt-4o@http://127.0.0.1:9/v1 [b]") == "gpt-4o"
