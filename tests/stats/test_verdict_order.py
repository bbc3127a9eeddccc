"""The one order every view lists verdicts in: judges under audit first, the most pressing
first among them, the controls last."""

from __future__ import annotations

import numpy as np

from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary
from paraudit.stats.verdict_order import by_attention, is_control


def test_controls_are_known_by_their_spec_whatever_the_options_or_run_label() -> None:
    assert is_control("builtin:random") and is_control("builtin:first?seed=3")
    assert is_control("builtin:transcript [run-2]")
    assert not is_control("builtin:prosody") and not is_control("openai:builtin:first")


def test_the_judges_under_audit_come_first_the_most_pressing_first_the_controls_last() -> None:
    rows = []
    for model in (
        JudgeModel("builtin:first", first=True),  # a control: at chance, listed last
        JudgeModel("perfect"),  # reliable: needs no attention
        JudgeModel("zz-habit", first=True),  # under audit and at chance: listed first
    ):
        rows += audit_rows(model, 30, np.random.default_rng(0))
    verdicts = Summary.of(summarize(rows, replicates=100)).verdicts
    # The summary keeps (judge, task) order, which put the control first.
    assert [v.judge for v in verdicts] == ["builtin:first", "perfect", "zz-habit"]
    assert [v.judge for v in by_attention(verdicts)] == ["zz-habit", "perfect", "builtin:first"]
