"""The `states` section of the summary: (P, O, J) masses of one judge × task × cue, and what
independent components with the same marginals would give (`expected`, `excess`, with item
intervals). Which groups exceed independence beyond noise is the permutation test's answer
(`dependence`, from `stats/dependence.py`), not these intervals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from paraudit.stats.itemboot import Sheet, Sums
from paraudit.stats.states import GROUPS, STATES

Ask = Callable[[dict[str, Any], str, int], None]


def state_row(
    sheet: Sheet, ask: Ask, judge: str, task: str, cue: str, counts: dict[str, dict[str, float]]
) -> dict[str, Any]:
    """One `states` record; its statistics are asked of `sheet` and written by `ask`'s owner."""
    col = {s: sheet.column(v) for s, v in counts.items()}
    total = col["total"]
    items = int(sheet.present(total).sum())
    row: dict[str, Any] = {
        "judge": judge,
        "task": task,
        "cue": cue,
        "units": int(sum(counts["total"].values())),
        "items": items,
        "masses": {},
        "groups": {},
        "expected": {},
        "excess": {},
        "marginals": {},
    }

    def mass(states: tuple[str, ...]) -> Callable[[Sums], np.ndarray]:
        return lambda s: sum(s[..., col[x]] for x in states) / s[..., total]

    def marginal(pos: int) -> Callable[[Sums], np.ndarray]:
        return mass(tuple(x for x in STATES if x[pos] == "1"))

    def expected(states: tuple[str, ...]) -> Callable[[Sums], np.ndarray]:
        def fn(s: Sums) -> np.ndarray:
            m = [marginal(i)(s) for i in range(3)]
            return np.asarray(
                sum(
                    np.prod([m[i] if x[i] == "1" else 1 - m[i] for i in range(3)], axis=0)
                    for x in states
                )
            )

        return fn

    def excess(states: tuple[str, ...]) -> Callable[[Sums], np.ndarray]:
        m, e = mass(states), expected(states)
        return lambda s: m(s) - e(s)

    for st in STATES:
        ask(row["masses"], st, sheet.stat(mass((st,)), items))
    for g, members in GROUPS.items():
        ask(row["groups"], g, sheet.stat(mass(members), items))
        ask(row["expected"], g, sheet.stat(expected(members), items))
        ask(row["excess"], g, sheet.stat(excess(members), items))
    for name, pos in (("P", 0), ("O", 1), ("J", 2)):
        ask(row["marginals"], name, sheet.stat(marginal(pos), items))
    c110, c111 = col["110"], col["111"]
    ask(row, "potemkin", sheet.stat(lambda s: s[..., c110] / (s[..., c110] + s[..., c111]), items))
    j = marginal(2)
    ask(row, "potemkin_baseline", sheet.stat(lambda s: 1 - j(s), items))
    return row


def over_represented(row: dict[str, Any]) -> list[str]:
    """Groups the permutation test names over-represented, largest excess first."""
    return list(row.get("dependence", {}).get("over_represented", []))
