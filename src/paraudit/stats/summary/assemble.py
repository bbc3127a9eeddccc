"""The summary's third stage: every group's tallies and sections, the registered analyses and
the verdict, assembled into summary.json's dict (the package docstring has its schema).

Every section after `verdicts` is a registered analysis (`stats/analyses.py`): a unit whose
tally is fed in the group's one pass over its rows (`tally.py`), or reads the group's twins, or
compares groups and runs once after every group; this module names none of them.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from paraudit.items.twins import MARK
from paraudit.stats.analyses import ANALYSES
from paraudit.stats.analysis import Analysis, GroupContext, Runs
from paraudit.stats.bootstrap import DEFAULT_B
from paraudit.stats.delivery import DeliveryCell
from paraudit.stats.dependence import ALPHA, PERMUTATIONS
from paraudit.stats.model import Behaviour
from paraudit.stats.strata import Attributes
from paraudit.stats.summary.sections import Group, finish_accuracy
from paraudit.stats.units import Row
from paraudit.stats.verdicts import Evidence, native_cue, position_direction, verdict

SCHEMA = "paraudit.summary/3"
CORE_SECTIONS = (
    "accuracy",
    "protocol_gap",
    "cue_dependence",
    "staging_minus_oracle",
    "states",
    "position_bias",
    "behaviour",
    "transcript_control",
    "perception_turns",
    "perception_positions",
    "order_dependence",
    "behaviour_by_cue",
    "verdicts",
)
SECTIONS = CORE_SECTIONS + tuple(s for a in ANALYSES for s in a.sections)
"""Every section summarize() writes: the core's, then each registered analysis's (an
`optional` one only when it holds records)."""
OPTIONAL = frozenset(s for a in ANALYSES if a.optional for s in a.sections)
"""Sections written only when they hold records (absent from summaries of other runs)."""


def summarize(
    rows: list[Row], *, replicates: int = DEFAULT_B, seed: int = 0,
    permutations: int = PERMUTATIONS,
    delivery: Mapping[tuple[str, str], DeliveryCell] | None = None,
    attributes: Attributes | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Every statistic of the report (see the module docstring for the schema). `delivery`:
    the audio-delivery check per judge × task, from the calls' usage, which a StatRow does not
    carry (`delivery.tally_rows(result_rows).cells()`; runs read by rowgroups tally it there)."""
    groups: dict[tuple[str, str], list[Row]] = defaultdict(list)
    twins: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for r in rows:  # invariance twins only enter the invariance sections (stats/invariance.py)
        # (judge, task) is the row's first two fields (a StatRow is a tuple: statrow.FIELDS),
        # sliced in C; r[2] its item.
        (twins if MARK in r[2] else groups)[r[:2]].append(r)
    ordered = [(judge, task, rs) for (judge, task), rs in sorted(groups.items())]
    return summarize_groups(
        ordered,
        replicates=replicates,
        seed=seed,
        permutations=permutations,
        delivery=delivery,
        attributes=attributes,
        twins=twins,
        runs=Runs(
            tuple(sorted({j for j, _ in groups})), lambda: (r for *_, g in ordered for r in g)
        ),
    )


def summarize_groups(
    groups: Iterable[tuple[str, str, Iterable[Row]]],
    *,
    replicates: int = DEFAULT_B,
    seed: int = 0,
    permutations: int = PERMUTATIONS,
    delivery: Mapping[tuple[str, str], DeliveryCell] | None = None,
    attributes: Attributes | None = None,
    twins: Mapping[tuple[str, str], Iterable[Row]] | None = None,
    runs: Runs | None = None,
) -> dict[str, Any]:
    """summarize() over rows given per judge × task (each group's rows are iterated twice and
    may be rebuilt on each pass: stats/rowgroups.py keeps a million rows compact that way).
    `delivery`: the audio-delivery check per judge × task (RowGroups.delivery.cells());
    `twins`: the rows of invariance twins per judge × task, kept out of the groups
    (RowGroups.twins; a twin is asked right after its original, so its group is there);
    `runs`: what the units that compare groups or runs read (stats/analysis.py's `across`)."""
    # The tallies allocate many small containers while hundreds of thousands of row dicts are
    # alive; the cyclic garbage collector would rescan all of them again and again (measured:
    # 2–3x the whole tally). Nothing here makes reference cycles, so it is paused meanwhile.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _summarize(groups, replicates, seed, permutations, delivery or {},
                          attributes or {}, twins or {}, runs)  # fmt: skip
    finally:
        if paused:
            gc.enable()


def _unit_behaviours(
    sections: Mapping[str, list[dict[str, Any]]], ctx: GroupContext
) -> tuple[list[Behaviour], dict[str, list[Behaviour]]]:
    """Each registered analysis's behaviours, in the registry's order: those the cascade
    weighs, and those set aside (by the unit's `aside`)."""
    weighed: list[Behaviour] = []
    aside: dict[str, list[Behaviour]] = {}
    for a in ANALYSES:
        if a.name in sections:
            found = a.behaviours(sections[a.name], ctx)
            if a.aside is None:
                weighed += found
            elif found:
                aside[a.aside] = found
    return weighed, aside


