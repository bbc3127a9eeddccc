"""Fault injection, the fourth hostile pass (issue 30's fresh pass, `scripts/hostile_pass.py`):
each attempt that failed there is a row here, through the CLI as a user runs it, with the
invariants every fault row shares: exit 1 or 2, one `error:` line naming the problem and the
fix, no traceback, the inputs unchanged.

Rows: gate / series / card with 10^9 bootstrap replicates (ran for ever: typer checked only the
minimum) · series with an empty --label (accepted: the run was named nowhere) · series --items
/dev/zero or a FIFO (read for ever) · gate and series on a run whose run.json is damaged
(gated anyway, while report and card refuse it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.cli.test_faults import _compare_run, _invoke, _snapshot


def _refused(tmp_path: Path, *args: str, expect: str) -> None:
    before = _snapshot(tmp_path)
    code, out = _invoke(*args)
    lines = [line for line in out.splitlines() if line.strip()]
    assert code in (1, 2) and "Traceback" not in out, out
    assert len(lines) == 1 and lines[0].startswith("error:") and expect in lines[0], out
    assert _snapshot(tmp_path) == before


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    run = _compare_run(tmp_path)
    other = tmp_path / "run2"
    shutil.copytree(run, other)
    return run, other


@pytest.mark.parametrize("command", ["gate", "series", "card"])
def test_replicates_beyond_the_bound_are_refused(tmp_path: Path, command: str) -> None:
    run, other = _two_runs(tmp_path)
    args = {
        "gate": ["gate", str(run), "--require", "native>=usable"],
        "series": ["series", str(run), str(other)],
        "card": ["card", str(run), "--out", str(tmp_path / "card")],
    }[command]
    _refused(tmp_path, *args, "--replicates", "1000000000", expect="give 100–100,000")


def test_series_refuses_an_empty_label(tmp_path: Path) -> None:
    run, other = _two_runs(tmp_path)
    _refused(tmp_path, "series", str(run), str(other), "--label", "", "--label", "b",
             expect="--label number 1 is empty")  # fmt: skip


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_series_items_that_never_end_are_refused_before_reading(tmp_path: Path, kind: str) -> None:
    run, other = _two_runs(tmp_path)
    if kind == "fifo":
        items = tmp_path / "ids"
        os.mkfifo(items)
    else:
        items = Path("/dev/zero")
    expect = "is a FIFO" if kind == "fifo" else "is a device"
    _refused(tmp_path, "series", str(run), str(other), "--items", str(items), expect=expect)


@pytest.mark.parametrize("command", ["gate", "series"])
def test_a_damaged_run_json_is_refused(tmp_path: Path, command: str) -> None:
    run, other = _two_runs(tmp_path)
    (other / "run.json").write_text("{oops", encoding="utf-8")
    args = {
        "gate": ["gate", str(other), "--require", "native>=usable"],
        "series": ["series", str(run), str(other)],
    }[command]
    _refused(tmp_path, *args, expect="run.json is unreadable")
