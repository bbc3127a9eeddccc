"""An exclusive lock on a run folder, so two `paraudit run`s never write the same files."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from paraudit.errors import ParauditError
from paraudit.runfolder.names import LOCK


class RunLock:
    """`with RunLock(run_dir):` holds an flock on RUN_DIR/.lock; a second holder fails at once.

    The kernel drops the lock when the process ends, however it ends (SIGKILL included), so a
    stale lock file never blocks a later run.
    """

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "another process"
            os.close(fd)
            raise ParauditError(
                f"{self.path.parent} is in use by another 'paraudit run' (pid {holder}); "
                "wait for it to finish, or pass another --out"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
