"""Checks the annotate commands run before any work: output paths and numbers given."""

from __future__ import annotations

import math
from pathlib import Path

from paraudit.annotate.export import EXPORT_FIELDS
from paraudit.cli.outputs import (
    check_output_file,
    distinct_outputs,
    header_kind,
    json_kind,
    refuse_inside_dataset,
)
from paraudit.errors import ParauditError
from paraudit.items.validate import dataset_errors

STATS_JSON = json_kind("annotate-stats JSON", "annotate-stats")
EXPORT_CSV = header_kind("answer CSV export", ",".join(EXPORT_FIELDS))
EXPORT_JSONL = header_kind("answer JSONL export", "", jsonl_keys=EXPORT_FIELDS)


def check_fraction(value: float, option: str) -> None:
    """A share such as an accuracy threshold: finite and within 0–1."""
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ParauditError(f"{option} must be a number from 0 to 1 (got {value:g})")


def check_export_outputs(
    store: Path, jsonl: Path | None, csv: Path | None, run: Path | None, force: bool
) -> None:
    """annotate-export's outputs: distinct from each other and from the store, each new (or,
    with --force, an earlier export of its kind), none inside a dataset."""
    distinct_outputs([("the store", store), ("--jsonl", jsonl), ("--csv", csv), ("--run", run)])
    if jsonl is not None:
        check_output_file(jsonl, option="--jsonl", force=force, kind=EXPORT_JSONL)
    if csv is not None:
        check_output_file(csv, option="--csv", force=force, kind=EXPORT_CSV)
    if run is not None:
        refuse_inside_dataset(run, "--run")


def check_study_dataset(dataset: Path, store: Path) -> None:
    """The dataset passes the checks `run` makes (containment, one format, the item rules)
    before a study is created or resumed: listeners must not hear a clip linked to a system
    file, nor tell the branches apart by sample rate. The store must not sit inside it."""
    errors = dataset_errors(dataset)
    if errors:
        raise ParauditError(
            f"{dataset} does not validate ({len(errors)} problem(s), first: {errors[0]}); "
            "no study was created (run 'paraudit validate' on it)"
        )
    refuse_inside_dataset(store, "--store")
