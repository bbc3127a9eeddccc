"""Statistics at scale: 4 judges × 2 tasks × 4 cues × 1,000 items, 10,000 bootstrap replicates.

Run: .venv/bin/python benchmarks/stats.py [ITEMS] [REPLICATES]
Synthesises result rows of that shape (J pointwise and pairwise, P, O; both branches and
orders), times `summarize` (every statistic of the report), and times the protocol-gap and
cue-dependence bootstraps vectorised against the plain reference loop on the same draws,
printing the ratio (target: full statistics under 5 s, ≥ 20× faster than the loop). The loop
is timed on a few conditions and scaled, since running all of them takes minutes.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

from paraudit.stats.bootstrap import _weights, bootstrap_diffs, bootstrap_diffs_loop
from paraudit.stats.summary import paired, summarize

JUDGES = ["a", "b", "c", "d"]
TASKS = ["single-turn-emotions", "positional-emotion"]
CUES = ["none", "soft", "hard", "transition"]


def synth_rows(items: int, seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for j, judge in enumerate(JUDGES):
        skill = 0.5 + 0.1 * j
        for task in TASKS:
            for cue in CUES:
                for i in range(items):
                    for probe, protocol, branches in (
                        ("J", "pointwise", (0, 1)),
                        ("J", "pairwise", (None,)),
                        ("P", "pointwise", (0, 1)),
                        ("O", "pointwise", (0, 1)),
                    ):
                        for b in branches:
                            ok = bool(rng.random() < skill)
                            pred = "R1" if rng.random() < 0.5 else "R2"
                            rows.append(
                                {
                                    "judge": judge,
                                    "task": task,
                                    "item_id": f"i{i}",
                                    "branch": b,
                                    "probe": probe,
                                    "protocol": protocol,
                                    "cue": cue,
                                    "order": "ab",
                                    "status": "ok",
                                    "pred": pred,
                                    "correct": ok,
                                }
                            )
    return rows


def main(items: int = 1000, replicates: int = 10_000) -> None:
    rows = synth_rows(items)
    t0 = time.perf_counter()
    summary = summarize(rows, replicates=replicates)
    full = time.perf_counter() - t0
    n_boot = len(summary["protocol_gap"]) + len(summary["cue_dependence"])
    conds = [r for r in rows if r["probe"] == "J" and r["judge"] == "a" and r["task"] == TASKS[0]]
    c = paired(
        [r for r in conds if r["protocol"] == "pairwise" and r["cue"] == "none"],
        [r for r in conds if r["protocol"] == "pointwise" and r["cue"] == "none"],
    )
    assert c is not None
    _weights.cache_clear()
    t0 = time.perf_counter()
    bootstrap_diffs(c, replicates, 0)
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(n_boot):
        bootstrap_diffs(c, replicates, 0)
    t_vec = (time.perf_counter() - t0 + t_first) / (n_boot + 1)
    loop_reps = max(200, replicates // 20)
    t0 = time.perf_counter()
    loop = bootstrap_diffs_loop(c, loop_reps, 0)
    t_loop = (time.perf_counter() - t0) * replicates / loop_reps
    assert np.allclose(bootstrap_diffs(c, loop_reps, 0), loop)
    print(
        f"rows: {len(rows):,} · bootstraps: {n_boot} × {replicates:,} replicates over {items} items"
    )
    print(f"full statistics (summarize): {full:.2f} s (target < 5 s)")
    print(
        f"one bootstrap: vectorised {t_first:.3f} s with fresh draws, {t_vec:.4f} s amortised "
        f"over {n_boot + 1} · plain loop {t_loop:.1f} s (timed on {loop_reps} replicates, scaled)"
    )
    print(
        f"ratio loop / vectorised: {t_loop / t_first:.0f}x fresh, {t_loop / t_vec:.0f}x amortised"
        " (target ≥ 20x)"
    )
    print(f"all {n_boot} bootstraps as plain loops would take ≈ {t_loop * n_boot:.0f} s")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    main(*args)
