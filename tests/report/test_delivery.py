"""The audio-delivery check in summary.md, report.html and full_delivery.csv: flagged judges
first, judges without audio counts as "not checked", the rates' sources named."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

from paraudit.report.build import write_report
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary_model import Summary


def test_report_names_the_calls_whose_audio_did_not_arrive(
    tiny_dataset: Path, tmp_path: Path
) -> None:
    plan = PlanSpec(probes=("J", "P"), protocols=("pointwise",), cues=("none",))
    run = tmp_path / "run"
    judges = ["builtin:random", "builtin:drops-audio"]
    asyncio.run(Runner(RunConfig(tiny_dataset, judges, run, plan, concurrency=8)).run())
    page = write_report([run], tmp_path / "report", replicates=200).read_text()
    summary = Summary.read(tmp_path / "report" / "summary.json")
    flagged = [c for c in summary.delivery if c.flagged]
    assert flagged and {c.judge for c in flagged} == {"builtin:drops-audio"}
    md = (tmp_path / "report" / "summary.md").read_text()
    section = md.split("## Audio delivery\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("- ")]
    # Flagged first, in bold, with the count; the unflagged judge is "not checked".
    n = len(flagged)
    assert all(line.startswith("- **builtin:drops-audio**") for line in lines[:n])
    assert all("the provider counted no audio for" in line for line in lines[:n])
    assert any(line.startswith("- builtin:random") and "not checked" in line for line in lines)
    assert any("realtime-costs" in line for line in lines)  # the rate and its source
    assert "<section id='delivery'>" in page and "<b>builtin:drops-audio" in page
    assert "<b>Audio delivery</b> — builtin:drops-audio not delivered in" in page
    with (tmp_path / "report" / "tables" / "full_delivery.csv").open() as f:
        table = list(csv.DictReader(f))
    assert {r["judge"] for r in table} == {"builtin:random", "builtin:drops-audio"}
