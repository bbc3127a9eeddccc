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

from paraudit.runfolder.rows import ResultRow

DRAW_FIELDS = ("sample", "key", "status", "pred", "correct", "raw", "reason", "usage")
"""What the row keeps of every draw under `samples`."""


def sample_index(draw: int, retry: int, draws: int) -> int:
    """The cache key's sample index of one draw's retry (see the module note)."""
    return draw + draws * retry


def _canonical(pred: Any) -> str:
    return json.dumps(pred, sort_keys=True)


def majority_row(rows: list[ResultRow]) -> ResultRow:
    """One row for N draws of one instance: the row of the first draw that gave the majority
    answer (ties go to the answer drawn first), so its `pred`, `correct` and `status` are the
    majority's, with every draw under `samples` and the majority's count in `majority_votes`.
    With no parsed draw, the first draw's row stands (unanswered)."""
    draws = [{k: getattr(r, k) for k in DRAW_FIELDS} for r in rows]
    answered = [r for r in rows if r.status == "ok"]
    if not answered:
        return ResultRow(**{**rows[0].model_dump(), "samples": draws})
    counts: dict[str, int] = {}
    for r in answered:
        counts[_canonical(r.pred)] = counts.get(_canonical(r.pred), 0) + 1
    best = max(counts.values())
    winner = next(r for r in answered if counts[_canonical(r.pred)] == best)
    return ResultRow(**{**winner.model_dump(), "samples": draws, "majority_votes": best})


__all__ = ["DRAW_FIELDS", "majority_row", "sample_index"]
