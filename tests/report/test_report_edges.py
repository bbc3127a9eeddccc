"""The report on the judges a user most wants to see: 100 % and 0 % cells, cells whose every
call failed, refusals — from a run folder written here (no speech needed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paraudit.report.build import write_report
from tests.stats.synthetic import orders, result_line, row


def _rows() -> list[dict[str, Any]]:
    rows = []
    for judge, right in (("perfect", True), ("contrary", False)):
        for task in ("single-turn-emotions", "positional-emotion"):
            for i in range(6):
                for probe in "POJ":
                    for b in (0, 1):
                        for o, _ in orders("pointwise"):
                            rows.append(row(judge=judge, task=task, item=f"i{i}", probe=probe,
                                            branch=b, order=o, correct=right))  # fmt: skip
                for o, c in orders("pairwise"):
                    rows.append(row(judge=judge, task=task, item=f"i{i}", protocol="pairwise",
                                    order=o, context_order=c, correct=right))  # fmt: skip
                rows.append(row(judge=judge, task=task, item=f"i{i}", probe="S", status="error"))
                rows.append(row(judge=judge, task=task, item=f"i{i}", probe="O",
                                protocol="pairwise", status="refused"))  # fmt: skip
    return rows


@pytest.fixture(scope="module")
def edge_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("edge-run")
    (run / "results.jsonl").write_text("".join(json.dumps(result_line(r)) + "\n" for r in _rows()))
    out = tmp_path_factory.mktemp("edge-report")
    write_report([run], out, replicates=300)
    return out


def test_perfect_and_contrary_judges_report_without_crash(edge_report: Path) -> None:
    for fig in ("states", "heatmaps", "accuracy"):
        assert (edge_report / "figures" / f"{fig}.png").stat().st_size > 1000
    summary = json.loads((edge_report / "summary.json").read_text())
    kinds = {(v["judge"], v["task"]): (v["kind"], v["diagnosis"]) for v in summary["verdicts"]}
    assert kinds[("perfect", "positional-emotion")] == ("above chance", "reliable")
    # Wrong on every probe: below chance natively, and no component above chance.
    assert kinds[("contrary", "single-turn-emotions")] == ("below chance", "below chance")
    assert all(v["small_sample"] for v in summary["verdicts"])


def test_failed_calls_and_refusals_are_shown_as_such(edge_report: Path) -> None:
    html = (edge_report / "report.html").read_text()
    md = (edge_report / "summary.md").read_text()
    for text in (html, md):
        assert "no answers (6 errors)" in text  # S: every call failed — never "0.0%"
        assert "Small sample: 6 items" in text
    summary = json.loads((edge_report / "summary.json").read_text())
    (o,) = [a for a in summary["accuracy"] if (a["judge"], a["task"], a["probe"], a["protocol"],
            a["cue"]) == ("perfect", "single-turn-emotions", "O", "pairwise", "all")]  # fmt: skip
    assert o["refused"] == 6 and o["accuracy"] == 0.0


def test_figures_name_tasks_in_full_and_show_item_counts(edge_report: Path) -> None:
    svg = (edge_report / "figures" / "heatmaps.svg").read_text()
    assert "positional-emotion · none" in svg and "single-turn-emotions · none" in svg
    assert "n=6" in svg
    assert "n=6 items" in (edge_report / "figures" / "accuracy.svg").read_text()
    assert "(n=6)" in (edge_report / "figures" / "states.svg").read_text()


def test_uninterpretable_potemkin_rates_are_greyed(edge_report: Path) -> None:
    html = (edge_report / "report.html").read_text()
    assert '<td class="grey">' in html and "not above chance" in html
    assert "must sit near 50" not in html
