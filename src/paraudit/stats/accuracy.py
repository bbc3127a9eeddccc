"""Accuracy with Wilson intervals, from result rows."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from statistics import NormalDist
from typing import Any

from paraudit.items.twins import MARK
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


class CellTally:
    """The terminal summary of a run, tallied row by row (nothing of a row is kept but its item
    id): per judge × task × probe × protocol, answers, correct answers, statuses, first picks."""

    def __init__(self) -> None:
        self._cells: dict[tuple[str, str, str, str], list[int]] = {}
        self._items: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)

    def add(self, r: Mapping[str, Any]) -> None:
        # Invariance twins (items/twins.py) get their own line: their answers are the
        # invariance audit's, not more items of the original set.
        probe = f"{r['probe']} twins" if MARK in r["item_id"] else r["probe"]
        cell = (r["judge"], r["task"], probe, r["protocol"])
        c = self._cells.get(cell)
        if c is None:
            c = self._cells[cell] = [0] * len(_TALLIES)
        status = r["status"]
        c[0] += 1
        c[1] += bool(r["correct"])
        c[2] += status == "unparsed"
        c[3] += status == "refused"
        c[4] += status == "error"
        if status == "ok" and isinstance(r["pred"], str):
            c[5] += 1
            c[6] += r["pred"] in ("R1", "E1")
        c[7] += status == "no-audio"
        self._items[cell].add(r["item_id"])

    def table(self) -> list[dict[str, Any]]:
        """Strict accuracy (unparsed = wrong), Wilson interval, unparsed rate, R1-pick share,
        status counts and items per cell, sorted by cell."""
        out = []
        for (judge, task, probe, protocol), c in sorted(self._cells.items()):
            n, k, unparsed, refused, errors, choices, firsts, no_audio = c
            lo, hi = wilson_interval(k, n)
            out.append(
                {
                    "judge": judge,
                    "task": task,
                    "probe": probe,
                    "protocol": protocol,
                    "n": n,
                    "correct": k,
                    "accuracy": k / n if n else 0.0,
                    "ci_low": lo,
                    "ci_high": hi,
                    "unparsed_rate": unparsed / n if n else 0.0,
                    "unparsed": unparsed,
                    "refused": refused,
                    "errors": errors,
                    "items": len(self._items[(judge, task, probe, protocol)]),
                    "first_pick_rate": firsts / choices if choices else None,
                    "no_audio": no_audio,
                }
            )
        return out


_TALLIES = (
    "n", "correct", "unparsed", "refused", "errors", "choices", "first_picks", "no_audio",
)  # fmt: skip


def summary_table(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """CellTally's table of `rows`."""
    tally = CellTally()
    for r in rows:
        tally.add(r)
    return tally.table()
