"""A sequence of runs (checkpoints of one judge) on the same items: key figures per checkpoint
and item-level paired tests between consecutive runs and against the first.

Each test is `stats/compare.py`'s: order-consistent outcomes per item, a paired item bootstrap
interval of the change and an exact McNemar (sign) test on the items. A series asks many such
questions of one judge (every step and every checkpoint against the first, for each J
protocol), so the p-values are Holm-adjusted over all of them per judge: a judge that never
changed raises a false regression in at most α of series, however long. A **regression** is a
step whose J accuracy fell with a Holm-adjusted p below α.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from paraudit.errors import ParauditError
from paraudit.stats.compare import per_probe
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Share, Summary
from paraudit.stats.units import Row

ALPHA = 0.05
Item = tuple[str, str]


class SeriesError(ParauditError):
    """Runs that cannot form a series as given (a usage mistake: exit 2)."""

    exit_code = 2


def items_of(rows: Sequence[Row]) -> set[Item]:
    return {(r.task, r.item_id) for r in rows}


def common_judges(runs: Sequence[Sequence[Row]]) -> list[tuple[str, ...]]:
    """One label per run for each judge followed: the labels every run holds, or the only
    judge of each run."""
    labels = [sorted({r.judge for r in rows}) for rows in runs]
    shared = sorted(set(labels[0]).intersection(*labels[1:]))
    if shared:
        return [tuple(j for _ in runs) for j in shared]
    if all(len(x) == 1 for x in labels):
        return [tuple(x[0] for x in labels)]
    raise SeriesError(
        "the runs share no judge name and hold several judges each; a series follows one "
        "judge (or the judges of the same name) across runs"
    )


@dataclass(frozen=True)
class Figure:
    judge: str
    task: str
    j_pointwise: Share | None
    j_pairwise: Share | None
    groups: dict[str, Share]
    """State-group masses at cue none (order-consistent units)."""
    diagnosis: str
    headline: str


@dataclass(frozen=True)
class Test:
    judge: str
    kind: str
    """'step' (run k−1 → k) or 'vs first' (run 1 → k)."""
    a: int
    b: int
    """Indices of the runs compared (0-based)."""
    protocol: str
    items: int
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    a_better: int
    b_better: int
    p_value: float
    p_holm: float = 1.0
    regression: bool = False


@dataclass(frozen=True)
class Series:
    labels: list[str]
    items: int
    """Items every run answered (what every figure and test rests on)."""
    figures: list[list[Figure]]
    """Per run, per judge × task."""
    tests: list[Test] = field(default_factory=list)

    @property
    def regressions(self) -> list[Test]:
        return [t for t in self.tests if t.regression]

    def as_dict(self) -> dict[str, Any]:
        def share(s: Share | None) -> dict[str, Any] | None:
            return None if s is None else s.model_dump(mode="json")

        return {
            "unit": "item",
            "alpha": ALPHA,
            "multiplicity": "Holm over every test of a judge",
            "runs": self.labels,
            "items": self.items,
            "checkpoints": [
                [
                    {
                        "judge": f.judge,
                        "task": f.task,
                        "diagnosis": f.diagnosis,
                        "headline": f.headline,
                        "j_pointwise": share(f.j_pointwise),
                        "j_pairwise": share(f.j_pairwise),
                        "groups": {k: share(v) for k, v in f.groups.items()},
                    }
                    for f in run
                ]
                for run in self.figures
            ],  # fmt: skip
            "tests": [t.__dict__ for t in self.tests],
        }


def holm(pvalues: list[float]) -> list[float]:
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    out = [1.0] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        out[i] = running
    return out


def _figures(summary: Summary) -> list[Figure]:
    acc = {(c.judge, c.task, c.probe, c.protocol, c.cue): c for c in summary.accuracy}
    states = {(s.judge, s.task): s for s in summary.states if s.cue == "none"}
    out = []

    def share(judge: str, task: str, protocol: str) -> Share | None:
        c = acc.get((judge, task, "J", protocol, "none"))
        if c is None or c.accuracy is None:
            return None
        return Share(rate=c.accuracy, ci_low=c.ci_low, ci_high=c.ci_high, items=c.items)

    for v in summary.verdicts:
        st = states.get((v.judge, v.task))
        out.append(Figure(v.judge, v.task, share(v.judge, v.task, "pointwise"),
                          share(v.judge, v.task, "pairwise"),
                          dict(st.groups) if st else {}, v.diagnosis, v.headline))  # fmt: skip
    return out


def series(
    runs: Sequence[list[Row]],
    labels: list[str],
    keep: set[Item],
    *,
    replicates: int = 2_000,
    seed: int = 0,
) -> Series:
    """The series on the items in `keep` (the caller decides which: see the CLI)."""
    if len(runs) < 2:
        raise SeriesError("a series needs at least two runs")
    rows = [[r for r in run if (r.task, r.item_id) in keep] for run in runs]
    if not all(rows):
        raise SeriesError("a run answered none of the shared items")
    pairs = common_judges(rows)
    figures = []
    for run in rows:
        s = Summary.of(summarize(run, replicates=replicates, seed=seed))
        figures.append(_figures(s))
    tests: list[Test] = []
    for names in pairs:
        mine: list[Test] = []
        for b in range(1, len(rows)):
            for kind, a in (("step", b - 1), ("vs first", 0)):
                if kind == "vs first" and a == b - 1:
                    continue  # run 1 → 2 is both; ask it once
                for m in per_probe(rows[a], rows[b], names[a], names[b], replicates, seed):
                    if m["probe"] != "J" or not m["items"]:
                        continue
                    mine.append(Test(names[b], kind, a, b, m["protocol"], m["items"], m["delta"],
                                     m["ci_low"], m["ci_high"], m["a_better"], m["b_better"],
                                     m["p_value"]))  # fmt: skip
        adjusted = holm([t.p_value for t in mine])
        for t, p in zip(mine, adjusted, strict=True):
            fell = t.delta is not None and t.delta < 0 and p < ALPHA
            tests.append(replace(t, p_holm=p, regression=fell))
    return Series(labels, len(keep), figures, tests)
