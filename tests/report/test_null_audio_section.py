"""The report's null-audio section, from a real run that asked probe N (the fixture's PROBES)."""

from __future__ import annotations

import csv
from pathlib import Path

from paraudit.report.null_audio import TITLE, null_audio_line, null_audio_part
from paraudit.stats.summary_model import Summary


def test_section_table_and_line(small_report: Path) -> None:
    summary = Summary.read(small_report / "summary.json")
    html = (small_report / "report.html").read_text()
    assert TITLE in html and 'href="#null-audio"' in html
    with (small_report / "tables" / "null_audio.csv").open() as f:
        rows = list(csv.DictReader(f))
    # 4 judges × 2 tasks × (P, J) × (silence, noise)
    assert len(rows) == len(summary.null_audio) == 4 * 2 * 2 * 2
    flagged = {r["judge"] for r in rows if r["answers without audio"] == "yes"}
    assert flagged == {"builtin:first", "builtin:transcript"}
    assert (small_report / "tables" / "full_null_audio.csv").is_file()
    line = null_audio_line(summary)
    assert line is not None and "not flagged: builtin:prosody, builtin:random" in line


def test_no_section_without_probe_n(small_report: Path, tmp_path: Path) -> None:
    summary = Summary.read(small_report / "summary.json").model_copy(update={"null_audio": []})
    assert null_audio_part(summary, tmp_path) is None and null_audio_line(summary) is None
