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

Analyses that read more than one group's rows extend this in three ways, each a field of
`Analysis` (stats/paired_units.py has all four such units):

- `input`: twin items. The invariance audit reads a group's rows *and* its twins' rows (items
  whose audio changed one irrelevant property, kept out of every other figure): the twins come
  in through `GroupContext.inputs[input]`, and the unit is started only for groups that have
  them, so a run without twins pays nothing for it.
- `across`: pairs of groups or of runs (a judge with its clips separate and joined, a judge and
  its scaffold, two runs on two generators' sets). Such a unit is started once per summary,
  after every group, with judge and task ''; it is fed no rows, and its `records(ctx)` read
  `ctx.inputs['runs']`, a `Runs`: every judge, a second pass over the rows (taken only when
  its pair is there) and the run folders. Its records name their pair instead of a judge ×
  task, and raise no verdict behaviour.
- `aside`: behaviours that stay out of the cascade. The invariance audit's habits are about
  twins, not the items the diagnosis and headline judge: they are added after the verdict's
  behaviours and its text, as "<aside>: …; ….".

A unit may also write more than one section (`companions`: its tally's `companions()` gives
their records after `records(ctx)`), and a section absent from summaries before it became a unit
stays absent while it has no records (`optional`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

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


@dataclass(frozen=True)
class Runs:
    """What an `across` unit reads (`GroupContext.inputs['runs']`)."""

    judges: tuple[str, ...]
    rows: Callable[[], Iterable[StatRow]]
    """Every row of the original items again: a second pass, taken only by a unit whose pair
    of judges is in `judges`."""
    folders: tuple[Path, ...] = ()
    """The run folders (a report's); empty when the rows came from elsewhere."""


class Tally(Protocol):
    """Row-by-row counts of one analysis for one judge × task. A tally whose figures come from
    elsewhere (`GroupContext.inputs`) may set a class attribute `reads_rows = False`: it is
    then not fed the rows."""

    def add(self, row: StatRow) -> None:
        """Count one row (called once per row of the group, in one pass). A tally that reads
        only some probes, protocols or cues may also define `wants(probe, protocol, cue) ->
        bool`: it is then fed only the rows of the keys it wants (asked once per key).

        A tally may instead define `add_rows(rows: Sequence[StatRow]) -> None`: the summary's
        pass then hands it its rows a few thousand at a time, in the order `add` would get
        them (so first-seen orders are kept), and never calls `add`. It must leave the tally
        exactly as calling `add` on each row would: the usual shape is `add_rows` holding the
        per-row body in one local loop and `add(row)` calling `add_rows((row,))`, so the rule
        is written once and a Python call per row is saved (the report runs over 300,000+
        rows). The sequence is reused for the next rows: keep counts, never the sequence."""

    def records(self, ctx: GroupContext) -> list[Record]:
        """The section's records for this group (empty when the rows hold nothing for it)."""


@runtime_checkable
class TakesRows(Protocol):
    """A tally with the optional `add_rows` (see `Tally.add`)."""

    def add_rows(self, rows: Sequence[StatRow]) -> None: ...


class FromInputs:
    """The tally of a unit whose records come from `GroupContext.inputs`, not the rows:
    `FromInputs.of(compute)` is its `start`."""

    reads_rows: ClassVar[bool] = False

    def __init__(self, compute: Callable[[GroupContext], list[Record]]) -> None:
        self.compute = compute

    def add(self, row: StatRow) -> None:
        pass

    def records(self, ctx: GroupContext) -> list[Record]:
        return self.compute(ctx)

    @classmethod
    def of(cls, compute: Callable[[GroupContext], list[Record]]) -> Callable[[str, str], Tally]:
        return lambda judge, task: cls(compute)


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
    input: str | None = None
    """Started only for groups whose `GroupContext.inputs[input]` is given (not None)."""
    across: bool = False
    """Started once per summary, after every group, and fed no rows (see the module
    docstring); its records read `GroupContext.inputs['runs']`."""
    aside: str | None = None
    """When set, its behaviours stay out of the cascade: they follow the verdict's own, and its
    text ends "<aside>: …"."""
    companions: tuple[str, ...] = ()
    """Further summary.json sections it writes (its tally's `companions()`, a dict by name)."""
    optional: bool = False
    """Its sections are left out of summary.json while they hold no record."""

    @property
    def sections(self) -> tuple[str, ...]:
        return (self.name, *self.companions)
