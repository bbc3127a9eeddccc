"""What a pilot run tells a plan: item-level discordance between two conditions, and how
strongly the instances of one item cluster.

Conditions are compared per item (the unit of evidence): an item's accuracy under each
condition is the share of its units (branch, orders scored order-consistently as in
`stats/compare.py`) that are right, and the item is discordant when the two differ. So a
pilot's p10 / p01 already carry the within-item clustering of the paired design; the one-sample
design reads it as an intra-item correlation (`stats/plan.py: icc_of`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from paraudit.errors import ParauditError
from paraudit.stats.compare import consistent_units
from paraudit.stats.plan import icc_of
from paraudit.stats.units import Row, answered, chance_level

Item = tuple[str, str]
"""(task, item_id)"""
CUED = {"single-turn-emotions": "hard", "positional-emotion": "transition"}
"""The cue a cue difference compares with no cue (DESIGN: cue dependence)."""


@dataclass(frozen=True)
class PairedPilot:
    items: int
    a_better: int
    b_better: int
    a_accuracy: float
    b_accuracy: float

    @property
    def p10(self) -> float:
        return self.a_better / self.items

    @property
    def p01(self) -> float:
        return self.b_better / self.items


@dataclass(frozen=True)
class ChancePilot:
    items: int
    accuracy: float
    chance: float
    per_item: int
    """Median answered instances per item."""
    icc: float


def _per_item(
    units: dict[tuple[str, str, str, object], bool], cue: str | None
) -> dict[Item, float]:
    tally: dict[Item, list[int]] = defaultdict(lambda: [0, 0])
    for (task, item, c, _), ok in units.items():
        if cue is None or c == (CUED.get(task, "hard") if cue == "cued" else cue):
            t = tally[(task, item)]
            t[0] += ok
            t[1] += 1
    return {k: r / n for k, (r, n) in tally.items()}


def paired(a: dict[Item, float], b: dict[Item, float]) -> PairedPilot:
    shared = sorted(set(a) & set(b))
    if not shared:
        raise ParauditError("the pilot holds no item answered under both conditions")
    return PairedPilot(
        len(shared),
        sum(a[i] > b[i] for i in shared),
        sum(b[i] > a[i] for i in shared),
        sum(a[i] for i in shared) / len(shared),
        sum(b[i] for i in shared) / len(shared),
    )


def only_judge(rows: list[Row], judge: str | None) -> str:
    judges = sorted({r.judge for r in rows})
    if judge is not None:
        if judge not in judges:
            raise ParauditError(
                f"the pilot has no judge {judge!r} (its judges: {', '.join(judges)})"
            )
        return judge
    if len(judges) != 1:
        raise ParauditError(
            f"the pilot holds {len(judges)} judges ({', '.join(judges)}); name one with --judge"
        )
    return judges[0]


def protocol_pilot(rows: list[Row], judge: str) -> PairedPilot:
    """J pointwise vs J pairwise, no cue."""
    u = consistent_units(rows, judge)
    if ("J", "pointwise") not in u or ("J", "pairwise") not in u:
        raise ParauditError("a protocol pilot needs probe J in both protocols")
    return paired(_per_item(u[("J", "pointwise")], "none"), _per_item(u[("J", "pairwise")], "none"))


def cue_pilot(rows: list[Row], judge: str) -> PairedPilot:
    """J pointwise with no cue vs the task's strongest cue (hard / transition)."""
    u = consistent_units(rows, judge).get(("J", "pointwise"))
    if u is None:
        raise ParauditError("a cue pilot needs probe J pointwise")
    return paired(_per_item(u, "none"), _per_item(u, "cued"))


def regression_pilot(a: list[Row], b: list[Row], ja: str, jb: str) -> PairedPilot:
    """J pointwise with no cue, run A vs run B, on the items both answered."""
    ua = consistent_units(a, ja).get(("J", "pointwise"))
    ub = consistent_units(b, jb).get(("J", "pointwise"))
    if ua is None or ub is None:
        raise ParauditError("a regression pilot needs probe J pointwise in both runs")
    return paired(_per_item(ua, "none"), _per_item(ub, "none"))


def chance_pilot(rows: Iterable[Row], judge: str) -> ChancePilot:
    """Per-instance J pointwise accuracy with no cue, its deaf-guesser chance and the
    intra-item correlation of its outcomes."""
    tally: dict[Item, list[int]] = defaultdict(lambda: [0, 0])
    chances: list[float] = []
    for r in rows:
        if r.judge == judge and r.probe == "J" and r.protocol == "pointwise" and r.cue == "none":
            if answered(r):
                t = tally[(r.task, r.item_id)]
                t[0] += bool(r.correct)
                t[1] += 1
                chances.append(chance_level(r))
    if not tally:
        raise ParauditError("a chance pilot needs answered J pointwise rows with no cue")
    counts = [(k, m) for k, m in tally.values()]
    sizes = sorted(m for _, m in counts)
    return ChancePilot(
        len(counts),
        sum(k for k, _ in counts) / sum(sizes),
        sum(chances) / len(chances),
        sizes[len(sizes) // 2],
        icc_of(counts),
    )
