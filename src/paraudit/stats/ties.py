"""Tie items and the abstain answer (issue 32): does J know when the audio does not decide?

Read from J rows asked with the `ties` preset (protocols/ties.py), where "tie" is an offered
answer (pointwise, and in pairwise in place of a matching), without a cue. Per judge × task ×
protocol:

- `tie_accuracy`: the share of answered questions on tie items (gold "tie") that say "tie";
- `abstain_rate`: the share of answered questions on other items that say "tie" (there the
  audio decides, so each is an abstention);
- `calibration` = tie_accuracy − abstain_rate, tie and other items resampled apart (they are
  different items): how much more often the judge says "tie" where the audio does not decide
  than where it does. A judge that says "tie" blindly — never, always, or by a coin — scores 0
  whatever its rate; only telling the two kinds of item apart moves it.
- `committed_accuracy`: accuracy on other items among the answers that are not "tie".

Rules (each needs at least MIN_ITEMS items of its kind; checked by simulation in
`stats/pressure_sim.py`, figures in docs/concepts/pressure-and-ties.md):
- "never says there is no difference": tie_accuracy's 99 % item interval below 0.2;
- "abstains where the audio decides": abstain_rate's 99 % item interval above 0.5.
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

TIE = "tie"
NEVER_MAX = 0.2
ALWAYS_MIN = 0.5
DECISION = 0.99
MIN_ITEMS = 5
"""Items of a kind (tie, other) either rule needs: on fewer, an all-zero share has a zero-width
bootstrap interval that would read as certainty."""


class TieRecord(BaseModel):
    """The summary.json record of one judge × task (section `ties`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str
    task: str
    items: int
    tie_items: int
    protocol: str = "pointwise"
    """J's protocol: pointwise, or pairwise ("tie" in place of a matching)."""
    tie_accuracy: Estimate | None
    abstain_rate: Estimate | None
    calibration: Estimate | None
    committed_accuracy: Estimate | None
    never_abstains: bool
    always_abstains: bool


@dataclass
class TieTally:
    """Per protocol and item: [said tie, answered, right] under the ties preset (J)."""

    reads_ties = True
    """Fed the tie items too (stats/summary/tally.py feeds them to no other unit)."""

    judge: str
    task: str
    counts: dict[tuple[str, str], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0, 0])
    )
    tie_items: set[str] = field(default_factory=set)
    seen_tie: set[str] = field(default_factory=set)
    """Protocols whose rows show the preset ("tie" offered as gold or answered)."""

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return probe == "J" and cue == "none"

    def add(self, row: StatRow) -> None:
        # Only the no-cue question (as the conflict unit): a cue names a value, so a judge that
        # follows it commits where it would say "tie", and pooling the cued answers (the run's
        # default cues are none, soft, hard) hid an abstainer and credited the cue's answers.
        if row.probe != "J" or row.status != "ok" or row.cue != "none":
            return
        if row.gold == TIE:
            self.tie_items.add(row.item_id)
        if row.gold == TIE or row.pred == TIE:
            self.seen_tie.add(row.protocol)
        c = self.counts[(row.protocol, row.item_id)]
        c[0] += row.pred == TIE
        c[1] += 1
        c[2] += row.correct

    def records(self, ctx: GroupContext) -> list[Record]:
        # Not a ties-preset run (or nothing answered): no record.
        return [self._record(p, ctx) for p in ("pointwise", "pairwise") if p in self.seen_tie]

    def _record(self, protocol: str, ctx: GroupContext) -> Record:
        mine = {i: c for (p, i), c in self.counts.items() if p == protocol}
        ties = np.array([c for i, c in mine.items() if i in self.tie_items], float)
        other = np.array([c for i, c in mine.items() if i not in self.tie_items], float)
        tie_acc = _share(ties[:, 0], ties[:, 1], ctx) if len(ties) else None
        abstain = _share(other[:, 0], other[:, 1], ctx) if len(other) else None
        committed = None
        if len(other) and (other[:, 1] - other[:, 0]).sum():
            committed = _share(other[:, 2], other[:, 1] - other[:, 0], ctx)
        calibration = None
        if len(ties) and len(other):
            # Tie and other items are different items: resample each kind separately, so the
            # difference's interval is that of two independent item samples.
            calibration = _difference(ties, other, ctx)
        rec = TieRecord(
            judge=self.judge,
            task=self.task,
            items=len(mine),
            tie_items=len(ties),
            protocol=protocol,
            tie_accuracy=tie_acc,
            abstain_rate=abstain,
            calibration=calibration,
            committed_accuracy=committed,
            never_abstains=tie_acc is not None
            and tie_acc.items >= MIN_ITEMS
            and tie_acc.below(NEVER_MAX),
            always_abstains=abstain is not None
            and abstain.items >= MIN_ITEMS
            and abstain.above(ALWAYS_MIN),
        )
        return rec.model_dump()


