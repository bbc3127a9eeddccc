"""`paraudit run --reask SHARE`: a seeded share of questions asked a second time on identical
audio, the judge's own re-ask disagreement without `?samples=N`.

Every flip statistic (invariance flips, audio sensitivity, joined vs separate clips) compares
two answers; a judge that samples its answers differs from itself even when nothing changed,
so those statistics are read against how often two asks of one identical prompt differ
(stats/reask.py). `?samples=N` gives that baseline at N times the cost of the whole plan; this
option buys it for a share: each selected question is asked once more with its own sample
index (`REASK_SAMPLE` and up, a new call and cache key, never one a plain run, a parse retry
or a `?samples` draw uses), and its row keeps the *first* answer — every other statistic reads
exactly the rows a run without the option writes — with both asks under `samples`, from which
the statistics take the re-ask pair (StatRow.reask, draw_hits, agreement).

Which questions: pointwise ones with a right answer (probes J, P, O, S; invariance twins' J
included), chosen by a hash of the seed and the question's identity (item, probe, cue, branch,
response order), so a resumed or repeated run re-asks the same ones. A judge sampled with
`?samples=N ≥ 2` already has its draws and is not re-asked. Without the option nothing here
runs: a default run's plan, calls and keys are those of a run before the option existed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from paraudit.protocols.instances import Instance
from paraudit.runfolder.rows import ResultRow
from paraudit.runner.samples import DRAW_FIELDS

REASK_SAMPLE = 1 << 20
"""The first sample index of a re-ask (its parse retries follow it): far above any index a
plain ask, its parse retries (≤ MAX_PARSE_RETRIES) or `?samples` draws (≤ 100 × retries) take."""
REASKED_PROBES = frozenset({"J", "P", "O", "S"})
"""Probes with a right answer and a branch: T has no gold, N is about null audio."""


def reasked(inst: Instance, share: float | None, seed: int) -> bool:
    """Whether the question is asked a second time under `--reask share`."""
    if not share or inst.protocol != "pointwise" or inst.probe not in REASKED_PROBES:
        return False
    ident = "|".join(
        str(x) for x in (seed, inst.item_id, inst.probe, inst.cue, inst.branch, inst.order)
    )
    draw = int.from_bytes(hashlib.sha256(f"reask|{ident}".encode()).digest()[:8], "big")
    return draw / 2**64 < share


def count_reasked(instances: Iterable[Instance], share: float | None, seed: int) -> int:
    """How many of `instances` `--reask share` asks again (each one more call per judge)."""
    return sum(reasked(i, share, seed) for i in instances) if share else 0


def reask_row(first: ResultRow, again: ResultRow) -> ResultRow:
    """The row of a re-asked question: the first ask's answer, both asks under `samples`."""
    draws = [{k: getattr(r, k) for k in DRAW_FIELDS} for r in (first, again)]
    return ResultRow(**{**first.model_dump(), "samples": draws})


__all__ = ["REASKED_PROBES", "REASK_SAMPLE", "count_reasked", "reask_row", "reasked"]
