"""`paraudit run --sequential` and `--dry-run --sequential` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from tests.runner.sequential_sets import tone_set

runner = CliRunner()
PLAN = ["--probes", "J,P,O,T", "--cues", "none,hard"]


@pytest.fixture(scope="module")
def tones(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tones")
    return tone_set(tmp / "ds", tmp / "src", 100)


@pytest.mark.parametrize("columns", ["80", "200"])
def test_sequential_run_says_where_it_stopped(tones: Path, tmp_path: Path, columns: str) -> None:
    out = tmp_path / "run"
    args = ["run", str(tones), "--judge", "builtin:first", "--out", str(out), *PLAN]
    r = runner.invoke(app, [*args, "--sequential"], env={"COLUMNS": columns})
    assert r.exit_code == 0, r.output
    record = json.loads((out / "sequential.json").read_text())
    entry = record["judges"]["builtin:first"]["single-turn-emotions"]
    assert entry["stopped_early"]
    line = (
        f"sequential builtin:first single-turn-emotions: {entry['items_asked']} of 100 items, "
        "stopped early: every step the diagnosis reads is settled"
    )
    assert line in r.output
    assert json.loads((out / "run.json").read_text())["sequential"]["batch"] == 10


def test_a_default_run_records_no_sequential_rule(tones: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", str(tones), "--judge", "builtin:first", "--out", str(out), "--limit", "5"]
    r = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "sequential" not in json.loads((out / "run.json").read_text())
    assert not (out / "sequential.json").exists() and "sequential" not in r.output


def test_dry_run_gives_expected_and_worst_case_calls(tones: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", str(tones), "--judge", "builtin:random", "--out", str(out), *PLAN]
    r = runner.invoke(app, [*args, "--dry-run", "--sequential"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    size = r.output.split("instances_per_judge: ")[1].split()[0]
    assert f"worst case {int(size):,} (the full plan)" in r.output
    assert "sequential calls per judge: expected about" in r.output
    assert not out.exists()  # a dry run writes nothing
    # with a pilot's answers in --out, that judge's own estimate beside the plan's
    pilot = runner.invoke(app, [*args, "--limit", "40", "--sequential"], env={"COLUMNS": "200"})
    assert pilot.exit_code == 0, pilot.output
    again = runner.invoke(app, [*args, "--dry-run", "--sequential"], env={"COLUMNS": "200"})
    assert "sequential calls builtin:random: expected about" in again.output


def test_sequential_on_ray_is_refused_in_one_line(tones: Path, tmp_path: Path) -> None:
    """Ray answers a plan in bulk; a sequential run decides batch by batch (exit 2, no Ray)."""
    out = tmp_path / "run"
    args = ["run", str(tones), "--judge", "builtin:random", "--out", str(out), *PLAN]
    r = runner.invoke(app, [*args, "--sequential", "--engine", "ray"], env={"COLUMNS": "200"})
    assert r.exit_code == 2, r.output
    assert "--sequential runs on --engine local only" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert not out.exists()
