"""Outputs follow the user's umask (temporary files are private by design; outputs are not)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from paraudit.runfolder import write_rows
from tests.conftest import make_dataset
from tests.runfolder.test_rows import row


def test_datasets_and_results_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        make_dataset(tmp_path / "ds", tmp_path / "src")
        write_rows(tmp_path, [row()])
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "ds").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "results.jsonl").stat().st_mode) == 0o644
