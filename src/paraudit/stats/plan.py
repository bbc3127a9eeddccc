"""Sample sizes by exact tests: how many items a stated difference needs at a stated power.

Two designs, both counted in items (the unit of evidence, DESIGN "Statistics"):

- **Paired** (a protocol or cue difference within one run, a regression between two runs):
  each item is discordant with probability p10 + p01 (one side right where the other is not),
  and a discordant item favours the first side with probability p10 / (p10 + p01). The test is
  McNemar's exact test, i.e. a two-sided binomial test of the discordant split against ½,
  *conditional on the number of discordant items* D. Power is therefore
  Σ_d P(D = d) · P(reject | d) with D ~ Binomial(n, p10 + p01): the discordance, not the
  difference alone, sets the size (at a fixed difference more discordance means more noise).
- **One sample** (J against chance): k right of n items, an exact one-sided binomial test of
  H0: accuracy ≤ chance. Instances of one item are not independent, so a per-instance rate
  counts as n_items × m / deff trials (m instances per item, deff = 1 + (m − 1)·ICC, the
  design effect a pilot measures); with m = 1 the trials are the items.

Exact power saw-tooths in n (the rejection region moves in steps), so "items needed" is the
smallest n at which power reaches the target, found by a scan over a bracket, not a formula.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from paraudit.errors import ParauditError

MAX_ITEMS = 200_000
"""Beyond this a plan answers "more than …": no audit set this size exists."""


class PlanError(ParauditError):
    """Impossible rates or targets: a usage mistake (exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class PairedRates:
    """The discordant shares of a paired design."""

    p10: float
    """Share of items right on side A only (baseline right, candidate wrong)."""
    p01: float
    """Share of items right on side B only."""

    @property
    def discordance(self) -> float:
        return self.p10 + self.p01

    @property
    def difference(self) -> float:
        """acc(A) − acc(B) at item level."""
        return self.p10 - self.p01


def check_rates(p10: float, p01: float) -> PairedRates:
    if not (0.0 <= p10 <= 1.0 and 0.0 <= p01 <= 1.0):
        raise PlanError(f"p10 {p10:g} and p01 {p01:g} are shares of items: each in [0, 1]")
    if p10 + p01 > 1.0 + 1e-12:
        raise PlanError(
            f"p10 + p01 = {p10 + p01:g} > 1: at most every item can be discordant; "
            "give shares of items whose sum is at most 1"
        )
    if p10 == p01:
        raise PlanError(
            f"p10 = p01 = {p10:g}: no difference to detect; state a difference (p10 ≠ p01)"
        )
    return PairedRates(p10, p01)


def rates_from(difference: float, discordance: float) -> PairedRates:
    """A stated difference at a stated (or piloted) discordance rate."""
    d = abs(difference)
    if not 0.0 < discordance <= 1.0:
        raise PlanError(f"discordance {discordance:g} must be in (0, 1]")
    if d > discordance:
        raise PlanError(
            f"a difference of {d:g} needs at least that share of discordant items, but the "
            f"discordance is {discordance:g}; raise the discordance or lower the difference"
        )
    return check_rates((discordance + d) / 2, (discordance - d) / 2)


def check_power(power: float, alpha: float) -> None:
    if not 0.0 < power < 1.0:
        raise PlanError(f"power {power:g} must be in (0, 1): power 1 needs infinitely many items")
    if not 0.0 < alpha < 1.0:
        raise PlanError(f"alpha {alpha:g} must be in (0, 1)")


def _critical_low(d: np.ndarray, alpha: float) -> np.ndarray:
    """Per discordant count d, the largest k with 2·P(K ≤ k) ≤ alpha under K ~ Bin(d, ½)
    (−1 when no k qualifies): the two-sided exact test rejects at k ≤ c or k ≥ d − c."""
    c = binom.ppf(alpha / 2, d, 0.5).astype(np.int64)  # smallest k with cdf ≥ alpha/2
    # ppf can land on the boundary from either side; step down until the tail fits.
    for _ in range(3):
        over = (c >= 0) & (2 * binom.cdf(c, d, 0.5) > alpha * (1 + 1e-12))
        c = np.where(over, c - 1, c)
    return np.asarray(c, dtype=np.int64)


def mcnemar_power(n: int, rates: PairedRates, alpha: float = 0.05) -> float:
    """Power of the two-sided exact (conditional) McNemar test at n items."""
    if n <= 0:
        return 0.0
    d = np.arange(n + 1)
    c = _critical_low(d, alpha)
    q = rates.p10 / rates.discordance
    # P(K ≤ c) + P(K ≥ d − c) under K ~ Bin(d, q); the two tails are disjoint when c < d/2.
    low = np.where(c >= 0, binom.cdf(c, d, q), 0.0)
    high = np.where(c >= 0, binom.sf(d - c - 1, d, q), 0.0)
    given = np.minimum(low + high, 1.0)
    weights = binom.pmf(d, n, rates.discordance)
    return float(np.sum(weights * given))


def binomial_power(n: int, accuracy: float, chance: float, alpha: float = 0.05) -> float:
    """Power of the one-sided exact binomial test of accuracy > chance at n trials."""
    if n <= 0:
        return 0.0
    # Smallest k with P(K ≥ k | chance) ≤ alpha.
    k = int(binom.isf(alpha, n, chance)) + 1
    while k > 0 and binom.sf(k - 2, n, chance) <= alpha:
        k -= 1
    while binom.sf(k - 1, n, chance) > alpha:
        k += 1
    return float(binom.sf(k - 1, n, accuracy))


def check_chance(accuracy: float, chance: float) -> None:
    if not 0.0 < chance < 1.0:
        raise PlanError(f"chance {chance:g} must be in (0, 1)")
    if not 0.0 <= accuracy <= 1.0:
        raise PlanError(f"accuracy {accuracy:g} must be in [0, 1]")
    if accuracy <= chance:
        raise PlanError(
            f"accuracy {accuracy:g} is not above chance {chance:g}: nothing to detect; state "
            "the accuracy you expect the judge to reach"
        )


def smallest_n(power_at: Callable[[int], float], target: float) -> int | None:
    """The smallest n with power_at(n) ≥ target, or None beyond MAX_ITEMS.

    Doubling finds a bracket; bisection then narrows it; a short scan below the answer catches
    the saw-tooth's earlier crossings (exact power is not monotone in n)."""
    hi = 8
    while power_at(hi) < target:
        if hi >= MAX_ITEMS:
            return None
        hi = min(hi * 2, MAX_ITEMS)
    lo = hi // 2 if hi > 8 else 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power_at(mid) >= target:
            hi = mid
        else:
            lo = mid
    best = hi
    for n in range(max(1, hi - 12), hi):
        if power_at(n) >= target:
            best = n
            break
    return best


@dataclass(frozen=True)
class PlanAnswer:
    """One plan's answer."""

    design: str
    """'paired' or 'one-sample'."""
    items: int | None
    """Items needed (None: more than MAX_ITEMS)."""
    power_at_items: float | None
    """Exact power at that item count."""
    target: float
    alpha: float
    assumptions: dict[str, float]
    """What the answer rests on (rates, chance, design effect)."""


def plan_paired(rates: PairedRates, power: float = 0.8, alpha: float = 0.05) -> PlanAnswer:
    check_power(power, alpha)
    n = smallest_n(lambda k: mcnemar_power(k, rates, alpha), power)
    return PlanAnswer(
        "paired",
        n,
        None if n is None else mcnemar_power(n, rates, alpha),
        power,
        alpha,
        {"p10": rates.p10, "p01": rates.p01},
    )


def design_effect(per_item: int, icc: float) -> float:
    if per_item < 1:
        raise PlanError(f"instances per item {per_item} must be at least 1")
    if not 0.0 <= icc <= 1.0:
        raise PlanError(f"the intra-item correlation {icc:g} must be in [0, 1]")
    return 1.0 + (per_item - 1) * icc


def plan_chance(
    accuracy: float,
    chance: float,
    power: float = 0.8,
    alpha: float = 0.05,
    per_item: int = 1,
    icc: float = 0.0,
) -> PlanAnswer:
    """Items for J above chance; trials per item = per_item / deff (at least 1 per item)."""
    check_power(power, alpha)
    check_chance(accuracy, chance)
    deff = design_effect(per_item, icc)
    per = max(1.0, per_item / deff)

    def power_at(items: int) -> float:
        return binomial_power(int(math.floor(items * per)), accuracy, chance, alpha)

    n = smallest_n(power_at, power)
    return PlanAnswer(
        "one-sample",
        n,
        None if n is None else power_at(n),
        power,
        alpha,
        {"accuracy": accuracy, "chance": chance, "per_item": per_item, "icc": icc, "deff": deff},
    )


def icc_of(per_item_right: list[tuple[int, int]]) -> float:
    """One-way ANOVA estimate of the intra-item correlation of 0/1 outcomes, from (right,
    asked) per item (clipped to [0, 1]); 0 when it cannot be estimated."""
    groups = [(k, m) for k, m in per_item_right if m > 0]
    if len(groups) < 2:
        return 0.0
    n = sum(m for _, m in groups)
    g = len(groups)
    p = sum(k for k, _ in groups) / n
    between = sum(m * (k / m - p) ** 2 for k, m in groups) / (g - 1)
    within = sum(k - k * k / m for k, m in groups) / max(1, n - g)
    m0 = (n - sum(m * m for _, m in groups) / n) / (g - 1)
    denom = between + (m0 - 1) * within
    if denom <= 0:
        return 0.0
    return float(min(1.0, max(0.0, (between - within) / denom)))


def power_of(answer: PlanAnswer, items: int) -> float:
    """The exact power of the answer's design and assumptions at `items` items."""
    a = answer.assumptions
    if answer.design == "paired":
        return mcnemar_power(items, PairedRates(a["p10"], a["p01"]), answer.alpha)
    per = max(1.0, a["per_item"] / a["deff"])
    return binomial_power(int(math.floor(items * per)), a["accuracy"], a["chance"], answer.alpha)
