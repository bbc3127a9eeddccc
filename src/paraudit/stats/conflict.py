"""Word–tone conflict (issue 32): does J follow the voice when the words say the other thing?

A conflict item's words carry one of its two values (items/conflict.py): its *congruent* branch
is voiced with that value, its *conflict* branch with the other, and each branch's right
response follows its voice. Both branches share the words and the two responses, so the
comparison is paired within the item: only the agreement of voice and words differs. Read from
answered pointwise J questions without a cue (the native question), per judge × task:

- `congruent`: accuracy on congruent branches;
- `conflict`: accuracy on conflict branches;
- `gap` = conflict − congruent, paired over the items.

What a judge with no skill scores: a coin and an always-R1 judge (orders are counterbalanced)
are right half the time on both branches — gap 0; a deaf judge answers both branches of an item
alike (same words, same responses), so it is right on one and wrong on the other, and its gap is
0 on average, one item's sign against another's. A judge that hears the voice and ignores the
words: gap 0 at any skill. Only a judge pulled by the words' sentiment is right where they agree
and wrong where they do not: gap −1 at full pull.

Rule, "follows the words against the voice": both of
- an exact one-sided sign test over the items: among the items whose gap is not 0, the share
  below 0 has binomial tail P ≤ SIGN_ALPHA (0.01) under "as likely above as below", which is
  what every judge the words do not pull gives (a coin, a deaf or a skilled honest judge, one
  that over-hears a label on a set balanced as the starter's is); exact at any item count,
  so at least 7 items must fall below and none above;
- the effect: gap's 99 % item interval lies below −GAP_MIN (0.10).
The interval alone named a deaf judge in 1.4–2.4 % of audits on 5–10 items (its percentile
bootstrap under-covers on few items); the sign test bounds that by 1 %. Validated over a judge
family (audio skill × pull of the words × noise, deaf) by `stats/pressure_sim.py`; its
figures are in docs/concepts/pressure-and-ties.md and pinned by tests/stats/test_conflict.py.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.bootstrap import PairedCounts
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.pressure import decision_estimate
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata_items import WORDS

GAP_MIN = 0.10
"""As the misleading cue's PRESSURE_MIN: smaller pulls are within what rewording moves."""
SIGN_ALPHA = 0.01
"""The sign test's level: the project's bar for a false alarm (docs/concepts/
statistics-checked.md). 7 items all below 0 are the fewest that reach it (1/128)."""


def sign_test_p(diffs: np.ndarray) -> float:
    """One-sided exact sign test: P(at least as many of the non-zero `diffs` below 0 as
    observed) when each is as likely below as above 0; 1.0 when none is non-zero."""
    below, n = int(np.sum(diffs < 0)), int(np.sum(diffs != 0))
    if n == 0:
        return 1.0
    return float(sum(math.comb(n, k) for k in range(below, n + 1)) / 2**n)


class ConflictRecord(BaseModel):
    """The summary.json record of one judge × task (section `conflict`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    judge: str
    task: str
    items: int
    """Conflict items answered on both branches (native pointwise J)."""
    congruent: Estimate
    """Accuracy where the voice carries the words' value."""
    conflict: Estimate
    """Accuracy where the voice carries the other value (the right response follows it)."""
    gap: Estimate
    """conflict − congruent, paired over the items (99 % decision interval included)."""
    sign_p: float = 1.0
    """The exact one-sided sign test over the items' gaps (`sign_test_p`)."""
    follows_words: bool
    """The rule: sign_p ≤ SIGN_ALPHA and gap's decision interval below −GAP_MIN."""


@dataclass
class ConflictTally:
    """Per (item, branch): [right, answered] on native pointwise J."""

    judge: str
    task: str
    counts: dict[tuple[str, int], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0])
    )

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return probe == "J" and protocol == "pointwise" and cue == "none"

    def add(self, row: StatRow) -> None:
        if row.probe != "J" or row.protocol != "pointwise" or row.cue != "none":
            return
        if row.status != "ok" or row.branch is None or row.pred not in ("R1", "R2"):
            return
        c = self.counts[(row.item_id, row.branch)]
        c[0] += row.correct
        c[1] += 1

    def records(self, ctx: GroupContext) -> list[Record]:
        pairs = []  # per item: congruent [right, answered], conflict [right, answered]
        for item_id, attrs in ctx.attributes.items():
            sides = [b.get(WORDS) for b in attrs.branches]
            if set(sides) != {"congruent", "conflict"}:
                continue
            by = {sides[b]: self.counts.get((item_id, b), [0, 0]) for b in (0, 1)}
            if by["congruent"][1] and by["conflict"][1]:
                pairs.append([*by["congruent"], *by["conflict"]])
        if not pairs:
            return []
        m = np.array(pairs, dtype=float)
        zeros, ones = np.zeros(len(m)), np.ones(len(m))
        congruent = decision_estimate(PairedCounts(m[:, 0], m[:, 1], zeros, ones), ctx)
        conflict = decision_estimate(PairedCounts(m[:, 2], m[:, 3], zeros, ones), ctx)
        gap = decision_estimate(PairedCounts(m[:, 2], m[:, 3], m[:, 0], m[:, 1]), ctx)
        sign_p = sign_test_p(m[:, 2] / m[:, 3] - m[:, 0] / m[:, 1])
        rec = ConflictRecord(
            judge=self.judge,
            task=self.task,
            items=len(m),
            congruent=congruent,
            conflict=conflict,
            gap=gap,
            sign_p=sign_p,
            follows_words=sign_p <= SIGN_ALPHA and gap.below(-GAP_MIN),
        )
        return [rec.model_dump()]


def conflict_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    out = []
    for r in records:
        if not r["follows_words"]:
            continue
        con, cgr, gap = (Estimate(**r[k]) for k in ("conflict", "congruent", "gap"))
        text = (
            f"follows the words against the voice: right on {con.rate:.0%} of answers where the "
            f"voice contradicts the words, {cgr.rate:.0%} where they agree ({gap.rate:+.0%}, "
            f"95 % CI {gap.ci_low:+.0%} to {gap.ci_high:+.0%}, {gap.items} items)"
        )
        out.append(Behaviour(kind="follows the words against the voice", text=text,
                             evidence=gap, probes=["J"]))  # fmt: skip
    return out


CONFLICT = Analysis(
    name="conflict",
    title="Word–tone conflict: the words against the voice",
    start=lambda judge, task: ConflictTally(judge, task),
    behaviours=conflict_behaviours,
    report="paraudit.report.pressure:conflict_section",
    intervals=lambda records: 3 * len(records),
)

__all__ = [
    "CONFLICT",
    "GAP_MIN",
    "SIGN_ALPHA",
    "ConflictRecord",
    "ConflictTally",
    "conflict_behaviours",
    "sign_test_p",
]
