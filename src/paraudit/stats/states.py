"""The (P, O, J) state of every pointwise instance, state masses and their groups (§3.3)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from paraudit.stats.accuracy import wilson_interval

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

Key = tuple[str, str, str, int, str, str]
"""(judge, task, item_id, branch, cue, order)"""


def _key(r: dict[str, Any]) -> Key:
    return (r["judge"], r["task"], r["item_id"], int(r["branch"]), r["cue"], r["order"])


def instance_states(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per pointwise J instance that has its P and pointwise O counterparts.

    P and O are matched on the same item, branch, cue and order. Strict scoring: an unparsed or
    failed probe counts as 0.
    """
    by: dict[str, dict[Key, bool]] = defaultdict(dict)
    for r in rows:
        if (
            r["protocol"] == "pointwise"
            and r["probe"] in ("J", "P", "O")
            and r["branch"] is not None
        ):
            by[r["probe"]][_key(r)] = bool(r["correct"])
    out = []
    for key, j in by["J"].items():
        if key in by["P"] and key in by["O"]:
            p, o = by["P"][key], by["O"][key]
            judge, task, item, branch, cue, order = key
            out.append(
                {
                    "judge": judge,
                    "task": task,
                    "item_id": item,
                    "branch": branch,
                    "cue": cue,
                    "order": order,
                    "state": f"{int(p)}{int(o)}{int(j)}",
                }
            )
    return out


@dataclass(frozen=True)
class StateMasses:
    counts: dict[str, int]
    """Instances in each of the eight states."""

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

    def potemkin_rate(self) -> tuple[float | None, float, float]:
        """π110 / (π110 + π111) with a 95 % Wilson interval on the underlying counts."""
        k = self.counts["110"]
        m = k + self.counts["111"]
        if m == 0:
            return None, 0.0, 1.0
        lo, hi = wilson_interval(k, m)
        return k / m, lo, hi


def masses(states: list[str]) -> StateMasses:
    counts = dict.fromkeys(STATES, 0)
    for s in states:
        counts[s] += 1
    return StateMasses(counts)


def verdict(m: StateMasses, j_accuracy: float) -> str:
    """One plain sentence per judge, from its state masses."""
    if m.n == 0:
        return "No (P, O, J) states: run the J, P and O probes to diagnose this judge."
    groups = {g: m.group(g) for g in GROUPS}
    top = max(groups, key=lambda g: groups[g])
    share = f"{groups[top]:.0%} of instances"
    if top == "reliable" and groups["reliable"] >= 0.6:
        return f"Reliable: hears the cue, maps it and composes both natively ({share})."
    if top == "Potemkin":
        return (
            f"Potemkin-dominant: hears the emotion and maps it when told, but fails to "
            f"compose the two in a native judgment ({share})."
        )
    if top == "shortcut-like success":
        return (
            f"Shortcut-dominant: its native answers are right without the component skills "
            f"({share}); accuracy {j_accuracy:.0%} is not evidence that it uses the audio."
        )
    if top == "component bottleneck":
        weak = "perception" if m.masses["010"] >= m.masses["100"] else "response mapping"
        return f"Bottlenecked by {weak}: a component fails before judgment can ({share})."
    if top == "full-stack failure":
        return f"Fails across the stack: wrong on perception, mapping and judgment ({share})."
    return f"Mostly reliable ({share}) but not dominantly so."
