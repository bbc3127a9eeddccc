"""Which generator side becomes branch 0: balanced by construction, still seeded.

An independent coin per item leaves the balance to chance: 32 EmoCF pairs gave 17 of 23
'surprised' items with 'surprised' in branch 0, which `items.balance` rightly flags (a judge
with a habit for branch 0 would score without listening). Like the starter set
(`compose.starter.branch_swaps`), items are grouped by what tells their branches apart, and
within each group a seeded shuffle puts each side in branch 0 for exactly half. What an odd
group leaves over is then oriented so that no side signature is in branch 0 more than once more
often than in branch 1 (an Euler tour over those leftovers, walked in a seeded order). An emotion
that tells branches apart is therefore in branch 0 for at most half of its items plus one half,
which never exceeds the 70 % the balance check allows from its 4-item minimum up.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence

Signature = tuple[str, ...]
"""What one side has and the other lacks: its distinguishing human emotions, and `EARLIER` when
its mood shifts at an earlier human turn than the other side's."""

EARLIER = "shift:earlier"
# A vertex no signature can be: emotions are non-empty names.
_PAD: Signature = ("",)


def _first_shift(emotions: Sequence[str]) -> int | None:
    return next((k for k, e in enumerate(emotions) if e != emotions[0]), None)


def signatures(a: Sequence[str], b: Sequence[str]) -> tuple[Signature, Signature]:
    """The two sides' signatures from their human-turn emotions (the features
    `items.balance.balance_warnings` counts)."""
    sa, sb = set(a) - set(b), set(b) - set(a)
    shift_a, shift_b = _first_shift(a), _first_shift(b)
    if shift_a is not None and shift_b is not None and shift_a != shift_b:
        (sa if shift_a < shift_b else sb).add(EARLIER)
    return tuple(sorted(sa)), tuple(sorted(sb))


def _rng(seed: int, what: str) -> random.Random:
    return random.Random(hashlib.sha256(f"{seed}|{what}".encode()).digest())


def coin(seed: int, key: str) -> bool:
    """The per-item coin for items whose sides nothing tells apart (balance cannot matter)."""
    return random.Random(f"{seed}:coin:{key}").random() < 0.5


def branch_zero(sides: Mapping[str, tuple[Signature, Signature]], seed: int) -> set[str]:
    """Keys of the items whose side B becomes branch 0."""
    swapped: set[str] = set()
    groups: dict[tuple[Signature, Signature], list[str]] = {}
    for key, (a, b) in sides.items():
        if a == b:
            if coin(seed, key):
                swapped.add(key)
            continue
        lo, hi = sorted((a, b))
        groups.setdefault((lo, hi), []).append(key)
    leftovers: list[tuple[str, Signature, Signature]] = []
    for (lo, hi), keys in sorted(groups.items()):
        order = sorted(keys)
        _rng(seed, f"{lo}|{hi}").shuffle(order)
        half = len(order) // 2
        # The first half puts `lo` in branch 0, the second `hi`.
        for i, key in enumerate(order[: 2 * half]):
            first = lo if i < half else hi
            if sides[key][1] == first:
                swapped.add(key)
        if len(order) % 2:
            leftovers.append((order[-1], lo, hi))
    for key, first in _orient(leftovers, _rng(seed, "leftovers")).items():
        if sides[key][1] == first:
            swapped.add(key)
    return swapped


def _orient(
    edges: Sequence[tuple[str, Signature, Signature]], rng: random.Random
) -> dict[str, Signature]:
    """For each edge (key, u, v), the end that goes to branch 0, so that every vertex is in
    branch 0 at most once more than in branch 1: odd vertices are joined to a padding vertex,
    making every degree even; walking each edge once (Hierholzer) then leaves every vertex as
    often as it enters, and dropping the padding edges moves each count by at most one."""
    ends: list[tuple[Signature, Signature]] = [(u, v) for _, u, v in edges]
    keys: list[str | None] = [k for k, _, _ in edges]
    adjacent: dict[Signature, list[int]] = {}
    for i, (u, v) in enumerate(ends):
        adjacent.setdefault(u, []).append(i)
        adjacent.setdefault(v, []).append(i)
    for vertex in sorted(adjacent):
        if len(adjacent[vertex]) % 2:
            ends.append((vertex, _PAD))
            keys.append(None)
            adjacent[vertex].append(len(ends) - 1)
            adjacent.setdefault(_PAD, []).append(len(ends) - 1)
    for vertex in sorted(adjacent):
        rng.shuffle(adjacent[vertex])
    used = [False] * len(ends)
    first: dict[str, Signature] = {}
    for start in sorted(adjacent):
        stack = [start]
        while stack:
            here = stack[-1]
            todo = adjacent[here]
            while todo and used[todo[-1]]:
                todo.pop()
            if not todo:
                stack.pop()
                continue
            e = todo.pop()
            used[e] = True
            u, v = ends[e]
            key = keys[e]
            if key is not None:
                first[key] = here
            stack.append(v if here == u else u)
    return first
