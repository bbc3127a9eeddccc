"""The (P, O, J) state of every pointwise unit, state masses and their groups (§3.3)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from paraudit.stats.units import Row, answered

STATES = ("111", "110", "101", "100", "011", "010", "001", "000")
# The paper's Fig. 3 groups, in stacking order, with one colour each in every figure.
GROUPS: dict[str, tuple[str, ...]] = {
    "reliable": ("111",),
    "Potemkin": ("110",),
    "component bottleneck": ("010", "100"),
    "shortcut-like success": ("001", "011", "101"),
    "full-stack failure": ("000",),
}
GROUP_COLOURS = {
    "reliable": "#2e7d32",
    "Potemkin": "#c62828",
    "component bottleneck": "#f9a825",
    "shortcut-like success": "#6a1b9a",
    "full-stack failure": "#616161",
}
STATE_MEANING = {
    "111": "reliable: hears the cue, maps it when told, and judges natively",
    "110": "Potemkin: hears and maps, but fails to compose them in the native judgment",
    "010": "perception bottleneck: maps when told, but does not hear the cue",
    "100": "response-mapping bottleneck: hears the cue, but cannot map it to the response",
    "101": "shortcut-like success: right natively without the oracle mapping",
    "011": "shortcut-like success: right natively without perceiving the cue",
    "001": "shortcut-like success: right natively with neither component",
    "000": "full-stack failure: wrong everywhere",
}

UnitKey = tuple[str, str, str, int, str]
"""(judge, task, item_id, branch, cue)"""


def consistent_outcomes(rows: Iterable[Row], probe: str) -> dict[UnitKey, bool]:
    """Per pointwise (judge, task, item, branch, cue) unit of `probe`: right in every order
    that ran. A unit with a failed call is absent: whether it is right in every order is
    unknown, and judging it on the orders that answered would flatter a position habit."""
    tally: dict[UnitKey, list[int]] = defaultdict(lambda: [0, 0])
    failed: set[UnitKey] = set()
    for r in rows:
        if r.probe == probe and r.protocol == "pointwise" and r.branch is not None:
            key = (r.judge, r.task, r.item_id, int(r.branch), r.cue)
            if answered(r):
                t = tally[key]
                t[0] += 1
                t[1] += bool(r.correct)
            else:
                failed.add(key)
    return {k: n == c for k, (n, c) in tally.items() if k not in failed}


def unit_states(rows: list[Row]) -> list[dict[str, Any]]:
    """One record per pointwise (item, branch, cue) unit that has P, O and J answers.

    Each probe counts as right only when it is right in every order that ran, so a judge
    with a fixed position habit (always R1) is never right on all three by the luck of one
    order. Strict scoring: an unparsed or refused answer is wrong.
    """
    p, o = consistent_outcomes(rows, "P"), consistent_outcomes(rows, "O")
    out = []
    for key, j in consistent_outcomes(rows, "J").items():
        if key in p and key in o:
            judge, task, item, branch, cue = key
            out.append(
                {
                    "judge": judge,
                    "task": task,
                    "item_id": item,
                    "branch": branch,
                    "cue": cue,
                    "state": f"{int(p[key])}{int(o[key])}{int(j)}",
                }
            )
    return out


def independent_masses(p: float, o: float, j: float) -> dict[str, float]:
    """The state masses independent P, O and J with these marginals would give."""
    out = {}
    for s in STATES:
        out[s] = (
            (p if s[0] == "1" else 1 - p)
            * (o if s[1] == "1" else 1 - o)
            * (j if s[2] == "1" else 1 - j)
        )
    return out


@dataclass(frozen=True)
class StateMasses:
    counts: dict[str, int]
    """Units in each of the eight states."""

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    @property
    def masses(self) -> dict[str, float]:
        """π_poj for all eight states (sums to 1 when n > 0)."""
        n = self.n
        return {s: (c / n if n else 0.0) for s, c in self.counts.items()}

    def group(self, name: str) -> float:
        return sum(self.masses[s] for s in GROUPS[name])


def masses(states: list[str]) -> StateMasses:
    counts = dict.fromkeys(STATES, 0)
    for s in states:
        counts[s] += 1
    return StateMasses(counts)
