"""The sequential audit's stopping rule: which cells of one judge × task still need questions.

After each batch of items the statistics every cascade step reads (stats/verdicts.py) get a
confidence sequence (stats/confseq.py) over item scores, and each step's decision is *settled*
when its sequence can no longer cross the bar that separates its outcomes:

- native (pointwise J at the native cue): *reliable* once the 95 % sequence's lower end is at
  least 80 %; *usable* once the 99 % sequence is above chance and either the 95 % one is below
  80 % or the plan can no longer reach the bar (`Bounds.best_low`: even if every item left were
  answered right, the full plan's own 95 % lower bound would stay below 80 %, so the full
  plan's verdict would be "usable" too — a curtailment: exact for that normal bound over item
  means, which is the report's pooled J while every item has all its answers, so it waits
  while an item has a failed call, and CURTAIL_SLACK covers the bootstrap's difference);
  *below chance* once the 99 % one is below ½; *at chance* once the 95 % one lies within
  ½ ± MARGIN (no skill of MARGIN or more either way).
- recoverable: yes once pairwise J and the protocol gap are both above (chance, 0); no once
  either can no longer be MARGIN above.
- cue: yes once J under some cue and its gain over no cue are both above; no once every cue's
  J or gain can no longer be MARGIN above.
- behaviours: position share of first picks (≥ 0.9 or ≤ 0.1 vs within), order gap (|d| ≥ 0.3
  vs within), audio sensitivity (< 0.1 vs ≥ 0.1), J–T agreement (≥ 0.75 vs below), turn by
  turn perception (heard: above ½; not heard: below ½ + MARGIN).
- components: P and O at the native cue each above, below or within ½ ± MARGIN.

Which steps are *read* follows the diagnosis' order (`_walk`): once native is reliable nothing
after it decides the diagnosis; a usable judge's components are read, and where P and O both
work their dependence test, in its sequential form (stats/sequential_dependence.py: each state
group's excess over independence, yes once some group's is surely ≥ 5 points of the units,
no once every group's is surely below MARGIN);
a judge at chance reads recoverability, then the cue, then each behaviour, then the components.
A cell (probe × protocol × cue) keeps drawing questions while a step that may still be read
and is not settled reads it; a cell no step reads is asked on MIN_ITEMS items (its figures are
shown, on a sample large enough not to be "small") and then stops. Probes the rule does not
model (N, S, a misleading cue) are asked while any modelled cell is.

MARGIN is the guarantee's one parameter: a judge that is MARGIN or more above (or below)
chance on a step is never stopped as "at chance" there, except with the sequence's error
probability. A skill smaller than MARGIN may be called at chance where a larger full plan
would have found it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from paraudit.stats.behaviour import audio_and_pairs, j_t_agreement
from paraudit.stats.confseq import RunningBounds, betting_cs, signed_cs
from paraudit.stats.sequential_dependence import (
    PREFIX,
    REPORTED,
    block_scores,
    item_units,
    reported_excess,
)
from paraudit.stats.units import Row, answered, first_picks

ALPHA = 0.01
"""The chance-side decisions' error (the cascade decides at 99 %: verdicts.DECISION_CONFIDENCE)."""
ALPHA_RELIABLE = 0.05
"""The reliable bar's error (the cascade's bar is a 95 % lower bound), and the error of every
"no skill of MARGIN or more" (futility) decision: such an error costs a missed skill of at
least MARGIN, never a false claim of one."""
MARGIN = 0.15
"""The smallest skill (above chance) a step's "at chance" is guaranteed not to hide."""
RELIABLE_LOW = 0.8
CURTAIL_SLACK = 0.01
"""How far below the bar the plan's best reachable lower bound must stay before "usable" is
settled by curtailment: the report's interval is an item bootstrap over answers, the rule's
bound a normal one over item means. With every item's answers in, the bootstrap's lower end
was at most 0.007 above the normal one (a review's simulation, 30-40 items of mostly 3 of 4
right, 10,000 replicates); it shrinks with more items. Fewer replicates in the report add
their own noise (about ±0.01 at 100)."""
FAILED = "failed|native"
"""ItemScores' running count of items with a failed native J call so far (not an item score):
such items weigh less in the report's pooled J than in the rule's mean of item means, so
curtailment, exact only where every item weighs the same, waits for them to be answered."""
CHANCE = 0.5
MIN_ITEMS = 30
"""Items every asked cell gets before it may stop (verdicts.SMALL_SAMPLE)."""
BATCH = 10
"""Items asked between two looks."""
CUE_ORDER = ("none", "soft", "hard", "transition")

