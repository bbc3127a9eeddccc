"""The starter's conflict items carry each value of their pairs in the words as often as in the
conflict voice, so a judge that over-hears one label is not read as following the words.

Before this, all 16 carried *surprised* in their words: a judge that always hears surprise was
right on every congruent branch and wrong on every conflict one, exactly as the words-follower.
The set is the real sources (their words, voices, responses and branch order) with tones as
clips: the judges below read only words and labels, never the clip.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from paraudit.dimensions.emotion import VALENCE
from paraudit.qc.conflict import check_conflict
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.sources.starter import conflict_sources
from paraudit.stats.strata_items import read_attributes
from paraudit.stats.summary import summarize
from tests.stats.pressure_sets import starter_conflict_set
from tests.stats.synthetic import stat_rows

KIND = "follows the words against the voice"
FOLLOWER = "builtin:prosody?words=follow"
PRIOR = "builtin:prosody?prior=surprised"


def test_every_value_is_in_the_words_as_often_as_in_the_conflict_voice() -> None:
    sources = conflict_sources()
    words = Counter(s.words for s in sources)
    voices = Counter(next(e for e in s.emotions if e != s.words) for s in sources)
    assert words == voices == Counter({"surprised": 16, "sad": 8, "angry": 8})
    for s in sources:  # the QC the builder runs: words read as their value, unlike the voice
        voice = next(e for e in s.emotions if e != s.words)
        assert check_conflict(s.text, s.words, voice, VALENCE).passed, s.id
    # --limit N takes the first N lines: every four of them hold one of each kind.
    kinds = [("/".join(s.emotions), s.words) for s in sources]
    assert all(len(set(kinds[i : i + 4])) == 4 for i in range(0, len(kinds), 4))


def _verdicts(tmp_path: Path, ids: set[str] | None) -> tuple[dict, dict]:  # type: ignore[type-arg]
    ds = starter_conflict_set(tmp_path / "ds", tmp_path / "src", ids)
    run = tmp_path / "run"
    plan = PlanSpec(("J",), ("pointwise",), ("none",))
    rows = asyncio.run(Runner(RunConfig(ds, [FOLLOWER, PRIOR], run, plan)).run())
    s = summarize(stat_rows(rows), replicates=500, attributes=read_attributes([run]))
    rec = {r["judge"]: r for r in s["conflict"]}
    kinds = {v["judge"]: [b["kind"] for b in v["behaviours"]] for v in s["verdicts"]}
    return rec, kinds


def test_a_judge_that_over_hears_surprise_is_not_named_on_the_starter_set(
    tmp_path: Path,
) -> None:
    rec, kinds = _verdicts(tmp_path, None)
    assert rec[PRIOR]["items"] == rec[FOLLOWER]["items"] == 32
    # Right wherever the voice is surprised: congruent on 16 items, conflict on the other 16.
    assert rec[PRIOR]["gap"]["rate"] == 0.0 and KIND not in kinds[PRIOR]
    assert rec[FOLLOWER]["gap"]["rate"] == -1.0 and KIND in kinds[FOLLOWER]


def test_on_the_surprised_worded_half_alone_the_prior_would_be_named(tmp_path: Path) -> None:
    """What the balance fixes: the old set (surprise always in the words) named the prior."""
    half = {s.id for s in conflict_sources() if s.words == "surprised"}
    rec, kinds = _verdicts(tmp_path, half)
    assert rec[PRIOR]["gap"]["rate"] == -1.0 and KIND in kinds[PRIOR]
