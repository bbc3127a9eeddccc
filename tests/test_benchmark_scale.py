"""Smoke test of benchmarks/scale.py on the two-item test dataset: the measuring machinery
(calibration, scaled dataset, run / resume / report as processes, row comparison, JSON)."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.scale import main

SRC = Path(__file__).resolve().parents[1] / "src"


def test_scale_benchmark_compares_two_audits(tiny_dataset: Path, tmp_path: Path) -> None:
    figures = tmp_path / "figures.json"
    args = ["--starter", str(tiny_dataset), "--rows", "1", "--baseline-src", str(SRC)]
    code = main(
        [*args, "--new-src", str(SRC), "--work", str(tmp_path / "w"), "--json", str(figures)]
    )
    data = json.loads(figures.read_text())
    assert code == 0, data["checks"]
    new, base = data["new"], data["baseline"]
    assert new["rows"] == base["rows"] == data["rows_per_copy"] > 0
    assert [c["pass"] for c in data["checks"]] == [True] * 6
    for side in (new, base):
        assert side["resume_calls"] == 0
        assert [side["steps"][s]["rows"] for s in ("run", "resume", "report")] == [side["rows"]] * 3
        assert all(side["steps"][s]["peak_mb"] > 10 for s in ("run", "resume", "report"))
    assert new["shared"] == base["shared"]
