"""Do P, O and J fail together more often than independent components would? A permutation
test over whole items, with a max statistic across the five state groups (family-wise).

For each (P, O, J) state group g, the scaled excess z_g = (n_g − E_g) / √E_g compares the units
in g with the E_g that independent components with the same marginals would put there. Under
independence, shuffling the P column, the O column and the J column separately — whole items at
a time, so each item's units move together and within-item correlation of a column is kept —
gives data of the same marginals and no dependence; the largest z over the five groups in each
shuffle is the null distribution every group's z is compared with. So the chance of naming any
group for a judge whose components fail independently is at most α over all five groups (a
max-T test), and a judge with a degenerate marginal (always right on P, say) has nothing to
shuffle: its p-values are 1.

Why not the item bootstrap of the excess: its percentile interval is too narrow at the item
counts audits run (measured: a judge with 30 % independent noise at 30 items had its Potemkin
excess 'significant' at the Bonferroni level).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from paraudit.stats.states import GROUPS, STATES

ALPHA = 0.05
"""Family-wise error of naming any over-represented group when components are independent."""
PERMUTATIONS = 2000

_MEMBERS = np.array([[s in members for s in STATES] for members in GROUPS.values()], dtype=float)
"""(group, state) membership, states in STATES order."""


def _codes(p: np.ndarray, o: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Index into STATES of each unit's (P, O, J): '111' is 0, '000' is 7."""
    return np.asarray(((1 - p) * 4 + (1 - o) * 2 + (1 - j)).astype(np.intp))


def _z(counts: np.ndarray, expected: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (counts - expected) / np.sqrt(expected)
    return np.where(expected > 1e-9, z, 0.0)


def dependence_test(
    units: Iterable[tuple[str, int, int, int]],
    *,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
    alpha: float = ALPHA,
) -> dict[str, Any]:
    """`units`: (item, P, O, J) per unit. Returns each group's observed and expected units, z,
    family-wise p-value, and the groups named over-represented (largest z first)."""
    by_item: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for item, p, o, j in units:
        by_item[item].append((p, o, j))
    names = list(GROUPS)
    if not by_item:
        return {"units": 0, "permutations": 0, "groups": {}, "over_represented": []}
    # Items of one size are exchangeable blocks; shuffling within a size class moves whole
    # items without changing how many units each position holds.
    classes: dict[int, list[np.ndarray]] = defaultdict(list)
    for rows in by_item.values():
        classes[len(rows)].append(np.asarray(rows, dtype=float))
    blocks = [np.stack(v) for v in classes.values()]  # each (items, size, 3)
    flat = np.concatenate([b.reshape(-1, 3) for b in blocks])
    n = len(flat)
    marg = flat.mean(axis=0)
    probs = np.array(
        [np.prod([marg[i] if s[i] == "1" else 1 - marg[i] for i in range(3)]) for s in STATES]
    )
    expected = n * (_MEMBERS @ probs)
    observed = _MEMBERS @ np.bincount(_codes(*flat.T), minlength=8)
    z_obs = _z(observed, expected)
    rng = np.random.default_rng(seed)
    shuffled = []
    for b in blocks:
        m = len(b)
        cols = []
        for c in range(3):
            idx = np.argsort(rng.random((permutations, m)), axis=1)
            cols.append(b[:, :, c][idx].reshape(permutations, -1))  # (perms, m × size)
        shuffled.append(np.stack(cols, axis=-1))
    sh = np.concatenate(shuffled, axis=1)  # (perms, units, 3)
    codes = _codes(sh[..., 0], sh[..., 1], sh[..., 2])
    counts = np.zeros((permutations, 8))
    for s in range(8):
        counts[:, s] = (codes == s).sum(axis=1)
    z_null = _z(counts @ _MEMBERS.T, expected)
    null_max = z_null.max(axis=1)
    groups: dict[str, Any] = {}
    named = []
    for g, name in enumerate(names):
        # +1 in both counts: the observed data is one of the arrangements (never p = 0).
        p_value = float((np.sum(null_max >= z_obs[g] - 1e-9) + 1) / (permutations + 1))
        groups[name] = {
            "units": int(observed[g]),
            "expected": float(expected[g]),
            "z": float(z_obs[g]),
            "p_value": p_value,
        }
        if p_value <= alpha and observed[g] > expected[g]:
            named.append(name)
    named.sort(key=lambda g: -groups[g]["z"])
    return {
        "units": n,
        "permutations": permutations,
        "alpha": alpha,
        "groups": groups,
        "over_represented": named,
    }
