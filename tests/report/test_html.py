"""report.html's layout, read from the page itself: verdicts, the state figure, the contents,
then collapsed sections whose headings give their true row counts."""

from __future__ import annotations

import re
from pathlib import Path

from paraudit.report.tables import TABLES, TITLES, Muted, j_matrix
from paraudit.stats.summary_model import Summary

_PART = re.compile(
    r'<section class="part" id="([^"]+)"><details><summary><h2>(.*?)</h2> '
    r'<span class="muted">(.*?)</span></summary>(.*?)</details></section>',
    re.S,
)


def _parts(html: str) -> dict[str, tuple[str, str, str]]:
    return {m[1]: (m[2], m[3], m[4]) for m in _PART.finditer(html)}


def test_verdicts_then_the_state_figure_then_the_contents(small_report: Path) -> None:
    html = (small_report / "report.html").read_text()
    order = [html.index(s) for s in ('id="verdicts"', 'id="fig-states"', 'id="contents"')]
    assert order == sorted(order)
    first_part = html.index('<section class="part"')
    assert order[-1] < first_part
    # Nothing but the verdicts, the state figure and the contents is open before the sections.
    assert "<details open" not in html


def test_every_table_is_a_collapsed_section_with_its_row_count(small_report: Path) -> None:
    html = (small_report / "report.html").read_text()
    parts = _parts(html)
    summary = Summary.read(small_report / "summary.json")
    for name, fn in TABLES.items():
        if name == "verdicts":
            continue
        rows = len(fn(summary)[1])
        if rows == 0:  # nothing measured: no "0 rows" section before the ones that matter
            assert f"t-{name}" not in parts
            continue
        title, note, body = parts[f"t-{name}"]
        assert title == TITLES[name]
        last = body[body.rindex("<table") :]  # the full table (J accuracy: after its matrix)
        assert note.startswith(f"{rows} row") and last.count("<tr>") == rows + 1  # + header
    links = re.findall(r'<nav id="contents">.*?</nav>', html, re.S)[0]
    firsts = {"verdicts", "states-figure", "verdict-list"}
    assert set(re.findall(r'href="#([^"]+)"', links)) == {*parts, *firsts}


def test_headings_are_sentence_case(small_report: Path) -> None:
    html = (small_report / "report.html").read_text()
    headings = re.findall(r"<h2[^>]*>(.*?)</h2>", html)  # h1 starts with the tool's name
    assert len(headings) > 10
    assert all(h[0].isupper() for h in headings), [h for h in headings if not h[0].isupper()]


def test_position_bias_lists_flagged_cells_first(small_report: Path) -> None:
    summary = Summary.read(small_report / "summary.json")
    flags = [row[-1] for row in TABLES["position_bias"](summary)[1]]
    assert any(flags) and not all(flags)
    assert flags == sorted(flags, key=lambda f: not f)
    _, note, _ = _parts((small_report / "report.html").read_text())["t-position_bias"]
    assert f"{sum(map(bool, flags))} flagged" in note


def test_j_accuracy_matrix_has_one_row_per_judge_and_task(small_report: Path) -> None:
    summary = Summary.read(small_report / "summary.json")
    cols, rows = j_matrix(summary)
    assert len(rows) == len(summary.verdicts)  # one per judge × task
    cells = {(a.judge, a.task, a.protocol.capitalize(), a.cue): a for a in summary.accuracy
             if a.probe == "J" and a.cue != "all"}  # fmt: skip
    for row in rows:
        for col, shown in zip(cols[3:], row[3:], strict=True):
            protocol, cue = col.split(" · ")
            a = cells.get((row[0], row[1], protocol, cue))
            if a is None:  # a cue this task's items do not have (transition: positional only)
                assert shown == "–" and isinstance(shown, Muted)
                continue
            assert a.accuracy is not None and shown == f"{a.accuracy:.0%}"
            assert isinstance(shown, Muted) == (not a.above_chance)
    _, _, body = _parts((small_report / "report.html").read_text())["t-headline_j_accuracy"]
    assert body.index('class="matrix"') < body.index("<details>")
