"""What the terminal prints can be pasted back (issue 30, point 5): paths, specs and commands are
printed literally — no emoji codes, no markup, no line break inside them — at 80 columns.

Each command runs in a fresh interpreter with COLUMNS=80, as a user's shell does: the CLI's
console takes its width when it is made, so an in-process run would inherit whatever width
another test met first."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_dataset

SRC = str(Path(__file__).resolve().parents[2] / "src")
# Everything rich would rewrite: an emoji code, markup, a spec-like ':m:' (rich turned
# 'openai:m:…' into 'openaiⓂ…'), a space; and long enough that 80 columns cannot hold it.
ODD = "a-folder-name-long-enough-to-need-wrapping-at-eighty/:smile: [bold]x[/bold] openai:m:y"


def paraudit(*args: str, columns: str | None = "80") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    env.pop("COLUMNS", None)
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run(
        [sys.executable, "-m", "paraudit.cli.main", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def _line_with(text: str, needle: str) -> str:
    lines = [line for line in text.splitlines() if needle in line]
    assert lines, f"{needle!r} not printed whole on one line:\n{text}"
    return lines[0]


@pytest.mark.parametrize("columns", ["80", "200", None])
def test_run_and_report_print_odd_paths_literally_and_the_next_command_pastes_back(
    tmp_path: Path, columns: str | None
) -> None:
    make_dataset(tmp_path / "ds", tmp_path / "src")
    out = tmp_path / ODD / "run"
    out.parent.mkdir(parents=True)
    r = paraudit(
        "run",
        str(tmp_path / "ds"),
        "--judge",
        "builtin:first",
        "--out",
        str(out),
        "--probes",
        "J",
        columns=columns,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "😄" not in r.stdout and "Ⓜ" not in r.stdout
    _line_with(r.stdout, str(out / "results.jsonl"))
    # The printed next command, pasted back as a shell would read it, reports on this run.
    line = _line_with(r.stdout, "paraudit report ")
    words = shlex.split(line[line.index("paraudit report ") :])
    assert words[:3] == ["paraudit", "report", str(out)] and words[3:5] == ["--out", "REPORT_DIR"]
    report = tmp_path / ODD / "report"
    r = paraudit(*words[1:3], "--out", str(report), "--replicates", "200", columns=columns)
    assert r.returncode == 0, r.stdout + r.stderr
    _line_with(r.stdout, str(report / "report.html"))


def test_a_failed_run_prints_its_resume_command_whole(tmp_path: Path) -> None:
    make_dataset(tmp_path / "ds", tmp_path / "src")
    out = tmp_path / ODD / "run"
    out.parent.mkdir(parents=True)
    judge = "builtin:random?fail_rate=1&fail_times=99"
    r = paraudit("run", str(tmp_path / "ds"), "--judge", judge, "--out", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    line = _line_with(r.stderr, "error: ")
    resume = shlex.split(line[line.index("paraudit run ") :])
    assert resume[:3] == ["paraudit", "run", str(tmp_path / "ds")], line
    assert resume[resume.index("--out") + 1] == str(out) and judge in resume, line