Cell = tuple[str, str, str]
"""(probe, protocol, cue)."""


def native_cue(cues: Sequence[str]) -> str | None:
    """The cue native J is read at: the least cued of the plan's (verdicts.native_cue)."""
    real = [c for c in cues if c not in ("all", "misleading")]
    rank = {c: i for i, c in enumerate(CUE_ORDER)}
    return min(real, key=lambda c: (rank.get(c, len(CUE_ORDER)), c)) if real else None


@dataclass
class ItemScores:
    """Per statistic: item scores in the order the items were asked."""

    order: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)


def _mean(tally: dict[str, list[float]]) -> dict[str, float]:
    return {i: n / d for i, (n, d) in tally.items() if d > 0}


def _turn_positions(gold: dict[str, str]) -> list[tuple[str, str]]:
    keys = sorted(gold, key=lambda k: (len(k), k))
    return [(k, "first" if i == 0 else "last" if i == len(keys) - 1 else "middle")
            for i, k in enumerate(keys)]  # fmt: skip


def item_scores(rows: Iterable[Row], cue: str, order: Sequence[str]) -> ItemScores:
    """Every statistic the rule reads, per item, from one judge × task's rows so far."""
    rows = list(rows)
    hits: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    j_native: list[Row] = []
    t_rows: list[Row] = []
    failed: set[str] = set()
    for r in rows:
        if r.gold == "tie":
            continue  # a tie has no right answer: the report's figures leave it out too
        if not answered(r):
            if (r.probe, r.protocol, r.cue) == ("J", "pointwise", cue):
                failed.add(r.item_id)
            continue  # a failed call is no answer (asked again on resume)
        key = f"{r.probe}|{r.protocol}|{r.cue}"
        acc = hits[key][r.item_id]
        acc[0] += bool(r.correct)
        acc[1] += 1
        if r.probe == "T":
            t_rows.append(r)
        if r.cue != cue or r.protocol != "pointwise":
            continue
        if r.probe == "J":
            j_native.append(r)
            picks = first_picks(r)
            if picks is not None:
                f = hits["first"][r.item_id]
                f[0] += picks[0]
                f[1] += picks[1]
            o = hits[f"order|{r.order}"][r.item_id]
            o[0] += bool(r.correct)
            o[1] += 1
        if r.probe == "P" and isinstance(r.gold, dict) and "CA" not in r.gold:
            pred = r.pred if r.status == "ok" and isinstance(r.pred, dict) else {}
            for k, pos in _turn_positions(r.gold):
                t = hits[f"turn|{pos}"][r.item_id]
                t[0] += pred.get(k) == r.gold[k]
                t[1] += 1
    out = ItemScores(order=list(order))
    for key, tally in hits.items():
        out.scores[key] = _mean(tally)
    flips, _ = audio_and_pairs(j_native)
    out.scores["audio"] = _mean(flips)
    if t_rows:
        out.scores["jt"] = _mean(j_t_agreement(t_rows, j_native))
    seen = np.cumsum([i in failed for i in order]).tolist()
    out.scores[FAILED] = {i: float(n) for i, n in zip(order, seen, strict=True)}
    units = item_units(rows, cue)
    out.scores.update(block_scores(units, order))
    out.scores.update(reported_excess(units, order))
    _difference(out, "order", "order|ab", "order|ba")
    _difference(out, "gap", f"J|pairwise|{cue}", f"J|pointwise|{cue}")
    for key in list(out.scores):
        p, proto, c = (key.split("|") + ["", ""])[:3]
        if p == "J" and proto == "pointwise" and c not in (cue, "misleading"):
            _difference(out, f"cue|{c}", key, f"J|pointwise|{cue}")
    return out


def _difference(out: ItemScores, name: str, a: str, b: str) -> None:
    sa, sb = out.scores.get(a, {}), out.scores.get(b, {})
    out.scores[name] = {i: sa[i] - sb[i] for i in sa if i in sb}


Z99 = 2.576
Z95 = 1.960


