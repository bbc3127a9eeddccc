"""The one output guard: every file or folder paraudit writes is checked here before writing.

A judge's `calllog=` once appended its log to a dataset's items.jsonl, `build invariance --from
S --out S --force` replaced its own source, and two builds into one folder both "succeeded".
So every output (judge options, builds, demo's sub-folders, reports, exports, run folders)
calls `guard_output` before any work and again before its final swap (`recheck`), and holds
`OutputLock` while it writes:

- never inside a dataset folder (it would change the dataset and its fingerprint), nor inside
  a run folder the command does not own (`paraudit run` owns its --out);
- never on one of the command's own inputs, above one (replacing the folder that holds it) or
  inside one;
- one writer at a time, as for a run folder (runfolder.lock): an flock the kernel drops when
  the process ends, however it ends.

It lives with the datasets because a dataset is what it protects first (the dataset writer's
swap calls `recheck`); it reads the run folder's names from runfolder (which never imports
items).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from paraudit.errors import ParauditError
from paraudit.items.names import ITEMS, MANIFEST
from paraudit.runfolder.names import CALLS, LOCK, RUN_JSON


def _real(path: Path) -> Path:
    """`path` with symlinks resolved as far as it exists (a link into a dataset counts)."""
    return path.expanduser().absolute().resolve()


def _ancestors(path: Path) -> list[Path]:
    """Every folder above `path`, resolved; `path` itself is the caller's (replacing a dataset
    with --force is allowed, writing into one is not)."""
    real = _real(path.expanduser().absolute().parent)
    return [real, *real.parents]


def is_dataset(folder: Path) -> bool:
    return (folder / MANIFEST).is_file() and (folder / ITEMS).is_file()


def is_run(folder: Path) -> bool:
    return (folder / RUN_JSON).is_file() or (folder / CALLS).is_file()


def enclosing_dataset(path: Path) -> Path | None:
    """The dataset folder `path` lies in, if any."""
    return next((p for p in _ancestors(path) if is_dataset(p)), None)


def enclosing_run(path: Path) -> Path | None:
    """The run folder `path` lies in, if any."""
    return next((p for p in _ancestors(path) if is_run(p)), None)


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def guard_output(
    path: Path,
    option: str,
    *,
    inputs: Sequence[Path] = (),
    own_run: Path | None = None,
) -> None:
    """Refuse `path` (named by `option` in the message, e.g. "--out" or "calllog=") as an
    output: inside a dataset, inside a run folder other than `own_run`, or on, above or
    inside one of the command's `inputs` (datasets, run folders, source files it reads)."""
    ds = enclosing_dataset(path)
    if ds is not None:
        raise ParauditError(
            f"{option} {path} is inside the dataset {ds}; write outputs outside dataset folders"
        )
    run = enclosing_run(path)
    if run is not None and (own_run is None or run != _real(own_run)):
        raise ParauditError(
            f"{option} {path} is inside the run folder {run}, which 'paraudit run' manages; "
            "write it outside run folders"
        )
    real = _real(path)
    for source in inputs:
        src = _real(source)
        if real == src:
            raise ParauditError(
                f"{option} {path} is the command's own input; write the output elsewhere"
            )
        if _within(src, real):
            raise ParauditError(
                f"{option} {path} holds the command's input {source}; replacing it would "
                "destroy what is being read: write the output elsewhere"
            )
        if _within(real, src):
            raise ParauditError(
                f"{option} {path} is inside the command's input {source}; write outputs "
                "outside what the command reads"
            )


recheck = guard_output
"""The same checks, made again just before a finished output is swapped into place: another
process may have made a dataset or a run folder around the target while this one worked."""


def _lock_file(target: Path) -> Path:
    """Where a target's lock lives: inside a run folder its own lock (runfolder.LOCK, so a
    report and a `paraudit run` exclude each other); else a hidden file beside the target
    (a folder being replaced by a swap cannot hold its own lock)."""
    if target.is_dir() and is_run(target):
        return target / LOCK
    return target.absolute().parent / f".{target.name}.lock"


class OutputLock:
    """`with OutputLock(path, option):` one writer per output; a second fails at once with the
    holder's pid. The lock file beside the target is removed when the writer is done."""

    def __init__(self, target: Path, option: str = "--out") -> None:
        self.target = target
        self.option = option
        self.path = _lock_file(target)
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            # The output's folders are made now anyway (the checks before work passed).
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise ParauditError(
                f"{self.option} {self.target}: cannot lock it ({e.strerror}); choose a folder "
                "you can write"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode("ascii", "replace").strip() or "another process"
            os.close(fd)
            raise ParauditError(
                f"{self.option} {self.target} is being written by another paraudit command "
                f"(pid {holder}); wait for it to finish, or choose another {self.option}"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        if self.path.name != LOCK:
            # Removed while still held, so a waiting process never locks an unlinked file
            # that a third one then recreates beside it.
            self.path.unlink(missing_ok=True)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> OutputLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
