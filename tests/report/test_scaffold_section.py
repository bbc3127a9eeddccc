"""The report's judge-vs-scaffold section: nothing without a pair; names escaped; both rows."""

from __future__ import annotations

from paraudit.report.scaffold import section
from paraudit.stats.scaffold import side_by_side
from tests.stats.test_scaffold import _rows


def test_no_pair_no_section() -> None:
    assert section([]) == ""


def test_both_judges_their_states_and_the_movement() -> None:
    rows = _rows("m<1>", False) + _rows("scaffold:m<1>", True)
    html = section(side_by_side(rows, calls={"scaffold:m<1>": 1.25}, replicates=100))
    assert "m&lt;1&gt;" in html and "scaffold:m&lt;1&gt;" in html and "<1>" not in html
    assert html.count("<tr><td>") == 2 and "rowspan='2'" in html
    assert "110 100 %" in html and "111 100 %" in html  # before, after
    assert "100 % [100 %, 100 %] of 2 units (2 items)" in html and "1.25" in html
