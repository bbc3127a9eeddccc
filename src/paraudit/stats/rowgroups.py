"""Result rows held compactly for the statistics, one judge × task at a time.

A report over a million rows cannot keep a million validated row objects (or dicts): it keeps,
per row, a plain tuple of the fields statistics read (`statrow.FIELDS`), with repeated values
(item ids, labels, answer dicts) shared, and hands each row out as a typed `StatRow` (a
NamedTuple: a tuple too, cheaper to build than a dict) only while a statistic reads it.
`summarize_groups` walks one judge × task at a time over these.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from paraudit.items.twins import MARK
from paraudit.runfolder.rows import ResultRow, iter_rows
from paraudit.stats.delivery import DeliveryTally
from paraudit.stats.statrow import FIELDS, StatRow, row_values

__all__ = ["FIELDS", "GroupRows", "RowGroups", "merge_runs", "read_groups"]

_PADS = tuple((None,) * (len(FIELDS) - n) for n in range(len(FIELDS) + 1))
"""_PADS[n]: the None fields a stored tuple of n values lacks."""


class GroupRows:
    """The rows of one judge × task; iterating yields each as a StatRow (built on the fly, so
    only the compact tuples stay in memory)."""

    __slots__ = ("judge", "task", "_rows")

    def __init__(self, judge: str, task: str) -> None:
        self.judge, self.task = judge, task
        self._rows: list[tuple[Any, ...]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[StatRow]:
        head = (self.judge, self.task)
        # tuple.__new__ skips StatRow.__new__'s argument binding: the values are already the
        # fields in order (row_values), and this runs once per row per pass. A stored tuple
        # lacks its trailing None fields (RowGroups.add); they are put back here.
        new, pads = tuple.__new__, _PADS
        for values in self._rows:
            yield new(StatRow, head + values + pads[len(values)])


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
        elif isinstance(value, tuple):
            key = ("tuple", *value)  # a sampled row's (agreeing, answered) draws
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
        values = row_values(row, self._share)
        # Trailing None fields are not stored (GroupRows puts them back): the optional fields
        # at the end (a pointwise row's context_order, an unsampled row's agreement, fields
        # added later for some probes only) cost memory only in the rows that set them.
        n = len(values)
        while n and values[n - 1] is None:
            n -= 1
        group._rows.append(values if n == len(values) else values[:n])
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

    def rows(self) -> Iterator[StatRow]:
        """Every row (small runs, tests)."""
        for group in self:
            yield from group


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
