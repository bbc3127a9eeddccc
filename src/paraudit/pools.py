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


# The signals a worker must not handle the parent's way. The parent's CLI turns both into
# KeyboardInterrupt (cli.common.stoppable); a forked worker inherits that handler, and a worker
# that raised it printed "Process ForkProcess-2: Traceback" into the command's output (seen once
# in a clean-clone CI: a group Ctrl-C, or stop_workers' SIGTERM, landing in a worker's Python).
_PARENTS_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _quiet_worker(initializer: Callable[..., None] | None, *args: Any) -> None:
    """A pool worker's start: Ctrl-C is the parent's to handle (the terminal sends SIGINT to the
    whole process group, and a worker that caught it would only fail its job and take the
    next), SIGTERM (stop_workers, or the parent's death) ends the worker quietly, and the
    worker dies with its parent, however the parent ends (Linux). The worker was forked with
    both signals blocked (`_SignalSafePool.submit`); one that came since is discarded or acted
    on here, never by the parent's handler."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _PARENTS_SIGNALS)
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


class _SignalSafePool(ProcessPoolExecutor):
    """A process pool whose workers start with SIGINT and SIGTERM blocked, so that neither can
    reach a worker between its fork (or spawn: the mask survives exec) and `_quiet_worker`.
    Workers are started inside `submit` (all at the first one under fork, one at a time
    otherwise), in the calling thread, whose mask the child inherits."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if not hasattr(signal, "pthread_sigmask"):  # Windows: no masks, no fork
            return super().submit(fn, *args, **kwargs)
        # The mask is read first and changed inside the try: pthread_sigmask runs pending Python
        # handlers, and a Ctrl-C raised by the blocking call itself must still find the finally
        # (else the parent's thread kept both signals blocked, found in a stress test).
        before = signal.pthread_sigmask(signal.SIG_BLOCK, ())
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, _PARENTS_SIGNALS)
            return super().submit(fn, *args, **kwargs)
        finally:
            # A signal that came meanwhile is delivered once unblocked (to this thread or
            # another that has it unblocked), as it would have been; never to a worker.
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


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
    ex = _SignalSafePool(
        max(1, workers), initializer=_quiet_worker, initargs=(initializer, *initargs)
    )
    try:
        yield ex
    except BaseException:
        stop_workers(ex)
        raise
    ex.shutdown(wait=True)
