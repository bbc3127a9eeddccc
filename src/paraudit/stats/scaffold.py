"""A judge and its `scaffold:` side by side: states, J per cue, 110 → 111 movement, calls.

The scaffold's claim is specific: units the judge perceives and maps but fails to compose
(state 110) become reliable (111) once the composition is done for it. So the movement is
measured on exactly those units, paired by (item, branch, cue), with an interval that resamples
whole items (the units of one item are not independent), as every interval here does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from paraudit.runfolder.rows import iter_rows
from paraudit.stats.bootstrap import draws
from paraudit.stats.states import STATES, unit_states
from paraudit.stats.units import Row, answered

PREFIX = "scaffold:"


def scaffold_pairs(judges: Iterable[str]) -> list[tuple[str, str]]:
    """(judge, its scaffold) for every scaffold whose wrapped judge is also in the runs."""
    names = set(judges)
    return sorted((j[len(PREFIX) :], j) for j in names if j.startswith(PREFIX) and
                  j[len(PREFIX) :] in names)  # fmt: skip


def calls_per_answer(run_dirs: list[Path]) -> dict[str, float]:
    """Wrapped-judge calls per scaffold J answer (from the usage each row records; reused P
    answers cost nothing). A plain judge makes one call per answer."""
    calls: dict[str, list[int]] = defaultdict(list)
    for d in run_dirs:
        for r in iter_rows(d):
            if r.judge.startswith(PREFIX) and r.probe == "J" and "scaffold" in r.usage:
                calls[r.judge].append(int(r.usage["scaffold"].get("calls", 0)))
    return {j: sum(v) / len(v) for j, v in calls.items() if v}


def _j_accuracy(rows: list[Row]) -> dict[str, float | None]:
    """J accuracy per cue over both protocols (strict: an unanswered question is wrong)."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.probe == "J":
            t = tally[r.cue]
            t[0] += 1
            t[1] += bool(r.correct) and answered(r)
    return {cue: (c / n if n else None) for cue, (n, c) in sorted(tally.items())}


def movement(
    base: list[dict[str, Any]],
    scaffold: list[dict[str, Any]],
    *,
    replicates: int = 10_000,
    seed: int = 0,
    start: str = "110",
    end: str = "111",
) -> dict[str, Any]:
    """Of the units in `start` under the judge (paired by item, branch, cue), the share in
    `end` under its scaffold, with a 95 % interval over items."""
    after = {(u["item_id"], u["branch"], u["cue"]): u["state"] for u in scaffold}
    per_item: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for u in base:
        key = (u["item_id"], u["branch"], u["cue"])
        if u["state"] == start and key in after:
            t = per_item[u["item_id"]]
            t[0] += 1
            t[1] += after[key] == end
    n = np.array([t[0] for t in per_item.values()], dtype=float)
    k = np.array([t[1] for t in per_item.values()], dtype=float)
    out: dict[str, Any] = {"from": start, "to": end, "units": int(n.sum()), "items": len(n)}
    if not len(n):
        return {**out, "rate": None, "low": None, "high": None}
    w = np.stack([np.bincount(d, minlength=len(n)) for d in draws(len(n), replicates, seed)])
    rates = (w @ k) / (w @ n)
    low, high = np.quantile(rates, [0.025, 0.975])
    return {**out, "rate": float(k.sum() / n.sum()), "low": float(low), "high": float(high)}


def _state_shares(units: list[dict[str, Any]]) -> dict[str, float]:
    n = len(units)
    return {s: (sum(u["state"] == s for u in units) / n if n else 0.0) for s in STATES}


def side_by_side(
    rows: Iterable[Row],
    *,
    calls: dict[str, float] | None = None,
    replicates: int = 10_000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """One record per (judge, task) that has a scaffold in the runs: both judges' state
    shares and J accuracy per cue, the 110 → 111 movement, and calls per answer."""
    by: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:
        by[(r.judge, r.task)].append(r)
    out = []
    for judge, wrapped in scaffold_pairs(j for j, _ in by):
        for task in sorted({t for j, t in by if j == judge}):
            if (wrapped, task) not in by:
                continue
            ours, theirs = by[(judge, task)], by[(wrapped, task)]
            base, scaf = unit_states(ours), unit_states(theirs)
            out.append(
                {
                    "judge": judge,
                    "scaffold": wrapped,
                    "task": task,
                    "units": [len(base), len(scaf)],
                    "states": [_state_shares(base), _state_shares(scaf)],
                    "j_accuracy": [_j_accuracy(ours), _j_accuracy(theirs)],
                    "movement": movement(base, scaf, replicates=replicates, seed=seed),
                    "calls_per_answer": [1.0, (calls or {}).get(wrapped)],
                }
            )
    return out


__all__ = ["calls_per_answer", "movement", "scaffold_pairs", "side_by_side"]
