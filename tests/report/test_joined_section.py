"""The report's separate-vs-joined section: one row per task × protocol, names escaped, the
decision and the state shift shown; a real run of the prosody judge both ways writes it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from paraudit.report.build import write_report
from paraudit.report.joined import section
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.joined import side_by_side
from paraudit.stats.judge_model import JudgeModel
from tests.stats.test_joined import _audit


def test_rows_names_and_the_decision() -> None:
    rows = _audit(JudgeModel("x", p=0.9, o=0.9, j=0.9), "m<1>", 0) + _audit(
        JudgeModel("y", p=0.9, o=0.9, j=0.5), "m<1>?clips=joined", 1
    )
    html = section(side_by_side(rows, replicates=200))
    assert "m&lt;1&gt;" in html and "<1>" not in html
    assert html.count("<tr><td>") == 4 and html.count("rowspan='2'") == 2
    assert "<td>yes</td>" in html and " pp [" in html


def test_a_run_of_the_prosody_judge_both_ways_gets_the_section(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J", "P", "O"), protocols=("pointwise", "pairwise"), cues=("none",))
    judges = ["builtin:prosody", "builtin:prosody?clips=joined"]
    run = tmp_path / "run"
    asyncio.run(Runner(RunConfig(tiny_dataset, judges, run, plan, concurrency=4)).run())
    page = write_report([run], tmp_path / "report", replicates=200).read_text()
    assert "Harness: the same judge with its clips separate and joined" in page
    records = json.loads((tmp_path / "report" / "joined.json").read_text())
    assert records and all(t["delta"] == 0 for r in records for t in r["j"])
    # Without the joined twin there is no section and no file.
    solo = tmp_path / "solo"
    asyncio.run(Runner(RunConfig(tiny_dataset, judges[:1], solo, plan, concurrency=4)).run())
    write_report([solo], tmp_path / "report2", replicates=200)
    assert not (tmp_path / "report2" / "joined.json").exists()
