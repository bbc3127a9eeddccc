"""The units that read twin items or pairs of runs (stats/paired_units.py) through the summary:
their sections equal what their modules compute on their own, appear only when their input is
there, and the invariance habits stay out of the cascade."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paraudit.stats import summary as S
from paraudit.stats.analyses import ANALYSES
from paraudit.stats.analysis import Analysis, FromInputs, GroupContext, Record, Runs
from paraudit.stats.invariance import invariance_sections
from paraudit.stats.joined import side_by_side as joined_side_by_side
from paraudit.stats.judge_model import JudgeModel, audit_rows
from paraudit.stats.scaffold import side_by_side as scaffold_side_by_side
from paraudit.stats.statrow import StatRow
from paraudit.stats.summary import assemble, summarize
from paraudit.stats.summary.sections import Group
from tests.stats.test_invariance import pitch_follower, rows_of

PAIRED = ("invariance", "invariance_voices", "joined", "scaffold", "generator_bias")


def _audit(name: str, j: float, seed: int, items: int = 24) -> list[StatRow]:
    rng = np.random.default_rng(seed)
    return audit_rows(JudgeModel(name, p=0.9, o=0.9, j=j), items, rng, cues=("none",))


def test_a_run_without_twins_or_pairs_has_none_of_their_sections() -> None:
    raw = summarize(_audit("m", 0.9, 0) + _audit("n", 0.6, 1), replicates=100)
    assert not set(PAIRED) & set(raw)
    assert set(PAIRED) == S.OPTIONAL
    for rows in (_audit("m", 0.9, 0), []):  # every other section is there, even with no row
        assert set(S.SECTIONS) - S.OPTIONAL <= set(summarize(rows, replicates=50))


def test_joined_section_is_the_side_by_side_of_the_pair() -> None:
    rows = _audit("m", 0.9, 0) + _audit("m?clips=joined", 0.5, 1)
    raw = summarize(rows, replicates=300, seed=4)
    assert raw["joined"] == joined_side_by_side(rows, replicates=300, seed=4)
    assert any(t["changes"] for r in raw["joined"] for t in r["j"])  # 90 % → 50 %
    assert "scaffold" not in raw and "generator_bias" not in raw


def test_scaffold_section_is_the_side_by_side_of_the_pair() -> None:
    rows = _audit("m", 0.5, 0) + _audit("scaffold:m", 0.95, 1)
    raw = summarize(rows, replicates=300, seed=2)
    assert raw["scaffold"] == scaffold_side_by_side(rows, calls={}, replicates=300, seed=2)
    [r] = raw["scaffold"]
    assert (r["judge"], r["scaffold"]) == ("m", "scaffold:m")
    assert r["calls_per_answer"] == [1.0, None]  # no run folders to read the calls from
    assert "joined" not in raw


def test_invariance_is_started_only_for_groups_with_twins() -> None:
    twinned = rows_of(pitch_follower, 12)
    plain = [r._replace(judge="plain") for r in twinned if "~inv-" not in r.item_id]
    raw = summarize(twinned + plain, replicates=200)
    assert {r["judge"] for r in raw["invariance"]} == {"sim"}
    assert {r["judge"] for r in raw["invariance_voices"]} == {"sim"}
    # The unit's records are what the audit computes on the group's rows and twins.
    alone = invariance_sections([("sim", "single-turn-emotions", twinned)], replicates=200)
    assert raw["invariance"] == alone["invariance"]
    assert raw["invariance_voices"] == alone["invariance_voices"]
    g = Group("plain", "single-turn-emotions", plain)
    assert "invariance" not in g.start(ANALYSES, {"invariance": None})
    assert "invariance" in g.start(ANALYSES, {"invariance": twinned})


def test_invariance_habits_are_set_aside_from_the_cascade() -> None:
    twinned = rows_of(pitch_follower, 30)
    originals = [r for r in twinned if "~inv-" not in r.item_id]
    [with_twins] = summarize(twinned, replicates=300)["verdicts"]
    [without] = summarize(originals, replicates=300)["verdicts"]
    for key in ("diagnosis", "headline", "kind", "group"):
        assert with_twins[key] == without[key], key
    n = len(without["behaviours"])
    assert with_twins["behaviours"][:n] == without["behaviours"]
    added = with_twins["behaviours"][n:]
    assert [b["kind"] for b in added] == ["flips on irrelevant changes", "not discriminating"]
    tail = " Invariance: " + "; ".join(b["text"] for b in added) + "."
    assert with_twins["text"] == without["text"] + tail


def test_a_new_across_unit_is_one_line_in_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit comparing judges (here: how many judges the runs hold) needs only its Analysis:
    the summary starts it once, hands it the runs, and writes its section."""
    seen: list[tuple[str, ...]] = []

    def count(ctx: GroupContext) -> list[Record]:
        runs = ctx.inputs["runs"]
        assert isinstance(runs, Runs)
        seen.append(runs.judges)
        rows = sum(1 for _ in runs.rows())
        return [{"judges": len(runs.judges), "rows": rows}]

    unit = Analysis(name="judge_count", title="Judges", start=FromInputs.of(count), across=True)
    monkeypatch.setattr(f"{assemble.__name__}.ANALYSES", (*ANALYSES, unit))
    rows = _audit("a", 0.9, 0) + _audit("b", 0.7, 1)
    raw: dict[str, Any] = summarize(rows, replicates=50)
    assert raw["judge_count"] == [{"judges": 2, "rows": len(rows)}]
    assert seen == [("a", "b")]  # once per summary, not per group


def test_a_group_unit_gated_by_an_input_is_not_started_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[str] = []

    def records(ctx: GroupContext) -> list[Record]:
        started.append(ctx.judge)
        return [{"judge": ctx.judge, "task": ctx.task, "items": ctx.items}]

    unit = replace(
        Analysis(name="gated", title="Gated", start=FromInputs.of(records)),
        input="delivery",
        optional=True,
    )
    monkeypatch.setattr(f"{assemble.__name__}.ANALYSES", (*ANALYSES, unit))
    raw = summarize(_audit("a", 0.9, 0), replicates=50)  # no delivery cells given
    assert started == [] and "gated" not in raw


def test_a_summary_without_pairs_imports_no_comparison_module() -> None:
    """The comparisons need all of scipy.stats (stats.compare, stats.generator_bias): a summary
    whose runs hold no pair must not pay to import them (benchmarks/stats.py's CPU budget)."""
    code = (
        "import sys\n"
        "from paraudit.stats.summary import summarize\n"
        "from tests.stats.test_paired_units import _audit\n"
        "summarize(_audit('m', 0.9, 0), replicates=20)\n"
        "print(sorted(m for m in ('paraudit.stats.compare', 'paraudit.stats.generator_bias',"
        " 'scipy.stats._stats_py') if m in sys.modules))\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, cwd=root)  # fmt: skip
    assert out.stdout.strip() == "[]"
