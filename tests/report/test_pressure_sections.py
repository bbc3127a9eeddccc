"""The report's sections for the misleading cue, tie items and word–tone conflict items: each
appears (HTML part, CSV, summary.md lines) only when its runs hold records, flagged judges
first, with the rule stated."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from paraudit.report.context import ReportContext
from paraudit.report.pressure import (
    conflict_section,
    dominance_section,
    pressure_lines,
    ties_section,
)
from paraudit.stats.pressure_sim import (
    FamilyJudge,
    TieJudge,
    WordsJudge,
    judge_rows,
    tie_rows,
    words_rows,
)
from paraudit.stats.statrow import StatRow
from paraudit.stats.strata_items import WORDS, ItemAttributes
from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary


def _as(judge: str, rows: list[StatRow], task: str) -> list[StatRow]:
    return [r._replace(judge=judge, task=task, item_id=f"{task}-{r.item_id}") for r in rows]


def _summary() -> Summary:
    rng = np.random.default_rng(0)
    rows = [
        *_as("obeys", judge_rows(FamilyJudge(1.0, 1.0, 0.0), 20, rng), "cue"),
        *_as("listens", judge_rows(FamilyJudge(1.0, 0.0, 0.0), 20, rng), "cue"),
        *_as("never", tie_rows(TieJudge(0.0, 0.0), 20, 8, rng), "tie"),
        *_as("reads", words_rows(WordsJudge(0.0, 1.0), 20, rng), "words"),
    ]
    sides = ({WORDS: "congruent"}, {WORDS: "conflict"})
    attrs = {("words", f"words-it-{i}"): ItemAttributes({}, sides[::-1] if i % 2 else sides)
             for i in range(20)}  # fmt: skip
    raw = summarize(rows, replicates=200, attributes=attrs)
    return Summary.of(json.loads(json.dumps(raw)))


def test_each_section_shows_its_records_flagged_first(tmp_path: Path) -> None:
    (tmp_path / "tables").mkdir()  # as report/build.py makes it
    ctx = ReportContext(_summary(), tmp_path, tmp_path / "figures")
    dom, ties, conflict = dominance_section(ctx), ties_section(ctx), conflict_section(ctx)
    assert dom is not None and ties is not None and conflict is not None
    anchor, title, note, body = dom
    assert anchor == "text-dominance" and note == "2 rows, 1 named"
    assert body.index("obeys") < body.index("listens") and "above +10%" in body
    assert ties[2] == "1 row, 1 named" and "never says tie" in ties[3]
    assert conflict[1].startswith("Word–tone conflict") and "-100.0%" in conflict[3]
    for name in ("text_dominance", "ties", "conflict"):
        assert (tmp_path / "tables" / f"{name}.csv").is_file()
    md = "\n".join(pressure_lines(ctx.summary))
    for heading in ("## Pressure from the text", "## Tie items", "## Word–tone conflict"):
        assert heading in md
    assert "| reads | words | 20 |" in md


def test_runs_without_them_get_no_section(tmp_path: Path) -> None:
    rows = judge_rows(FamilyJudge(1.0, 0.0, 0.0), 10, np.random.default_rng(1))
    plain = Summary.of(json.loads(json.dumps(summarize(
        [r for r in rows if r.cue == "none"], replicates=100))))  # fmt: skip
    ctx = ReportContext(plain, tmp_path, tmp_path / "figures")
    assert dominance_section(ctx) is None and ties_section(ctx) is None
    assert conflict_section(ctx) is None and pressure_lines(plain) == []
