"""The "shortcut-like success" rule (stats/verdicts.py `components`), validated by simulation
over two parametrised judge families at 189 items (the study's item count):

- a partial listener hears a share h of (item, branch) units — there P, O and J are right in
  every order — and flips a coin for P and J elsewhere (O is told the emotion, so right). Its
  J can clear chance while P does not, by luck alone; the extra right answers are coin flips
  on units it did not hear, so it must never be called a shortcut;
- a shortcut judge answers P by a coin everywhere and J right with probability s whatever P
  says: J succeeds without the component; it must be called a shortcut.

The rule: J on the order-consistent units whose failed component is wrong must be beyond what
guessing there gives (½, the best deaf guesser on consistent units), by a one-sided 99 %
Wilson bound.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from paraudit.stats.statrow import StatRow
from paraudit.stats.summary import summarize
from tests.stats.synthetic import row

ITEMS = 189
SEEDS = 40


def _judge(kind: str, x: float, seed: int) -> list[StatRow]:
    rng = random.Random(seed)
    rows = []
    for i in range(ITEMS):
        for branch in (0, 1):
            heard = rng.random() < x if kind == "partial" else False
            for order in ("ab", "ba"):
                for probe in "POJ":
                    if probe == "O":
                        right = True
                    elif kind == "partial":
                        right = heard or rng.random() < 0.5
                    else:  # shortcut
                        right = rng.random() < (0.5 if probe == "P" else x)
                    rows.append(row(judge=f"{kind}{x}", item=f"i{i}", probe=probe,
                                    branch=branch, order=order, correct=right))  # fmt: skip
    return rows


@cache
def _patterns(kind: str, x: float) -> list[tuple[bool, bool, str]]:
    out = []
    for seed in range(SEEDS):
        s: dict[str, Any] = summarize(_judge(kind, x, seed), replicates=200, permutations=50)
        (v,) = s["verdicts"]
        (c,) = v["components"]
        out.append((c["above"]["J"], c["above"]["P"], c["pattern"]))
    return out


@pytest.mark.parametrize("h", [0.06, 0.1, 0.14])
def test_a_partial_listener_is_never_a_shortcut(h: float) -> None:
    got = _patterns("partial", h)
    assert not any(p == "shortcut-like success" for _, _, p in got), got
    # The case the rule is for happens: J above chance with P not.
    lucky = [p for j, pp, p in got if j and not pp]
    assert all(p == "rests on the units it perceives" for p in lucky)


def test_the_case_the_rule_is_for_is_simulated() -> None:
    lucky = sum(j and not p for h in (0.06, 0.1, 0.14) for j, p, _ in _patterns("partial", h))
    assert lucky >= 3


@pytest.mark.parametrize("s", [0.8, 0.9])
def test_a_shortcut_judge_is_named(s: float) -> None:
    got = _patterns("shortcut", s)
    named = sum(p == "shortcut-like success" for _, _, p in got)
    assert named >= 0.95 * SEEDS, got