@dataclass(frozen=True)
class Bounds:
    """A statistic's confidence sequences now: the 99 % and the 95 % bounds, items seen; and
    the item mean with its standard error, from which the report's fixed-sample intervals
    over the same items are read (`claims`)."""

    low: float
    high: float
    items: int
    low95: float = 0.0
    high95: float = 1.0
    mean: float | None = None
    se: float = 0.0

    def claims(self, side: str, x: float, z: float = Z99) -> bool:
        """Whether the report reading these items now would claim the statistic is above
        (`side` 'above') or below `x`: its fixed-sample interval (normal, over items, as the
        item bootstrap's) lies on that side.

        Why the rule asks: a step settled as "at chance" or "no" stops its cells, and the
        report then reads those cells' items with its own fixed-sample intervals. Stopped on a
        sample where that interval happens to clear the bar, the report would claim what the
        rule ruled out (a coin's O "above chance", a cue that "works"), which a full plan,
        reading more items, would mostly not. So a negative decision waits while the report
        would still claim the opposite: a step near its bar keeps drawing."""
        if self.mean is None or self.items < 2:
            return False
        if side == "above":
            return self.mean - z * self.se > x
        return self.mean + z * self.se < x

    def best_low(self, left: int, z: float = Z95) -> float | None:
        """An upper bound on the report's fixed-sample lower bound (normal, over item means)
        at the plan's end, whatever `left` more items score. That bound is concave in the
        item scores (a mean minus a norm), so where it still rises with an item's score at
        the completion in which every item left scores 1, no other completion gets higher:
        that completion's bound is the answer. Otherwise (items nearly all alike) the answer
        is that completion's mean, which the bound never exceeds. None before two items."""
        if self.mean is None or self.items < 2:
            return None
        n, m = self.items, self.items + max(left, 0)
        # Sum of squares back from the running (ddof 1) standard error.
        squares = self.se * self.se * n * (n - 1) + n * self.mean * self.mean
        mean = (self.mean * n + m - n) / m
        sd = math.sqrt(max((squares + m - n) - m * mean * mean, 0.0) / (m - 1))
        rises = m == n or sd > 0 and 1 / m >= z * (1 - mean) / ((m - 1) * sd * math.sqrt(m))
        return mean - z * sd / math.sqrt(m) if rises else mean


def bounds(scores: ItemScores) -> dict[str, Bounds]:
    """Each statistic's bounds after the items seen so far (the runner's look)."""
    return bounds_at(full_bounds(scores), len(scores.order))


def _signed(name: str) -> bool:
    """A difference of two item means, in [-1, 1]."""
    return name in ("order", "gap") or name.startswith(("cue|", PREFIX))


@dataclass(frozen=True)
class Running:
    """One statistic over the whole asking order: its 99 % and 95 % sequences, the items seen
    by each position of the order, and the running item mean and standard error."""

    cs99: RunningBounds
    cs95: RunningBounds
    seen: list[int]
    mean: np.ndarray
    se: np.ndarray


def _running_mean_se(x: list[float]) -> tuple[np.ndarray, np.ndarray]:
    xs = np.asarray(x, dtype=float)
    if len(xs) == 0:
        return np.zeros(0), np.zeros(0)
    t = np.arange(1, len(xs) + 1, dtype=float)
    mean = np.cumsum(xs) / t
    sq = np.cumsum(xs * xs) / t
    var = np.maximum(sq - mean * mean, 0.0) * t / np.maximum(t - 1, 1)
    return mean, np.sqrt(var / t)


def full_bounds(scores: ItemScores) -> dict[str, Running]:
    """Each statistic's sequences over the whole asking order, computed once (the benchmark
    replays the looks from them)."""
    out = {}
    for name, s in scores.scores.items():
        x = [s[i] for i in scores.order if i in s]
        seen = [int(n) for n in np.cumsum([i in s for i in scores.order])]
        if name.startswith(REPORTED) or name == FAILED:  # running values: shown as they are
            v = np.asarray(x, dtype=float)
            same = RunningBounds(v, v)
            out[name] = Running(same, same, seen, v, np.zeros(len(v)))
            continue
        make = signed_cs if _signed(name) else betting_cs
        mean, se = _running_mean_se(x)
        out[name] = Running(make(x, ALPHA), make(x, ALPHA_RELIABLE), seen, mean, se)
    return out


def bounds_at(full: dict[str, Running], t_items: int) -> dict[str, Bounds]:
    """`bounds` after the first `t_items` items, from `full_bounds`."""
    out = {}
    for name, r in full.items():
        n = r.seen[t_items - 1] if t_items else 0
        if n == 0:
            empty = -1.0 if _signed(name) else 0.0
            out[name] = Bounds(empty, 1.0, 0, empty, 1.0)
            continue
        lo, hi = r.cs99.at(n)
        lo95, hi95 = r.cs95.at(n)
        out[name] = Bounds(lo, hi, n, lo95, hi95, float(r.mean[n - 1]), float(r.se[n - 1]))
    return out
