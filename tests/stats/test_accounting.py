"""Answer accounting (stats/accounting.py) over simulated refusers (stats/judge_model.py): the
verdict names refusals beyond 10 % of a probe's questions, never below, and draws no verdict
from answers that were not given."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.summary import summarize

ITEMS = 189


def _verdicts(model: JudgeModel, audits: int) -> list[dict[str, Any]]:
    rng = np.random.default_rng(27)
    return [
        summarize(audit_rows(model, ITEMS, rng), replicates=300, seed=a,
                  permutations=100)["verdicts"][0]
        for a in range(audits)
    ]  # fmt: skip


def _named(v: dict[str, Any]) -> bool:
    return any(b["kind"] == "answers not given" for b in v["behaviours"])


@pytest.mark.parametrize(("share", "named"), [(0.0, False), (0.04, False), (0.3, True)])
def test_refusals_are_named_beyond_the_stated_share(share: float, named: bool) -> None:
    for v in _verdicts(JudgeModel("refuser", refuse=share), 6):
        assert _named(v) == named, v["headline"]
        if named:
            assert "every J answer it gives is right" in v["headline"], v["headline"]


def test_a_judge_refusing_everything_is_never_below_chance() -> None:
    for v in _verdicts(JudgeModel("mute", refuse=1.0), 3):
        assert v["diagnosis"] == "answers not given"
        assert v["native"]["outcome"] != "below chance"
        assert v["headline"].startswith("No verdict from answers not given: 100.0%")
        assert "it gives no J answer at all" in v["headline"]


def test_a_mostly_refusing_judge_that_is_wrong_when_it_answers_is_still_below_chance() -> None:
    """Rule 2 holds the other way too: wrong given answers keep "below chance" in the step."""
    for v in _verdicts(JudgeModel("contrary", refuse=0.2, p=0.0, o=0.0, j=0.0), 3):
        assert v["native"]["outcome"] == "below chance", v["native"]["text"]
