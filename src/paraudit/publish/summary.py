"""A run folder's summary, computed as `paraudit report` computes it (same groups, same
sections, same seed), so a card's summary can be recomputed and compared byte for byte."""

from __future__ import annotations

from pathlib import Path

from paraudit.errors import ParauditError
from paraudit.runfolder.names import RESULTS
from paraudit.stats.rowgroups import RowGroups, read_groups
from paraudit.stats.sequential_record import annotate as annotate_sequential
from paraudit.stats.summary import summarize_groups
from paraudit.stats.summary_model import Summary

REPLICATES = 10_000
SEED = 0


def run_groups(run: Path) -> RowGroups:
    if not (run / RESULTS).is_file():
        raise ParauditError(f"{run}: no {RESULTS} (is this a finished 'paraudit run' folder?)")
    groups = read_groups(run)
    if not groups.groups:
        raise ParauditError(f"{run} holds no result rows; finish the run first")
    return groups


def run_summary(
    run: Path, replicates: int = REPLICATES, seed: int = SEED, groups: RowGroups | None = None
) -> Summary:
    """The summary of one run folder (its judges under their own labels)."""
    g = run_groups(run) if groups is None else groups
    raw = summarize_groups(
        ((x.judge, x.task, x) for x in g),
        replicates=replicates,
        seed=seed,
        delivery=g.delivery.cells(),
        twins=g.twins,
        # No `runs`: a card's summary is one run's figures as cards have always held them,
        # without the report's comparisons of judge pairs (joined clips, scaffold).
    )
    # A sequential run's verdicts say it stopped early, as the report's do (its record is one
    # of the card's subjects, publish/digests.py).
    annotate_sequential(raw, [run])
    return Summary.of(raw)
