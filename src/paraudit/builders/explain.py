"""Why audio QC dropped turns, in numbers: per target and rule, how many dropped turns missed
it and what was measured against the threshold. Printed when little or nothing survives QC and
written to the dataset card, so a failed build says which rule to look at instead of only
"every pair was dropped"."""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from paraudit.builders.scorer import TurnRequest
from paraudit.builders.voicing import Voiced

TOP = 5
"""Rules shown in a terminal summary (the card lists every one)."""
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class RuleMisses:
    """Dropped turns of one target (speaker:emotion) that missed one requirement."""

    target: str
    rule: str
    """The requirement, e.g. "end_slope ≥ 6 st/s" (or a direction check's message)."""
    turns: int
    measured: tuple[float, float, float] | None
    """(lowest, median, highest) measured value over those turns; None when the check reports
    words only (the direction check)."""
    unit: str = ""

    def line(self) -> str:
        # "angry (human)", not "human:angry": terminals would turn ":angry:" into an emoji.
        role, _, emotion = self.target.partition(":")
        turns = f"{self.turns} turn{'s' * (self.turns != 1)}"
        s = f"{emotion} ({role}): {self.rule} missed by {turns}"
        if self.measured is not None:
            lo, mid, hi = self.measured
            s += (
                f" (measured {lo:.3g}{self.unit})"
                if lo == hi
                else f" (measured {lo:.3g} … {hi:.3g}{self.unit}, median {mid:.3g})"
            )
        return s

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def rule_misses(voiced: Iterable[tuple[TurnRequest, Voiced]]) -> list[RuleMisses]:
    """Each (target, rule) over the dropped turns, most frequent first. A turn counts once per
    rule its last try missed."""
    values: dict[tuple[str, str, str], list[float]] = {}
    worded: dict[tuple[str, str], int] = {}
    for job, v in voiced:
        if v.accepted:
            continue
        target = f"{job.role}:{job.emotion}"
        if v.misses:
            for m in v.misses:
                values.setdefault((target, m.rule, m.unit), []).append(m.value)
            continue
        for text in v.failures or ("no reason recorded",):
            # "try 3: pitch moved +0.3 st, expected about +4.0" → one key for every such miss.
            key = _NUMBER.sub("#", re.sub(r"^try \d+: ", "", text))
            for part in key.split("; "):
                worded[(target, part)] = worded.get((target, part), 0) + 1
    out = [RuleMisses(t, r, len(xs), _spread(xs), unit) for (t, r, unit), xs in values.items()] + [
        RuleMisses(t, r, n, None) for (t, r), n in worded.items()
    ]
    return sorted(out, key=lambda m: (-m.turns, m.target, m.rule))


def _spread(xs: list[float]) -> tuple[float, float, float] | None:
    finite = sorted(x for x in xs if x == x)
    if not finite:
        return None
    return finite[0], float(statistics.median(finite)), finite[-1]


def summary_lines(misses: list[RuleMisses], dropped_turns: int, top: int = TOP) -> list[str]:
    """The terminal summary: the top rules and how many more there are."""
    if not misses:
        return []
    lines = [f"audio QC dropped {dropped_turns} turns; top reasons:"]
    lines += [f"  {m.line()}" for m in misses[:top]]
    if len(misses) > top:
        lines.append(f"  … and {len(misses) - top} more rule(s)")
    return lines
