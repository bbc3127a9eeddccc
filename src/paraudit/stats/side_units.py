"""The side analyses that existed before the registry, each wrapped as one `Analysis` unit.

Their statistics stay where they were (stats/null_audio.py, stats/samples.py,
stats/delivery.py); this module only adapts each to the protocol of `stats/analysis.py`: a
tally fed row by row in the group's one pass, its records, the verdict behaviours it raises.
summary.json's values for these sections are pinned byte for byte by
`tests/stats/test_registry.py` against the summary the code wrote before the registry.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from operator import attrgetter

from paraudit.stats.analysis import Analysis, GroupContext, Record
from paraudit.stats.delivery import DeliveryCell
from paraudit.stats.model import Behaviour, Estimate
from paraudit.stats.null_audio import NullTally, null_behaviour
from paraudit.stats.samples import consistency_of
from paraudit.stats.statrow import StatRow
from paraudit.stats.verdict_text import delivery_text


class NullAudioTally:
    """Probe N's counts, fed row by row (`stats/null_audio.py`'s `NullTally`: no row is kept),
    and the real-audio answers its N rows are compared with (twin key → pred).

    Started only for groups holding N rows (`probes`), so the real answers it keeps cost
    nothing in runs that did not ask N. N rows enter no other section."""

    def __init__(self, judge: str, task: str) -> None:
        self.tally = NullTally()

    def add(self, row: StatRow) -> None:
        if row.probe == "N":
            self.tally.add_null(row)
        else:
            self.tally.add_real(row)

    def records(self, ctx: GroupContext) -> list[Record]:
        return self.tally.records(ctx.judge, ctx.task, replicates=ctx.replicates,
                                  seed=ctx.seed)  # fmt: skip


def null_audio_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    found = null_behaviour(list(records))
    return [found] if found is not None else []


_AGREEMENT = attrgetter("agreement")


class SamplesTally:
    """`?samples=N`: per probe, per item, each sampled question's share of agreeing draws."""

    def __init__(self, judge: str, task: str) -> None:
        self.judge, self.task = judge, task
        self.by: dict[tuple[str, str, str], dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(list)
        )

    def wants(self, probe: str, protocol: str, cue: str) -> bool:
        return probe != "N"

    def add(self, row: StatRow) -> None:
        self.add_rows((row,))

    def add_rows(self, rows: Sequence[StatRow]) -> None:
        if not any(map(_AGREEMENT, rows)):  # unsampled rows (most runs): skipped in C
            return
        for row in rows:
            a = row.agreement
            if a is not None and row.probe != "N":
                self.by[(self.judge, self.task, row.probe)][row.item_id].append(a[0] / a[1])

    def records(self, ctx: GroupContext) -> list[Record]:
        return consistency_of(self.by, replicates=ctx.replicates, seed=ctx.seed)


class DeliveryTally:
    """The audio-delivery check reads the calls' usage, not the rows: its cell comes in
    through `GroupContext.inputs['delivery']` (RowGroups.delivery.cells() for the group)."""

    reads_rows = False

    def __init__(self, judge: str, task: str) -> None:
        pass

    def add(self, row: StatRow) -> None:
        pass

    def records(self, ctx: GroupContext) -> list[Record]:
        cell = ctx.inputs.get("delivery")
        return [cell.model_dump(mode="json")] if isinstance(cell, DeliveryCell) else []


def delivery_behaviours(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    """'audio not delivered in N calls' when any call that sent audio came back with no (or
    far too few) audio counted (the rule: stats/delivery.py). Calls whose usage holds no count
    are not checked, so a judge that reports no usage never shows it."""
    out = []
    for rec in records:
        d = DeliveryCell.model_validate(rec)
        if d.flagged:
            share = Estimate(rate=d.flagged / d.checked if d.checked else None)
            out.append(Behaviour(kind="audio not delivered", evidence=share,
                                 text=delivery_text(d.flagged, d.text)))  # fmt: skip
    return out


NULL_AUDIO = Analysis(
    name="null_audio",
    title="Null audio N: answers with nothing to hear",
    start=NullAudioTally,
    behaviours=null_audio_behaviours,
    report="paraudit.report.null_audio:registered_part",
    probes=frozenset({"N"}),
)
SELF_CONSISTENCY = Analysis(
    name="self_consistency",
    title="Self-consistency of sampled judges",
    start=SamplesTally,
    report="paraudit.report.samples:registered_part",
    intervals=len,  # one agreement interval per record
)
DELIVERY = Analysis(
    name="delivery",
    title="Audio delivery",
    start=DeliveryTally,
    behaviours=delivery_behaviours,
)
