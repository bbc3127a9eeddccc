"""Self-consistency of a judge asked N times per question (`?samples=N`, runner.samples).

A row of a sampled judge keeps every draw under `samples`; its `pred` is their majority, so the
existing statistics already use the majority. What they do not show is how far one draw can be
trusted: the share of a question's answered draws that agree with its majority, averaged over
questions, with a 95 % interval that resamples whole items (as every interval here does), and
the share of questions whose answered draws all agree.

The rows carry only each question's (agreeing, answered) pair (`StatRow.agreement`, computed
when the row is read), not its draws. A row nobody sampled has none and is left out, so a
judge that was not sampled gets no record rather than a perfect one.

What an unskilled judge scores here: self-consistency is not skill. A judge that always answers
R1 (or follows the words only) agrees with itself on every draw — 100 %, unanimous — while a
coin between two answers agrees with its majority on about 69 % of 5 draws
(E[max(k, 5 − k)] / 5 = 0.6875; less where more answers are possible). So it
is shown beside the accuracy, as how repeatable an answer is, never as evidence that the
judge hears.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from paraudit.stats.bootstrap import _weights
from paraudit.stats.units import Row


def self_consistency(
    rows: Iterable[Row], *, replicates: int = 10_000, seed: int = 0
) -> list[dict[str, Any]]:
    """Per (judge, task, probe): mean agreement with the majority over sampled questions (with
    an item-level interval) and the share of unanimous questions."""
    by: dict[tuple[str, str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        a = r.agreement
        if a is not None:
            by[(r.judge, r.task, r.probe)][r.item_id].append(a[0] / a[1])
    return consistency_of(by, replicates=replicates, seed=seed)


def consistency_of(
    by: Mapping[tuple[str, str, str], Mapping[str, list[float]]],
    *,
    replicates: int = 10_000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """self_consistency from per (judge, task, probe) → item → each sampled question's share
    of draws agreeing with its majority (what the registry's tally gathers in its pass)."""
    out = []
    for (judge, task, probe), items in sorted(by.items()):
        sums = np.array([sum(v) for v in items.values()])
        counts = np.array([len(v) for v in items.values()], dtype=float)
        # The item draws every other interval uses (cached per item count and seed).
        w = _weights(len(sums), replicates, seed).astype(np.float64)
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
                "agreement": {
                    "rate": float(sums.sum() / counts.sum()),
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "items": len(items),
                },
                "unanimous": sum(x == 1.0 for x in values) / len(values),
            }
        )
    return out


__all__ = ["consistency_of", "self_consistency"]
