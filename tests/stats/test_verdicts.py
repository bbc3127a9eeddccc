from __future__ import annotations

from typing import Any

import pytest

from paraudit.stats.states import GROUPS, STATES
from paraudit.stats.verdicts import choose_group, position_direction, verdict


def _iv(rate: float | None, lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    return {
        "rate": rate,
        "ci_low": rate if lo is None else lo,
        "ci_high": rate if hi is None else hi,
    }


def _j(acc: float, lo: float, hi: float) -> dict[str, Any]:
    return {"accuracy": acc, "ci_low": lo, "ci_high": hi}


def _states(
    groups: dict[str, float], excess: dict[str, tuple[float, float, float]]
) -> dict[str, Any]:
    return {
        "units": 100,
        "masses": {s: _iv(0.0) for s in STATES},
        "groups": {g: _iv(groups.get(g, 0.0)) for g in GROUPS},
        "expected": {g: _iv(groups.get(g, 0.0) - excess.get(g, (0, 0, 0))[0]) for g in GROUPS},
        "excess": {g: _iv(*excess.get(g, (0.0, 0.0, 0.0))) for g in GROUPS},
    }


@pytest.mark.parametrize(
    ("share", "direction"),
    [
        (_iv(1.0), "first"),
        (_iv(0.0), "second"),
        (_iv(0.92, 0.85, 0.97), "first"),
        (_iv(0.05, 0.01, 0.12), "second"),
        (_iv(0.85, 0.7, 0.95), None),  # |share − ½| < 0.4
        (_iv(0.95, 0.45, 1.0), None),  # interval covers ½ (few items)
        (_iv(None, None, None), None),
    ],
)
def test_position_bias_both_directions(share: dict[str, Any], direction: str | None) -> None:
    assert position_direction(share) == direction


def test_at_chance_takes_precedence_over_any_state() -> None:
    shortcut = _states({"shortcut-like success": 0.4}, {"shortcut-like success": (0.2, 0.1, 0.3)})
    v = verdict("j", "t", 48, _j(0.53, 0.47, 0.6), shortcut, [], None, None)
    assert v["kind"] == "at chance" and v["group"] is None
    assert "not interpretable" in v["text"] and "behaves like a guess" in v["text"]


def test_behaviours_explain_a_chance_score() -> None:
    pos = [
        {"probe": "J", "protocol": "pointwise", "cue": "none", "rate": 0.0, "direction": "second"}
    ]
    v = verdict("j", "t", 48, _j(0.5, 0.5, 0.5), None, pos, _iv(0.0), _iv(1.0))
    assert v["behaviours"][0].startswith("position-biased towards the second option")
    assert any(b.startswith("ignores the audio") for b in v["behaviours"])
    assert any(b.startswith("repeats its text-only choice") for b in v["behaviours"])


def test_the_group_with_the_largest_significant_excess_is_named() -> None:
    s = _states(
        {"reliable": 0.5, "Potemkin": 0.3, "full-stack failure": 0.2},
        {"Potemkin": (0.12, 0.05, 0.2), "full-stack failure": (0.15, -0.01, 0.3)},
    )
    assert choose_group(s) == ("Potemkin", True)  # failure's excess interval covers 0
    v = verdict("j", "t", 48, _j(0.55, 0.51, 0.6), s, [], None, None)
    assert v["kind"] == "state" and v["group"] == "Potemkin" and "+12.0%" in v["text"]


def test_without_excess_the_largest_group_is_named_as_such() -> None:
    s = _states({"reliable": 1.0}, {})
    assert choose_group(s) == ("reliable", False)
    v = verdict("j", "t", 48, _j(1.0, 1.0, 1.0), s, [], _iv(1.0), _iv(0.5))
    assert (
        v["group"] == "reliable" and "No state group exceeds" in v["text"] and not v["behaviours"]
    )


def test_below_chance_is_not_at_chance() -> None:
    s = _states({"Potemkin": 1.0}, {})
    v = verdict("j", "t", 48, _j(0.0, 0.0, 0.0), s, [], None, None)
    assert v["kind"] == "state" and v["group"] == "Potemkin"


def test_small_samples_and_missing_answers_say_so() -> None:
    v = verdict("j", "t", 8, _j(0.9, 0.7, 1.0), None, [], None, None)
    assert v["small_sample"] and "Small sample: 8 items" in v["text"] and v["kind"] == "no states"
    v = verdict(
        "j", "t", 40, {"accuracy": None, "ci_low": None, "ci_high": None}, None, [], None, None
    )
    assert v["kind"] == "no answers" and not v["small_sample"]
