"""Self-consistency of a judge asked N times per question (`?samples=N`, runner.samples).

A row of a sampled judge keeps every draw under `samples`; its `pred` is their majority, so the
existing statistics already use the majority. What they do not show is how far one draw can be
trusted: the share of a question's answered draws that agree with its majority, averaged over
questions, with a 95 % interval that resamples whole items (as every interval here does).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from paraudit.stats.bootstrap import draws

Row = dict[str, Any]


def agreement(row: Row) -> tuple[int, int] | None:
    """(draws agreeing with the most common answer, answered draws) of one sampled row, or
    None when the row was not sampled or no draw answered."""
    samples = row.get("samples")
    if not samples:
        return None
    preds = [json.dumps(s["pred"], sort_keys=True) for s in samples if s["status"] == "ok"]
    if not preds:
        return None
    return max(preds.count(p) for p in set(preds)), len(preds)


def self_consistency(
    rows: Iterable[Row], *, replicates: int = 10_000, seed: int = 0
) -> list[dict[str, Any]]:
    """Per (judge, task, probe): mean agreement with the majority over sampled questions, the
    share of unanimous questions, and an item-level interval on the mean agreement."""
    by: dict[tuple[str, str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        a = agreement(r)
        if a is not None:
            by[(r["judge"], r["task"], r["probe"])][r["item_id"]].append(a[0] / a[1])
    out = []
    for (judge, task, probe), items in sorted(by.items()):
        sums = np.array([sum(v) for v in items.values()])
        counts = np.array([len(v) for v in items.values()], dtype=float)
        w = np.stack(
            [np.bincount(d, minlength=len(sums)) for d in draws(len(sums), replicates, seed)]
        )
        means = (w @ sums) / (w @ counts)
        low, high = np.quantile(means, [0.025, 0.975])
        values = [x for v in items.values() for x in v]
        out.append(
            {
                "judge": judge,
                "task": task,
                "probe": probe,
                "questions": len(values),
                "items": len(items),
                "agreement": float(sums.sum() / counts.sum()),
                "low": float(low),
                "high": float(high),
                "unanimous": sum(x == 1.0 for x in values) / len(values),
            }
        )
    return out


__all__ = ["agreement", "self_consistency"]
