"""Same items, two renderings (paper §5.3, Fig. 6): do the judges' (P,O,J) profiles agree?

Two runs audit the same items voiced two ways (e.g. TTS and the source's human recordings).
For each judge found in both, the eight state proportions π_poj are computed on the items
both runs share, and compared: Spearman ρ and Pearson r across the eight states, the slope of
a least-squares line (1 = same scale), and the total-variation distance (0 = identical
profiles). Agreement is not skill: a judge guessing at random has near-uniform profiles on
both renderings, so its ρ is noise — read ρ beside the number of units it rests on. States are
order-consistent (item, branch, cue) units, as everywhere in the statistics.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import pearsonr, spearmanr

from paraudit.stats.states import STATES, masses, unit_states
from paraudit.stats.units import Row


def _items(rows: list[Row]) -> set[tuple[str, str]]:
    return {(r.task, r.item_id) for r in rows}


def _profile(rows: list[Row], judge: str) -> tuple[list[float], int]:
    m = masses([s["state"] for s in unit_states(rows) if s["judge"] == judge])
    return [m.masses[s] for s in STATES], m.n


def _agreement(x: list[float], y: list[float]) -> dict[str, float | None]:
    tv = 0.5 * float(np.abs(np.array(x) - np.array(y)).sum())
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"spearman": None, "pearson": None, "slope": None, "tv_distance": round(tv, 4)}
    slope = float(np.polyfit(x, y, 1)[0])
    return {
        "spearman": round(float(spearmanr(x, y).statistic), 4),
        "pearson": round(float(pearsonr(x, y).statistic), 4),
        "slope": round(slope, 4),
        "tv_distance": round(tv, 4),
    }


def compare_renderings(a: list[Row], b: list[Row]) -> dict[str, Any]:
    """Per-judge state-profile agreement between two runs on the same items."""
    ia, ib = _items(a), _items(b)
    shared = ia & ib
    a_s = [r for r in a if (r.task, r.item_id) in shared]
    b_s = [r for r in b if (r.task, r.item_id) in shared]
    judges = sorted({r.judge for r in a_s} & {r.judge for r in b_s})
    per_judge: list[dict[str, Any]] = []
    xs: list[float] = []
    ys: list[float] = []
    for j in judges:
        pa, na = _profile(a_s, j)
        pb, nb = _profile(b_s, j)
        if not na or not nb:
            continue
        xs += pa
        ys += pb
        per_judge.append(
            {
                "judge": j,
                "instances_a": na,
                "instances_b": nb,
                "profile_a": dict(zip(STATES, pa, strict=True)),
                "profile_b": dict(zip(STATES, pb, strict=True)),
                **_agreement(pa, pb),
            }
        )
    return {
        "items_a": len(ia),
        "items_b": len(ib),
        "shared_items": len(shared),
        "judges": per_judge,
        "pooled": {"points": len(xs), **(_agreement(xs, ys) if xs else {})},
    }
