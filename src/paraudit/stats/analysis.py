"""One analysis, one unit: the protocol every statistic beyond the core cascade follows.

An analysis (answer accounting, strata, served models, null audio, invariance, delivery, joined
clips, samples, generator bias, scaffold …) is one `Analysis` registered in `stats/analyses.py`.
The summary, the report and the verdict iterate over that list instead of naming each analysis,
so a new one (or one a dimension plugin brings) is one new unit and one line there.

Its life, per judge × task: `start(judge, task)` makes a fresh `Tally`; every row of the group
is fed to `Tally.add` in one pass (rows arrive as typed `StatRow`s; keep what you tally compact —
counts and small tuples, never the rows themselves: the report runs over 300,000+ rows); then
`Tally.records(ctx)` turns the counts into the records of its summary.json section (plain JSON
values, each with `judge`, `task` and `items`), `behaviours(records, ctx)` names what the verdict
should say, and `report` (a dotted name, loaded lazily: report/ sits above stats/) renders the
section for the HTML and Markdown report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from paraudit.stats.model import Behaviour
from paraudit.stats.statrow import StatRow

Record = dict[str, Any]
"""One record of a summary section (JSON values only)."""


@dataclass(frozen=True)
class GroupContext:
    """What an analysis may read of its judge × task beyond its own rows."""

    judge: str
    task: str
    items: int
    """Items the group's rows rest on."""
    replicates: int
    """Bootstrap replicates for item-level intervals (stats/itemboot.py)."""
    seed: int
    accuracy: Mapping[tuple[str, str, str], Record] = field(default_factory=dict)
    """The group's accuracy records by (probe, protocol, cue), once resolved."""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """What an analysis needs from outside the rows, by analysis name (the audio-delivery
    check reads the calls' usage, which a StatRow does not carry)."""
    native_cue: str | None = None
    """The cue the verdict's native step reads (the least cued J pointwise that ran), when
    `behaviours` is called."""
    attributes: Mapping[str, Any] = field(default_factory=dict)
    """Item id → what the dataset says of it (stats/strata.py's ItemAttributes), read from the
    dataset the run recorded: result rows do not carry item attributes."""


class Tally(Protocol):
    """Row-by-row counts of one analysis for one judge × task. A tally whose figures come from
    elsewhere (`GroupContext.inputs`) may set a class attribute `reads_rows = False`: it is
    then not fed the rows."""

    def add(self, row: StatRow) -> None:
        """Count one row (called once per row of the group, in one pass)."""

    def records(self, ctx: GroupContext) -> list[Record]:
        """The section's records for this group (empty when the rows hold nothing for it)."""


def _no_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    return []


def _no_intervals(records: Sequence[Record]) -> int:
    return 0


@dataclass(frozen=True)
class Analysis:
    """One registered analysis."""

    name: str
    """Its section key in summary.json."""
    title: str
    """Its heading in the report."""
    start: Callable[[str, str], Tally]
    """A fresh tally for (judge, task)."""
    behaviours: Callable[[Sequence[Record], GroupContext], list[Behaviour]] = _no_behaviours
    """What the verdict names from this analysis's records (empty: nothing)."""
    report: str | None = None
    """`module:function` of its report part, imported only when a report is written: it takes
    a `report.build.ReportContext` and returns html.render's collapsed section (anchor, title,
    note, body) or None when its section is empty."""
    probes: frozenset[str] | None = None
    """Started only for groups that hold rows of one of these probes (None: every group), so a
    tally that must keep some answers (null audio keeps the real answers its N rows are
    compared with) costs nothing in runs that did not ask for it."""
    intervals: Callable[[Sequence[Record]], int] = _no_intervals
    """How many item-level 95 % intervals its records hold (summary.json's `intervals`)."""
