"""Thread and process pools that a Ctrl-C can leave: work in flight (an LLM call that hangs for
minutes, a render) is abandoned, not waited for, and no worker process outlives the command.

`with ThreadPoolExecutor() as ex:` waits for every running call when the block is left, so a
KeyboardInterrupt raised while a call hangs is held until the call's timeout (and the
interpreter's exit joins the threads once more). Finished work is already stored (each reply
is committed to its cache as it arrives), so nothing is lost by not waiting.
"""

from __future__ import annotations

import ctypes
import signal
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any


@contextmanager
def interruptible_pool(workers: int) -> Iterator[ThreadPoolExecutor]:
    """A ThreadPoolExecutor that, when its block ends in an exception (Ctrl-C included),
    cancels queued work and returns at once instead of joining running calls."""
    ex = ThreadPoolExecutor(max(1, workers))
    try:
        yield ex
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def _quiet_worker(initializer: Callable[..., None] | None, *args: Any) -> None:
    """A pool worker's start: Ctrl-C is the parent's to handle (the terminal sends SIGINT to the
    whole process group, and a worker that caught it would only fail its job and take the
    next), and the worker dies with its parent, however the parent ends (Linux)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if initializer is not None:
        initializer(*args)


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no prctl: the parent's cleanup (stop_workers) still ends the workers


def stop_workers(pool: ProcessPoolExecutor, grace_s: float = 1.0) -> None:
    """Cancel queued jobs, terminate the worker processes and join them (killed after
    `grace_s`): what is running is abandoned, as a Ctrl-C means."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + grace_s
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)


@contextmanager
def interruptible_processes(
    workers: int,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[ProcessPoolExecutor]:
    """A ProcessPoolExecutor that, when its block ends in an exception (Ctrl-C, SIGTERM made
    an exception by the CLI), terminates and joins its workers at once: `with
    ProcessPoolExecutor()` waited for every queued render (14–21 s after one Ctrl-C), and a
    second Ctrl-C or a SIGTERM left the workers running forever."""
    ex = ProcessPoolExecutor(
        max(1, workers), initializer=_quiet_worker, initargs=(initializer, *initargs)
    )
    try:
        yield ex
    except BaseException:
        stop_workers(ex)
        raise
    ex.shutdown(wait=True)
