"""The ties unit reads the no-cue J question only: a cue names a value, so cued answers are not
evidence of whether the judge knows when the audio does not decide."""

from __future__ import annotations

import numpy as np

from paraudit.stats.analysis import GroupContext
from paraudit.stats.pressure_sim import TieJudge, tie_rows
from paraudit.stats.ties import TieTally


def test_cued_answers_do_not_hide_an_abstainer() -> None:
    # Says "tie" on every no-cue question; under the soft and hard cues it answers what the cue
    # names (the right response). Pooled, its abstain rate read 1/3 and it was not named.
    rows = tie_rows(TieJudge(1.0, 1.0), 30, 6, np.random.default_rng(1))
    cued = [r._replace(cue=c, pred=r.gold, correct=True) for c in ("soft", "hard") for r in rows
            if r.gold != "tie"]  # fmt: skip
    tally = TieTally("sim", "single-turn-emotions")
    for r in rows + cued:
        tally.add(r)
    (rec,) = tally.records(GroupContext("sim", "single-turn-emotions", 36, 500, 0))
    assert rec["abstain_rate"]["rate"] == 1.0 and rec["always_abstains"]
    assert rec["committed_accuracy"] is None  # no committed no-cue answer to score
