"""Text dominance (issue 32): does J still follow the audio when the text misleads?

Under the misleading cue the prompt states the other branch's value (protocols/pressure.py), so
on pointwise J the cued response is exactly the wrong one. Per judge × task:

- `dominance`: the share of answered misleading-cue J questions that pick the cued response
  (follow the text against the audio);
- `baseline`: the share of answered no-cue J questions, on the same items, that pick that same
  response (the other branch's) — the judge's own error rate when nothing pulls;
- `pressure` = dominance − baseline, paired over the items asked both ways.

Only answered questions count (unparsed, refused and failed ones are no evidence of following
anything). Every interval resamples whole items. What a judge with no skill scores: a coin, an
always-R1 judge (orders are counterbalanced) and a deaf judge all pick the cued response half
the time under both conditions — dominance ½, pressure 0. A perfect listener that ignores the
text: dominance 0, pressure 0. So dominance alone is not the claim; pressure is.

Rule, "follows the text against the audio": the 99 % item interval of `pressure` lies above
`PRESSURE_MIN` (0.10), on at least `MIN_ITEMS` items. Validated over a judge family (audio
skill × cue obedience × noise) by `stats/pressure_sim.py`; its figures are in the docs
(concepts/pressure-and-ties.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.bootstrap import PairedCounts, bootstrap_diffs
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.statrow import StatRow

MISLEADING = "misleading"
PRESSURE_MIN = 0.10
"""How far above the no-cue error rate the misleading cue must push J before the verdict names
it: smaller pulls are within what rewording a prompt moves a judge by."""
MIN_ITEMS = 5
"""On fewer items the item bootstrap's interval is too narrow to trust: on one item it has zero
width, and a coin was named in a third of simulated one-item audits (2 % at four, < 1 % at five)."""
DECISION = 0.99
"""As the cascade's steps (stats/verdicts.py DECISION_CONFIDENCE): several questions per judge."""


class TextDominance(BaseModel):
    """The summary.json record of one judge × task (section `text_dominance`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str
    task: str
    items: int
    """Items asked pointwise J both under the misleading cue and under none."""
    answered: int
    """Answered misleading-cue questions."""
    dominance: Estimate
    """Share of misleading-cue answers that pick the response the cue names."""
    baseline: Estimate
    """Share of no-cue answers that pick that same (the other branch's) response."""
    pressure: Estimate
    """dominance − baseline, paired over the items (99 % decision interval included)."""
    follows_text: bool
    """The rule: pressure's decision interval above PRESSURE_MIN, on at least MIN_ITEMS items."""


@dataclass
class PressureTally:
    """Per item: [followed, answered] under the misleading cue and under no cue (pointwise J)."""

    judge: str
    task: str
    counts: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0] * 4))

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return probe == "J" and protocol == "pointwise" and cue in ("none", MISLEADING)

    def add(self, row: StatRow) -> None:
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[StatRow]) -> None:
        for row in rows:
            cue = row.cue
            if row.probe != "J" or row.protocol != "pointwise" or cue not in ("none", MISLEADING):
                continue
            if row.status != "ok" or row.pred not in ("R1", "R2"):
                continue
            at = 0 if cue == MISLEADING else 2
            c = self.counts[row.item_id]
            c[at] += row.pred != row.gold  # the other branch's response: the one the cue names
            c[at + 1] += 1

    def records(self, ctx: GroupContext) -> list[Record]:
        shared = [c for c in self.counts.values() if c[1] and c[3]]
        if not shared:
            return []
        m = np.array(shared, dtype=float)
        zeros, ones = np.zeros(len(m)), np.ones(len(m))
        dominance = decision_estimate(PairedCounts(m[:, 0], m[:, 1], zeros, ones), ctx)
        baseline = decision_estimate(PairedCounts(m[:, 2], m[:, 3], zeros, ones), ctx)
        pressure = decision_estimate(PairedCounts(m[:, 0], m[:, 1], m[:, 2], m[:, 3]), ctx)
        return [
            {
                "judge": self.judge,
                "task": self.task,
                "items": len(m),
                "answered": int(m[:, 1].sum()),
                "dominance": dominance.model_dump(),
                "baseline": baseline.model_dump(),
                "pressure": pressure.model_dump(),
                "follows_text": len(m) >= MIN_ITEMS and pressure.above(PRESSURE_MIN),
            }
        ]


def decision_estimate(c: PairedCounts, ctx: GroupContext) -> Estimate:
    """A paired-count estimate with its 95 % item interval and its DECISION interval."""
    d = bootstrap_diffs(c, ctx.replicates, ctx.seed)
    d = d[np.isfinite(d)]
    lo, hi, dlo, dhi = np.quantile(d, [0.025, 0.975, (1 - DECISION) / 2, (1 + DECISION) / 2])
    return Estimate(
        rate=c.estimate,
        ci_low=float(lo),
        ci_high=float(hi),
        items=len(c.k_a),
        decision_low=float(dlo),
        decision_high=float(dhi),
    )


def pressure_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    out = []
    for r in records:
        if not r["follows_text"]:
            continue
        dom, base = Estimate(**r["dominance"]), Estimate(**r["baseline"])
        p = Estimate(**r["pressure"])
        text = (
            f"follows the text against the audio: told the other branch's value, it picks that "
            f"branch's response in {dom.rate:.0%} of answers (without a cue {base.rate:.0%}; "
            f"+{p.rate:.0%}, 95 % CI {p.ci_low:+.0%} to {p.ci_high:+.0%}, {p.items} items)"
        )
        out.append(Behaviour(kind="follows the text against the audio", text=text, evidence=p,
                             probes=["J"]))  # fmt: skip
    return out


TEXT_DOMINANCE = Analysis(
    name="text_dominance",
    title="Pressure from the text: the misleading cue",
    start=lambda judge, task: PressureTally(judge, task),
    behaviours=pressure_behaviours,
    report="paraudit.report.pressure:dominance_section",
)

__all__ = [
    "PRESSURE_MIN",
    "MIN_ITEMS",
    "TEXT_DOMINANCE",
    "PressureTally",
    "TextDominance",
    "decision_estimate",
    "pressure_behaviours",
]
