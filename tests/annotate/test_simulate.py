"""Simulated annotators through the HTTP API, and the demo's optional simulated human row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from paraudit.annotate.simulate import DEMO_LABEL, demo_humans
from paraudit.cli.main import app


def test_demo_humans_twice_gives_a_fresh_run(tiny_dataset: Path, tmp_path: Path) -> None:
    first = demo_humans(tiny_dataset, tmp_path, 3)
    rows = [json.loads(x) for x in (first / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * 2 and {r["judge"] for r in rows} == {DEMO_LABEL}
    again = demo_humans(tiny_dataset, tmp_path, 4)  # a rerun replaces store and run
    assert len((again / "results.jsonl").read_text().splitlines()) == 4 * 2


def test_demo_adds_a_simulated_human_row(tiny_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    out.mkdir()
    shutil.copytree(tiny_dataset, out / "starter")  # a valid dataset there is reused, not rebuilt
    result = CliRunner().invoke(app, ["demo", "--out", str(out), "--annotators", "3"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "report" / "summary.json").read_text())
    assert DEMO_LABEL in summary["judges"] and "builtin:first" in summary["judges"]
    human = [
        a
        for a in summary["accuracy"]
        if a["judge"] == DEMO_LABEL
        and (a["probe"], a["protocol"], a["cue"]) == ("J", "pointwise", "all")
    ]
    assert sum(a["n"] for a in human) == 6  # over both tasks of the tiny set
