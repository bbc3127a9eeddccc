"""The report's self-consistency table: a real run sampled 5 times gets it (HTML section, CSV,
summary.json valid against the committed schema); a run without sampling gets none."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import jsonschema

from paraudit.report.build import write_report
from paraudit.report.samples import TITLE
from paraudit.runner.plan import PlanSpec
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary_model import SCHEMA_FILE, Summary

PLAN = PlanSpec(probes=("J", "P"), protocols=("pointwise", "pairwise"), cues=("none",))


def _report(ds: Path, tmp: Path, specs: list[str]) -> Path:
    run, out = tmp / "run", tmp / "report"
    asyncio.run(Runner(RunConfig(ds, specs, run, PLAN)).run())
    write_report([run], out, replicates=200)
    return out


def test_a_run_sampled_5_times_gets_the_table(tiny_dataset: Path, tmp_path: Path) -> None:
    out = _report(tiny_dataset, tmp_path, ["builtin:random?samples=5&seed=1", "builtin:first"])
    summary = Summary.read(out / "summary.json")
    records = summary.self_consistency
    # Only the sampled judge, one record per task × probe.
    assert records and {s.judge for s in records} == {"builtin:random?seed=1"}
    assert {(s.task, s.probe) for s in records} == {
        (t, p) for t in {a.task for a in summary.accuracy} for p in ("J", "P")
    }
    html = (out / "report.html").read_text()
    part = re.search(r'<section class="part" id="samples">(.*?)</section>', html, re.S)
    assert part and TITLE in part[1] and f"{len(records)} rows" in part[1]
    assert part[1].count("<tr>") == len(records) + 1  # + the header
    for s in records:
        assert f"{100 * s.agreement.rate:.1f}%" in part[1]
    assert 'href="#samples"' in html  # listed in the contents
    csv = (out / "tables" / "self_consistency.csv").read_text().splitlines()
    assert len(csv) == len(records) + 1
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.validate(json.loads((out / "summary.json").read_text()), schema)


def test_a_run_without_sampling_gets_no_table(tiny_dataset: Path, tmp_path: Path) -> None:
    out = _report(tiny_dataset, tmp_path, ["builtin:random"])
    assert json.loads((out / "summary.json").read_text())["self_consistency"] == []
    assert 'id="samples"' not in (out / "report.html").read_text()
    assert not (out / "tables" / "self_consistency.csv").exists()
