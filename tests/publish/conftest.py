"""The demo's four built-in judges on a small real starter build (the report tests' session
fixture, shared rather than rendered again), and synthetic run folders from the judge model."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paraudit.runfolder import write_rows
from paraudit.stats.judge_model import JudgeModel, audit_rows
from tests.report.conftest import small_report, small_run  # noqa: F401  (shared fixtures)
from tests.runfolder.test_rows import row


def model_run(
    path: Path,
    models: list[JudgeModel],
    items: int,
    seed: int = 0,
    tasks: tuple[str, ...] = ("single-turn-emotions",),
) -> Path:
    """A run folder whose results.jsonl holds the simulated judges' rows (no run.json)."""
    rows = []
    for m in models:
        for t in tasks:
            rows += audit_rows(m, items, np.random.default_rng(seed), task=t)
    path.mkdir(parents=True)
    write_rows(path, [row(**r._asdict(), key=f"k{n}") for n, r in enumerate(rows)])
    return path
