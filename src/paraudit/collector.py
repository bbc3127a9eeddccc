"""The garbage collector's settings for a whole process: the CLI and the test suite.

An audit keeps many small objects alive for a long time (the run's rows, the statistics'
groups, the report's records), and CPython's default thresholds (700, 10, 10) then start
collections that walk them, the older ones every object alive in the process, again and
again while they pile up. Measured (CPU time, not collection counts) on this
project's 2-core machine type (whole commands, 2026-12-06):
- the known-behaviour and accounting test modules (a 44,880-row audit through the runner and
  its report): 52.9 CPU-seconds with the defaults, 44.6 with `tune()`;
- the suite's pytest part (scripts/test.sh, Ray's tests beside it; /proc/stat): 1,157 busy
  core-seconds with the defaults, 1,015 twice with `tune()` in every test process;
- `paraudit demo` with its renders cached: 40.9 and 39.6 CPU-seconds with the defaults, 39.1
  and 36.7 with `tune()`, at the same peak memory (490 MB).
Reference counting still frees everything that is not part of a cycle at once; only cycles
wait longer to be collected.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 20)
"""gc.set_threshold's (young, middle, old): a young collection after 50,000 net allocations
instead of 700, and each older one after 20 of the one below instead of 10."""

_tuned = False


def tune() -> None:
    """Once per process: freeze what is alive now (what was imported so far; the CLI's
    commands import their libraries later, so there the thresholds do the work) and collect
    less often."""
    global _tuned
    if _tuned:
        return
    _tuned = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
