from __future__ import annotations

import itertools
import random

import pytest

from paraudit.stats.states import GROUPS, STATES, independent_masses, masses, unit_states
from tests.stats.synthetic import row


def _unit(item: str, branch: int, pojs: tuple[int, int, int], **kw: object) -> list[dict]:  # type: ignore[type-arg]
    """Rows of one (item, branch, cue) unit in both orders, right as `pojs` says."""
    out = []
    for probe, v in zip("POJ", pojs, strict=True):
        for order in ("ab", "ba"):
            out.append(
                row(item=item, branch=branch, probe=probe, order=order, correct=bool(v), **kw)
            )  # type: ignore[arg-type]
    return out


def test_hand_built_table() -> None:
    spec = {("a", 0): (1, 1, 1), ("a", 1): (1, 1, 0), ("b", 0): (1, 1, 0), ("b", 1): (0, 1, 0),
            ("c", 0): (0, 0, 0)}  # fmt: skip
    rows = [r for (item, b), pojs in spec.items() for r in _unit(item, b, pojs)]
    rows.append(row(item="d", probe="J"))  # no P/O counterpart: not a state
    m = masses([s["state"] for s in unit_states(rows)])
    assert m.n == 5
    assert m.masses["111"] == pytest.approx(0.2) and m.masses["110"] == pytest.approx(0.4)
    assert m.masses["010"] == pytest.approx(0.2) and m.masses["000"] == pytest.approx(0.2)
    assert m.group("component bottleneck") == pytest.approx(0.2)


def test_a_probe_counts_only_when_right_in_every_order() -> None:
    rows = _unit("a", 0, (1, 1, 1))
    rows[0] = row(item="a", branch=0, probe="P", order="ab", correct=False)
    assert [s["state"] for s in unit_states(rows)] == ["011"]


def test_a_unit_with_a_failed_call_has_no_state() -> None:
    """Whether the unit is right in every order is unknown when one order failed: judging it on
    the order that answered would let a position habit pass as skill."""
    rows = _unit("a", 0, (1, 1, 1))
    assert [s["state"] for s in unit_states(rows)] == ["111"]
    rows[1] = row(item="a", branch=0, probe="P", order="ba", status="error")
    assert unit_states(rows) == []
    only_errors = [r for r in _unit("b", 0, (1, 1, 1)) if r.probe != "P"] + [
        row(item="b", branch=0, probe="P", order=o, status="error") for o in ("ab", "ba")
    ]
    assert unit_states(only_errors) == []


def test_always_first_is_never_reliable() -> None:
    """The issue's bug: under one order an always-R1 judge is right on P, O and J together for
    branch 0. Across both orders it is never right on any unit."""
    rows = [
        row(item=f"i{i}", branch=b, probe=p, order=o, pred="R1")
        for i in range(10) for b in (0, 1) for p in "POJ" for o in ("ab", "ba")
    ]  # fmt: skip
    states = [s["state"] for s in unit_states(rows)]
    assert len(states) == 20 and set(states) == {"000"}
    one_order = [r for r in rows if r.order == "ab"]
    assert masses([s["state"] for s in unit_states(one_order)]).masses["111"] == 0.5


def test_groups_partition_the_states() -> None:
    assert sorted(s for g in GROUPS.values() for s in g) == sorted(STATES)


@pytest.mark.parametrize("seed", range(3))
def test_masses_sum_to_one(seed: int) -> None:
    rng = random.Random(seed)
    m = masses([rng.choice(STATES) for _ in range(rng.randint(1, 300))])
    assert sum(m.masses.values()) == pytest.approx(1.0)


def test_independent_masses_are_products_of_marginals() -> None:
    e = independent_masses(0.9, 0.8, 0.3)
    assert sum(e.values()) == pytest.approx(1.0)
    assert e["110"] == pytest.approx(0.9 * 0.8 * 0.7) and e["001"] == pytest.approx(0.1 * 0.2 * 0.3)
    for p, o, j in itertools.product((0.0, 1.0), repeat=3):
        e = independent_masses(p, o, j)
        assert e[f"{int(p)}{int(o)}{int(j)}"] == 1.0
