"""Thread pools that a Ctrl-C can leave: work in flight (an LLM call that hangs for minutes) is
abandoned, not waited for.

`with ThreadPoolExecutor() as ex:` waits for every running call when the block is left, so a
KeyboardInterrupt raised while a call hangs is held until the call's timeout (and the
interpreter's exit joins the threads once more). Finished work is already stored (each reply
is committed to its cache as it arrives), so nothing is lost by not waiting.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager


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