def _put(out: dict[str, Any], a: Analysis, sections: Mapping[str, list[dict[str, Any]]]) -> int:
    """Append a unit's records to its sections (an `optional` one only when it has some);
    returns the item-level intervals they hold."""
    for name in a.sections:
        records = sections.get(name, [])
        if records or not a.optional:
            out.setdefault(name, []).extend(records)
    return a.intervals(sections.get(a.name, []))


def _summarize(
    groups: Iterable[tuple[str, str, Iterable[Row]]], replicates: int, seed: int,
    permutations: int, delivery: Mapping[tuple[str, str], DeliveryCell],
    attributes: Attributes, twins: Mapping[tuple[str, str], Iterable[Row]], runs: Runs | None,
) -> dict[str, Any]:  # fmt: skip
    # Every section, even with no group (an `optional` one only once it has records: _put).
    out: dict[str, Any] = {s: [] for s in SECTIONS if s not in OPTIONAL}
    intervals = 0
    judges: set[str] = set()
    for judge, task, rs in groups:
        judges.add(judge)
        g = Group(judge, task, rs, seed, permutations)
        inputs = {"delivery": delivery.get((judge, task)), "invariance": twins.get((judge, task))}
        tallies = g.start(ANALYSES, inputs)
        g.tally(tallies.values())
        accuracy = g.accuracy()
        gaps, cues, staging = g.differences()
        order_dep = g.order_dependence()
        positions = g.perception_positions()
        states = g.states()
        rates = g.rates()
        intervals += g.resolve(replicates, seed)
        finish_accuracy(accuracy)
        acc = {(a["probe"], a["protocol"], a["cue"]): a for a in accuracy}
        for s in states:
            weak = [
                p
                for p in "POJ"
                if not acc.get((p, "pointwise", s["cue"]), {}).get("above_chance", False)
            ]
            s["interpretable"] = not weak
            s["not_above_chance"] = weak
        for p in rates["position_bias"]:
            p["direction"] = position_direction(p)
        by_position: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for rec in positions:
            by_position[rec["cue"]].append(rec)
        mine = {i: a for (t, i), a in attributes.items() if t == task}
        ctx = GroupContext(judge=judge, task=task, items=len(g.sheet.items),
                           replicates=replicates, seed=seed, accuracy=acc,
                           inputs=inputs, attributes=mine)  # fmt: skip
        sections: dict[str, list[dict[str, Any]]] = {}
        for name, t in tallies.items():
            sections[name] = t.records(ctx)
            more = getattr(t, "companions", None)  # a unit's further sections
            if more is not None:
                sections.update(more())
        evidence = Evidence(
            judge=judge,
            task=task,
            items=len(g.sheet.items),
            accuracy=acc,
            gaps={d["cue"]: d for d in gaps},
            cue_dependence={(d["protocol"], d["cue"]): d for d in cues},
            states={s["cue"]: s for s in states},
            position=[p for p in rates["position_bias"] if p["direction"]],
            behaviour={b["cue"]: b for b in rates["behaviour_by_cue"]},
            order_gap={d["cue"]: d for d in order_dep},
            turn_positions=dict(by_position),
            failed_calls=(g.failed, g.rows_seen),
            sections=sections,
        )
        ctx = replace(ctx, native_cue=native_cue(evidence))
        evidence.unit_behaviours, evidence.unit_asides = _unit_behaviours(sections, ctx)
        out["verdicts"].append(verdict(evidence).model_dump(mode="json"))
        out["accuracy"] += accuracy
        out["protocol_gap"] += gaps
        out["cue_dependence"] += cues
        out["staging_minus_oracle"] += staging
        out["states"] += states
        out["position_bias"] += rates["position_bias"]
        out["behaviour"].append(rates["behaviour"])
        out["transcript_control"].append(rates["transcript_control"])
        out["perception_turns"] += rates["perception_turns"]
        out["perception_positions"] += positions
        out["order_dependence"] += order_dep
        out["behaviour_by_cue"] += rates["behaviour_by_cue"]
        for a in ANALYSES:
            intervals += _put(out, a, sections)
    # The units that compare groups or runs, once, after every group.
    ctx = GroupContext(judge="", task="", items=0, replicates=replicates, seed=seed,
                       inputs={"runs": runs})  # fmt: skip
    for a in ANALYSES:
        if a.across:
            intervals += _put(out, a, {a.name: a.start("", "").records(ctx)})
    return {
        "schema": SCHEMA,
        "judges": sorted(judges),
        "bootstrap": {"replicates": replicates, "seed": seed, "unit": "item"},
        "dependence": {
            "test": "item-block permutation, max-z over groups",
            "permutations": permutations,
            "alpha": ALPHA,
        },  # fmt: skip
        "intervals": intervals,
        **out,
    }
