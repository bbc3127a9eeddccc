"""The analyses that read twin items or pairs of runs, each wrapped as one `Analysis` unit.

Their statistics stay where they were (stats/invariance.py, stats/joined.py,
stats/scaffold.py, stats/generator_bias.py); this module adapts each to the protocol of
`stats/analysis.py`, through its extensions for such inputs:

- invariance: a group's rows and its twins' rows (`input`), its habits kept out of the
  cascade (`aside`), the per-voice accuracy as a second section (`companions`);
- joined clips, scaffold, generator bias: one comparison across groups or runs (`across`),
  computed from `Runs` only when its pair is there.

All four sections are `optional`: summaries of runs without twins or pairs stay as they were.
The comparisons' modules are imported only when their pair is found (the generator check
needs scipy, which a summary without it should not pay to import).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paraudit.stats.analysis import Analysis, FromInputs, GroupContext, Record, Runs
from paraudit.stats.invariance import InvarianceTally
from paraudit.stats.model import Behaviour

Compute = Callable[[GroupContext], list[Record]]


def _runs(ctx: GroupContext) -> Runs | None:
    runs = ctx.inputs.get("runs")
    return runs if isinstance(runs, Runs) else None


def invariance_habits(records: Sequence[Record], ctx: GroupContext) -> list[Behaviour]:
    from paraudit.stats.verdicts import invariance_behaviours

    return invariance_behaviours(list(records))


def joined_records(ctx: GroupContext) -> list[Record]:
    """One judge audited with its clips separate and joined (stats/joined.py)."""
    from paraudit.stats.joined import joined_pairs, side_by_side

    runs = _runs(ctx)
    if runs is None or not joined_pairs(runs.judges):
        return []
    return side_by_side(runs.rows(), replicates=ctx.replicates, seed=ctx.seed)


def scaffold_records(ctx: GroupContext) -> list[Record]:
    """A judge beside its `scaffold:` (stats/scaffold.py); calls per answer from the run
    folders' usage, when there are folders."""
    from paraudit.stats.scaffold import calls_per_answer, scaffold_pairs, side_by_side

    runs = _runs(ctx)
    if runs is None or not scaffold_pairs(runs.judges):
        return []
    calls = calls_per_answer(list(runs.folders))
    return side_by_side(runs.rows(), calls=calls, replicates=ctx.replicates, seed=ctx.seed)


def generator_records(ctx: GroupContext) -> list[Record]:
    """Two runs on two generators' sets (stats/generator_bias.py): its one result."""
    runs = _runs(ctx)
    if runs is None or len(runs.folders) != 2:
        return []
    from paraudit.stats.generator_bias import check_runs

    result = check_runs(list(runs.folders), replicates=ctx.replicates, seed=ctx.seed)
    return [] if result is None else [result]


def _comparison(name: str, title: str, compute: Compute, part: str) -> Analysis:
    """An `across` unit, its section `optional`, its part report/<part>.py's registered_part."""
    return Analysis(name=name, title=title, start=FromInputs.of(compute), across=True,
                    optional=True, report=f"paraudit.report.{part}:registered_part")  # fmt: skip


GENERATOR_BIAS = _comparison("generator_bias", "Generator bias", generator_records, "generators")
SCAFFOLD = _comparison("scaffold", "Mitigation: judge and scaffold side by side",
                       scaffold_records, "scaffold")  # fmt: skip
JOINED = _comparison("joined", "Harness: the same judge with its clips separate and joined",
                     joined_records, "joined")  # fmt: skip
INVARIANCE = Analysis(
    name="invariance",
    title="Invariance: flips on irrelevant changes, and accuracy per voice",
    start=InvarianceTally,
    behaviours=invariance_habits,
    report="paraudit.report.invariance:registered_part",
    input="invariance",
    aside="Invariance",
    companions=("invariance_voices",),
    optional=True,
)

__all__ = ["GENERATOR_BIAS", "INVARIANCE", "JOINED", "SCAFFOLD"]
