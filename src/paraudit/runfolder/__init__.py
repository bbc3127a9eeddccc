"""The run folder as a contract: file names, RunSpec, ResultRow, CallRecord, readers, lock.

The bottom layer: the runner writes through it; statistics, report and compare read through
it. It imports nothing from runner, stats or report.
"""

from paraudit.runfolder.calls import VERSION as CALLS_VERSION
from paraudit.runfolder.calls import CallRecord, CallStore
from paraudit.runfolder.lock import RunLock
from paraudit.runfolder.names import CALLS, LOCK, RESULTS, RUN_JSON
from paraudit.runfolder.rows import ResultRow, read_rows, write_rows
from paraudit.runfolder.spec import (
    RunSpec,
    dataset_fingerprint,
    read_run_json,
    write_run_json,
)

__all__ = [
    "CALLS",
    "CALLS_VERSION",
    "LOCK",
    "RESULTS",
    "RUN_JSON",
    "CallRecord",
    "CallStore",
    "ResultRow",
    "RunLock",
    "RunSpec",
    "dataset_fingerprint",
    "read_rows",
    "read_run_json",
    "write_run_json",
    "write_rows",
]
