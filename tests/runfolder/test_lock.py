"""The run lock: a second holder fails at once with a clear message; a dead holder frees it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from paraudit.errors import ParauditError
from paraudit.runfolder import RunLock

HOLD = """
import sys, time
from pathlib import Path
from paraudit.runfolder import RunLock
with RunLock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(60)
"""


def test_second_lock_fails_at_once_and_names_the_holder(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with pytest.raises(
            ParauditError, match=f"in use by another 'paraudit run' .pid {proc.pid}"
        ):
            RunLock(tmp_path).acquire()
        assert time.monotonic() - t0 < 1
    finally:
        proc.kill()
        proc.wait()
    # The kernel released the dead holder's lock: the folder is usable again.
    with RunLock(tmp_path):
        pass


def test_lock_is_reentrant_after_release(tmp_path: Path) -> None:
    lock = RunLock(tmp_path)
    with lock:
        with pytest.raises(ParauditError):
            RunLock(tmp_path).acquire()
    with RunLock(tmp_path):
        pass
