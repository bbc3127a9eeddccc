"""The dependence step's sequential form: a confidence sequence for each state group's excess
over independent components, valid under optional stopping.

The full plan's dependence test (stats/dependence.py) names a (P, O, J) state group when its
units exceed what independent components with the same marginals would give, beyond a
permutation test's noise and by at least MIN_EXCESS of the units. Its excess — mass of the
group minus the product of the marginals — is not a mean of item scores, so the betting
sequence of stats/confseq.py cannot be put on it directly; a plug-in of the marginals
estimated so far would bias every term. Instead the items are cut, in the asking order, into
blocks of three. In a block (a, b, c) the group's mass is read on each item's own units, and
the independent product on the P of one item, the O of another and the J of the third (all
six assignments, averaged): items are independent, so that product's expectation is exactly
the product of the marginals. Each block's statistic, mass minus product, lies in [-1, 1] and
has the excess as its mean; the blocks are independent, so the signed betting sequence over
blocks holds at every look (coverage simulated in tests/stats/test_sequential_dependence.py).

Decisions:

- *yes* (a systematic failure mode): some group's lower bound is at least MIN_EXCESS — the
  full plan's test, reading more items, names it too. Its sequence at ALPHA_RELIABLE / 5 (99
  %): a false "yes" needs any one of the five groups to miss, so the union bound is paid.
- *no*: every group's upper bound is below MARGIN and no group's excess as the report reads
  it on the same items (`reported_excess`: the permutation test's plug-in, not the blocks'
  mean) reaches MIN_EXCESS, so the report, reading the items the run stopped on, cannot name
  one (it names a group only at MIN_EXCESS or more). Its sequence at ALPHA_RELIABLE (95 %) per
  group, with no union bound: a false "no" needs a group whose excess is MARGIN or more to
  have its *own* upper bound fall below it, which that group's sequence allows with
  probability ALPHA_RELIABLE at most, however many other groups there are. As for every "no"
  of the rule, an excess smaller than MARGIN (5-15 points of the units) may be missed where a
  full plan would name it.

The price of unbiasedness is width: at 189 items the 99 % sequence is about ±0.11 wide and
the 95 % one about ±0.08 (the bets' cap, not the statistic's variance, sets it: it shrinks
with the number of blocks only), so a "no" at the MIN_EXCESS bar itself is out of reach at
the paper's sizes; MARGIN is reachable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import permutations

import numpy as np

from paraudit.stats.dependence import MIN_EXCESS
from paraudit.stats.states import GROUPS, STATES, unit_states
from paraudit.stats.units import Row

BLOCK = 3
"""Items per block: the fewest that give P, O and J each from a different item."""
PREFIX = "dep|"
"""Statistic names in ItemScores: dep|<group>, one score per completed block."""
REPORTED = "depx|"
"""ItemScores' depx|<group>: after each item, the excess the report's own test reads on the
items so far (observed minus expected units over units: stats/dependence.dependence_test's
plug-in), a running value, not an item score: no sequence is put on it."""

_BITS = np.array([[int(c) for c in s] for s in STATES])
"""(state, probe) 1 where the state has that probe right."""
_MEMBERS = np.array([[s in members for s in STATES] for members in GROUPS.values()], dtype=float)


def item_units(rows: Iterable[Row], cue: str) -> dict[str, np.ndarray]:
    """Per item: its pointwise units' (P, O, J) right (1) or not, at `cue` (stats/states)."""
    out: dict[str, list[list[int]]] = defaultdict(list)
    for u in unit_states([r for r in rows if r.cue == cue and r.protocol == "pointwise"]):
        out[u["item_id"]].append([int(c) for c in u["state"]])
    return {i: np.asarray(v, dtype=float) for i, v in out.items()}


def block_excess(units: Sequence[np.ndarray]) -> np.ndarray:
    """One block's statistic per group (GROUPS order): mass on the items' own units minus the
    product of P, O and J each read on a different item of the block (every assignment)."""
    state_of = np.array([[np.all(u == b, axis=1).mean() for b in _BITS] for u in units])
    mass = state_of.mean(axis=0)  # (state,): each item weighs the same
    right = np.array([u.mean(axis=0) for u in units])  # (item, probe)
    prod = np.zeros(len(STATES))
    perms = list(permutations(range(len(units)), 3))
    for a, b, c in perms:
        f = right[[a, b, c], [0, 1, 2]]  # P of a, O of b, J of c
        prod += np.prod(np.where(_BITS == 1, f, 1 - f), axis=1)
    prod /= len(perms)
    return np.asarray(_MEMBERS @ (mass - prod))


def block_scores(units: dict[str, np.ndarray], order: Sequence[str]) -> dict[str, dict[str, float]]:
    """dep|<group> → {last item of each completed block: its statistic}, blocks cut in the
    asking order over the items that have units (so a look sees only whole blocks)."""
    have = [i for i in order if i in units and len(units[i])]
    out: dict[str, dict[str, float]] = {f"{PREFIX}{g}": {} for g in GROUPS}
    for k in range(0, len(have) - BLOCK + 1, BLOCK):
        block = have[k : k + BLOCK]
        for g, x in zip(GROUPS, block_excess([units[i] for i in block]), strict=True):
            out[f"{PREFIX}{g}"][block[-1]] = float(x)
    return out


def reported_excess(
    units: dict[str, np.ndarray], order: Sequence[str]
) -> dict[str, dict[str, float]]:
    """depx|<group> → {item: the report's plug-in excess over the items up to it}, items in
    the asking order that have units: the group's units minus what independent components with
    the pooled P, O and J rates would put there, over all units (unit-weighted, as
    dependence_test reads them)."""
    have = [i for i in order if i in units and len(units[i])]
    out: dict[str, dict[str, float]] = {f"{REPORTED}{g}": {} for g in GROUPS}
    if not have:
        return out
    per = np.array([[np.all(units[i] == b, axis=1).sum() for b in _BITS] for i in have])
    states = np.cumsum(per, axis=0)  # (item, state) unit counts so far
    n = states.sum(axis=1, keepdims=True)
    rate = (states @ _BITS) / n  # (item, probe): P, O, J right so far
    expected = np.prod(np.where(_BITS[None] == 1, rate[:, None, :], 1 - rate[:, None, :]), axis=2)
    excess = (states / n - expected) @ _MEMBERS.T  # (item, group)
    for k, g in enumerate(GROUPS):
        out[f"{REPORTED}{g}"] = dict(zip(have, excess[:, k].tolist(), strict=True))
    return out


def decide(lows: Sequence[float], highs: Sequence[float], means: Sequence[float | None],
           margin: float) -> str | None:  # fmt: skip
    """'yes' / 'no' / None from each group's lower bound (99 % sequence), upper bound (95 %
    sequence) and the excess the report would read on the same items (`reported_excess`)."""
    if any(lo >= MIN_EXCESS for lo in lows):
        return "yes"
    named = any(m is not None and m >= MIN_EXCESS for m in means)
    if highs and all(hi < margin for hi in highs) and not named:
        return "no"
    return None
