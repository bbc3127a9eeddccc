"""`?samples=N`: N answers per instance, kept in the row, the majority as its answer.

Peers (SpeechJudge) ask each item several times; a judge that samples (temperature > 0, or a
provider that is not deterministic) then answers by its majority, and how often its draws agree
(self-consistency) says how much one draw can be trusted. Draw d of an instance is asked with
sample index d, and its k-th parse retry with d + N·k: for N = 1 that is the plain run's
indices, so a single-draw run's cache is reused, and no two asks share a key.
"""

from __future__ import annotations

import json
from typing import Any

Row = dict[str, Any]


def sample_index(draw: int, retry: int, draws: int) -> int:
    """The cache key's sample index of one draw's retry (see the module note)."""
    return draw + draws * retry


def _canonical(pred: Any) -> str:
    return json.dumps(pred, sort_keys=True)


def majority_row(rows: list[Row]) -> Row:
    """One row for N draws of one instance: the first draw's row with the majority answer as
    its `pred` (ties go to the answer drawn first), `correct` and `status` from it, and every
    draw under `samples`. With no parsed draw, the first draw's row stands (unanswered)."""
    first = rows[0]
    answered = [r for r in rows if r["status"] == "ok"]
    draws = [
        {k: r[k] for k in ("sample", "key", "status", "pred", "correct", "raw", "reason", "usage")}
        for r in rows
    ]
    if not answered:
        return {**first, "samples": draws}
    counts: dict[str, int] = {}
    for r in answered:
        counts[_canonical(r["pred"])] = counts.get(_canonical(r["pred"]), 0) + 1
    best = max(counts.values())
    winner = next(r for r in answered if counts[_canonical(r["pred"])] == best)
    return {
        **winner,
        "samples": draws,
        "majority_votes": best,
    }


__all__ = ["majority_row", "sample_index"]
