"""The audit plan: items × probes × protocols × cues × presentations (× branches for pointwise).

The runner asks items in a seeded shuffled order (`asking_order`, `asking=True`), every
question of one item together; the plan as listed keeps dataset order.

Pointwise questions are asked in both response orders; pairwise ones in both context orders
(CA = branch 0 or branch 1) × both response orders. `orders="one"` asks one seeded draw of those
per question instead.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from paraudit.items.balance import unsupported_reason
from paraudit.items.dataset import Dataset
from paraudit.items.records import AuditItem
from paraudit.items.taxonomy import item_dimension
from paraudit.items.twins import is_twin, split_twin
from paraudit.protocols.instances import (
    Instance,
    Probe,
    Protocol,
    cues_for,
    is_multi_turn,
    j_instance,
    p_instance,
    p_labels,
    presentations,
    text_instance,
)
from paraudit.protocols.null_probe import NULL_ASKS, NULL_KINDS, NullKind, n_instance, null_clips
from paraudit.protocols.questions import annotation_for
from paraudit.protocols.ties import is_tie

# Probes that offer two emotions per branch: an item whose branch has more than two distinct
# human emotions would get a wrong gold, so it gets none of them.
TWO_EMOTION_PROBES: tuple[Probe, ...] = ("P", "O", "S")


@dataclass(frozen=True)
class PlanSpec:
    probes: tuple[Probe, ...]
    protocols: tuple[Protocol, ...]
    cues: tuple[str, ...]
    orders: str = "both"
    seed: int = 0
    limit: int | None = None
    prompts: str = "paper"
    """The prompt preset: 'paper' (the paper's wordings) or 'ties' (J may answer "tie",
    pointwise and pairwise; tie items are asked only under it: protocols/ties.py)."""
    null_dir: str | None = None
    """Where probe N's null clips are stored (RUN/null_audio once the run folder is claimed;
    None: a scratch folder, for checks and dry runs)."""


class Skip(NamedTuple):
    """A probe not asked on an item, and why (written to run.json under "skipped")."""

    item_id: str
    probe: str
    reason: str


def limited_items(ds: Dataset, limit: int | None) -> list[AuditItem]:
    """The items a plan asks: all of them, or with --limit N the first N of each task (in
    dataset order). The first N overall would be single-turn items only in a dataset listed
    task by task, and a quick trial would then have no positional or conversation items."""
    if limit is None:
        return list(ds.items)
    taken: Counter[str] = Counter()
    kept: set[str] = set()
    out = []
    for item in ds.items:
        twin = split_twin(item.id)
        if twin is not None:  # an invariance twin comes with its original, never counted
            if twin[0] in kept:
                out.append(item)
        elif taken[item.task] < limit:
            taken[item.task] += 1
            kept.add(item.id)
            out.append(item)
    return out


def asking_order(items: list[AuditItem], seed: int) -> list[AuditItem]:
    """The items in the order they are asked: a seeded shuffle (each invariance twin right
    after its original). Call order then carries no trace of dataset order, so accuracy by
    call order measures drift in the judge, not the dataset's listing: a set listed contrast
    by contrast, asked in that order, would make a judge good on the first contrast look as
    if it got worse during the run (stats/served.py's drift test relies on this)."""
    units: dict[str, list[AuditItem]] = {}
    for item in items:
        twin = split_twin(item.id)
        units.setdefault(twin[0] if twin else item.id, []).append(item)

    def rank(unit: str) -> bytes:
        return hashlib.sha256(f"{seed}|{unit}".encode()).digest()

    return [item for unit in sorted(units, key=rank) for item in units[unit]]


def asked_items(ds: Dataset, spec: PlanSpec, asking: bool = False) -> list[AuditItem]:
    """limited_items, in asking order when `asking` (the runner's), else in dataset order
    (the plan as listed: dry runs, estimates, tests that rebuild it)."""
    items = limited_items(ds, spec.limit)
    return asking_order(items, spec.seed) if asking else items


def _asks(item: AuditItem, probe: Probe) -> bool:
    if is_twin(item):
        return probe == "J"  # an invariance twin asks one thing: the same J choice again
    return probe not in TWO_EMOTION_PROBES or unsupported_reason(item) is None


def plan_skips(ds: Dataset, spec: PlanSpec) -> list[Skip]:
    """Every (item, probe) the plan leaves out, with the reason."""
    out: list[Skip] = []
    for item in limited_items(ds, spec.limit):
        why = unsupported_reason(item)
        if why is None:
            continue
        out += [Skip(item.id, p, why) for p in spec.probes if p in TWO_EMOTION_PROBES]
    return out


def _branches(protocol: Protocol) -> list[int | None]:
    return [0, 1] if protocol == "pointwise" else [None]


class _Question(NamedTuple):
    item: AuditItem
    probe: Probe
    protocol: Protocol
    cue: str
    branch: int | None
    context_order: str | None
    order: str
    asks: Probe | None = None
    null: str | None = None


def _questions(ds: Dataset, spec: PlanSpec, asking: bool = False) -> Iterator[_Question]:
    """What the plan asks, in plan order (asking order: see asked_items), before any prompt is
    built."""
    for item in asked_items(ds, spec, asking):
        tie = is_tie(item)
        for probe in spec.probes:
            if tie and (probe != "J" or spec.prompts != "ties"):
                continue  # the audio does not decide it: only the ties preset's J can answer
            if probe == "N":
                yield from _null_questions(item, spec)
                continue
            if probe == "S" or not _asks(item, probe):
                continue
            # Tie items reach here only under the ties preset, which offers "tie" in both.
            pointwise_only = probe in ("P", "T") or is_twin(item)
            protocols = ("pointwise",) if pointwise_only else spec.protocols
            for protocol in protocols:
                for cue in cues_for(item, probe, spec.cues, protocol):
                    for branch in _branches(protocol):
                        key = f"{probe}|{protocol}|{cue}|{branch}"
                        for ctx, order in presentations(
                            item, protocol, spec.orders, spec.seed, key
                        ):
                            yield _Question(item, probe, protocol, cue, branch, ctx, order)


def _null_questions(item: AuditItem, spec: PlanSpec) -> Iterator[_Question]:
    """Probe N: every pointwise P and J question of the item (whether or not P and J are
    planned themselves), once per null kind. The presentation draw uses the real question's key,
    so with --orders one each N question has its real twin when P/J run too."""
    for asks in NULL_ASKS:
        if not _asks(item, asks):
            continue
        for cue in cues_for(item, asks, spec.cues):
            for branch in (0, 1):
                key = f"{asks}|pointwise|{cue}|{branch}"
                for ctx, order in presentations(item, "pointwise", spec.orders, spec.seed, key):
                    for kind in NULL_KINDS:
                        yield _Question(item, "N", "pointwise", cue, branch, ctx, order, asks, kind)


def iter_instances(ds: Dataset, spec: PlanSpec, *, asking: bool = False) -> Iterator[Instance]:
    """Every instance except Staging (which needs the judge's P answers first), built one at a
    time in plan order: a runner streams them, so memory does not grow with the plan. The
    runner asks with `asking` (items in asking_order)."""
    for q in _questions(ds, spec, asking):
        if q.probe == "N":
            assert q.asks is not None and q.branch is not None
            kind: NullKind = "noise" if q.null == "noise" else "silence"
            clips = null_clips(spec.null_dir)
            yield n_instance(ds, q.item, q.asks, kind, q.cue, q.order, q.branch, clips)
        elif q.probe == "J":
            yield j_instance(
                ds, q.item, q.protocol, q.cue, q.order, q.branch, q.context_order, spec.prompts
            )
        elif q.probe == "P":
            assert q.branch is not None
            yield p_instance(ds, q.item, q.cue, q.order, q.branch)
        else:
            yield text_instance(
                q.item,
                q.probe,
                q.protocol,
                q.cue,
                q.order,
                q.branch,
                None,
                q.context_order,
                annotation_for(q.item, ds.manifest),  # the O/S label line in its dimension's words
                item_dimension(q.item, ds.manifest),
            )


def count_instances(ds: Dataset, spec: PlanSpec) -> int:
    """len(plan_instances(ds, spec)), counted without building a prompt."""
    return sum(1 for _ in _questions(ds, spec))


def plan_instances(ds: Dataset, spec: PlanSpec) -> list[Instance]:
    """Every instance except Staging, as a list (small plans, dry runs, estimates)."""
    return list(iter_instances(ds, spec))


def staging_instances(
    ds: Dataset, spec: PlanSpec, p_preds: dict[tuple[str, int, str], tuple[str, ...]]
) -> list[Instance]:
    """S instances from the judge's own P predictions, keyed (item, branch, cue) → labels."""
    return list(iter_staging(ds, spec, p_preds))


def iter_staging(
    ds: Dataset,
    spec: PlanSpec,
    p_preds: dict[tuple[str, int, str], tuple[str, ...]],
    *,
    asking: bool = False,
) -> Iterator[Instance]:
    """staging_instances, one at a time in plan order (asking order with `asking`)."""
    if "S" not in spec.probes:
        return
    for item in asked_items(ds, spec, asking):
        if not _asks(item, "S"):
            continue
        for protocol in spec.protocols:
            for cue in cues_for(item, "S", spec.cues):
                staged = {b: p_preds.get((item.id, b, cue)) for b in (0, 1)}
                if any(v is None for v in staged.values()):
                    continue  # no parsed P answer: Staging cannot be asked (counted as skipped)
                given = {b: v for b, v in staged.items() if v}
                for branch in _branches(protocol):
                    key = f"S|{protocol}|{cue}|{branch}"
                    for ctx, order in presentations(item, protocol, spec.orders, spec.seed, key):
                        yield text_instance(
                            item,
                            "S",
                            protocol,
                            cue,
                            order,
                            branch,
                            given,
                            ctx,
                            annotation_for(item, ds.manifest),
                            item_dimension(item, ds.manifest),
                        )


__all__ = [
    "PlanSpec",
    "count_instances",
    "Skip",
    "is_multi_turn",
    "iter_instances",
    "iter_staging",
    "p_labels",
    "plan_instances",
    "plan_skips",
    "staging_instances",
]