def _quantiles(d: np.ndarray) -> list[float]:
    d = d[np.isfinite(d)]
    qs = [0.025, 0.975, (1 - DECISION) / 2, (1 + DECISION) / 2]
    return [float(x) for x in np.quantile(d, qs)] if d.size else [float("nan")] * 4


def _share(k: np.ndarray, n: np.ndarray, ctx: GroupContext) -> Estimate:
    keep = n > 0
    k, n = k[keep], n[keep]
    z, o = np.zeros(len(k)), np.ones(len(k))
    c = PairedCounts(k, n, z, o)
    lo, hi, dlo, dhi = _quantiles(bootstrap_diffs(c, ctx.replicates, ctx.seed))
    return Estimate(rate=float(k.sum() / n.sum()), ci_low=lo, ci_high=hi, items=len(k),
                    decision_low=dlo, decision_high=dhi)  # fmt: skip


def _difference(ties: np.ndarray, other: np.ndarray, ctx: GroupContext) -> Estimate:
    z_t, o_t = np.zeros(len(ties)), np.ones(len(ties))
    z_o, o_o = np.zeros(len(other)), np.ones(len(other))
    a = bootstrap_diffs(PairedCounts(ties[:, 0], ties[:, 1], z_t, o_t), ctx.replicates, ctx.seed)
    b = bootstrap_diffs(PairedCounts(other[:, 0], other[:, 1], z_o, o_o), ctx.replicates,
                        ctx.seed + 1)  # fmt: skip
    lo, hi, dlo, dhi = _quantiles(a - b)
    rate = ties[:, 0].sum() / ties[:, 1].sum() - other[:, 0].sum() / other[:, 1].sum()
    return Estimate(rate=float(rate), ci_low=lo, ci_high=hi, items=len(ties) + len(other),
                    decision_low=dlo, decision_high=dhi)  # fmt: skip


def tie_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    out = []
    for r in records:
        if r["never_abstains"]:
            e = Estimate(**r["tie_accuracy"])
            out.append(Behaviour(kind="never says there is no difference", evidence=e, probes=["J"],
                                 text=f"never says there is no difference: 'tie' on {e.rate:.0%} "
                                 f"of {_where(r)}answers about tie items "
                                 f"({e.items} items)"))  # fmt: skip
        if r["always_abstains"]:
            e = Estimate(**r["abstain_rate"])
            out.append(Behaviour(kind="abstains where the audio decides", evidence=e,
                                 probes=["J"], text=f"abstains where the audio decides: 'tie' "
                                 f"on {e.rate:.0%} of {_where(r)}answers about items that differ "
                                 f"({e.items} items)"))  # fmt: skip
    return out


def _where(r: Record) -> str:
    """'' for pointwise (as the section has always read), 'pairwise ' for pairwise."""
    return "" if r.get("protocol", "pointwise") == "pointwise" else f"{r['protocol']} "


TIES = Analysis(
    name="ties",
    title="Tie items and the abstain answer",
    start=lambda judge, task: TieTally(judge, task),
    behaviours=tie_behaviours,
    report="paraudit.report.pressure:ties_section",
)

__all__ = ["TIES", "TieRecord", "TieTally", "tie_behaviours"]
