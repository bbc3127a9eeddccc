from __future__ import annotations

from typing import Any

import pytest

from paraudit.stats.states import GROUPS, STATES, instance_states, masses


def _row(probe: str, item: str, branch: int, correct: bool, judge: str = "j") -> dict[str, Any]:
    return {
        "judge": judge,
        "task": "t",
        "item_id": item,
        "branch": branch,
        "cue": "none",
        "order": "ab",
        "probe": probe,
        "protocol": "pointwise",
        "correct": correct,
    }


def test_hand_built_table() -> None:
    # (P, O, J) per instance: 111, 110, 110, 010, 000
    spec = {
        ("a", 0): (1, 1, 1),
        ("a", 1): (1, 1, 0),
        ("b", 0): (1, 1, 0),
        ("b", 1): (0, 1, 0),
        ("c", 0): (0, 0, 0),
    }
    rows = []
    for (item, b), pojs in spec.items():
        for probe, v in zip("POJ", pojs, strict=True):
            rows.append(_row(probe, item, b, bool(v)))
    rows.append(_row("J", "d", 0, True))  # no P/O counterpart: not a state
    states = [s["state"] for s in instance_states(rows)]
    m = masses(states)
    assert m.n == 5
    assert m.masses["111"] == pytest.approx(0.2)
    assert m.masses["110"] == pytest.approx(0.4)
    assert m.masses["010"] == pytest.approx(0.2)
    assert m.masses["000"] == pytest.approx(0.2)
    assert sum(m.masses.values()) == pytest.approx(1.0)
    rate, lo, hi = m.potemkin_rate()
    assert rate == pytest.approx(2 / 3) and lo < rate < hi
    assert m.group("component bottleneck") == pytest.approx(0.2)


def test_groups_partition_the_states() -> None:
    flat = [s for g in GROUPS.values() for s in g]
    assert sorted(flat) == sorted(STATES)


@pytest.mark.parametrize("seed", range(5))
def test_masses_sum_to_one(seed: int) -> None:
    import random

    rng = random.Random(seed)
    m = masses([rng.choice(STATES) for _ in range(rng.randint(1, 300))])
    assert sum(m.masses.values()) == pytest.approx(1.0)


def test_verdicts_name_the_dominant_mechanism() -> None:
    from paraudit.stats.states import StateMasses, verdict

    def m(**counts: int) -> StateMasses:
        return StateMasses({s: counts.get(f"s{s}", 0) for s in STATES})

    assert verdict(m(s110=60, s111=30, s000=10), 0.3).startswith("Potemkin-dominant")
    assert verdict(m(s111=80, s000=20), 0.8).startswith("Reliable")
    assert verdict(m(s001=50, s011=20, s000=30), 0.7).startswith("Shortcut-dominant")
    assert "perception" in verdict(m(s010=70, s111=30), 0.3)
    assert "response mapping" in verdict(m(s100=70, s111=30), 0.3)
    assert verdict(m(), 0.0).startswith("No (P, O, J) states")
