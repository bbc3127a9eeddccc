"""Human validation statistics: annotator accuracy, agreement, consistency, item difficulty.

The unit of a human answer is a stimulus — one item heard in one branch — and the category an
annotator picked is the *identity* of the chosen response (which branch's response), never its
screen position: positions are shuffled per annotator, so agreement on positions would mean
nothing. Catch items (attention checks) are kept out of every figure here except their own.

Reference points (a statistic is a claim): an annotator who guesses, or always clicks the first
response, scores 50 % in expectation because response order is randomised; κ and α are 0 in
expectation for raters who guess independently, 1 for perfect agreement.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from paraudit.stats.accuracy import wilson_interval

Kind = str
"""own | overlap | repeat | catch — how the stimulus entered the annotator's list."""
SCORED_KINDS = ("own", "overlap")


@dataclass(frozen=True)
class Judgment:
    """One human answer, reduced to what the statistics need."""

    annotator: str
    """The annotator's name."""
    item_id: str
    """The audit item."""
    task: str
    """The item's task."""
    unit: str
    """The stimulus: item and branch heard ('st-7|1'); repeats share the unit of their original."""
    category: str
    """What was chosen, independent of screen position (e.g. '0' = branch 0's response)."""
    correct: bool
    """Whether the chosen response is the right one for the audio heard."""
    kind: Kind
    """own | overlap | repeat | catch."""


# --------------------------------------------------------------------------- coefficients


def fleiss_kappa(table: np.ndarray) -> float:
    """Fleiss' κ from an items × categories table of counts (every row sums to the same n ≥ 2).

    NaN when chance agreement is 1 (every answer in one category): κ is undefined there.
    """
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        return math.nan
    n = t.sum(axis=1)
    if not np.allclose(n, n[0]) or n[0] < 2:
        raise ValueError("Fleiss' κ needs the same number (≥ 2) of ratings for every item")
    raters = n[0]
    p_cat = t.sum(axis=0) / t.sum()
    p_item = ((t * t).sum(axis=1) - raters) / (raters * (raters - 1))
    p_bar, p_e = float(p_item.mean()), float((p_cat * p_cat).sum())
    if math.isclose(p_e, 1.0):
        return math.nan
    return (p_bar - p_e) / (1 - p_e)


def krippendorff_alpha_nominal(data: np.ndarray) -> float:
    """Krippendorff's α (nominal) from a raters × units matrix of category codes, NaN = missing.

    Built from the coincidence matrix: units with fewer than two ratings are not pairable and
    drop out. NaN when all pairable values are one category.
    """
    d = np.asarray(data, dtype=float)
    values = np.unique(d[~np.isnan(d)])
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for u in range(d.shape[1]):
        col = [index[v] for v in d[:, u] if not np.isnan(v)]
        m = len(col)
        if m < 2:
            continue
        counts = np.bincount(col, minlength=len(values)).astype(float)
        o += (np.outer(counts, counts) - np.diag(counts)) / (m - 1)
    n_c = o.sum(axis=1)
    total = n_c.sum()
    if total <= 1:
        return math.nan
    observed = o.sum() - np.trace(o)
    expected = (total * total - (n_c * n_c).sum()) / (total - 1)
    if expected == 0:
        return math.nan
    return float(1 - observed / expected)


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen's κ of two raters' categories on the same units. NaN when chance agreement is 1."""
    if len(a) != len(b):
        raise ValueError("Cohen's κ needs both raters on the same units")
    n = len(a)
    if n == 0:
        return math.nan
    cats = sorted(set(a) | set(b))
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    p_e = sum((a.count(c) / n) * (b.count(c) / n) for c in cats)
    if math.isclose(p_e, 1.0):
        return math.nan
    return (p_o - p_e) / (1 - p_e)


# --------------------------------------------------------------------------- per annotator


@dataclass(frozen=True)
class Rate:
    """k of n with a 95 % Wilson interval."""

    k: int
    n: int

    @property
    def rate(self) -> float | None:
        return self.k / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.k, self.n)

    def as_dict(self) -> dict[str, object]:
        lo, hi = self.interval
        return {"k": self.k, "n": self.n, "rate": self.rate, "ci_low": lo, "ci_high": hi}


def scored(judgments: Iterable[Judgment]) -> list[Judgment]:
    """The answers that count for accuracy: first hearings, no catch items, no repeats."""
    return [j for j in judgments if j.kind in SCORED_KINDS]


def annotator_accuracy(judgments: Iterable[Judgment]) -> dict[str, Rate]:
    """Accuracy of every annotator on scored answers (Wilson interval on their answers)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for j in scored(judgments):
        out[j.annotator][0] += j.correct
        out[j.annotator][1] += 1
    return {a: Rate(k, n) for a, (k, n) in sorted(out.items())}


