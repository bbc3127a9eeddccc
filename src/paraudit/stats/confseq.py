"""Confidence sequences for a bounded mean: intervals that stay valid under optional stopping.

A sequential audit looks at its figures after every batch of items and stops a step once its
decision is settled. A fixed-sample interval (the item bootstrap, Wilson) looked at after every
batch would exclude the truth far more often than its level says (each look is another chance
to cross a bar). A *confidence sequence* holds at every sample size at once:
P(∃ t: μ ∉ CS_t) ≤ α, so stopping whenever it likes keeps the level.

The one used here is the betting ("hedged capital") confidence sequence of Waudby-Smith &
Ramdas (2024, JRSS-B, "Estimating means of bounded random variables by betting", Thm 3 with
the predictable plug-in bets of their eq. 26). Each observation is one *item's* score in [0, 1]
(the mean of its questions in one cell, or a difference of two such means mapped from [-1, 1]),
so the items are the independent units, as in every other interval of the report. For every
candidate mean m a gambler bets on the next item's score being above (and, hedged, below) m;
the capital is a nonnegative martingale when m is the true mean, so by Ville's inequality it
exceeds 1/α with probability at most α, ever. CS_t is the set of m whose capital stayed below
1/α; its running intersection is kept. The bets adapt to the observed variance, so a judge
whose items all score the same (always the first option: ½ on every item) is pinned down much
faster than a Hoeffding bound would allow.

Why this method rather than a group-sequential boundary: the audit's batches and the number of
looks are not fixed in advance (a run may be interrupted, resumed, extended), the statistics
are bounded means with no normal approximation at 30 items, and the betting CS needs neither
a planned number of looks nor a variance guess. Its coverage under optional stopping is
simulated in `coverage` (tests/stats/test_confseq.py, benchmarks/sequential_coverage.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

GRID = 501
"""Candidate means checked on [0, 1]: a step of 0.002, added to each bound (finer than any
figure shown)."""
CAP = 0.75
"""The largest fraction of capital bet per item (Waudby-Smith & Ramdas' c; they suggest ½ or
¾). ¾ lets a constant stream (always the first option) be pinned down in a few dozen items."""
THETA = 0.5
"""The hedge: half the capital bets the mean is above m, half that it is below."""


@dataclass(frozen=True)
class RunningBounds:
    """A confidence sequence's running bounds after each observation (intersection kept)."""

    low: np.ndarray
    high: np.ndarray

    def at(self, t: int) -> tuple[float, float]:
        """The bounds after the first `t` observations ((0, 1) before any)."""
        if t <= 0:
            return 0.0, 1.0
        return float(self.low[t - 1]), float(self.high[t - 1])


def betting_cs(x: Sequence[float] | np.ndarray, alpha: float, grid: int = GRID) -> RunningBounds:
    """The hedged betting confidence sequence at level 1 − alpha for the mean of `x` (each in
    [0, 1], in the order observed): running lower and upper bounds after each observation."""
    xs = np.clip(np.asarray(x, dtype=float), 0.0, 1.0)
    n = len(xs)
    if n == 0:
        return RunningBounds(np.zeros(0), np.zeros(0))
    t = np.arange(1, n + 1, dtype=float)
    # Predictable plug-in: the bet on item t uses the mean and variance of items before it.
    mu = (0.5 + np.cumsum(xs)) / (t + 1)
    var = (0.25 + np.cumsum((xs - mu) ** 2)) / (t + 1)
    var_prev = np.concatenate(([0.25], var[:-1]))
    lam = np.sqrt(2 * math.log(2 / alpha) / (var_prev * t * np.log(1 + t)))
    m = np.linspace(0.0, 1.0, grid)[None, :]
    lam_col = lam[:, None]
    with np.errstate(divide="ignore"):
        up = np.minimum(lam_col, CAP / np.maximum(m, 1e-12))
        down = np.minimum(lam_col, CAP / np.maximum(1 - m, 1e-12))
    dev = xs[:, None] - m
    log_up = np.cumsum(np.log1p(up * dev), axis=0)
    log_down = np.cumsum(np.log1p(-down * dev), axis=0)
    log_k = np.logaddexp(math.log(THETA) + log_up, math.log(1 - THETA) + log_down)
    inside = log_k < math.log(1 / alpha)
    # The running intersection: once m has been excluded it stays out.
    inside = np.logical_and.accumulate(inside, axis=0)
    grid_m = m[0]
    any_in = inside.any(axis=1)
    first = np.where(any_in, inside.argmax(axis=1), 0)
    last = np.where(any_in, grid - 1 - inside[:, ::-1].argmax(axis=1), 0)
    low = np.where(any_in, grid_m[first], xs.cumsum() / t)
    high = np.where(any_in, grid_m[last], xs.cumsum() / t)
    # The grid is discrete: widen by one step so a mean between grid points is not lost.
    step = 1.0 / (grid - 1)
    return RunningBounds(np.maximum(low - step, 0.0), np.minimum(high + step, 1.0))


def signed_cs(d: Sequence[float] | np.ndarray, alpha: float) -> RunningBounds:
    """The confidence sequence for the mean of differences in [-1, 1] (mapped to [0, 1])."""
    cs = betting_cs((np.asarray(d, dtype=float) + 1) / 2, alpha)
    return RunningBounds(cs.low * 2 - 1, cs.high * 2 - 1)


def coverage(
    draw: Callable[[np.random.Generator, int], np.ndarray],
    mean: float,
    alpha: float,
    n: int,
    runs: int,
    seed: int = 0,
    stop: Callable[[float, float], bool] | None = None,
) -> float:
    """Share of simulated runs whose interval *at the moment they stop* contains `mean`.

    Each run draws `n` item scores with `draw(rng, n)` and stops at the first look where
    `stop(low, high)` says so (default: the adversary's rule, stop as soon as the interval
    excludes the mean; any stopping rule covers at least as often), else at `n`. A
    fixed-sample interval under this rule covers far less than its level; a confidence
    sequence keeps 1 − alpha."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(runs):
        cs = betting_cs(draw(rng, n), alpha)
        rule = stop or (lambda lo, hi: not lo <= mean <= hi)
        t = next((i for i in range(1, n + 1) if rule(*cs.at(i))), n)
        lo, hi = cs.at(t)
        hits += lo <= mean <= hi
    return hits / runs
