"""Smoke test of benchmarks/stats.py's side-by-side comparison: the baseline and this code run
as processes of their own, alternately, and the ratio of their times is printed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchmarks.stats import cli

REPO = Path(__file__).resolve().parents[1]


def test_a_baseline_checkout_is_timed_beside_this_code(capsys: pytest.CaptureFixture[str]) -> None:
    cli(["40", "200", "--baseline-root", str(REPO), "--repeat", "2"])
    out = capsys.readouterr().out
    runs = re.findall(r"run (\d)/2 (baseline|new) *: ([\d.]+) s wall, ([\d.]+) s CPU", out)
    # Alternately: baseline, new, baseline, new.
    assert [(k, side) for k, side, _, _ in runs] == [
        ("1", "baseline"),
        ("1", "new"),
        ("2", "baseline"),
        ("2", "new"),
    ]
    assert all(float(cpu) > 0 for *_, cpu in runs)
    assert re.search(r"new / baseline [\d.]+x wall, [\d.]+x CPU", out), out


def test_a_revision_git_does_not_know_is_one_line() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("no git checkout here: --baseline-rev needs `git archive`")
    with pytest.raises(SystemExit, match=r"--baseline-rev no-such-rev: git archive failed"):
        cli(["40", "200", "--baseline-rev", "no-such-rev"])


def test_a_root_without_the_benchmark_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as e:
        cli(["40", "200", "--baseline-root", str(tmp_path)])
    assert e.value.code == 2
