"""Where stdout is not a terminal (a log, a pipe, CI) rich draws no bar; long commands print
plain progress lines on stderr instead, and stdout keeps only the results."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import make_dataset

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _run(tmp_path: Path, every: str) -> subprocess.CompletedProcess[str]:
    make_dataset(tmp_path / "ds", tmp_path / "src", positional=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    env["PARAUDIT_PROGRESS_EVERY"] = every
    args = ["run", str(tmp_path / "ds"), "--judge", "builtin:first", "--out", str(tmp_path / "r")]
    return subprocess.run(
        [sys.executable, "-m", "paraudit.cli.main", *args, "--probes", "J"],
        env=env,
        capture_output=True,  # neither stream is a terminal
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def test_a_run_into_a_pipe_prints_progress_lines_on_stderr(tmp_path: Path) -> None:
    r = _run(tmp_path, "0")  # a line at every step
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("auditing: ")]
    counts = [
        tuple(map(int, m.groups())) for m in map(re.compile(r"(\d+)/(\d+) \(").search, lines) if m
    ]
    assert counts, r.stderr
    # The plan's size, counted up to the end; the last line says it is done.
    total = counts[-1][1]
    assert counts[-1] == (total, total) and total == 56, counts
    assert [done for done, _ in counts] == sorted(done for done, _ in counts)
    assert "auditing: " not in r.stdout and "results (" in r.stdout


def test_a_short_command_prints_no_progress_line_by_default(tmp_path: Path) -> None:
    r = _run(tmp_path, "")  # the default: at most one line per 10 s
    assert r.returncode == 0, r.stderr
    assert "auditing: " not in r.stderr, r.stderr
