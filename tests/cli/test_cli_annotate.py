"""`paraudit annotate` links say what each annotator has to do; `paraudit annotate-stats` on a
study nobody has answered yet: one clear line, exit 0."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from paraudit.cli.main import app
from tests.annotate.conftest import make_many


def test_links_and_stats_of_an_unanswered_study(tmp_path: Path) -> None:
    make_many(tmp_path / "ds", tmp_path / "tones", 8, seconds=0.4)
    store = tmp_path / "study.sqlite"
    runner = CliRunner()
    created = runner.invoke(
        app,
        ["annotate", str(tmp_path / "ds"), "--store", str(store), "--annotators", "ana,ben",
         "--per-annotator", "4", "--overlap", "2", "--repeats", "1", "--catch", "1",
         "--no-serve"],
    )  # fmt: skip
    assert created.exit_code == 0, created.output
    # Each link's progress names what --per-annotator counted and what comes on top.
    links = [line for line in created.output.splitlines() if "/a/" in line]
    assert len(links) == 2
    assert all("(0 of 4 scored + 2 checks)  http://" in line for line in links), links
    # No COLUMNS here: the CLI's shared console keeps the width it first sees, and a wide one
    # would leak into the 80-column tests. The line is soft-wrapped, so it stays one line.
    stats = runner.invoke(app, ["annotate-stats", str(store), "--json", str(tmp_path / "s.json")])
    assert stats.exit_code == 0 and "Traceback" not in stats.output, stats.output
    lines = [line for line in stats.output.splitlines() if line.strip()]
    assert len(lines) == 1, stats.output  # no lone 'all' heading, no empty figures
    assert lines[0].startswith(f"no ratings yet in {store}: 0 of ") and "2 annotators" in lines[0]
    assert json.loads((tmp_path / "s.json").read_text())["items"] == []
