"""Result rows held compactly for the statistics, one judge × task at a time.

A report over a million rows cannot keep a million validated row objects (or dicts): it keeps,
per row, a tuple of the fields statistics read (`FIELDS`), with repeated values (item ids,
labels, answer dicts) shared, and rebuilds each row as a dict only while a statistic reads it.
`summarize_groups` walks one judge × task at a time over these.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any

from paraudit.items.twins import MARK
from paraudit.runfolder.rows import ResultRow, iter_rows
from paraudit.stats.delivery import DeliveryTally

FIELDS = (
    "item_id",
    "branch",
    "probe",
    "protocol",
    "cue",
    "order",
    "context_order",
    "pred",
    "gold",
    "status",
    "correct",
    "asks",
    "null",
)
"""What statistics read of a row, besides its judge and task (the group's)."""


class GroupRows:
    """The rows of one judge × task; iterating yields each as a dict of FIELDS + judge, task
    (built on the fly, so only the compact tuples stay in memory)."""

    __slots__ = ("judge", "task", "_rows")

    def __init__(self, judge: str, task: str) -> None:
        self.judge, self.task = judge, task
        self._rows: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        judge, task = self.judge, self.task
        for values in self._rows:
            row = dict(zip(FIELDS, values, strict=True))
            row["judge"] = judge
            row["task"] = task
            yield row


class RowGroups:
    """Rows of one or more runs by (judge, task)."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str], GroupRows] = {}
        self.twins: dict[tuple[str, str], GroupRows] = {}
        """Rows of invariance twins (items/twins.py), kept out of `groups`: every statistic
        but the invariance audit's is about the original items (stats/invariance.py)."""
        self._shared: dict[Any, Any] = {}
        self.delivery = DeliveryTally()
        """The audio-delivery check's tallies (stats/delivery.py): usage is read as rows
        arrive and not kept."""

    def _share(self, value: Any) -> Any:
        """One object per distinct value (a million rows name a few thousand items and a
        handful of labels and answers)."""
        if isinstance(value, dict):
            key: Any = ("dict", *value.items())
        elif isinstance(value, str):
            key = value
        else:
            return value  # None, bools and small ints are shared by Python already
        return self._shared.setdefault(key, value)

    def add(self, row: ResultRow, judge: str | None = None) -> None:
        judge = judge or row.judge
        key = (judge, row.task)
        where = self.twins if MARK in row.item_id else self.groups
        group = where.get(key)
        if group is None:
            group = where[key] = GroupRows(self._share(judge), self._share(row.task))
        share = self._share
        group._rows.append(
            (
                share(row.item_id),
                row.branch,
                share(row.probe),
                share(row.protocol),
                share(row.cue),
                share(row.order),
                share(row.context_order),
                share(row.pred),
                share(row.gold),
                share(row.status),
                row.correct,
                row.asks,
                row.null,
            )
        )
        self.delivery.add(judge, row.task, row.status, row.usage, len(row.audio_sent_sha256))

    @property
    def judges(self) -> list[str]:
        return sorted({judge for judge, _ in self.groups})

    def __len__(self) -> int:
        return sum(len(g) for g in self.groups.values())

    def __iter__(self) -> Iterator[GroupRows]:
        """The groups sorted by (judge, task)."""
        for key in sorted(self.groups):
            yield self.groups[key]

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every row as a dict (small runs, tests)."""
        for group in self:
            yield from group

    def with_twins(self) -> Iterator[tuple[str, str, Iterable[dict[str, Any]]]]:
        """(judge, task, original and twin rows) of every judge × task that has twins."""
        for key in sorted(self.twins):
            twins, original = self.twins[key], self.groups.get(key)
            rows: Iterable[dict[str, Any]] = chain(original or (), twins)
            yield twins.judge, twins.task, rows


def read_groups(run_dir: Path) -> RowGroups:
    """RUN_DIR/results.jsonl, streamed (each row validated, a bad row named by its line) into
    compact groups."""
    groups = RowGroups()
    for row in iter_rows(run_dir):
        groups.add(row)
    return groups


def merge_runs(runs: Iterable[tuple[str, RowGroups]]) -> RowGroups:
    """One RowGroups of several runs; a judge that appears in more than one run is told apart
    by its run's label ("JUDGE [LABEL]")."""
    runs = list(runs)
    seen: dict[str, int] = {}
    for _, groups in runs:
        for judge in groups.judges:
            seen[judge] = seen.get(judge, 0) + 1
    out = RowGroups()
    for label, groups in runs:
        for (judge, task), group in groups.groups.items():
            if seen[judge] > 1:
                group.judge = judge = f"{judge} [{label}]"
            out.groups[(judge, task)] = group
        for (judge, task), group in groups.twins.items():
            if seen.get(judge, 0) > 1:
                group.judge = judge = f"{judge} [{label}]"
            out.twins[(judge, task)] = group
        for judge in groups.judges:
            if seen[judge] > 1:
                groups.delivery.renamed(judge, f"{judge} [{label}]")
        out.delivery.merge(groups.delivery)
    return out
