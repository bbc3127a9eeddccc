"""Word–tone conflict beyond emotion: on sarcasm's and urgency's bundled conflict texts the
listener that takes its value from the words (`builtin:NAME?words=follow`, by the dimension's
lexicon) is named "follows the words against the voice", and always-R1 is not. Tones stand in
for the clips: the follower reads only words, and the texts' balance is what is tested."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.judges.registry import load_judge
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.strata_items import read_attributes
from paraudit.stats.summary import summarize
from tests.stats.pressure_sets import dimension_conflict_set
from tests.stats.synthetic import stat_rows

KIND = "follows the words against the voice"


@pytest.mark.parametrize("name", ["sarcasm", "urgency"])
def test_the_words_follower_of_a_dimension_is_named(name: str, tmp_path: Path) -> None:
    ds = dimension_conflict_set(tmp_path / "ds", tmp_path / "src", name)
    follower = f"builtin:{name}?words=follow"
    run = tmp_path / "run"
    plan = PlanSpec(("J",), ("pointwise",), ("none",))
    rows = asyncio.run(Runner(RunConfig(ds, [follower, "builtin:first"], run, plan)).run())
    s = summarize(stat_rows(rows), replicates=500, attributes=read_attributes([run]))
    rec = {r["judge"]: r for r in s["conflict"]}
    assert rec[follower]["items"] == 8 and rec[follower]["gap"]["rate"] <= -0.75
    assert rec[follower]["sign_p"] <= 1 / 128
    kinds = {v["judge"]: [b["kind"] for b in v["behaviours"]] for v in s["verdicts"]}
    assert KIND in kinds[follower] and KIND not in kinds["builtin:first"]


def test_words_is_refused_where_the_words_carry_nothing() -> None:
    with pytest.raises(ParauditError, match="has no option 'words'"):
        load_judge("builtin:whisper?words=follow")
    with pytest.raises(ParauditError, match="takes follow or ignore"):
        load_judge("builtin:urgency?words=maybe")
