"""paraudit.collector: the CLI's garbage-collector settings, set once per process (the test
processes set them too, in tests/conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_cli_sets_the_thresholds_and_freezes_its_imports_once() -> None:
    """In a fresh process: the defaults before, `THRESHOLDS` and a frozen heap after the CLI's
    callback, and a second `tune()` (another command in the same process) changes nothing."""
    script = (
        "import gc\n"
        "from typer.testing import CliRunner\n"
        "from paraudit.cli.main import app\n"
        "from paraudit.collector import THRESHOLDS, tune\n"
        "assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0\n"
        "r = CliRunner().invoke(app, ['judges'])\n"
        "assert r.exit_code == 0, r.output\n"
        "frozen = gc.get_freeze_count()\n"
        "assert gc.get_threshold() == THRESHOLDS and frozen > 0, frozen\n"
        "tune()\n"
        "assert gc.get_freeze_count() == frozen\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_test_processes_run_with_the_clis_settings() -> None:
    import gc

    from paraudit.collector import THRESHOLDS

    assert gc.get_threshold() == THRESHOLDS and gc.get_freeze_count() > 0
