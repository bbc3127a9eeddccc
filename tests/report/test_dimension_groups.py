"""The report groups verdicts by dimension (a run holds one dimension per task), under
headings and in sentences of the dimension's words; terms and labels as on any report."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from paraudit.dimensions.registry import get
from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from tests.dimsets import make_dimension_dataset

JUDGES = ["builtin:random", "builtin:first"]
PLAN = PlanSpec(probes=("J", "P", "O"), protocols=("pointwise",), cues=("none", "hard"))


def _run(tmp: Path, dimension: str) -> Path:
    root = tmp / f"ds-{dimension}"
    make_dimension_dataset(root, tmp / "tones", dimension, 6)
    out = tmp / f"run-{dimension}"
    asyncio.run(Runner(RunConfig(root, JUDGES, out, PLAN, concurrency=8)).run())
    return out


def test_two_dimensions_are_reported_under_their_own_headings(tmp_path: Path) -> None:
    runs = [_run(tmp_path, "whisper"), _run(tmp_path, "urgency")]
    html = (write_report(runs, tmp_path / "report", replicates=200)).read_text()
    for name in ("whisper", "urgency"):
        words = get(name).words
        heading = f"{name.capitalize()}: does the judge hear {words.attribute}?"
        assert f'<h3 class="dim">{heading}</h3>' in html
        assert f"a judge that {words.does_not_hear} cannot pick the reply" in html
        assert f'scope="colgroup">{name}</th>' in html  # the matrix's column group
    # How to read P: in the dimensions' words, not emotion's.
    assert "does it hear whether the user whispers; how urgently the user speaks?" in html or (
        "does it hear how urgently the user speaks; whether the user whispers?" in html
    )
    assert "which emotion did the user sound like" not in html
    # One verdict table per dimension, each judge × task once, the controls flagged.
    assert html.count('<table class="verdict">') == 2
    assert len(re.findall(r'<tr id="v-\d+">', html)) == 2 * len(JUDGES) * 1
    assert html.count("(control)") == 2 * 2  # two judges, each in two runs (told apart)
