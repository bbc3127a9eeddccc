from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.report.tables import TABLES
from paraudit.stats.summary_model import SCHEMA_FILE, Summary


def test_every_output_is_written(small_report: Path) -> None:
    for name in ("report.html", "summary.json", "summary.md", "tables.tex"):
        assert (small_report / name).stat().st_size > 0
    for fig in ("states", "heatmaps", "accuracy"):
        assert (small_report / "figures" / f"{fig}.png").stat().st_size > 1000
        assert (small_report / "figures" / f"{fig}.svg").read_text().lstrip().startswith("<?xml")
    csvs = {p.name for p in (small_report / "tables").iterdir()}
    assert {
        "headline_j_accuracy.csv",
        "states.csv",
        "protocol_gap.csv",
        "full_accuracy.csv",
    } <= csvs
    tex = (small_report / "tables.tex").read_text()
    assert tex.count(r"\begin{tabular}") == len(TABLES) and "%" not in tex.replace(r"\%", "")


def test_summary_json_of_a_real_run_validates_against_the_committed_schema(
    small_report: Path,
) -> None:
    raw = json.loads((small_report / "summary.json").read_text())
    jsonschema.validate(raw, json.loads(SCHEMA_FILE.read_text()))
    assert raw["runs"] and Summary.read(small_report / "summary.json").to_dict() == raw


def test_report_is_self_contained(small_report: Path) -> None:
    html = (small_report / "report.html").read_text()
    # Nothing is loaded from anywhere (XML namespace names are identifiers, not requests).
    for pattern in ('src="http', "src='http", 'href="http', "href='http", "url(http", "@import"):
        assert pattern not in html
    assert "<script" not in html and html.count("<svg") >= 3
    assert "How to read this" in html and "Potemkin" in html


def test_report_cli_bad_input(tmp_path: Path) -> None:
    r = CliRunner().invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "r")])
    assert r.exit_code == 1 and "no results.jsonl" in r.output and "Traceback" not in r.output


def test_compare_cli(small_run: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"  # the same answers in another folder (one folder twice is refused)
    shutil.copytree(small_run, twin)
    r = CliRunner().invoke(
        app,
        ["compare", str(small_run), str(twin), "--out", str(tmp_path / "c.json")],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    # The small run holds 4 items: the state comparison is refused in one line per judge pair.
    assert "McNemar" in r.output and "Spearman" not in r.output
    assert "not compared: only 4 items hold (P, O, J) states in both runs" in r.output