def catch_results(judgments: Iterable[Judgment]) -> dict[str, Rate]:
    """Attention checks passed per annotator (reported apart, never in accuracy)."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for j in judgments:
        if j.kind == "catch":
            out[j.annotator][0] += j.correct
            out[j.annotator][1] += 1
    return {a: Rate(k, n) for a, (k, n) in sorted(out.items())}


def accuracy_range(rates: dict[str, Rate]) -> tuple[float, float] | None:
    """Lowest and highest annotator accuracy (the paper reports this range, Appendix E)."""
    values = [r.rate for r in rates.values() if r.rate is not None]
    return (min(values), max(values)) if values else None


def intra_rater(judgments: Iterable[Judgment]) -> dict[str, Rate]:
    """Per annotator: hidden repeats on which the same response was chosen as the first time."""
    first: dict[tuple[str, str], str] = {}
    repeats: list[Judgment] = []
    for j in judgments:
        if j.kind == "repeat":
            repeats.append(j)
        elif j.kind in SCORED_KINDS:
            first[(j.annotator, j.unit)] = j.category
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for j in repeats:
        if (j.annotator, j.unit) in first:
            out[j.annotator][0] += first[(j.annotator, j.unit)] == j.category
            out[j.annotator][1] += 1
    return {a: Rate(k, n) for a, (k, n) in sorted(out.items())}


# --------------------------------------------------------------------------- overlap set


@dataclass(frozen=True)
class OverlapAgreement:
    """Agreement on the shared overlap set."""

    annotators: tuple[str, ...]
    units: tuple[str, ...]
    complete_units: int
    """Units every listed annotator answered (Fleiss' κ uses only these)."""
    fleiss_kappa: float
    krippendorff_alpha: float
    """Nominal α over all overlap answers (missing answers allowed)."""
    pairwise_cohen: tuple[tuple[str, str, float, int], ...]
    """(annotator a, annotator b, κ, units both answered) for every pair."""


def overlap_agreement(judgments: Iterable[Judgment]) -> OverlapAgreement | None:
    """Fleiss κ, Krippendorff α and pairwise Cohen κ on the overlap answers."""
    answers: dict[str, dict[str, str]] = defaultdict(dict)
    for j in judgments:
        if j.kind == "overlap":
            answers[j.annotator][j.unit] = j.category
    raters = tuple(sorted(answers))
    if len(raters) < 2:
        return None
    units = tuple(sorted({u for a in answers.values() for u in a}))
    cats = sorted({c for a in answers.values() for c in a.values()})
    code = {c: i for i, c in enumerate(cats)}
    data = np.full((len(raters), len(units)), np.nan)
    for r, a in enumerate(raters):
        for u, unit in enumerate(units):
            if unit in answers[a]:
                data[r, u] = code[answers[a][unit]]
    complete = [u for u in range(len(units)) if not np.isnan(data[:, u]).any()]
    table = np.zeros((len(complete), len(cats)))
    for row, u in enumerate(complete):
        for v in data[:, u]:
            table[row, int(v)] += 1
    pairs = []
    for a, b in combinations(raters, 2):
        shared = sorted(set(answers[a]) & set(answers[b]))
        k = cohen_kappa([answers[a][u] for u in shared], [answers[b][u] for u in shared])
        pairs.append((a, b, k, len(shared)))
    return OverlapAgreement(
        annotators=raters,
        units=units,
        complete_units=len(complete),
        fleiss_kappa=fleiss_kappa(table) if complete else math.nan,
        krippendorff_alpha=krippendorff_alpha_nominal(data),
        pairwise_cohen=tuple(pairs),
    )


# --------------------------------------------------------------------------- per item


@dataclass(frozen=True)
class ItemScore:
    """How listeners did on one item (scored answers of every annotator, both branches)."""

    item_id: str
    task: str
    correct: int
    answers: int
    flagged: bool
    """Below the threshold with enough answers: a candidate for removal from the set."""

    @property
    def accuracy(self) -> float:
        return self.correct / self.answers if self.answers else 0.0


def item_accuracy(
    judgments: Iterable[Judgment], *, threshold: float = 0.5, min_answers: int = 2
) -> list[ItemScore]:
    """Per-item human accuracy, hardest first; items below `threshold` are flagged.

    An item needs `min_answers` scored answers to be flagged, so a single slip does not condemn it.
    """
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for j in scored(judgments):
        counts[(j.item_id, j.task)][0] += j.correct
        counts[(j.item_id, j.task)][1] += 1
    out = [
        ItemScore(item, task, k, n, flagged=n >= min_answers and k / n < threshold)
        for (item, task), (k, n) in counts.items()
    ]
    return sorted(out, key=lambda s: (s.accuracy, -s.answers, s.item_id))


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def agreement_summary(
    judgments: Sequence[Judgment], *, threshold: float = 0.5, min_answers: int = 2
) -> dict[str, Any]:
    """Every human-validation figure as plain JSON (per task and pooled)."""
    tasks = sorted({j.task for j in judgments})
    per_task: dict[str, Any] = {}
    for task in [*tasks, "all"]:
        js = [j for j in judgments if task == "all" or j.task == task]
        acc = annotator_accuracy(js)
        span = accuracy_range(acc)
        ov = overlap_agreement(js)
        per_task[task] = {
            "annotators": {a: r.as_dict() for a, r in acc.items()},
            "range": list(span) if span else None,
            "overlap": None
            if ov is None
            else {
                "annotators": list(ov.annotators),
                "units": len(ov.units),
                "complete_units": ov.complete_units,
                "fleiss_kappa": _num(ov.fleiss_kappa),
                "krippendorff_alpha": _num(ov.krippendorff_alpha),
                "pairwise_cohen": [
                    {"a": a, "b": b, "kappa": _num(k), "units": n}
                    for a, b, k, n in ov.pairwise_cohen
                ],
            },
        }
    items = item_accuracy(judgments, threshold=threshold, min_answers=min_answers)
    return {
        "tasks": per_task,
        "catch": {a: r.as_dict() for a, r in catch_results(judgments).items()},
        "intra_rater": {a: r.as_dict() for a, r in intra_rater(judgments).items()},
        "items": [
            {
                "item_id": s.item_id,
                "task": s.task,
                "correct": s.correct,
                "answers": s.answers,
                "accuracy": s.accuracy,
                "flagged": s.flagged,
            }
            for s in items
        ],
        "threshold": threshold,
        "min_answers": min_answers,
    }
