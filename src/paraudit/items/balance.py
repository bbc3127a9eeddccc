"""Dataset-level checks that no fixed habit can pass for skill, and items the probes cannot ask.

Counterbalanced presentation swaps R1/R2 and CA/CB, but it cannot hide a regularity in the data
itself: if branch 0 is nearly always the earlier mood shift, or nearly always the same emotion, a
judge that learned "the first-listed branch gets the first-failure reply" still looks skilled on
every pointwise instance. These checks are warnings (the integrator wires them into `validate`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from paraudit.items.records import AuditItem

SKEW_LIMIT = 0.70
"""A share of items above this (in either direction) putting the same thing in branch 0 warns."""
MIN_ITEMS = 4
"""Below this many comparable items a share says nothing (1 of 1 is 100 %) and is not checked."""


def _human_emotions(item: AuditItem, branch: int) -> list[str]:
    return [item.branches[branch].emotions[i] for i in item.human_turns()]


def shift_turn(item: AuditItem, branch: int) -> int | None:
    """Index (among the human turns) where the branch's human emotion first changes; None if it
    never does."""
    emos = _human_emotions(item, branch)
    return next((k for k, e in enumerate(emos) if e != emos[0]), None)


def unsupported_reason(item: AuditItem) -> str | None:
    """Why P, O and S cannot be asked on this item (they offer two emotions per branch), or None."""
    for b in (0, 1):
        distinct = list(dict.fromkeys(_human_emotions(item, b)))
        if len(distinct) > 2:
            return (
                f"branch {b} has {len(distinct)} distinct human emotions ({', '.join(distinct)}); "
                "P, O and S offer exactly two"
            )
    return None


def unsupported_items(items: Sequence[AuditItem]) -> list[str]:
    """One line per item that gets no P, O or S instance, saying why."""
    out = []
    for it in items:
        why = unsupported_reason(it)
        if why:
            out.append(f"item {it.id}: no P/O/S instances: {why}")
    return out


def _skew(count: int, total: int) -> float | None:
    return count / total if total >= MIN_ITEMS else None


def _skewed(share: float | None) -> bool:
    return share is not None and (share > SKEW_LIMIT or share < 1 - SKEW_LIMIT)


def balance_warnings(items: Sequence[AuditItem]) -> list[str]:
    """Warnings when > 70 % of items put the same emotion in branch 0, or the earlier mood shift
    in the same branch (either branch: "always the later shift" is as exploitable)."""
    warnings: list[str] = []
    earlier0 = comparable = 0
    for it in items:
        s0, s1 = shift_turn(it, 0), shift_turn(it, 1)
        if s0 is not None and s1 is not None and s0 != s1:
            comparable += 1
            earlier0 += s0 < s1
    share = _skew(earlier0, comparable)
    if _skewed(share):
        warnings.append(
            f"{earlier0} of {comparable} positional items ({share:.0%}) put the earlier mood shift "
            "in branch 0 (limit 30-70 %): a judge with a fixed habit can score without listening; "
            "assign branch 0 by a seeded coin"
        )
    in0: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for it in items:
        e0, e1 = set(_human_emotions(it, 0)), set(_human_emotions(it, 1))
        for e in e0 ^ e1:  # emotions that tell the branches apart
            seen[e] += 1
            in0[e] += e in e0
    for e in sorted(seen):
        # Only "> 70 % in branch 0": the mirror case shows up as its partner emotion's skew.
        share = _skew(in0[e], seen[e])
        if share is not None and share > SKEW_LIMIT:
            warnings.append(
                f"{in0[e]} of {seen[e]} items that tell their branches apart by '{e}' "
                f"({share:.0%}) put it in branch 0: a judge with a fixed habit can score "
                "without listening; assign branch 0 by a seeded coin"
            )
    return warnings
