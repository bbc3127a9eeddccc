"""Accuracy with Wilson intervals, from result rows."""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from statistics import NormalDist
from typing import Any

from paraudit.runfolder import read_rows


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if n == 0:
        return (0.0, 1.0)
    # The standard library's normal quantile (same value as scipy's) keeps `paraudit run`
    # from importing scipy just for its summary table.
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def read_results(run_dir: Path) -> list[dict[str, Any]]:
    """RUN_DIR/results.jsonl as dicts, each row validated against the run-folder contract
    (a bad row is one clear error naming its line)."""
    return [r.model_dump(mode="json") for r in read_rows(run_dir)]


def summary_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Strict accuracy (unparsed = wrong), interval, unparsed rate, R1-pick share per cell."""
    cells: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        cells[(r["judge"], r["task"], r["probe"], r["protocol"])].append(r)
    out = []
    for (judge, task, probe, protocol), rs in sorted(cells.items()):
        n = len(rs)
        k = sum(r["correct"] for r in rs)
        lo, hi = wilson_interval(k, n)
        firsts = [r for r in rs if r["status"] == "ok" and isinstance(r["pred"], str)]
        out.append(
            {
                "judge": judge,
                "task": task,
                "probe": probe,
                "protocol": protocol,
                "n": n,
                "accuracy": k / n if n else 0.0,
                "ci_low": lo,
                "ci_high": hi,
                "unparsed_rate": sum(r["status"] == "unparsed" for r in rs) / n if n else 0.0,
                "errors": sum(r["status"] == "error" for r in rs),
                "first_pick_rate": (sum(r["pred"] in ("R1", "E1") for r in firsts) / len(firsts))
                if firsts
                else None,
            }
        )
    return out
