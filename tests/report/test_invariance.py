"""The report's invariance section, from a summary of simulated rows (tests/stats)."""

from __future__ import annotations

from pathlib import Path

from paraudit.report.invariance import invariance_part
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary
from tests.stats.test_invariance import first, pitch_follower, rows_of


def test_section_shows_flip_figure_and_voice_table(tmp_path: Path) -> None:
    summary = Summary.of(summarize(rows_of(pitch_follower, 12), replicates=200))
    part = invariance_part(summary, tmp_path)
    assert part is not None
    anchor, title, note, body = part
    assert anchor == "invariance" and "Invariance" in title and "1 judge(s)" in note
    assert (tmp_path / "invariance.png").is_file() and "<svg" in body
    assert "not discriminating" in body  # the pitch follower's flag, in the flip table
    assert "<td>voice-up</td>" in body and "<td>original</td>" in body
    # Summary round trip keeps the sections (summary.json is written from the model).
    again = Summary.model_validate_json(summary.to_json())
    assert again.invariance == summary.invariance


def test_no_section_without_twins(tmp_path: Path) -> None:
    rows = [r for r in rows_of(first, 12) if "~inv-" not in r.item_id]
    assert invariance_part(Summary.of(summarize(rows, replicates=100)), tmp_path) is None


def test_an_invariance_run_leads_with_its_own_section_and_terminal_line(tmp_path: Path) -> None:
    from paraudit.report import html
    from paraudit.report.invariance import invariance_line

    summary = Summary.of(summarize(rows_of(pitch_follower, 12), replicates=200))
    part = invariance_part(summary, tmp_path)
    page = html.render(summary, {}, ["run"], lead=part)
    # Right after the verdict matrix, open, before anything else the page shows.
    assert page.index('id="verdicts"') < page.index('<section class="lead" id="invariance">')
    assert page.index('id="invariance"') < page.index('id="verdict-list"')
    assert page.index('id="invariance"') < page.index('<section class="part"')
    line = invariance_line(summary)
    assert line is not None and line.startswith("invariance (")
    assert "not discriminating" in line  # the pitch follower flips as often without a reason
    steady = [r for r in rows_of(first, 12)]
    assert "steady" in (invariance_line(Summary.of(summarize(steady, replicates=100))) or "")
